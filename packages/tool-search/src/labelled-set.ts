import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ToolIndex } from './tool-index';

export type LabelledSplit = 'dev' | 'holdout';

/** One intent of the labelled set, with every tool that would be a right answer. */
export interface LabelledIntent {
  id: string;
  split: LabelledSplit;
  intent: string;
  expected: string[];
}

/** The package's labelled set (eval/intents.json), the same file from src/ (tests) and dist/. */
export const LABELLED_INTENTS_FILE = path.join(__dirname, '..', 'eval', 'intents.json');

export function loadLabelledIntents(file = LABELLED_INTENTS_FILE): LabelledIntent[] {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { intents: LabelledIntent[] };
  return parsed.intents;
}

export interface AccuracyFigures {
  count: number;
  /** Share of intents whose first hit is an expected tool. */
  top1: number;
  /** Share of intents with an expected tool among the first five hits. */
  top5: number;
  /** Mean reciprocal rank of the first expected tool (0 when it is not returned). */
  mrr: number;
}

export interface RankingMiss {
  id: string;
  split: LabelledSplit;
  intent: string;
  expected: string[];
  /** The first five hits' names. */
  got: string[];
  /** 1-based rank of the first expected tool in the whole result, null when not returned at all. */
  rank: number | null;
}

export interface RankingEvaluation {
  overall: AccuracyFigures;
  splits: Record<LabelledSplit, AccuracyFigures>;
  /** Intents whose first hit is not expected (top-1 misses), each with its rank. */
  misses: RankingMiss[];
}

/** Top-1 and top-5 accuracy of an index on labelled intents. */
export function evaluateRanking(index: ToolIndex, intents: LabelledIntent[]): RankingEvaluation {
  const ranks: Array<{ item: LabelledIntent; rank: number | null; got: string[] }> = intents.map((item) => {
    const { hits } = index.search(item.intent, { maxResults: 50 });
    const names = hits.map((h) => h.tool.fully_qualified_name);
    const position = names.findIndex((n) => item.expected.includes(n));
    return { item, rank: position < 0 ? null : position + 1, got: names.slice(0, 5) };
  });
  const figures = (subset: typeof ranks): AccuracyFigures => {
    const count = subset.length;
    const share = (f: (r: (typeof ranks)[number]) => boolean) => (count === 0 ? 0 : subset.filter(f).length / count);
    return {
      count,
      top1: share((r) => r.rank === 1),
      top5: share((r) => r.rank !== null && r.rank <= 5),
      mrr: count === 0 ? 0 : subset.reduce((sum, r) => sum + (r.rank ? 1 / r.rank : 0), 0) / count,
    };
  };
  return {
    overall: figures(ranks),
    splits: { dev: figures(ranks.filter((r) => r.item.split === 'dev')), holdout: figures(ranks.filter((r) => r.item.split === 'holdout')) },
    misses: ranks
      .filter((r) => r.rank !== 1)
      .map((r) => ({ id: r.item.id, split: r.item.split, intent: r.item.intent, expected: r.item.expected, got: r.got, rank: r.rank })),
  };
}
