import { loadDataset } from './dataset';
import { featureScale, learnedModel } from './model';
import { normalize } from './normalize';
import { evidenceFloor, MIN_DOCUMENTS, toExample, train, type Example } from './train';

// Issue 29, §4: why short benign prompts scored high, one test per cause (see README, "Learned model").
describe('the learned model with little evidence', () => {
  const dev = loadDataset('dev').map(toExample);
  const model = learnedModel()!;

  it('weighs each feature of a short text no more than a typical prompt’s (the evidence floor)', () => {
    expect(featureScale(10, 283)).toBe(featureScale(283, 283));
    expect(featureScale(400, 283)).toBeCloseTo(1 / Math.sqrt(400), 12);
    expect(featureScale(0, 0)).toBe(1);
    // The committed model uses the median distinct-feature count of the dev prompts as its floor.
    expect(model.weights.minFeatures).toBe(evidenceFloor(dev));
    expect(model.weights.minFeatures).toBeGreaterThan(100);
  });

  it('learns no weight for a feature that fewer than MIN_DOCUMENTS training prompts contain', () => {
    const examples: Example[] = [];
    for (let i = 0; i < 10; i++) examples.push({ id: `b${i}`, y: 0, indirect: false, feats: [1, 2, 3], rule: 0 });
    for (let i = 0; i < 10; i++) examples.push({ id: `i${i}`, y: 1, indirect: false, feats: i === 0 ? [4, 5, 99] : [4, 5], rule: 0 });
    const trained = train(examples, { l2: 1e-4, minDocuments: MIN_DOCUMENTS, minFeatures: 1 });
    expect(trained.table[99]).toBe(0);
    expect(trained.table[4]).toBeGreaterThan(0);
    expect(trained.table[1]).toBeLessThan(0);
    // Without the rule the one example would have taught it.
    expect(train(examples, { l2: 1e-4, minDocuments: 1, minFeatures: 1 }).table[99]).toBeGreaterThan(0);
  });

  it('the committed weights sit only on features at least MIN_DOCUMENTS dev prompts contain', () => {
    const df = new Map<number, number>();
    for (const ex of dev) for (const f of ex.feats) df.set(f, (df.get(f) ?? 0) + 1);
    const rare = Object.keys(model.weights.weights).filter((bucket) => (df.get(Number(bucket)) ?? 0) < MIN_DOCUMENTS);
    expect(rare).toEqual([]);
  });

  it('a single word of the dev vocabulary alone almost never reaches the block probability (it was 282 of 2,014 words)', () => {
    const words = new Set<string>();
    for (const row of loadDataset('dev')) for (const w of normalize(row.text).text.match(/[\p{L}\p{N}]+/gu) ?? []) words.add(w);
    const blocked = [...words].filter((w) => model.probability(w, 'direct') >= model.weights.blockAt);
    expect(blocked.length).toBeLessThanOrEqual(words.size * 0.01);
  });
});
