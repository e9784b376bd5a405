import { parseArgs } from 'node:util';
import {
  ToolIndex,
  catalogSearchableTools,
  evaluateRanking,
  loadLabelledIntents,
  type AccuracyFigures,
  type LabelledIntent,
  type RankingMiss,
} from '@patchbay/tool-search';
import type { Benchmark } from './benchmark';
import { measureSync, type MicroOptions, type MicroResult } from './micro';
import { UsageError } from './options';
import { formatInt, machineDescription, machineLoad, print, progress, table } from './report';

/** The issue's goal: an expected tool among the first five for at least 90% of the labelled intents. */
const TARGET_TOP5 = 0.9;

/** A search costs tens of µs: fewer calls than the key-check micro-benchmarks keep a run to seconds. */
const SEARCH_MICRO: MicroOptions = { warmupIterations: 3_000, rounds: 5, iterationsPerRound: 5_000 };
const BUILD_MICRO: MicroOptions = { warmupIterations: 50, rounds: 5, iterationsPerRound: 200 };

const USAGE = `pnpm bench search [options]

Ranking accuracy of @patchbay/tool-search on its labelled intents (packages/tool-search/eval/intents.json):
top-1 and top-5 on the dev split (the one tuning looked at), on the holdout split (never tuned on) and
overall, with every intent whose first hit is not an expected tool. Then the cost of building the index
of the built-in catalog and of one search (max_results 10, reasoning included), in process.

  --misses dev|holdout|all|none   which misses to list (default all)
  --help
`;

interface Options {
  misses: 'dev' | 'holdout' | 'all' | 'none';
  help: boolean;
}

function parseOptions(args: string[]): Options {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { misses: { type: 'string' }, help: { type: 'boolean' } }, strict: true, allowPositionals: false });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const misses = parsed.values.misses ?? 'all';
  if (!['dev', 'holdout', 'all', 'none'].includes(misses)) throw new UsageError(`--misses must be dev, holdout, all or none, got "${misses}"`);
  return { misses: misses as Options['misses'], help: parsed.values.help ?? false };
}

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
const accuracyRow = (name: string, f: AccuracyFigures) => [name, String(f.count), percent(f.top1), percent(f.top5), f.mrr.toFixed(3)];

function printMisses(misses: RankingMiss[], which: Options['misses']): void {
  const shown = misses.filter((m) => which === 'all' || m.split === which);
  if (which === 'none') return;
  print(`Misses: first hit not an expected tool (${shown.length}${which === 'all' ? '' : `, ${which} split`}); rank of the first expected tool, "-" when not returned`);
  for (const split of ['dev', 'holdout'] as const) {
    for (const miss of shown.filter((m) => m.split === split)) {
      print(`  [${miss.split}] ${miss.id}  rank ${miss.rank ?? '-'}: "${miss.intent}"`);
      print(`      expected ${miss.expected.join(' | ')}`);
      print(`      got      ${miss.got.map((name, i) => `${i + 1}. ${name}`).join('  ')}`);
    }
  }
  print();
}

/** ns per search, cycling through the labelled intents so the figure is an average over realistic ones. */
function measureSearch(index: ToolIndex, intents: LabelledIntent[]): MicroResult {
  let next = 0;
  return measureSync(() => {
    const intent = intents[next]!.intent;
    next = (next + 1) % intents.length;
    return index.search(intent).total_results;
  }, SEARCH_MICRO);
}

async function run(args: string[]): Promise<number> {
  const options = parseOptions(args);
  if (options.help) {
    print(USAGE);
    return 0;
  }
  const tools = catalogSearchableTools();
  const intents = loadLabelledIntents();
  // The first build analyses every definition (and runs unoptimized code); later ones reuse the analyses.
  const started = process.hrtime.bigint();
  const index = new ToolIndex(tools);
  const firstBuildNs = Number(process.hrtime.bigint() - started);
  progress(`evaluating ${intents.length} labelled intents`);
  const evaluation = evaluateRanking(index, intents);
  progress('measuring index build');
  const build = measureSync(() => new ToolIndex(tools).size, BUILD_MICRO);
  progress('measuring search');
  const search = measureSearch(index, intents);
  const load = machineLoad();

  print('pnpm bench search: tool-search ranking accuracy on the labelled intents, and search latency');
  print(`machine:  ${machineDescription()}; load average ${load.text}`);
  print(`catalog:  ${new Set(tools.map((t) => t.connector_slug)).size} built-in connectors, ${tools.length} tools`);
  const dev = evaluation.splits.dev;
  const holdout = evaluation.splits.holdout;
  print(`labelled: ${intents.length} intents (${dev.count} dev, tuned on; ${holdout.count} holdout, never tuned on), ${new Set(intents.flatMap((i) => i.expected)).size} distinct expected tools`);
  print();

  print('Accuracy: top-1 = an expected tool ranks first; top-5 = one is among the first five; MRR = mean of 1/rank');
  for (const line of table(
    ['split', 'intents', 'top-1', 'top-5', 'MRR'],
    [accuracyRow('dev', dev), accuracyRow('holdout', holdout), accuracyRow('overall', evaluation.overall)],
  )) print(line);
  print();

  printMisses(evaluation.misses, options.misses);

  const us = (ns: number) => (ns / 1000).toFixed(1);
  print(`Latency, in process (median of ${SEARCH_MICRO.rounds} rounds; index built once, searches cycle through the labelled intents)`);
  for (const line of table(
    ['operation', 'µs/call', 'rounds range', 'calls'],
    [
      [`first build in the process (${tools.length} tools, cold)`, us(firstBuildNs), '', '1'],
      [`build the index again (definitions analysed before)`, us(build.nsPerOp), `${us(build.minNsPerOp)}-${us(build.maxNsPerOp)}`, formatInt(build.iterations)],
      ['search (max_results 10, with reasoning)', us(search.nsPerOp), `${us(search.minNsPerOp)}-${us(search.maxNsPerOp)}`, formatInt(search.iterations)],
    ],
  )) print(line);
  print();

  const met = evaluation.overall.top5 >= TARGET_TOP5;
  print(
    `verdict: top-5 ${percent(evaluation.overall.top5)} overall (holdout ${percent(holdout.top5)}): ` +
      `${met ? 'meets' : 'misses'} the target of ${percent(TARGET_TOP5)}`,
  );
  return met ? 0 : 1;
}

export const searchBenchmark: Benchmark = {
  name: 'search',
  summary: 'tool-search top-1/top-5 accuracy on the labelled intents (dev and holdout) and µs per search',
  run,
};
