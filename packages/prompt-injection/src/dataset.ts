import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InputKind } from './score';

export type Label = 'injection' | 'benign';
/**
 * dev: tuned on; test: held out (first run once the first detector was done); holdout: a second
 * held-out set (data/holdout.jsonl), written and committed before the second round of rules; everyday:
 * benign prompts only, in the style customers write (data/everyday.jsonl), by someone other than the
 * rules' author, for the false-positive rate; never trained or tuned on.
 */
export type Split = 'dev' | 'test' | 'holdout' | 'everyday';

/** One labelled example of data/prompts.jsonl. */
export interface LabelledPrompt {
  id: string;
  /** dev: what the detector was tuned on; test: held out, never tuned on. */
  split: Split;
  label: Label;
  kind: InputKind;
  category: string;
  text: string;
}

function readRows(name: string): LabelledPrompt[] {
  // src/ and dist/ are both one level below the package root, where data/ lives.
  return readFileSync(join(__dirname, '..', 'data', name), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as LabelledPrompt);
}

/**
 * The package's labelled set (data/prompts.jsonl with dev and test, data/holdout.jsonl), optionally one
 * split of it. The everyday benign set (data/everyday.jsonl) only when asked for by name: it has no
 * injections and its own categories.
 */
export function loadDataset(split?: Split): LabelledPrompt[] {
  if (split === 'everyday') return readRows('everyday.jsonl');
  const rows = [...readRows('prompts.jsonl'), ...readRows('holdout.jsonl')];
  return split ? rows.filter((r) => r.split === split) : rows;
}

export interface Evaluation {
  truePositives: number;
  falsePositives: number;
  trueNegatives: number;
  falseNegatives: number;
  precision: number;
  recall: number;
  /** Share of the benign prompts flagged (0 when there are none). */
  falsePositiveRate: number;
  /** Recall per injection category and specificity (share passed) per benign category. */
  byCategory: Array<{ label: Label; category: string; total: number; correct: number }>;
  falsePositiveItems: Array<LabelledPrompt & { score: number; signals: string[] }>;
  falseNegativeItems: Array<LabelledPrompt & { score: number; signals: string[] }>;
}

/**
 * Scores every example and counts it as flagged when `flag(score)` holds (the gateway blocks at
 * score >= block threshold).
 */
export function evaluate(rows: LabelledPrompt[], score: (row: LabelledPrompt) => { score: number; signals: Array<{ id: string }> }, flag: (score: number) => boolean): Evaluation {
  const out: Evaluation = { truePositives: 0, falsePositives: 0, trueNegatives: 0, falseNegatives: 0, precision: 0, recall: 0, falsePositiveRate: 0, byCategory: [], falsePositiveItems: [], falseNegativeItems: [] };
  const categories = new Map<string, { label: Label; category: string; total: number; correct: number }>();
  for (const row of rows) {
    const result = score(row);
    const flagged = flag(result.score);
    const key = `${row.label}/${row.category}`;
    const cat = categories.get(key) ?? { label: row.label, category: row.category, total: 0, correct: 0 };
    categories.set(key, cat);
    cat.total++;
    const item = { ...row, score: result.score, signals: result.signals.map((s) => s.id) };
    if (row.label === 'injection' && flagged) {
      out.truePositives++;
      cat.correct++;
    } else if (row.label === 'injection') {
      out.falseNegatives++;
      out.falseNegativeItems.push(item);
    } else if (flagged) {
      out.falsePositives++;
      out.falsePositiveItems.push(item);
    } else {
      out.trueNegatives++;
      cat.correct++;
    }
  }
  out.precision = out.truePositives + out.falsePositives === 0 ? 1 : out.truePositives / (out.truePositives + out.falsePositives);
  out.recall = out.truePositives + out.falseNegatives === 0 ? 1 : out.truePositives / (out.truePositives + out.falseNegatives);
  out.falsePositiveRate = out.falsePositives + out.trueNegatives === 0 ? 0 : out.falsePositives / (out.falsePositives + out.trueNegatives);
  out.byCategory = [...categories.values()].sort((a, b) => a.label.localeCompare(b.label) || a.category.localeCompare(b.category));
  return out;
}
