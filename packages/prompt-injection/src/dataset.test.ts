import { evaluate, loadDataset } from './dataset';
import { scorePrompt } from './score';
import { DEFAULT_PI_SETTINGS } from './settings';

const flagged = (score: number) => score >= DEFAULT_PI_SETTINGS.blockThreshold;

function run(split: 'dev' | 'test') {
  return evaluate(loadDataset(split), (row) => scorePrompt(row.text, { kind: row.kind }), flagged);
}

describe('the labelled data set', () => {
  const rows = loadDataset();

  it('holds at least 200 injections and 200 benign prompts with unique ids', () => {
    expect(rows.filter((r) => r.label === 'injection').length).toBeGreaterThanOrEqual(200);
    expect(rows.filter((r) => r.label === 'benign').length).toBeGreaterThanOrEqual(200);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
  });

  it('splits every category between dev and test', () => {
    const categories = new Set(rows.map((r) => `${r.label}/${r.category}`));
    for (const category of categories) {
      const splits = new Set(rows.filter((r) => `${r.label}/${r.category}` === category).map((r) => r.split));
      expect([category, [...splits].sort()]).toEqual([category, ['dev', 'test']]);
    }
    expect(rows.every((r) => (r.kind === 'direct' || r.kind === 'indirect') && r.text.trim() !== '')).toBe(true);
  });
});

// Regression guards at the levels reached (see README, "Accuracy"): a change that loses a detection
// or adds a false positive at the default block threshold fails here. Raise them when the detector improves.
describe('accuracy at the default thresholds', () => {
  it('held-out test split: at least 93 of 106 injections blocked, at most 1 of 108 benign prompts blocked', () => {
    const e = run('test');
    expect(e.truePositives + e.falseNegatives).toBe(106);
    expect(e.truePositives).toBeGreaterThanOrEqual(93);
    expect(e.falsePositives).toBeLessThanOrEqual(1);
    expect(e.precision).toBeGreaterThanOrEqual(0.985);
    expect(e.recall).toBeGreaterThanOrEqual(0.877);
  });

  it('dev split: at least 106 of 108 injections blocked, no benign prompt blocked', () => {
    const e = run('dev');
    expect(e.truePositives).toBeGreaterThanOrEqual(106);
    expect(e.falsePositives).toBe(0);
  });
});
