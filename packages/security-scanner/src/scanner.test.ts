import { effectiveRules } from './effective-rules';
import { InvalidRuleError, MAX_DEPTH, ScanError, Scanner } from './scanner';
import { DETECTOR_KINDS, type SecurityRule } from './types';

let nextId = 0;
function rule(fields: Partial<SecurityRule> & Pick<SecurityRule, 'detector'>): SecurityRule {
  nextId += 1;
  return { id: `rule-${nextId}`, name: `${fields.detector} rule`, direction: 'both', action: 'redact', enabled: true, ...fields };
}

const EMAIL = 'alice@example.com';
const CARD = '4111 1111 1111 1111';
const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

describe('Scanner: redaction', () => {
  it('replaces a redacted value with [REDACTED:<KIND>]', () => {
    const scanner = new Scanner([rule({ detector: 'EMAIL_ADDRESS' })]);
    const result = scanner.scan({ to: `Write to ${EMAIL} please` }, 'outbound');
    expect(result.value).toEqual({ to: 'Write to [REDACTED:EMAIL_ADDRESS] please' });
    expect(result.blocked).toBeNull();
  });

  it('marks every built-in kind with its own name', () => {
    const scanner = new Scanner(DETECTOR_KINDS.map((kind) => rule({ detector: kind })));
    const text = `${EMAIL} | +1 (415) 555-0134 | ${CARD} | 123-45-6789 | DE89 3704 0044 0532 0130 00 | 192.168.1.10 | ${AWS_KEY}`;
    expect(scanner.scan(text, 'outbound').value).toBe(
      '[REDACTED:EMAIL_ADDRESS] | [REDACTED:PHONE_NUMBER] | [REDACTED:CREDIT_CARD] | [REDACTED:US_SSN] | [REDACTED:IBAN] | [REDACTED:IP_ADDRESS] | [REDACTED:SECRET]',
    );
  });

  it('marks a custom rule with its label', () => {
    const scanner = new Scanner([rule({ detector: 'CUSTOM', name: 'Employee ids', pattern: 'EMP-\\d{6}', label: 'EMPLOYEE_ID' })]);
    const result = scanner.scan({ note: 'owner EMP-004211, backup EMP-000017' }, 'inbound');
    expect(result.value).toEqual({ note: 'owner [REDACTED:EMPLOYEE_ID], backup [REDACTED:EMPLOYEE_ID]' });
    expect(result.detections).toEqual([
      { rule_id: expect.any(String), rule_name: 'Employee ids', kind: 'EMPLOYEE_ID', direction: 'inbound', action: 'redact', path: '$.note', count: 2 },
    ]);
  });

  it('honours a custom rule flags', () => {
    const scanner = new Scanner([rule({ detector: 'CUSTOM', pattern: 'project (falcon|osprey)', flags: 'i', label: 'CODENAME' })]);
    expect(scanner.scan('Project FALCON ships', 'outbound').value).toBe('[REDACTED:CODENAME] ships');
  });

  it('redacts a card number sent as a JSON number, which then becomes the marker string', () => {
    const scanner = new Scanner([rule({ detector: 'CREDIT_CARD' })]);
    expect(scanner.scan({ card: 4111111111111111, order: 1234567812345670, qty: 2 }, 'inbound').value).toEqual({
      card: '[REDACTED:CREDIT_CARD]',
      order: 1234567812345670,
      qty: 2,
    });
  });

  it('redacts object keys too, and keeps colliding keys apart', () => {
    const scanner = new Scanner([rule({ detector: 'EMAIL_ADDRESS' })]);
    const result = scanner.scan({ users: { [EMAIL]: { role: 'admin' }, 'bob@example.com': { role: 'viewer' }, total: 2 } }, 'outbound');
    expect(result.value).toEqual({
      users: { '[REDACTED:EMAIL_ADDRESS]': { role: 'admin' }, '[REDACTED:EMAIL_ADDRESS] (2)': { role: 'viewer' }, total: 2 },
    });
    expect(Object.keys((result.value as { users: object }).users)).toEqual(['[REDACTED:EMAIL_ADDRESS]', '[REDACTED:EMAIL_ADDRESS] (2)', 'total']);
  });

  it('keeps the key order and a "__proto__" key of a copied object', () => {
    const scanner = new Scanner([rule({ detector: 'EMAIL_ADDRESS' })]);
    const input = JSON.parse(`{"a":1,"__proto__":{"x":1},"b":"${EMAIL}","c":3}`) as Record<string, unknown>;
    const out = scanner.scan(input, 'outbound').value as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['a', '__proto__', 'b', 'c']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out.b).toBe('[REDACTED:EMAIL_ADDRESS]');
  });

  it('merges overlapping matches of different rules into one marker', () => {
    const scanner = new Scanner([rule({ detector: 'EMAIL_ADDRESS' }), rule({ detector: 'CUSTOM', pattern: 'alice@', label: 'ALICE' })]);
    expect(scanner.scan(`to ${EMAIL}!`, 'outbound').value).toBe('to [REDACTED:EMAIL_ADDRESS]!');
  });

  it('names overlapping built-in matches after the longer one', () => {
    const scanner = new Scanner([rule({ detector: 'PHONE_NUMBER' }), rule({ detector: 'US_SSN' })]);
    const result = scanner.scan('+44 123 45 6789', 'outbound');
    expect(result.value).toBe('[REDACTED:PHONE_NUMBER]');
    expect(result.detections.map((d) => d.kind)).toEqual(['PHONE_NUMBER']);
  });
});

describe('Scanner: actions and precedence', () => {
  it('allow records the detection and changes nothing', () => {
    const scanner = new Scanner([rule({ detector: 'EMAIL_ADDRESS', action: 'allow' })]);
    const input = { to: EMAIL };
    const result = scanner.scan(input, 'outbound');
    expect(result.value).toBe(input);
    expect(result.blocked).toBeNull();
    expect(result.detections).toEqual([expect.objectContaining({ kind: 'EMAIL_ADDRESS', action: 'allow', path: '$.to', count: 1 })]);
  });

  it('block fails the scan and names the rule that fired', () => {
    const block = rule({ detector: 'SECRET', name: 'No cloud keys', action: 'block' });
    const result = new Scanner([block]).scan({ env: `AWS_ACCESS_KEY_ID=${AWS_KEY}` }, 'inbound');
    expect(result.blocked).toEqual({ rule_id: block.id, rule_name: 'No cloud keys', kind: 'SECRET' });
  });

  it('a blocked scan still returns every detection for the record', () => {
    const scanner = new Scanner([
      rule({ detector: 'EMAIL_ADDRESS', action: 'allow' }),
      rule({ detector: 'SECRET', action: 'block' }),
      rule({ detector: 'IP_ADDRESS', action: 'redact' }),
    ]);
    const result = scanner.scan({ a: EMAIL, b: AWS_KEY, c: 'from 10.1.2.3' }, 'outbound');
    expect(result.blocked?.kind).toBe('SECRET');
    expect(result.detections.map((d) => [d.kind, d.action, d.path])).toEqual([
      ['EMAIL_ADDRESS', 'allow', '$.a'],
      ['SECRET', 'block', '$.b'],
      ['IP_ADDRESS', 'redact', '$.c'],
    ]);
  });

  it('block wins over redact, and redact over allow, when rules overlap on the same text', () => {
    const allowEmail = rule({ detector: 'EMAIL_ADDRESS', action: 'allow' });
    const redactEmail = rule({ detector: 'EMAIL_ADDRESS', action: 'redact' });
    const blockDomain = rule({ detector: 'CUSTOM', pattern: '@example\\.com', label: 'EXAMPLE_DOMAIN', action: 'block' });

    const redacted = new Scanner([allowEmail, redactEmail]).scan(EMAIL, 'outbound');
    expect(redacted.value).toBe('[REDACTED:EMAIL_ADDRESS]');
    expect(redacted.detections.map((d) => d.action)).toEqual(['allow', 'redact']);

    const blocked = new Scanner([allowEmail, redactEmail, blockDomain]).scan(EMAIL, 'outbound');
    expect(blocked.blocked).toEqual({ rule_id: blockDomain.id, rule_name: blockDomain.name, kind: 'EXAMPLE_DOMAIN' });
    expect(blocked.detections).toHaveLength(3);
    // The value of a blocked scan is not meant to be sent on, but it never holds what a rule matched either.
    expect(blocked.value).toBe('[REDACTED:EXAMPLE_DOMAIN]');
  });

  it('the first block rule in traversal order is the one reported', () => {
    const first = rule({ detector: 'CUSTOM', pattern: 'alpha', label: 'ALPHA', action: 'block' });
    const second = rule({ detector: 'CUSTOM', pattern: 'beta', label: 'BETA', action: 'block' });
    expect(new Scanner([second, first]).scan(['alpha', 'beta'], 'outbound').blocked?.rule_id).toBe(first.id);
  });
});

describe('Scanner: directions', () => {
  it('applies inbound rules to arguments and outbound rules to results only', () => {
    const scanner = new Scanner([rule({ detector: 'EMAIL_ADDRESS', direction: 'inbound' }), rule({ detector: 'IP_ADDRESS', direction: 'outbound' })]);
    const text = `${EMAIL} 10.1.2.3`;
    expect(scanner.scan(text, 'inbound').value).toBe('[REDACTED:EMAIL_ADDRESS] 10.1.2.3');
    expect(scanner.scan(text, 'outbound').value).toBe(`${EMAIL} [REDACTED:IP_ADDRESS]`);
  });

  it('reports the direction of the scan in each detection', () => {
    const scanner = new Scanner([rule({ detector: 'EMAIL_ADDRESS', direction: 'both', action: 'allow' })]);
    expect(scanner.scan(EMAIL, 'inbound').detections[0]?.direction).toBe('inbound');
    expect(scanner.scan(EMAIL, 'outbound').detections[0]?.direction).toBe('outbound');
  });

  it('skips disabled rules', () => {
    const scanner = new Scanner([rule({ detector: 'EMAIL_ADDRESS', enabled: false })]);
    const result = scanner.scan(EMAIL, 'outbound');
    expect(result).toEqual({ value: EMAIL, detections: [], blocked: null });
  });

  it('refuses a direction other than inbound or outbound', () => {
    expect(() => new Scanner([]).scan('x', 'both' as never)).toThrow(TypeError);
  });
});

describe('Scanner: per-tool-pack overrides', () => {
  const org = [rule({ detector: 'EMAIL_ADDRESS', action: 'redact' }), rule({ detector: 'SECRET', action: 'block' })];
  const input = { to: EMAIL, token: AWS_KEY };

  it('a pack that disables a rule does not run it', () => {
    const result = new Scanner(effectiveRules(org, [{ rule_id: org[1]!.id, enabled: false }])).scan(input, 'inbound');
    expect(result.blocked).toBeNull();
    expect(result.value).toEqual({ to: '[REDACTED:EMAIL_ADDRESS]', token: AWS_KEY });
  });

  it('a pack that changes a rule action gets the new action', () => {
    const result = new Scanner(effectiveRules(org, [{ rule_id: org[0]!.id, action: 'allow' }, { rule_id: org[1]!.id, action: 'redact' }])).scan(input, 'inbound');
    expect(result.blocked).toBeNull();
    expect(result.value).toEqual({ to: EMAIL, token: '[REDACTED:SECRET]' });
    expect(result.detections.map((d) => d.action)).toEqual(['allow', 'redact']);
  });

  it('a rule disabled for the organization can be enabled for one pack', () => {
    const orgOff = [rule({ detector: 'IP_ADDRESS', enabled: false })];
    expect(new Scanner(effectiveRules(orgOff, [])).scan('10.1.2.3', 'outbound').value).toBe('10.1.2.3');
    expect(new Scanner(effectiveRules(orgOff, [{ rule_id: orgOff[0]!.id, enabled: true }])).scan('10.1.2.3', 'outbound').value).toBe('[REDACTED:IP_ADDRESS]');
  });
});

describe('Scanner: traversal', () => {
  const scanner = new Scanner([rule({ detector: 'EMAIL_ADDRESS', action: 'allow' })]);
  const paths = (value: unknown) => scanner.scan(value, 'outbound').detections.map((d) => d.path);

  it('gives the JSON path of each string that matched', () => {
    expect(paths({ input: { body: `from ${EMAIL}` } })).toEqual(['$.input.body']);
    expect(paths({ content: [{ type: 'text', text: 'ok' }, { type: 'text', text: EMAIL }] })).toEqual(['$.content[1].text']);
    expect(paths([[EMAIL]])).toEqual(['$[0][0]']);
    expect(paths(EMAIL)).toEqual(['$']);
    expect(paths({ 'first name': EMAIL, "it's": EMAIL })).toEqual(["$['first name']", "$['it\\'s']"]);
  });

  it('scans MCP text content that holds JSON as one string', () => {
    const result = { content: [{ type: 'text', text: JSON.stringify({ users: [{ email: EMAIL }, { email: 'bob@example.com' }] }) }] };
    expect(scanner.scan(result, 'outbound').detections).toEqual([expect.objectContaining({ path: '$.content[0].text', count: 2 })]);
  });

  it('shows a matching key masked in the path, never as written', () => {
    const result = scanner.scan({ byEmail: { [EMAIL]: { note: 'bob@example.com' } } }, 'outbound');
    expect(result.detections.map((d) => d.path)).toEqual(["$.byEmail['[REDACTED:EMAIL_ADDRESS]']", "$.byEmail['[REDACTED:EMAIL_ADDRESS]'].note"]);
  });

  it('never puts a matched value in the detections', () => {
    const all = new Scanner(DETECTOR_KINDS.map((kind) => rule({ detector: kind, action: 'allow' })).concat(rule({ detector: 'CUSTOM', pattern: 'EMP-\\d+', label: 'EMP', action: 'allow' })));
    const values = [EMAIL, '+1 (415) 555-0134', CARD, '123-45-6789', 'DE89370400440532013000', '192.168.1.10', AWS_KEY, 'EMP-4211'];
    const input = { list: values, text: values.join(' '), keyed: Object.fromEntries(values.map((v) => [v, v])) };
    const result = all.scan(input, 'outbound');
    expect(result.detections.length).toBeGreaterThan(values.length);
    const recorded = JSON.stringify(result);
    // allow leaves the value itself untouched, so look only at the detections.
    const detections = JSON.stringify(result.detections);
    for (const value of values) expect(detections).not.toContain(value);
    expect(recorded).toContain(EMAIL);
  });

  it('never mutates the input, even when it redacts', () => {
    const redacting = new Scanner([rule({ detector: 'EMAIL_ADDRESS' }), rule({ detector: 'CREDIT_CARD' })]);
    const input = deepFreeze({ a: { b: [EMAIL, 'keep'], c: 'same' }, d: { e: 'untouched' }, [EMAIL]: 4111111111111111 });
    const before = JSON.stringify(input);
    const { value } = redacting.scan(input, 'inbound');
    expect(JSON.stringify(input)).toBe(before);
    const out = value as typeof input;
    expect(out).not.toBe(input);
    expect(out.a.b).toEqual(['[REDACTED:EMAIL_ADDRESS]', 'keep']);
    // Untouched branches are shared, not copied.
    expect(out.d).toBe(input.d);
  });

  it('returns the same reference when nothing was redacted', () => {
    const redacting = new Scanner(DETECTOR_KINDS.map((kind) => rule({ detector: kind })));
    const input = { id: '550e8400-e29b-41d4-a716-446655440000', created_at: '2024-05-02T10:31:00Z', version: '2.14.1', count: 12, items: [{ ok: true }, null] };
    const result = redacting.scan(input, 'outbound');
    expect(result.value).toBe(input);
    expect(result.detections).toEqual([]);
  });

  it('returns the value itself when no rule applies to the direction', () => {
    const input = { to: EMAIL };
    expect(new Scanner([rule({ detector: 'EMAIL_ADDRESS', direction: 'inbound' })]).scan(input, 'outbound').value).toBe(input);
  });

  it(`scans containers nested deeper than ${MAX_DEPTH} levels as their JSON text`, () => {
    const redacting = new Scanner([rule({ detector: 'EMAIL_ADDRESS' })]);
    let deep: unknown = { email: EMAIL };
    for (let i = 0; i < MAX_DEPTH + 10; i++) deep = { next: deep };
    const result = redacting.scan(deep, 'outbound');
    expect(result.detections).toHaveLength(1);
    expect(result.detections[0]!.path).toBe(`$${'.next'.repeat(MAX_DEPTH)}`);
    let node = result.value as Record<string, unknown>;
    for (let i = 0; i < MAX_DEPTH; i++) node = node.next as Record<string, unknown>;
    expect(node).toBe(`{"next":${'{"next":'.repeat(9)}{"email":"[REDACTED:EMAIL_ADDRESS]"}${'}'.repeat(10)}`);
  });

  it('refuses a value nested 20,000 levels deep with a ScanError that says so, never a stack overflow', () => {
    let deep: unknown = { email: EMAIL };
    for (let i = 0; i < 20_000; i++) deep = [deep];
    let thrown: unknown;
    try {
      new Scanner([rule({ detector: 'EMAIL_ADDRESS' })]).scan({ input: deep }, 'inbound');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ScanError);
    expect((thrown as Error).message).toMatch(/^the value at \$\.input(\[0\])+ is nested more than 1064 levels deep, which the security scan does not accept; send flatter arguments$/);
    expect((thrown as Error).message).not.toMatch(/call stack/i);
  });

  it('refuses a cyclic value with a ScanError', () => {
    const cyclic: Record<string, unknown> = { a: 'x' };
    cyclic.self = cyclic;
    expect(() => new Scanner([rule({ detector: 'EMAIL_ADDRESS' })]).scan(cyclic, 'outbound')).toThrow(ScanError);
  });

  it('leaves non-JSON objects alone', () => {
    const date = new Date();
    const buffer = Buffer.from(EMAIL);
    const input = { date, buffer };
    expect(new Scanner([rule({ detector: 'EMAIL_ADDRESS' })]).scan(input, 'outbound').value).toBe(input);
  });

  it('scans very long strings completely', () => {
    const redacting = new Scanner(DETECTOR_KINDS.map((kind) => rule({ detector: kind })));
    const filler = 'lorem ipsum 2024-05-02T10:31:00Z v2.14.1 '.repeat(25_000);
    const result = redacting.scan(`${EMAIL} ${filler} ${CARD} ${filler} ${AWS_KEY}`, 'outbound');
    expect(result.detections.map((d) => d.kind)).toEqual(['EMAIL_ADDRESS', 'CREDIT_CARD', 'SECRET']);
    const value = result.value as string;
    expect(value.startsWith('[REDACTED:EMAIL_ADDRESS] lorem')).toBe(true);
    expect(value.endsWith('[REDACTED:SECRET]')).toBe(true);
  });
});

describe('Scanner: very large strings', () => {
  const all = new Scanner(DETECTOR_KINDS.map((kind) => rule({ detector: kind })));
  // Flattened, as JSON.parse gives them: a string built by repeat() is a rope that V8 flattens on first use.
  const run = (unit: string, length: number) => Buffer.from(unit.repeat(Math.ceil(length / unit.length)).slice(0, length)).toString();

  it.each(['1', '1 ', '1-', '4111 ', '123-45-', '+1', 'eyJ', 'AB12 ', 'a@', '1:', 'fe80:', '-----BEGIN PRIVATE KEY-----'])(
    'the built-in detectors scan an 8 MB run of %j without exhausting the regex engine',
    (unit) => {
      expect(() => all.scan(run(unit, 8_000_000), 'outbound')).not.toThrow();
    },
  );

  it('redacts a private key block with an 8 MB body as one detection', () => {
    const result = all.scan(`-----BEGIN PRIVATE KEY-----\n${run('QUJD\n', 8_000_000)}-----END PRIVATE KEY----- done`, 'outbound');
    expect(result.value).toBe('[REDACTED:SECRET] done');
  });

  it('fails with a ScanError when a custom pattern exhausts the regex engine', () => {
    const custom = rule({ detector: 'CUSTOM', pattern: 'x(?:a|b)+', label: 'AB' });
    expect(() => new Scanner([custom]).scan({ text: `x${run('ab', 16_000_000)}` }, 'outbound')).toThrow(
      expect.objectContaining({ name: 'ScanError', message: expect.stringContaining(custom.id) }),
    );
  });
});

describe('Scanner: construction', () => {
  it('refuses a rule validateRule would refuse, naming it', () => {
    const bad = rule({ detector: 'CUSTOM', pattern: '(a+)+$', label: 'A' });
    expect(() => new Scanner([bad])).toThrow(InvalidRuleError);
    expect(() => new Scanner([bad])).toThrow(bad.id);
  });

  it('ignores an invalid rule that is disabled', () => {
    expect(() => new Scanner([rule({ detector: 'CUSTOM', pattern: '(a+)+$', label: 'A', enabled: false })])).not.toThrow();
  });

  it('is reusable across calls', () => {
    const scanner = new Scanner([rule({ detector: 'EMAIL_ADDRESS', action: 'block' })]);
    expect(scanner.scan(EMAIL, 'outbound').blocked).not.toBeNull();
    expect(scanner.scan('clean', 'outbound')).toEqual({ value: 'clean', detections: [], blocked: null });
  });
});
