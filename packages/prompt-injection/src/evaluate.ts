import type { CanonicalRequest, ContentBlock, DocumentBlock } from '@patchbay/model-wire';
import { scorePrompt, type InputKind, type PromptScore, type Signal } from './score';
import { assertPiSettings, type PiMode, type PiSettings } from './settings';

/** One text of a request that screening reads, with where it is. */
export interface ScreenedText {
  /** Where in the canonical request: $.system[0].text, $.messages[2].content[0].content[1].text, … */
  path: string;
  kind: InputKind;
  text: string;
}

export type PiVerdict = 'pass' | 'suspicious' | 'injection';

export interface PiTextResult {
  path: string;
  kind: InputKind;
  score: number;
  /** injection: score >= blockThreshold; pass: score <= passThreshold; suspicious: between (recorded, never enforced). */
  verdict: PiVerdict;
  signals: Signal[];
  /** An allowlist pattern matched part of the text (that part was not screened). */
  allowlisted: boolean;
  /** The mode of the text's axis (pi_mode for direct, pi_indirect_mode for indirect). */
  mode: PiMode;
}

export interface PiEvaluation {
  /** block: an injection on an axis in block mode (or screening failed with failClosed); alert: an injection on an axis in alert mode; pass: otherwise. */
  action: 'pass' | 'alert' | 'block';
  /** One per screened text, in request order (texts on an axis that is off are not screened). */
  results: PiTextResult[];
  /** The first result that decided a block, or null. */
  blockedBy: PiTextResult | null;
  /** Screening could not run: with failClosed the action is block and the app answers code sidecar_error. */
  error: { code: 'sidecar_error'; message: string } | null;
}

/** Settings checked and their allowlist compiled: build once per settings version, reuse per request. */
export interface CompiledPiSettings {
  settings: PiSettings;
  allowlist: RegExp[];
  /** Patterns left out because they match ordinary text (`.*`, `[\s\S]+`): they would switch screening off. */
  ignoredPatterns: string[];
}

// Ordinary texts a real allowlist pattern never covers most of.
const BROAD_PATTERN_PROBES = [
  'Hello, how are you today?',
  'Please summarise the attached report in three bullet points.',
  'Das Wetter in Berlin ist heute sonnig und warm.',
];

function maskedShare(pattern: RegExp, text: string): number {
  let masked = 0;
  pattern.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = pattern.exec(text)) !== null) {
    if (m[0].length === 0) {
      pattern.lastIndex++;
      continue;
    }
    masked += m[0].length;
  }
  return masked / text.length;
}

/** True for a pattern that matches the empty string or covers most of an ordinary sentence. */
export function isBroadAllowlistPattern(source: string): boolean {
  const pattern = new RegExp(source, 'g');
  if (new RegExp(source).test('')) return true;
  return BROAD_PATTERN_PROBES.some((probe) => maskedShare(pattern, probe) >= 0.5);
}

/** Validates settings built in code (throws InvalidPiSettingsError) and compiles the allowlist. */
export function compilePiSettings(settings: PiSettings): CompiledPiSettings {
  assertPiSettings(settings);
  const allowlist: RegExp[] = [];
  const ignoredPatterns: string[] = [];
  for (const source of settings.allowlistPatterns) {
    if (isBroadAllowlistPattern(source)) ignoredPatterns.push(source);
    else allowlist.push(new RegExp(source, 'g'));
  }
  return { settings, allowlist, ignoredPatterns };
}

const DOCUMENT_TEXT_TYPES = /^(?:text\/|application\/(?:json|xml|x-ndjson|yaml|x-yaml|markdown)\b)/i;

/** The text of a document the gateway can read itself: inline base64 of a text media type. PDFs and URLs are not read. */
function documentText(block: DocumentBlock): string | null {
  const source = block.source;
  if (source.kind !== 'base64' || !DOCUMENT_TEXT_TYPES.test(source.mediaType)) return null;
  return Buffer.from(source.data, 'base64').toString('utf8');
}

function blockTexts(block: ContentBlock, path: string, kind: InputKind, out: ScreenedText[]): void {
  if (block.type === 'text') out.push({ path: `${path}.text`, kind, text: block.text });
  else if (block.type === 'document') {
    const text = documentText(block);
    if (text !== null) out.push({ path: `${path}.source.data`, kind: 'indirect', text });
  } else if (block.type === 'tool_result') {
    block.content.forEach((inner, i) => blockTexts(inner, `${path}.content[${i}]`, 'indirect', out));
  }
}

/**
 * The texts of a request that screening reads: system and user text are direct; tool results and
 * readable documents are indirect. Assistant turns are the model's own history and are not screened,
 * nor are images, audio, tool definitions or the model's tool calls.
 */
export function promptTexts(request: Pick<CanonicalRequest, 'system' | 'messages'>): ScreenedText[] {
  const out: ScreenedText[] = [];
  request.system.forEach((block, i) => out.push({ path: `$.system[${i}].text`, kind: 'direct', text: block.text }));
  request.messages.forEach((message, m) => {
    if (message.role !== 'user') return;
    message.content.forEach((block, b) => blockTexts(block, `$.messages[${m}].content[${b}]`, 'direct', out));
  });
  return out;
}

export type Scorer = (text: string, options: { kind: InputKind }) => PromptScore;

/** Blanks out the parts of a text an allowlist pattern matches, so they are not screened. */
function applyAllowlist(text: string, allowlist: RegExp[]): { text: string; allowlisted: boolean } {
  let out = text;
  let allowlisted = false;
  for (const pattern of allowlist) {
    pattern.lastIndex = 0;
    out = out.replace(pattern, (m) => {
      if (m.length > 0) allowlisted = true;
      return ' '.repeat(m.length);
    });
  }
  return { text: out, allowlisted };
}

/** Scores one text under the settings (allowlist and thresholds), whatever the mode. */
export function screenText(text: string, kind: InputKind, compiled: CompiledPiSettings, scorer: Scorer = scorePrompt): Omit<PiTextResult, 'path' | 'mode'> {
  const { settings, allowlist } = compiled;
  const masked = allowlist.length ? applyAllowlist(text, allowlist) : { text, allowlisted: false };
  const { score, signals } = masked.text.trim() === '' ? { score: 0, signals: [] } : scorer(masked.text, { kind });
  const verdict: PiVerdict = score >= settings.blockThreshold ? 'injection' : score <= settings.passThreshold ? 'pass' : 'suspicious';
  return { kind, score, verdict, signals, allowlisted: masked.allowlisted };
}

export interface EvaluateOptions {
  /** The detector; scorePrompt by default (tests pass a failing one to exercise failClosed). */
  scorer?: Scorer;
}

/**
 * Applies prompt-injection settings to a canonical request. Synchronous; the app answers a block with
 * a 422 of type blocked_by_pi_protection, and an error with failClosed with code sidecar_error.
 * Takes the settings as they are (validated and compiled here, InvalidPiSettingsError when invalid) or
 * compiled by compilePiSettings, which saves compiling the allowlist on every request.
 */
export function evaluatePrompt(
  request: Pick<CanonicalRequest, 'system' | 'messages'>,
  settingsOrCompiled: PiSettings | CompiledPiSettings,
  options: EvaluateOptions = {},
): PiEvaluation {
  // Plain settings are compiled on the spot; the gateway passes compiled ones, cached per settings version.
  const compiled = 'allowlist' in settingsOrCompiled ? settingsOrCompiled : compilePiSettings(settingsOrCompiled);
  const { settings } = compiled;
  const evaluation: PiEvaluation = { action: 'pass', results: [], blockedBy: null, error: null };
  if (settings.mode === 'off' && settings.indirectMode === 'off') return evaluation;
  try {
    for (const item of promptTexts(request)) {
      const mode = item.kind === 'direct' ? settings.mode : settings.indirectMode;
      if (mode === 'off') continue;
      const result: PiTextResult = { path: item.path, mode, ...screenText(item.text, item.kind, compiled, options.scorer) };
      evaluation.results.push(result);
      if (result.verdict !== 'injection') continue;
      if (mode === 'block' && evaluation.blockedBy === null) {
        evaluation.blockedBy = result;
        evaluation.action = 'block';
      } else if (evaluation.action === 'pass') evaluation.action = 'alert';
    }
  } catch (err) {
    evaluation.error = { code: 'sidecar_error', message: `Prompt-injection screening failed: ${err instanceof Error ? err.message : String(err)}` };
    if (settings.failClosed) evaluation.action = 'block';
  }
  return evaluation;
}
