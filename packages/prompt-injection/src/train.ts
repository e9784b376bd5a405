/**
 * Trains the learned half of the detector (src/model.ts) on the dev split of data/prompts.jsonl only
 * and writes data/model.json. The held-out splits (test, holdout) are never read here.
 *
 *   pnpm --filter @patchbay/prompt-injection train
 *
 * 1. Features per dev prompt (src/model.ts), from the folded text and its decoded readings.
 * 2. For each L2 strength of a small grid: 5-fold cross-validation on dev, out-of-fold probabilities.
 * 3. The combined detector flags a prompt when the rules' score reaches 0.57 or the model's probability
 *    reaches `blockAt`; the strength and `blockAt` are those with the best out-of-fold recall whose
 *    out-of-fold precision is at least TARGET_PRECISION.
 * 4. The model is retrained on all of dev with that strength and written with `blockAt`.
 * Deterministic: fixed folds (by id), fixed example order, no randomness.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDataset, type LabelledPrompt } from './dataset';
import { BUCKETS, FNV_OFFSET, featureScale, features, hashString, logit, modelText, modelWindows, type ModelWeights } from './model';
import { normalize } from './normalize';
import { scoreRules } from './score';

const FOLDS = 5;
const EPOCHS = 40;
const TARGET_PRECISION = 0.975;
const L2_GRID = [1e-4, 3e-4, 1e-3];
const BLOCK_THRESHOLD = 0.57;
/**
 * The model adds nothing to the score below `alertAt`: at least an even chance, and above the out-of-fold
 * probability of all but ALERT_BENIGN_SHARE of the dev benign prompts (short clean prompts carry little
 * evidence and sit near the prior).
 */
const ALERT_BENIGN_SHARE = 0.05;
/**
 * A feature is learned only when at least this many dev prompts contain it. A word seen once, in the
 * task an injection asks for ("…and tell me a joke about the CEO"), says nothing about injections, yet
 * Adagrad gives a rare feature full-size steps and every one of the word's dozen n-grams shares that one
 * example's label: the word alone became strong evidence.
 */
export const MIN_DOCUMENTS = 3;
/**
 * The evidence floor (ModelWeights.minFeatures): this quantile of the dev prompts' distinct feature
 * counts, so a prompt shorter than most weighs each feature as a typical one does.
 */
export const MIN_FEATURES_QUANTILE = 0.5;

export function evidenceFloor(examples: Example[]): number {
  const sizes = examples.map((ex) => ex.feats.length).sort((a, b) => a - b);
  return sizes[Math.floor((sizes.length - 1) * MIN_FEATURES_QUANTILE)]!;
}

export interface Example {
  id: string;
  y: 0 | 1;
  indirect: boolean;
  feats: number[];
  rule: number;
}

export function toExample(row: LabelledPrompt): Example {
  // Training sees the first window of a long text; scoring takes the strongest window.
  const folded = modelWindows(modelText(normalize(row.text)))[0]!;
  return { id: row.id, y: row.label === 'injection' ? 1 : 0, indirect: row.kind === 'indirect', feats: [...features(folded)], rule: scoreRules(row.text, { kind: row.kind }) };
}

export interface TrainOptions {
  l2: number;
  /** A feature is learned only when at least this many training prompts contain it (see MIN_DOCUMENTS). */
  minDocuments: number;
  /** The evidence floor of featureScale (see MIN_FEATURES_QUANTILE). */
  minFeatures: number;
}

export interface Trained {
  bias: number;
  indirect: number;
  minFeatures: number;
  table: Float64Array;
}

/** Per bucket, in how many of the examples it occurs. */
function documentFrequency(examples: Example[]): Uint32Array {
  const df = new Uint32Array(BUCKETS);
  for (const ex of examples) for (const f of ex.feats) df[f]!++;
  return df;
}

/**
 * Logistic regression by Adagrad, L2 on the feature weights. Features that fewer than
 * `minDocuments` training prompts contain keep weight 0 (they still count in the window's size).
 */
export function train(examples: Example[], options: TrainOptions): Trained {
  const { l2, minFeatures } = options;
  const df = documentFrequency(examples);
  const table = new Float64Array(BUCKETS);
  const g2 = new Float64Array(BUCKETS);
  let bias = 0;
  let indirect = 0;
  let gBias = 1e-8;
  let gInd = 1e-8;
  const rate = 0.5;
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    // A fixed, epoch-dependent order (no randomness): rotate the list.
    const offset = (epoch * 7919) % examples.length;
    for (let k = 0; k < examples.length; k++) {
      const ex = examples[(k + offset) % examples.length]!;
      const z = logit({ bias, indirect, minFeatures, lookup: (b) => table[b]! }, new Set(ex.feats), ex.indirect ? 'indirect' : 'direct');
      const p = 1 / (1 + Math.exp(-z));
      const err = p - ex.y;
      const scale = featureScale(ex.feats.length, minFeatures);
      for (const f of ex.feats) {
        if (df[f]! < options.minDocuments) continue;
        const g = err * scale + l2 * table[f]!;
        g2[f]! += g * g;
        table[f]! -= (rate * g) / Math.sqrt(g2[f]! + 1e-8);
      }
      gBias += err * err;
      bias -= (rate * err) / Math.sqrt(gBias);
      if (ex.indirect) {
        gInd += err * err;
        indirect -= (rate * err) / Math.sqrt(gInd);
      }
    }
  }
  return { bias, indirect, minFeatures, table };
}

export function probability(model: Trained, ex: Example): number {
  const z = logit({ bias: model.bias, indirect: model.indirect, minFeatures: model.minFeatures, lookup: (b) => model.table[b]! }, new Set(ex.feats), ex.indirect ? 'indirect' : 'direct');
  return 1 / (1 + Math.exp(-z));
}

function fold(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (h >>> 0) % FOLDS;
}

function counts(examples: Example[], oof: number[], blockAt: number) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  examples.forEach((ex, i) => {
    const flagged = ex.rule >= BLOCK_THRESHOLD || oof[i]! >= blockAt;
    if (flagged && ex.y === 1) tp++;
    else if (flagged) fp++;
    else if (ex.y === 1) fn++;
  });
  return { tp, fp, fn, precision: tp + fp === 0 ? 1 : tp / (tp + fp), recall: tp / (tp + fn) };
}

export interface Selection {
  weights: ModelWeights;
  /** Out-of-fold figures on dev of the chosen setting (rules OR model ≥ blockAt). */
  precision: number;
  recall: number;
  falsePositives: number;
}

/**
 * Cross-validates every L2 strength on dev, picks the strength and `blockAt` (step 3 above), retrains on
 * all of dev and returns the weights. `log` receives the figures of every setting.
 */
export function selectAndTrain(examples: Example[], fixed: Omit<TrainOptions, 'l2'>, log: (line: string) => void = () => undefined): Selection {
  const rulesOnly = counts(examples, examples.map(() => 0), 2);
  log(`dev: ${examples.filter((e) => e.y === 1).length} injections, ${examples.filter((e) => e.y === 0).length} benign; rules alone: precision ${rulesOnly.precision.toFixed(3)} recall ${rulesOnly.recall.toFixed(3)}`);
  log(`features: learned when in at least ${fixed.minDocuments} dev prompts; evidence floor ${fixed.minFeatures} features`);
  let best: { l2: number; blockAt: number; precision: number; recall: number; fp: number; alertAt: number } | null = null;
  for (const l2 of L2_GRID) {
    const oof = new Array<number>(examples.length).fill(0);
    for (let k = 0; k < FOLDS; k++) {
      const model = train(
        examples.filter((ex) => fold(ex.id) !== k),
        { ...fixed, l2 },
      );
      examples.forEach((ex, i) => {
        if (fold(ex.id) === k) oof[i] = probability(model, ex);
      });
    }
    const benign = examples.flatMap((ex, i) => (ex.y === 0 ? [oof[i]!] : [])).sort((a, b) => a - b);
    const alertAt = Math.max(0.5, benign[Math.floor(benign.length * (1 - ALERT_BENIGN_SHARE))]!);
    for (let t = 0.55; t <= 0.951; t += 0.025) {
      const c = counts(examples, oof, t);
      if (c.precision < TARGET_PRECISION || t <= alertAt) continue;
      if (!best || c.recall > best.recall || (c.recall === best.recall && c.precision > best.precision)) best = { l2, blockAt: Math.round(t * 1000) / 1000, precision: c.precision, recall: c.recall, fp: c.fp, alertAt: Math.round(alertAt * 1000) / 1000 };
    }
    const at = (t: number) => counts(examples, oof, t);
    const alone = (t: number) => counts(examples.map((ex) => ({ ...ex, rule: 0 })), oof, t);
    for (const t of [0.5, 0.7, 0.85]) log(`  model alone ≥ ${t}: P ${alone(t).precision.toFixed(3)} R ${alone(t).recall.toFixed(3)} (${alone(t).fp} FP)`);
    log(`l2 ${l2}: out-of-fold alertAt ${alertAt.toFixed(3)}; rules OR model ≥ 0.5: P ${at(0.5).precision.toFixed(3)} R ${at(0.5).recall.toFixed(3)}; ≥ 0.7: P ${at(0.7).precision.toFixed(3)} R ${at(0.7).recall.toFixed(3)}`);
  }
  if (!best) throw new Error(`no setting reached out-of-fold precision ${TARGET_PRECISION} on dev`);
  log(`chosen: l2 ${best.l2}, alertAt ${best.alertAt}, blockAt ${best.blockAt}: out-of-fold precision ${best.precision.toFixed(3)} recall ${best.recall.toFixed(3)} (${best.fp} false positives)`);

  const model = train(examples, { ...fixed, l2: best.l2 });
  const weights: Record<string, number> = {};
  model.table.forEach((w, bucket) => {
    const rounded = Math.round(w * 10_000) / 10_000;
    if (rounded !== 0) weights[String(bucket)] = rounded;
  });
  return {
    precision: best.precision,
    recall: best.recall,
    falsePositives: best.fp,
    weights: {
      about: `logistic regression over hashed word 1-2-grams and character 3-5-grams, trained by src/train.ts on the ${examples.length} dev prompts of data/prompts.jsonl (never the test, holdout or everyday sets); features in fewer than ${fixed.minDocuments} dev prompts not learned; evidence floor ${fixed.minFeatures} features; l2 ${best.l2}, ${EPOCHS} epochs; blockAt chosen by ${FOLDS}-fold cross-validation on dev (out-of-fold, with the rules: precision ${best.precision.toFixed(3)}, recall ${best.recall.toFixed(3)})`,
      trainedOn: { count: examples.length, idsHash: hashString(FNV_OFFSET, examples.map((e) => e.id).join('\n')) },
      buckets: BUCKETS,
      bias: Math.round(model.bias * 10_000) / 10_000,
      minFeatures: fixed.minFeatures,
      indirect: Math.round(model.indirect * 10_000) / 10_000,
      blockAt: best.blockAt,
      alertAt: best.alertAt,
      weights,
    },
  };
}

function main(): void {
  const examples = loadDataset('dev').map(toExample);
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const { weights } = selectAndTrain(examples, { minDocuments: MIN_DOCUMENTS, minFeatures: evidenceFloor(examples) }, log);
  const path = join(__dirname, '..', 'data', 'model.json');
  writeFileSync(path, `${JSON.stringify(weights)}\n`);
  log(`wrote ${path}: ${Object.keys(weights.weights).length} non-zero weights`);
}

if (require.main === module) main();
