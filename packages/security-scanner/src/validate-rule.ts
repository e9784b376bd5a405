import { catastrophicBacktrackingRisk } from './regex-safety';
import { DETECTOR_KINDS, type DetectorKind, type Direction, type RuleAction, type SecurityRule } from './types';

export interface RuleFieldError {
  field: string;
  message: string;
}

export type RuleValidation = { rule: Omit<SecurityRule, 'id'> } | { errors: RuleFieldError[] };

export const MAX_PATTERN_LENGTH = 500;
export const MAX_NAME_LENGTH = 255;
export const LABEL_PATTERN = /^[A-Z0-9_]{1,40}$/;
const ALLOWED_FLAGS = 'imsu';
const DIRECTIONS: readonly Direction[] = ['inbound', 'outbound', 'both'];
const ACTIONS: readonly RuleAction[] = ['allow', 'redact', 'block'];
const FIELDS = new Set(['id', 'name', 'detector', 'pattern', 'flags', 'label', 'direction', 'action', 'enabled']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function oneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

/**
 * Checks a rule as the API receives it (any id in the input is ignored: the server assigns it).
 * Every problem is reported, each under the field to change.
 */
export function validateRule(input: unknown): RuleValidation {
  if (!isRecord(input)) return { errors: [{ field: 'rule', message: 'A rule must be a JSON object.' }] };
  const errors: RuleFieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ field, message });

  for (const key of Object.keys(input)) if (!FIELDS.has(key)) fail(key, `Unknown field; a rule has ${[...FIELDS].filter((f) => f !== 'id').join(', ')}.`);

  const { name, detector, pattern, flags, label, direction, action, enabled } = input;
  if (typeof name !== 'string' || name.trim() === '') fail('name', 'Give the rule a non-empty name.');
  else if (name.length > MAX_NAME_LENGTH) fail('name', `Use at most ${MAX_NAME_LENGTH} characters.`);

  const custom = detector === 'CUSTOM';
  if (!custom && !oneOf(DETECTOR_KINDS, detector)) fail('detector', `Use one of ${DETECTOR_KINDS.join(', ')} or CUSTOM.`);
  if (!oneOf(DIRECTIONS, direction)) fail('direction', `Use one of ${DIRECTIONS.join(', ')}.`);
  if (!oneOf(ACTIONS, action)) fail('action', `Use one of ${ACTIONS.join(', ')}.`);
  if (enabled !== undefined && typeof enabled !== 'boolean') fail('enabled', 'Use true or false.');

  if (custom) {
    validateCustom(pattern, flags, label, fail);
  } else if (oneOf(DETECTOR_KINDS, detector)) {
    for (const [field, value] of [['pattern', pattern], ['flags', flags], ['label', label]] as const) {
      // Empty values are what a database column for them holds on built-in rules.
      if (value !== undefined && value !== null && value !== '') fail(field, `Only CUSTOM rules take a ${field}; ${detector} uses its built-in detector and marker.`);
    }
  }

  if (errors.length > 0) return { errors };
  const rule: Omit<SecurityRule, 'id'> = {
    name: (name as string).trim(),
    detector: detector as DetectorKind | 'CUSTOM',
    direction: direction as Direction,
    action: action as RuleAction,
    enabled: (enabled as boolean | undefined) ?? true,
  };
  if (custom) {
    rule.pattern = pattern as string;
    rule.flags = (flags as string | undefined | null) ?? '';
    rule.label = label as string;
  }
  return { rule };
}

function validateCustom(pattern: unknown, flags: unknown, label: unknown, fail: (field: string, message: string) => void): void {
  if (typeof label !== 'string' || label === '') fail('label', 'CUSTOM rules need a label, the marker shown as [REDACTED:<LABEL>].');
  else if (!LABEL_PATTERN.test(label)) fail('label', 'Use 1 to 40 characters among A-Z, 0-9 and _.');

  let flagsOk = true;
  if (flags !== undefined && flags !== null) {
    if (typeof flags !== 'string' || [...flags].some((f) => !ALLOWED_FLAGS.includes(f)) || new Set(flags).size !== flags.length) {
      fail('flags', `Use each of ${ALLOWED_FLAGS.split('').join(', ')} at most once (the scanner adds g itself).`);
      flagsOk = false;
    }
  }
  const flagText = flagsOk && typeof flags === 'string' ? flags : '';

  if (typeof pattern !== 'string' || pattern === '') {
    fail('pattern', 'CUSTOM rules need a pattern, a JavaScript regular expression source.');
    return;
  }
  if (pattern.length > MAX_PATTERN_LENGTH) {
    fail('pattern', `Use at most ${MAX_PATTERN_LENGTH} characters.`);
    return;
  }
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, flagText);
  } catch (err) {
    fail('pattern', `Not a valid regular expression: ${(err as Error).message}`);
    return;
  }
  const risk = catastrophicBacktrackingRisk(pattern, flagText);
  if (risk) fail('pattern', `The pattern could take exponential time on some inputs (${risk}); rewrite it without nested or ambiguous repetition.`);
  // A pattern that matches the empty string would "match" between every two characters.
  if (new RegExp(`^(?:${pattern})$`, flagText).test('') || regex.test('')) {
    fail('pattern', 'The pattern matches the empty string; make at least one part of it required.');
  }
}
