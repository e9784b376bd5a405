import { learnedModel, modelScore, modelText } from './model';
import { DECODED_VIEWS, normalize, prefixKey, scanWords, WINDOW, windowStarts, type Normalized, type ViewName, type WordScan } from './normalize';
import { COMPACT_RULES, RULES, SIGNAL_CATEGORY, type Rule, type SignalCategory, type SignalId } from './signals';

/** direct: the prompt a user sends (system and user messages); indirect: tool results and documents. */
export type InputKind = 'direct' | 'indirect';

export interface Signal {
  id: SignalId;
  category: SignalCategory;
  /** This signal's contribution, after context (quotes, negation) was taken into account. */
  weight: number;
  /** Which reading of the input showed it. */
  view: ViewName | 'letters';
  /** The folded text that matched, at most 80 characters. It is prompt text: log it only where full text may be logged. */
  match: string;
}

export interface PromptScore {
  /** 0 (clean) to 1 (almost certainly an injection). */
  score: number;
  /** Strongest first. */
  signals: Signal[];
}

export interface ScoreOptions {
  kind: InputKind;
}

/** Signals a prompt injection can consist of; the obfuscation signals only raise them. */
const CORE_MIN_WEIGHT = 0.25;
const MAX_MATCHES_PER_RULE = 8;
const MATCH_PREVIEW = 80;
const NON_ASCII = /[^\x00-\x7f]/;

// Text that discusses injections rather than performs them: quoted attacks there weigh less.
const META_CUES =
  /\b(?:prompt[- ]injections?|jailbreak(?:s|ing)?|red[- ]?team\w*|classifier|detector|detect(?:ion|ing)?|false positive|test (?:case|input)s?|payloads?|attack(?:s|er|ers)?|exploits?|vulnerab\w+|security|defen[cs]es?|mitigat\w+|(?<!\.)examples?|research\w*|paper|benchmark|filter|guardrails?|owasp|phrase|string|sentence|the input|the term|translat\w+|traduc\w+|ubersetz\w+|how do you say|what does|what is|explain|history|article|blog|slide|report|finding|idiom|rhetoric|poem|song|quote|novel|movie|character says|grammar)\b/;
// Reported speech: "...hidden text telling them to ignore their instructions".
const REPORTED = /(?:\btell(?:s|ing)?|\btold|\bask(?:s|ed|ing)?|\bsay(?:s|ing)?|\binstruct(?:s|ed|ing)?|\bsuch as|\blike|\bcalled|\bnamed|\bknown as|\bphrase|\bstring|\bsentence)\W{0,3}(?:them|it|the (?:model|ai|bot|assistant|chatbot)s?|models|chatbots|ais)?\W{0,3}(?:to\W{1,3})?$/;
const QUOTED_SPANS = /```[\s\S]*?```|"[^"\n]{1,500}"|`[^`\n]{1,500}`|(?<![a-z])'[^'\n]{2,500}'(?![a-z])|^>[^\n]*$/gm;

class Context {
  private spans: Array<[number, number]> | null = null;
  private meta: boolean | null = null;

  constructor(
    private readonly text: string,
    private readonly kind: InputKind,
  ) {}

  /** How much a hit at this position counts, given quoting and a discussion around it. */
  factor(index: number): number {
    const quoted = this.inQuotes(index);
    const meta = (this.meta ??= META_CUES.test(this.text));
    // Tool results are JSON full of quoted strings: there quoting alone says nothing.
    if (quoted && meta) return 0.3;
    if (quoted && this.kind === 'direct') return 0.55;
    if (meta && REPORTED.test(this.text.slice(Math.max(0, index - 40), index))) return 0.45;
    return 1;
  }

  private inQuotes(index: number): boolean {
    if (this.spans === null) {
      this.spans = [];
      QUOTED_SPANS.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = QUOTED_SPANS.exec(this.text)) !== null) this.spans.push([m.index, m.index + m[0].length]);
    }
    for (const [start, end] of this.spans) if (index > start && index < end) return true;
    return false;
  }
}

type Hits = Map<SignalId, Signal>;

function record(hits: Hits, id: SignalId, weight: number, view: Signal['view'], match: string): void {
  const w = Math.min(1, weight);
  if (w <= 0) return;
  const current = hits.get(id);
  if (current && current.weight >= w) return;
  hits.set(id, { id, category: SIGNAL_CATEGORY[id], weight: w, view, match: match.length > MATCH_PREVIEW ? `${match.slice(0, MATCH_PREVIEW - 1)}…` : match });
}

/**
 * The rules' gates as one index from word prefix to the (rule, group) pairs it satisfies: per text, each
 * distinct word prefix is looked up once, whatever the number of rules.
 */
interface GateIndex {
  byPrefix: Map<number, Array<[rule: number, group: number]>>;
  /** Per rule: the bit mask with one bit per group; the rule runs when all are set. */
  full: Uint8Array;
  /** Per rule and group: substrings that satisfy the group ("~" entries), and whether each is ASCII (a non-ASCII one cannot occur in ASCII text). */
  substrings: Array<Array<Array<[sub: string, ascii: boolean]>>>;
  /** The rules that have substrings at all. */
  withSubstrings: number[];
}

function buildGateIndex(rules: readonly Rule[]): GateIndex {
  const byPrefix = new Map<number, Array<[number, number]>>();
  const full = new Uint8Array(rules.length);
  const substrings: GateIndex['substrings'] = [];
  rules.forEach((rule, r) => {
    const groups = rule.gate.split(';');
    if (groups.length > 8) throw new Error(`rule ${rule.id}: a gate has at most 8 groups`);
    full[r] = (1 << groups.length) - 1;
    substrings[r] = groups.map((group, g) => {
      const subs: Array<[string, boolean]> = [];
      for (const entry of group.split(' ').filter(Boolean)) {
        if (entry.startsWith('~')) subs.push([entry.slice(1), !NON_ASCII.test(entry)]);
        else {
          const key = prefixKey(entry);
          const list = byPrefix.get(key) ?? [];
          list.push([r, g]);
          byPrefix.set(key, list);
        }
      }
      return subs;
    });
  });
  const withSubstrings = rules.map((_, r) => r).filter((r) => substrings[r]!.some((subs) => subs.length > 0));
  return { byPrefix, full, substrings, withSubstrings };
}

const GATES = buildGateIndex(RULES);

/** Which rules may match the text: a bit mask per rule of the gate groups its words (or substrings) satisfy. */
function openRules(text: string, prefixes: Set<number>): Uint8Array {
  const satisfied = new Uint8Array(RULES.length);
  for (const prefix of prefixes) {
    const entries = GATES.byPrefix.get(prefix);
    if (entries) for (const [r, g] of entries) satisfied[r]! |= 1 << g;
  }
  const ascii = !NON_ASCII.test(text);
  for (const r of GATES.withSubstrings) {
    if (satisfied[r] === GATES.full[r]) continue;
    const groups = GATES.substrings[r]!;
    for (let g = 0; g < groups.length; g++) {
      if (satisfied[r]! & (1 << g)) continue;
      for (const [sub, subAscii] of groups[g]!) {
        if (ascii && !subAscii) continue;
        if (text.includes(sub)) {
          satisfied[r]! |= 1 << g;
          break;
        }
      }
    }
  }
  return satisfied;
}

/** Runs the rules over one reading of the input, window by window when it is long (see WINDOW). */
function scanView(text: string, kind: InputKind, view: Signal['view'], hits: Hits, scan: Pick<WordScan, 'prefixes' | 'windows'> = scanWords(text)): void {
  if (scan.windows === null) {
    scanWindow(text, kind, view, hits, scan.prefixes);
    return;
  }
  windowStarts(text.length).forEach((start, i) => scanWindow(text.slice(start, start + WINDOW), kind, view, hits, scan.windows![i]!));
}

/** Runs every rule whose gate the words open over one window. Dampening by quotes applies to the input as written only. */
function scanWindow(text: string, kind: InputKind, view: Signal['view'], hits: Hits, prefixes: Set<number>): void {
  const context = view === 'text' ? new Context(text, kind) : null;
  const satisfied = openRules(text, prefixes);
  for (let r = 0; r < RULES.length; r++) {
    if (satisfied[r] !== GATES.full[r]) continue;
    const rule = RULES[r]!;
    const base = kind === 'direct' ? rule.direct : rule.indirect;
    if (base <= 0) continue;
    const pattern = rule.pattern;
    pattern.lastIndex = 0;
    let best = 0;
    let bestMatch = '';
    let m: RegExpExecArray | null;
    for (let n = 0; n < MAX_MATCHES_PER_RULE && (m = pattern.exec(text)) !== null; n++) {
      if (m[0].length === 0) {
        pattern.lastIndex++;
        continue;
      }
      let weight = base * (rule.refine ? rule.refine(text, m) : 1);
      if (weight > best && context) weight *= context.factor(m.index);
      if (weight > best) {
        best = weight;
        bestMatch = m[0].trim();
      }
    }
    if (best > 0) record(hits, rule.id, best, view, bestMatch);
  }
}

function strongest(hits: Hits): number {
  let max = 0;
  for (const s of hits.values()) if (s.weight > max) max = s.weight;
  return max;
}

/** The rules' hits on one normalised text. */
function ruleHits(normalized: Normalized, kind: InputKind): Hits {
  const hits: Hits = new Map();
  scanView(normalized.text, kind, 'text', hits, normalized);

  for (const view of normalized.views) {
    const found: Hits = new Map();
    scanView(view.text, kind, view.name, found);
    const core = strongest(found);
    for (const signal of found.values()) record(hits, signal.id, signal.weight, signal.view, signal.match);
    if (core < CORE_MIN_WEIGHT) continue;
    const evidence = [...found.values()].sort((a, b) => b.weight - a.weight)[0]!.match;
    if (DECODED_VIEWS.has(view.name)) record(hits, 'encoded_payload', 0.5, view.name, evidence);
    else if (view.name === 'hidden') record(hits, 'hidden_instruction', kind === 'direct' ? 0.45 : 0.55, 'hidden', evidence);
    else if (view.name === 'leetspeak' && [...found.keys()].some((id) => !hits.has(id) || hits.get(id)!.view === 'leetspeak')) {
      record(hits, 'obfuscated_text', 0.3, 'leetspeak', evidence);
    }
  }

  for (const rule of COMPACT_RULES) {
    if (normalized.letters === null || hits.has(rule.id)) continue;
    const m = rule.pattern.exec(normalized.letters);
    if (m === null) continue;
    record(hits, rule.id, rule.weight, 'letters', m[0]);
    record(hits, 'obfuscated_text', 0.3, 'letters', m[0]);
  }

  if (normalized.obfuscation.has('unicode_tags')) record(hits, 'invisible_text', 0.6, 'unicode_tags', 'Unicode tag characters');
  const hidden = normalized.obfuscation.has('invisible_chars') || normalized.obfuscation.has('homoglyphs') || normalized.obfuscation.has('html_entities');
  if (hidden && strongest(hits) >= CORE_MIN_WEIGHT) {
    const kinds = [...normalized.obfuscation].filter((o) => o !== 'compatibility_forms' && o !== 'unicode_tags').join(', ');
    record(hits, 'obfuscated_text', 0.3, 'text', kinds);
  }

  return hits;
}

/** Noisy-OR over the signals: each is an independent piece of evidence, the strongest hit of each counts once. */
function noisyOr(hits: Hits): number {
  let clean = 1;
  for (const signal of hits.values()) clean *= 1 - signal.weight;
  return 1 - clean;
}

function checkKind(kind: InputKind): void {
  if (kind !== 'direct' && kind !== 'indirect') throw new TypeError(`kind must be direct or indirect, got ${String(kind)}`);
}

/** The rules' score alone (no learned model): what src/train.ts combines the model with. */
export function scoreRules(input: string, options: ScoreOptions): number {
  checkKind(options.kind);
  return noisyOr(ruleHits(normalize(input), options.kind));
}

/**
 * Scores one text for prompt injection. Pure and synchronous; the cost is linear in the text's length.
 * The score is the larger of the rules' (noisy-OR of their signals) and the learned model's
 * (src/model.ts, its probability mapped so that the probability chosen on dev lands on 0.57; below an
 * even chance it adds nothing).
 */
export function scorePrompt(input: string, options: ScoreOptions): PromptScore {
  const kind = options.kind;
  checkKind(kind);
  const normalized = normalize(input);
  const hits = ruleHits(normalized, kind);
  let score = noisyOr(hits);
  const model = learnedModel();
  if (model) {
    const p = model.probability(modelText(normalized), kind);
    const learned = modelScore(p, model.weights);
    if (learned > 0) record(hits, 'learned_model', learned, 'text', `probability ${p.toFixed(3)}`);
    score = Math.max(score, learned);
  }
  score = Math.round(score * 10_000) / 10_000;
  const signals = [...hits.values()].sort((a, b) => b.weight - a.weight);
  for (const s of signals) s.weight = Math.round(s.weight * 10_000) / 10_000;
  return { score: Math.min(score, 0.9999), signals };
}
