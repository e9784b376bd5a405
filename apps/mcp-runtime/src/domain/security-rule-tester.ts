import { ValidationError, type FieldError } from '@patchbay/errors';
import { ScanError, Scanner, validateRule, type SecurityRule } from '@patchbay/security-scanner';

/** The block rule that stopped a sample (the scanner's BlockedBy, named here for the OpenAPI document). */
export interface RuleTestBlock {
  rule_id: string;
  rule_name: string;
  kind: string;
}

/** One rule firing at one place of a sample (the scanner's Detection); never the matched value. */
export interface RuleTestDetection {
  rule_id: string;
  rule_name: string;
  /** The detector kind, or a custom rule's label. */
  kind: string;
  direction: 'inbound' | 'outbound';
  action: 'allow' | 'redact' | 'block';
  /** JSON path of the string that matched (`$` for free text), matched keys masked. */
  path: string;
  count: number;
}

/** The id a draft rule (tried before it is saved) carries in a test's answer. */
export const DRAFT_RULE_ID = 'draft';

/** Which part of a tool call a sample stands for. */
export type SampleKind = 'text' | 'arguments' | 'result';

/** Sample input for the rule tester: any of free text, a tool call's arguments, a tool's result. */
export interface RuleTestSamples {
  /** Free text, scanned both ways: as if sent to a tool (inbound) and as if returned to the model (outbound). */
  text?: string;
  /** A tools/call's `arguments`, scanned inbound as the runtime scans them before the tool runs. */
  arguments?: Record<string, unknown>;
  /** A tool's result (`{"content": [...]}`), scanned outbound as the runtime scans it before the model sees it. */
  result?: Record<string, unknown>;
}

/** One sample after every enabled rule together, as a real call would see it. */
export interface RuleTestSampleResult {
  sample: SampleKind;
  direction: 'inbound' | 'outbound';
  /** The sample with every redaction applied (unchanged when nothing was redacted). */
  output: unknown;
  /** The first block rule that fired; the call would fail. Null when it would go through. */
  blocked: RuleTestBlock | null;
  detections: RuleTestDetection[];
}

/** One place a rule matched, with what the sample looks like after this rule alone. */
export interface RuleTestMatch {
  sample: SampleKind;
  direction: 'inbound' | 'outbound';
  /** JSON path of the string that matched (`$` for the text itself), matched keys masked. */
  path: string;
  count: number;
}

/** What one rule would do to the samples on its own. */
export interface RuleTestRuleResult {
  /** The rule's id, or `draft` for the unsaved rule of the request. */
  rule_id: string;
  rule_name: string;
  detector: string;
  /** The detector kind, or a custom rule's label: the <KIND> of its marker. */
  kind: string;
  direction: 'inbound' | 'outbound' | 'both';
  action: 'allow' | 'redact' | 'block';
  /** False: the rule is off (for the pack, with tool_pack_id) and would not run; its matches show what it would do on. */
  enabled: boolean;
  /** Whether it matched anything in the samples. */
  fired: boolean;
  /** What the rule would do: `blocked`, `redacted`, `recorded` (allow), or `nothing`. */
  outcome: 'blocked' | 'redacted' | 'recorded' | 'nothing';
  matches: RuleTestMatch[];
  /** The samples after this rule alone, where it changed them. */
  outputs: Array<{ sample: SampleKind; direction: 'inbound' | 'outbound'; output: unknown }>;
}

export interface RuleTestResult {
  /** Every sample after all the enabled rules, in the order the scanner applies them. */
  samples: RuleTestSampleResult[];
  /** Each rule on its own, in the scanner's order, the draft last. */
  rules: RuleTestRuleResult[];
}

/** Largest sample accepted, in characters of its JSON: the tester runs on the request's thread. */
export const MAX_SAMPLE_CHARS = 100_000;

interface Sample {
  kind: SampleKind;
  direction: 'inbound' | 'outbound';
  value: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The samples of a request as the scanner runs them; refuses a request with none, or one too large. */
export function samplesOf(input: RuleTestSamples): Sample[] {
  const errors: FieldError[] = [];
  const samples: Sample[] = [];
  if (input.text !== undefined) {
    if (typeof input.text !== 'string') errors.push({ field: 'body.text', message: 'must be a string of sample text' });
    else samples.push({ kind: 'text', direction: 'inbound', value: input.text }, { kind: 'text', direction: 'outbound', value: input.text });
  }
  if (input.arguments !== undefined) {
    if (!isRecord(input.arguments)) errors.push({ field: 'body.arguments', message: 'must be a JSON object: the arguments of a tools/call' });
    else samples.push({ kind: 'arguments', direction: 'inbound', value: input.arguments });
  }
  if (input.result !== undefined) {
    if (!isRecord(input.result)) errors.push({ field: 'body.result', message: 'must be a JSON object: a tool result such as {"content": [{"type": "text", "text": "…"}]}' });
    else samples.push({ kind: 'result', direction: 'outbound', value: input.result });
  }
  if (errors.length === 0 && samples.length === 0) errors.push({ field: 'body', message: 'give text, arguments or result to test the rules against' });
  if (errors.length === 0 && JSON.stringify(input).length > MAX_SAMPLE_CHARS) errors.push({ field: 'body', message: `the samples are larger than ${MAX_SAMPLE_CHARS} characters of JSON; test with a shorter excerpt` });
  if (errors.length > 0) throw new ValidationError(errors);
  return samples;
}

/** A draft rule from the request, checked as a create would check it; errors name `body.rule.<field>`. */
export function draftRule(input: unknown): SecurityRule {
  const validation = validateRule(input);
  if ('errors' in validation) throw new ValidationError(validation.errors.map((e) => ({ field: e.field === 'rule' ? 'body.rule' : `body.rule.${e.field}`, message: e.message })));
  return { ...validation.rule, id: DRAFT_RULE_ID };
}

function kindOf(rule: SecurityRule): string {
  return rule.detector === 'CUSTOM' ? (rule.label ?? 'CUSTOM') : rule.detector;
}

function scanAll(scanner: Scanner, samples: Sample[]): Array<Sample & { output: unknown; blocked: RuleTestBlock | null; detections: RuleTestDetection[] }> {
  return samples.map((s) => {
    try {
      const result = scanner.scan(s.value, s.direction);
      return { ...s, output: result.value, blocked: result.blocked, detections: result.detections };
    } catch (err) {
      if (err instanceof ScanError) throw new ValidationError([{ field: s.kind === 'text' ? 'body.text' : `body.${s.kind}`, message: err.message }]);
      throw err;
    }
  });
}

/**
 * Runs rules over sample input without calling any tool: what a call would see with every enabled rule
 * together (the runtime's own Scanner, so the tester cannot disagree with a real call), and what each rule
 * does alone, disabled ones included as if on. Nothing is stored or recorded.
 */
export function testRules(rules: SecurityRule[], samples: Sample[]): RuleTestResult {
  const together = scanAll(new Scanner(rules), samples);
  return {
    samples: together.map((s) => ({ sample: s.kind, direction: s.direction, output: s.output, blocked: s.blocked, detections: s.detections })),
    rules: rules.map((rule) => {
      const alone = scanAll(new Scanner([{ ...rule, enabled: true }]), samples);
      const matches: RuleTestMatch[] = alone.flatMap((s) => s.detections.map((d) => ({ sample: s.kind, direction: s.direction, path: d.path, count: d.count })));
      const fired = matches.length > 0;
      return {
        rule_id: rule.id,
        rule_name: rule.name,
        detector: rule.detector,
        kind: kindOf(rule),
        direction: rule.direction,
        action: rule.action,
        enabled: rule.enabled,
        fired,
        outcome: !fired ? 'nothing' : rule.action === 'block' ? 'blocked' : rule.action === 'redact' ? 'redacted' : 'recorded',
        matches,
        outputs: alone.filter((s) => s.output !== s.value).map((s) => ({ sample: s.kind, direction: s.direction, output: s.output })),
      };
    }),
  };
}
