import { catastrophicBacktrackingRisk, MAX_PATTERN_LENGTH } from '@patchbay/security-scanner';

/** off: not screened; alert: scored and recorded, never blocked; block: a detection rejects the request. */
export type PiMode = 'off' | 'alert' | 'block';
export const PI_MODES: readonly PiMode[] = ['off', 'alert', 'block'];

/** An organization's prompt-injection settings (or the effective settings for one customer). */
export interface PiSettings {
  /** Direct injection: the prompt a user sends (system and user messages). */
  mode: PiMode;
  /** Indirect injection: tool results and documents. */
  indirectMode: PiMode;
  /** A text scoring at or above this is an injection. At least passThreshold. */
  blockThreshold: number;
  /** A text scoring at or below this is clean; between the two it is recorded as suspicious. */
  passThreshold: number;
  /** Regular expressions whose matching parts of a text skip screening. One matching ordinary text (`.*`) is ignored. */
  allowlistPatterns: string[];
  /** When screening cannot run: true rejects the request (code sidecar_error), false lets it through unscreened. */
  failClosed: boolean;
  /** Whether the app may log the full text of a blocked prompt (the library never logs). */
  logFullTextOnBlock: boolean;
}

export const DEFAULT_PI_SETTINGS: Readonly<PiSettings> = Object.freeze({
  mode: 'off',
  indirectMode: 'off',
  blockThreshold: 0.57,
  passThreshold: 0.3,
  allowlistPatterns: [],
  failClosed: false,
  logFullTextOnBlock: false,
});

/** The settings as the management API reads and writes them (`GET|PUT /v1/organization/pi-settings`). */
export interface PiSettingsWire {
  pi_mode: PiMode;
  pi_indirect_mode: PiMode;
  pi_block_threshold: number;
  pi_pass_threshold: number;
  pi_allowlist_patterns: string[];
  pi_fail_closed: boolean;
  pi_log_full_text_on_block: boolean;
  /** Reserved: requests are screened as pi_mode says. Always "block". */
  pi_input_action: 'block';
}

/** A customer's sparse override: absent fields inherit the organization's. The pass threshold is not overridable. */
export interface PiOverride {
  mode?: PiMode;
  indirectMode?: PiMode;
  blockThreshold?: number;
  /** Added to the organization's patterns, never replacing them. */
  allowlistPatterns?: string[];
  failClosed?: boolean;
  logFullTextOnBlock?: boolean;
}

export interface SettingsFieldError {
  /** The wire field, with an index for list items: pi_allowlist_patterns[2]. */
  field: string;
  message: string;
}

export const MAX_ALLOWLIST_PATTERNS = 100;

const WIRE_FIELDS = ['pi_mode', 'pi_indirect_mode', 'pi_block_threshold', 'pi_pass_threshold', 'pi_allowlist_patterns', 'pi_fail_closed', 'pi_log_full_text_on_block', 'pi_input_action'] as const;
const OVERRIDE_FIELDS = ['pi_mode', 'pi_indirect_mode', 'pi_block_threshold', 'pi_allowlist_patterns', 'pi_fail_closed', 'pi_log_full_text_on_block'] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkMode(value: unknown, field: string, errors: SettingsFieldError[]): PiMode | undefined {
  if (typeof value === 'string' && (PI_MODES as readonly string[]).includes(value)) return value as PiMode;
  errors.push({ field, message: `must be one of off, alert, block` });
  return undefined;
}

function checkThreshold(value: unknown, field: string, errors: SettingsFieldError[]): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1) return value;
  errors.push({ field, message: 'must be a number from 0 to 1' });
  return undefined;
}

function checkBoolean(value: unknown, field: string, errors: SettingsFieldError[]): boolean | undefined {
  if (typeof value === 'boolean') return value;
  errors.push({ field, message: 'must be true or false' });
  return undefined;
}

/** Why one allowlist pattern cannot be used, or null. */
export function allowlistPatternProblem(pattern: unknown): string | null {
  if (typeof pattern !== 'string') return 'must be a string';
  if (pattern.length === 0) return 'must not be empty';
  if (pattern.length > MAX_PATTERN_LENGTH) return `must be at most ${MAX_PATTERN_LENGTH} characters`;
  try {
    new RegExp(pattern);
  } catch (err) {
    return `is not a valid regular expression: ${(err as Error).message}`;
  }
  const risk = catastrophicBacktrackingRisk(pattern, '');
  if (risk) return `risks catastrophic backtracking (${risk}); rewrite it without nested repetition`;
  return null;
}

function checkPatterns(value: unknown, field: string, errors: SettingsFieldError[]): string[] | undefined {
  if (!Array.isArray(value)) {
    errors.push({ field, message: 'must be a list of regular expressions' });
    return undefined;
  }
  if (value.length > MAX_ALLOWLIST_PATTERNS) errors.push({ field, message: `must hold at most ${MAX_ALLOWLIST_PATTERNS} patterns` });
  const before = errors.length;
  value.forEach((pattern, i) => {
    const problem = allowlistPatternProblem(pattern);
    if (problem) errors.push({ field: `${field}[${i}]`, message: problem });
  });
  return errors.length === before ? (value as string[]) : undefined;
}

function unknownFields(input: Record<string, unknown>, known: readonly string[], errors: SettingsFieldError[], notes: Record<string, string> = {}): void {
  for (const key of Object.keys(input)) {
    if (known.includes(key)) continue;
    errors.push({ field: key, message: notes[key] ?? `is not a prompt-injection setting (known: ${known.join(', ')})` });
  }
}

/**
 * Validates a whole settings object as PUT sends it: an omitted field takes its default, every
 * problem is reported at once.
 */
export function validatePiSettings(input: unknown): { settings: PiSettings } | { errors: SettingsFieldError[] } {
  if (!isObject(input)) return { errors: [{ field: 'body', message: 'must be a JSON object' }] };
  const errors: SettingsFieldError[] = [];
  unknownFields(input, WIRE_FIELDS, errors);
  const settings: PiSettings = { ...DEFAULT_PI_SETTINGS, allowlistPatterns: [] };
  if (input.pi_mode !== undefined) settings.mode = checkMode(input.pi_mode, 'pi_mode', errors) ?? settings.mode;
  if (input.pi_indirect_mode !== undefined) settings.indirectMode = checkMode(input.pi_indirect_mode, 'pi_indirect_mode', errors) ?? settings.indirectMode;
  const block = input.pi_block_threshold === undefined ? settings.blockThreshold : checkThreshold(input.pi_block_threshold, 'pi_block_threshold', errors);
  const pass = input.pi_pass_threshold === undefined ? settings.passThreshold : checkThreshold(input.pi_pass_threshold, 'pi_pass_threshold', errors);
  if (block !== undefined) settings.blockThreshold = block;
  if (pass !== undefined) settings.passThreshold = pass;
  if (block !== undefined && pass !== undefined && block < pass) {
    errors.push({ field: 'pi_block_threshold', message: `must be at least pi_pass_threshold (${pass})` });
  }
  if (input.pi_allowlist_patterns !== undefined) settings.allowlistPatterns = checkPatterns(input.pi_allowlist_patterns, 'pi_allowlist_patterns', errors) ?? [];
  if (input.pi_fail_closed !== undefined) settings.failClosed = checkBoolean(input.pi_fail_closed, 'pi_fail_closed', errors) ?? false;
  if (input.pi_log_full_text_on_block !== undefined) settings.logFullTextOnBlock = checkBoolean(input.pi_log_full_text_on_block, 'pi_log_full_text_on_block', errors) ?? false;
  if (input.pi_input_action !== undefined && input.pi_input_action !== 'block') {
    errors.push({ field: 'pi_input_action', message: 'is reserved and must be "block" (requests are screened as pi_mode says)' });
  }
  return errors.length ? { errors } : { settings };
}

/**
 * Validates a customer's override as PUT sends it: every field optional and nullable (null or
 * absent inherits), an empty object restores full inheritance. `org` is the organization's
 * settings, whose pass threshold the block threshold may not go below.
 */
export function validatePiOverride(input: unknown, org: PiSettings): { override: PiOverride } | { errors: SettingsFieldError[] } {
  if (!isObject(input)) return { errors: [{ field: 'body', message: 'must be a JSON object' }] };
  const errors: SettingsFieldError[] = [];
  unknownFields(input, OVERRIDE_FIELDS, errors, {
    pi_pass_threshold: "is not overridable per customer: it is the organization's",
    pi_input_action: 'is reserved and not overridable per customer',
  });
  const override: PiOverride = {};
  const present = (key: string) => input[key] !== undefined && input[key] !== null;
  if (present('pi_mode')) override.mode = checkMode(input.pi_mode, 'pi_mode', errors);
  if (present('pi_indirect_mode')) override.indirectMode = checkMode(input.pi_indirect_mode, 'pi_indirect_mode', errors);
  if (present('pi_block_threshold')) {
    const block = checkThreshold(input.pi_block_threshold, 'pi_block_threshold', errors);
    if (block !== undefined && block < org.passThreshold) {
      errors.push({ field: 'pi_block_threshold', message: `must be at least the organization's pi_pass_threshold (${org.passThreshold})` });
    }
    override.blockThreshold = block;
  }
  if (present('pi_allowlist_patterns')) override.allowlistPatterns = checkPatterns(input.pi_allowlist_patterns, 'pi_allowlist_patterns', errors);
  if (present('pi_fail_closed')) override.failClosed = checkBoolean(input.pi_fail_closed, 'pi_fail_closed', errors);
  if (present('pi_log_full_text_on_block')) override.logFullTextOnBlock = checkBoolean(input.pi_log_full_text_on_block, 'pi_log_full_text_on_block', errors);
  return errors.length ? { errors } : { override };
}

/** The settings a customer's requests run with: the organization's, with the override's fields on top and its patterns added. */
export function applyPiOverride(org: PiSettings, override: PiOverride | null | undefined): PiSettings {
  if (!override) return org;
  return {
    mode: override.mode ?? org.mode,
    indirectMode: override.indirectMode ?? org.indirectMode,
    blockThreshold: override.blockThreshold ?? org.blockThreshold,
    passThreshold: org.passThreshold,
    allowlistPatterns: override.allowlistPatterns?.length ? [...org.allowlistPatterns, ...override.allowlistPatterns] : org.allowlistPatterns,
    failClosed: override.failClosed ?? org.failClosed,
    logFullTextOnBlock: override.logFullTextOnBlock ?? org.logFullTextOnBlock,
  };
}

export function piSettingsToWire(settings: PiSettings): PiSettingsWire {
  return {
    pi_mode: settings.mode,
    pi_indirect_mode: settings.indirectMode,
    pi_block_threshold: settings.blockThreshold,
    pi_pass_threshold: settings.passThreshold,
    pi_allowlist_patterns: Array.isArray(settings.allowlistPatterns) ? [...settings.allowlistPatterns] : settings.allowlistPatterns,
    pi_fail_closed: settings.failClosed,
    pi_log_full_text_on_block: settings.logFullTextOnBlock,
    pi_input_action: 'block',
  };
}

/** A customer override as GET returns it: every overridable field, null where inherited. */
export function piOverrideToWire(override: PiOverride): Record<(typeof OVERRIDE_FIELDS)[number], unknown> {
  return {
    pi_mode: override.mode ?? null,
    pi_indirect_mode: override.indirectMode ?? null,
    pi_block_threshold: override.blockThreshold ?? null,
    pi_allowlist_patterns: override.allowlistPatterns ?? null,
    pi_fail_closed: override.failClosed ?? null,
    pi_log_full_text_on_block: override.logFullTextOnBlock ?? null,
  };
}

/** Settings handed to the evaluator that validation would refuse (a programming error, not a client's). */
export class InvalidPiSettingsError extends Error {
  override readonly name = 'InvalidPiSettingsError';

  constructor(readonly errors: SettingsFieldError[]) {
    super(`Invalid prompt-injection settings: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`);
  }
}

/** Checks settings built in code (camelCase) with the same rules as the wire; throws InvalidPiSettingsError naming every problem. */
export function assertPiSettings(settings: PiSettings): void {
  const result = validatePiSettings(piSettingsToWire(settings));
  if ('errors' in result) throw new InvalidPiSettingsError(result.errors);
}
