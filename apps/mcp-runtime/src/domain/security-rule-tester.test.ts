import { ValidationError } from '@patchbay/errors';
import type { SecurityRule } from '@patchbay/security-scanner';
import { draftRule, samplesOf, testRules } from './security-rule-tester';

const emails: SecurityRule = { id: 'r1', name: 'No emails', detector: 'EMAIL_ADDRESS', direction: 'both', action: 'redact', enabled: true };
const tickets: SecurityRule = { id: 'r2', name: 'Tickets', detector: 'CUSTOM', pattern: 'TICKET-\\d{4}', label: 'TICKET', direction: 'outbound', action: 'block', enabled: true };
const cards: SecurityRule = { id: 'r3', name: 'Cards', detector: 'CREDIT_CARD', direction: 'inbound', action: 'allow', enabled: false };

describe('the security rule tester', () => {
  it('shows free text after every enabled rule, both ways, and what each rule would do alone', () => {
    const result = testRules([emails, tickets, cards], samplesOf({ text: 'Mail ada@example.com about TICKET-1234, card 4111 1111 1111 1111' }));
    const inbound = result.samples.find((s) => s.direction === 'inbound')!;
    const outbound = result.samples.find((s) => s.direction === 'outbound')!;
    expect(inbound.output).toBe('Mail [REDACTED:EMAIL_ADDRESS] about TICKET-1234, card 4111 1111 1111 1111');
    expect(inbound.blocked).toBeNull();
    expect(outbound.blocked).toEqual({ rule_id: 'r2', rule_name: 'Tickets', kind: 'TICKET' });
    expect(JSON.stringify(result)).not.toContain('ada@example.com","path');

    const [e, t, c] = result.rules;
    expect(e).toMatchObject({ rule_id: 'r1', outcome: 'redacted', fired: true, matches: [{ sample: 'text', direction: 'inbound', path: '$', count: 1 }, { sample: 'text', direction: 'outbound', path: '$', count: 1 }] });
    expect(t).toMatchObject({ rule_id: 'r2', kind: 'TICKET', outcome: 'blocked', matches: [{ direction: 'outbound', count: 1 }] });
    // A disabled rule does not change the samples, but the tester says what it would do if turned on.
    expect(c).toMatchObject({ rule_id: 'r3', enabled: false, outcome: 'recorded', fired: true, outputs: [] });
  });

  it('scans a tool call\'s arguments inbound and a result outbound, at their JSON paths', () => {
    const result = testRules([emails, tickets], samplesOf({ arguments: { input: { to: 'bob@example.org', subject: 'TICKET-0001' } }, result: { content: [{ type: 'text', text: 'see TICKET-0002' }] } }));
    expect(result.samples).toEqual([
      expect.objectContaining({ sample: 'arguments', direction: 'inbound', blocked: null, output: { input: { to: '[REDACTED:EMAIL_ADDRESS]', subject: 'TICKET-0001' } } }),
      expect.objectContaining({ sample: 'result', direction: 'outbound', blocked: expect.objectContaining({ rule_id: 'r2' }) }),
    ]);
    expect(result.rules[0]!.matches).toEqual([{ sample: 'arguments', direction: 'inbound', path: '$.input.to', count: 1 }]);
    expect(result.rules[1]!.matches).toEqual([{ sample: 'result', direction: 'outbound', path: '$.content[0].text', count: 1 }]);
  });

  it('tries a draft rule as a create would check it', () => {
    const draft = draftRule({ name: 'Order ids', detector: 'CUSTOM', pattern: 'ORD-\\d+', label: 'ORDER', direction: 'both', action: 'redact' });
    const result = testRules([draft], samplesOf({ text: 'order ORD-77' }));
    expect(result.rules[0]).toMatchObject({ rule_id: 'draft', outcome: 'redacted', outputs: [{ output: 'order [REDACTED:ORDER]' }, { output: 'order [REDACTED:ORDER]' }] });
    expect(() => draftRule({ name: 'Bad', detector: 'CUSTOM', pattern: '(a+)+$', direction: 'both', action: 'redact' })).toThrow(ValidationError);
  });

  it('refuses a request without samples, naming what to send', () => {
    expect(() => samplesOf({})).toThrow(/give text, arguments or result/);
    expect(() => samplesOf({ arguments: 'x' as unknown as Record<string, unknown> })).toThrow(ValidationError);
  });
});
