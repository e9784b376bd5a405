import { evaluate, loadDataset } from './dataset';
import { FNV_OFFSET, hashString, learnedModel } from './model';
import { scorePrompt } from './score';
import { DEFAULT_PI_SETTINGS } from './settings';

const flagged = (score: number) => score >= DEFAULT_PI_SETTINGS.blockThreshold;

function run(split: 'dev' | 'test' | 'holdout') {
  return evaluate(loadDataset(split), (row) => scorePrompt(row.text, { kind: row.kind }), flagged);
}

describe('the labelled data set', () => {
  const rows = loadDataset();

  it('holds at least 200 injections and 200 benign prompts with unique ids', () => {
    expect(rows.filter((r) => r.label === 'injection').length).toBeGreaterThanOrEqual(200);
    expect(rows.filter((r) => r.label === 'benign').length).toBeGreaterThanOrEqual(200);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
  });

  it('splits every category between dev and test; the second held-out set uses the same categories', () => {
    const first = rows.filter((r) => r.split !== 'holdout');
    const categories = new Set(first.map((r) => `${r.label}/${r.category}`));
    for (const category of categories) {
      const splits = new Set(first.filter((r) => `${r.label}/${r.category}` === category).map((r) => r.split));
      expect([category, [...splits].sort()]).toEqual([category, ['dev', 'test']]);
    }
    expect(rows.filter((r) => r.split === 'holdout').every((r) => categories.has(`${r.label}/${r.category}`))).toBe(true);
    expect(rows.every((r) => (r.kind === 'direct' || r.kind === 'indirect') && r.text.trim() !== '')).toBe(true);
  });
});

// Regression guards at the levels reached (see README, "Accuracy"): a change that loses a detection
// or adds a false positive at the default block threshold fails here. Raise them when the detector improves.
describe('accuracy at the default thresholds (rules and learned model)', () => {
  it('held-out test split: at least 104 of 106 injections blocked, at most 2 of 108 benign prompts blocked', () => {
    const e = run('test');
    expect(e.truePositives + e.falseNegatives).toBe(106);
    expect(e.truePositives).toBeGreaterThanOrEqual(104);
    expect(e.falsePositives).toBeLessThanOrEqual(2);
  });

  it('second held-out split: at least 61 of 64 injections blocked, at most 2 of 63 benign prompts blocked', () => {
    const e = run('holdout');
    expect(e.truePositives + e.falseNegatives).toBe(64);
    expect(e.truePositives).toBeGreaterThanOrEqual(61);
    expect(e.falsePositives).toBeLessThanOrEqual(2);
  });

  it('dev split: at least 268 of 270 injections blocked, at most 2 of 223 benign prompts blocked', () => {
    const e = run('dev');
    expect(e.truePositives + e.falseNegatives).toBe(270);
    expect(e.truePositives).toBeGreaterThanOrEqual(268);
    expect(e.falsePositives).toBeLessThanOrEqual(2);
  });
});

describe('the learned model (data/model.json)', () => {
  it('was trained on exactly the current dev split, none of the held-out lines (rerun `pnpm train` after editing dev)', () => {
    const dev = loadDataset('dev');
    const model = learnedModel();
    expect(model).not.toBeNull();
    expect(model!.weights.trainedOn).toEqual({ count: dev.length, idsHash: hashString(FNV_OFFSET, dev.map((r) => r.id).join('\n')) });
  });
});
