import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Normalized } from './normalize';
import type { InputKind } from './score';

/**
 * The learned half of the detector: a logistic regression over hashed features of the folded text
 * (lower-case word unigrams and bigrams, character 3- to 5-grams), trained by src/train.ts on the dev
 * split only and committed as data/model.json. Scoring is a sum of looked-up weights: deterministic,
 * no library, linear in the text's length.
 */

/** Number of hash buckets (a power of two). */
export const BUCKETS = 1 << 18;
/** Long texts are scored window by window (an injection in a document is local); the strongest window counts. */
export const MODEL_WINDOW = 1_200;
const MODEL_STEP = 900;

export interface ModelWeights {
  /** What trained it and how, for people reading the file. */
  about: string;
  /** The ids of the dev prompts it was trained on, hashed (FNV-1a of the ids joined by newlines): a test checks it matches the dev split. */
  trainedOn: { count: number; idsHash: number };
  buckets: number;
  bias: number;
  /**
   * The evidence floor: a window's weights are summed and divided by √max(distinct features, this), so
   * a short text's few features weigh no more each than a typical prompt's and its logit stays near
   * `bias` (the prior) when there is little to go on.
   */
  minFeatures: number;
  /** Added for indirect inputs (tool results, documents). */
  indirect: number;
  /** Sparse weights: bucket → weight. */
  weights: Record<string, number>;
  /** Model probability at which the combined score reaches the default block threshold (chosen on dev by cross-validation). */
  blockAt: number;
  /** Model probability below which the model adds nothing to the score; it maps to the default pass threshold. */
  alertAt: number;
}

export const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const WORD = /[\p{L}\p{N}]+/gu;

export function hashString(seed: number, s: string): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

/**
 * Calls `emit` with the feature bucket of every word, word pair and character 3-5-gram of the words
 * joined by single spaces, in order, repeats included.
 */
function eachFeature(folded: string, emit: (bucket: number) => void): void {
  const mask = BUCKETS - 1;
  const words = folded.match(WORD) ?? [];
  let previous = '';
  for (const w of words) {
    emit(hashString(FNV_OFFSET ^ 0x1, w) & mask);
    if (previous) emit(hashString(hashString(FNV_OFFSET ^ 0x2, previous), ` ${w}`) & mask);
    previous = w;
  }
  const joined = ` ${words.join(' ')} `;
  for (let i = 0; i + 3 <= joined.length; i++) {
    let h = FNV_OFFSET ^ 0x3;
    for (let n = 1; n <= 5 && i + n <= joined.length; n++) {
      h = Math.imul(h ^ joined.charCodeAt(i + n - 1), FNV_PRIME);
      if (n >= 3) emit(((h ^ n) >>> 0) & mask);
    }
  }
}

/** The distinct feature buckets of one text (already folded by normalize), in first-seen order. */
export function features(folded: string): Set<number> {
  const out = new Set<number>();
  eachFeature(folded, (b) => out.add(b));
  return out;
}

/** The text the model reads: the folded input and the readings normalisation decoded from it (base64, hidden HTML…). */
export function modelText(normalized: Pick<Normalized, 'text' | 'views'>): string {
  if (normalized.views.length === 0) return normalized.text;
  return [normalized.text, ...normalized.views.map((v) => v.text)].join('\n');
}

/** The windows of a folded text the model scores: the whole text when short. */
export function modelWindows(folded: string): string[] {
  if (folded.length <= MODEL_WINDOW) return [folded];
  const out: string[] = [];
  for (let start = 0; ; start += MODEL_STEP) {
    const end = Math.min(folded.length, start + MODEL_WINDOW);
    out.push(folded.slice(Math.max(0, end - MODEL_WINDOW), end));
    if (end === folded.length) break;
  }
  return out;
}

/**
 * How much each feature of a window weighs: 1/√(count), so a long text does not add up by length alone,
 * but never more than 1/√minFeatures, so a short text's few features do not speak louder each than a
 * typical prompt's (with little evidence the logit stays near the bias).
 */
export function featureScale(count: number, minFeatures: number): number {
  return 1 / Math.sqrt(Math.max(count, minFeatures, 1));
}

/** The logit of one window (see featureScale). */
export function logit(model: Pick<ModelWeights, 'bias' | 'indirect' | 'minFeatures'> & { lookup: (bucket: number) => number }, feats: Set<number>, kind: InputKind): number {
  let sum = 0;
  for (const f of feats) sum += model.lookup(f);
  return model.bias + (kind === 'indirect' ? model.indirect : 0) + sum * featureScale(feats.size, model.minFeatures);
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

export class LearnedModel {
  private readonly table: Float32Array;
  /** Per bucket, the number of the window that last counted it: distinct features without a Set per window. */
  private readonly seen = new Uint32Array(BUCKETS);
  private stamp = 0;

  constructor(readonly weights: ModelWeights) {
    if (weights.buckets !== BUCKETS) throw new Error(`model.json has ${weights.buckets} buckets, the code ${BUCKETS}: retrain`);
    if (typeof weights.minFeatures !== 'number') throw new Error('model.json has no minFeatures: retrain');
    this.table = new Float32Array(BUCKETS);
    for (const [bucket, w] of Object.entries(weights.weights)) this.table[Number(bucket)] = w;
  }

  /** Probability (0-1) that the folded text is an injection: the strongest window's. */
  probability(folded: string, kind: InputKind): number {
    let best = -Infinity;
    for (const window of modelWindows(folded)) best = Math.max(best, this.windowLogit(window, kind));
    return sigmoid(best);
  }

  /** logit() over features(window), without building the set. */
  private windowLogit(window: string, kind: InputKind): number {
    if (this.stamp === 0xffffffff) {
      this.seen.fill(0);
      this.stamp = 0;
    }
    const stamp = ++this.stamp;
    let sum = 0;
    let count = 0;
    eachFeature(window, (b) => {
      if (this.seen[b] === stamp) return;
      this.seen[b] = stamp;
      sum += this.table[b]!;
      count++;
    });
    return this.weights.bias + (kind === 'indirect' ? this.weights.indirect : 0) + sum * featureScale(count, this.weights.minFeatures);
  }
}

let loaded: LearnedModel | null | undefined;

/** The committed model (data/model.json), loaded once; null when the package ships without one. */
export function learnedModel(): LearnedModel | null {
  if (loaded !== undefined) return loaded;
  let text: string;
  try {
    // src/ and dist/ are both one level below the package root, where data/ lives.
    text = readFileSync(join(__dirname, '..', 'data', 'model.json'), 'utf8');
  } catch {
    loaded = null;
    return loaded;
  }
  loaded = new LearnedModel(JSON.parse(text) as ModelWeights);
  return loaded;
}

/**
 * Maps the model's probability onto the detector's score scale so that the pass and block thresholds
 * keep their meaning: below `alertAt` (an even chance) the model adds nothing, so clean text still scores 0;
 * `alertAt` lands on the default pass threshold (0.30), `blockAt` on the default block threshold (0.57)
 * and 1 on 0.99, linear in between.
 */
export function modelScore(probability: number, model: Pick<ModelWeights, 'alertAt' | 'blockAt'>): number {
  const { alertAt, blockAt } = model;
  if (probability < alertAt) return 0;
  if (probability < blockAt) return 0.3 + ((probability - alertAt) / (blockAt - alertAt)) * (0.57 - 0.3);
  return 0.57 + ((probability - blockAt) / (1 - blockAt)) * (0.99 - 0.57);
}
