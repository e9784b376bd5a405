import { screenText, type CompiledPiSettings, type Scorer } from './evaluate';
import type { SettingsFieldError } from './settings';

export const MAX_CHECK_TEXTS = 50;
export const MAX_CHECK_TEXT_LENGTH = 10_000;

export interface CheckRequest {
  texts: string[];
  /** The customer whose settings apply, as the client sent it (the app resolves it), or null. */
  customer: string | null;
}

/** One entry of the check answer, in the order the texts were sent. */
export interface CheckResult {
  index: number;
  /** Whether block mode would reject the text, whatever the current mode. */
  would_block: boolean;
  score: number;
  /** The signals that fired (snake_case ids). */
  matched_patterns: string[];
  allowlisted: boolean;
}

export interface CheckAnswer {
  /** The current direct mode, for reference. */
  mode: string;
  block_threshold: number;
  results: CheckResult[];
}

/** Validates `POST /v1/prompt-injection/check`'s body: `input` one text or 1..50 texts of 1..10,000 characters, not blank; optional `customer`. */
export function validateCheckRequest(body: unknown): CheckRequest | { errors: SettingsFieldError[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { errors: [{ field: 'body', message: 'must be a JSON object' }] };
  const input = (body as Record<string, unknown>).input;
  const customer = (body as Record<string, unknown>).customer;
  const errors: SettingsFieldError[] = [];
  for (const key of Object.keys(body)) if (key !== 'input' && key !== 'customer') errors.push({ field: key, message: 'is not a field of a check request (input, customer)' });
  if (customer !== undefined && customer !== null && (typeof customer !== 'string' || customer.trim() === '')) errors.push({ field: 'customer', message: 'must be a customer id or null' });
  let texts: unknown[] = [];
  if (typeof input === 'string') texts = [input];
  else if (Array.isArray(input)) {
    texts = input;
    if (input.length === 0 || input.length > MAX_CHECK_TEXTS) errors.push({ field: 'input', message: `must hold 1 to ${MAX_CHECK_TEXTS} texts` });
  } else errors.push({ field: 'input', message: `is required: a text or a list of 1 to ${MAX_CHECK_TEXTS} texts` });
  texts.forEach((text, i) => {
    const field = typeof input === 'string' ? 'input' : `input[${i}]`;
    if (typeof text !== 'string') errors.push({ field, message: 'must be a string' });
    else if (text.trim() === '') errors.push({ field, message: 'must not be empty or blank' });
    else if (text.length > MAX_CHECK_TEXT_LENGTH) errors.push({ field, message: `must be at most ${MAX_CHECK_TEXT_LENGTH.toLocaleString('en-US')} characters (got ${text.length.toLocaleString('en-US')})` });
  });
  if (errors.length) return { errors };
  return { texts: texts as string[], customer: typeof customer === 'string' ? customer : null };
}

/** Screens each text on its own as direct input, with the settings' thresholds and allowlist, as block mode would. */
export function checkTexts(texts: string[], compiled: CompiledPiSettings, scorer?: Scorer): CheckAnswer {
  return {
    mode: compiled.settings.mode,
    block_threshold: compiled.settings.blockThreshold,
    results: texts.map((text, index) => {
      const r = screenText(text, 'direct', compiled, scorer);
      return { index, would_block: r.verdict === 'injection', score: r.score, matched_patterns: r.signals.map((s) => s.id), allowlisted: r.allowlisted };
    }),
  };
}
