import { checkTexts } from './check';
import { evaluate, loadDataset } from './dataset';
import { compilePiSettings } from './evaluate';
import { FNV_OFFSET, hashString, learnedModel } from './model';
import { scorePrompt } from './score';
import { DEFAULT_PI_SETTINGS } from './settings';

const flagged = (score: number) => score >= DEFAULT_PI_SETTINGS.blockThreshold;

function run(split: 'dev' | 'test' | 'holdout' | 'everyday') {
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
  // Recall on the injection test split before the short-prompt fix (issue 29, §4): 105 of 106.
  it('held-out test split: at least 105 of 106 injections blocked (as before the short-prompt fix), at most 2 of 108 benign prompts blocked', () => {
    const e = run('test');
    expect(e.truePositives + e.falseNegatives).toBe(106);
    expect(e.truePositives).toBeGreaterThanOrEqual(105);
    expect(e.falsePositives).toBeLessThanOrEqual(2);
  });

  it('second held-out split: at least 62 of 64 injections blocked (as before the short-prompt fix), at most 2 of 63 benign prompts blocked', () => {
    const e = run('holdout');
    expect(e.truePositives + e.falseNegatives).toBe(64);
    expect(e.truePositives).toBeGreaterThanOrEqual(62);
    expect(e.falsePositives).toBeLessThanOrEqual(2);
  });

  it('dev split: at least 268 of 270 injections blocked, at most 2 of 223 benign prompts blocked', () => {
    const e = run('dev');
    expect(e.truePositives + e.falseNegatives).toBe(270);
    expect(e.truePositives).toBeGreaterThanOrEqual(268);
    expect(e.falsePositives).toBeLessThanOrEqual(2);
  });
});

// Issue 29, §4: short everyday prompts were blocked (the learned model read a word seen in one dev
// injection as evidence, and a short text's few features each weighed up to twice a typical prompt's).
describe('everyday benign text (data/everyday.jsonl: held out, never trained or tuned on)', () => {
  const everyday = loadDataset('everyday');

  it('holds at least 150 benign prompts in several categories and languages, none of them in dev', () => {
    expect(everyday.length).toBeGreaterThanOrEqual(150);
    expect(everyday.every((r) => r.label === 'benign' && r.split === 'everyday')).toBe(true);
    expect(new Set(everyday.map((r) => r.category)).size).toBeGreaterThanOrEqual(8);
    const dev = new Set(loadDataset('dev').map((r) => r.text.toLowerCase()));
    expect(everyday.filter((r) => dev.has(r.text.toLowerCase())).map((r) => r.text)).toEqual([]);
  });

  it('at most 1% of it is blocked at the default block threshold', () => {
    const e = run('everyday');
    expect(e.falsePositives + e.trueNegatives).toBe(everyday.length);
    expect(e.falsePositiveRate).toBeLessThanOrEqual(0.01);
  });

  it('the two prompts of the report are not blocked by the check endpoint at the default settings', () => {
    const answer = checkTexts(['hello from B customer', 'Tell me a joke about databases.'], compilePiSettings(DEFAULT_PI_SETTINGS));
    expect(answer.results.map((r) => [r.would_block, r.score < DEFAULT_PI_SETTINGS.blockThreshold])).toEqual([
      [false, true],
      [false, true],
    ]);
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
