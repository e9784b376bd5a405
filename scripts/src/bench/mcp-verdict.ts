import type { SampleTally } from './mcp-checks';
import type { CallCounts } from './mcp-providers';
import { CUSTOM_SLUG, CUSTOM_TOOL, EVERYTHING_SLUG, EVERYTHING_TOOL, type RuntimePath } from './mcp-setup';
import { medianAdded, type TargetResult } from './measure';
import { formatInt } from './report';

/** The targets, through the edge router against the provider called directly. */
export const TARGET_ADDED_P50_US = 1_000;
export const TARGET_THROUGHPUT_RATIO = 0.5;

/**
 * (a) a built-in tool whose provider is a fake; (b) a custom connector's tool on a local MCP server: the
 * SDK server of registry-mcp-server.ts (`custom`), and the reference @modelcontextprotocol/server-everything
 * (`everything`: sessions, SSE answers opening with a priming event).
 */
export type Kind = 'builtin' | 'custom' | 'everything';
/** Straight to the provider, or one of the paths through mcp-runtime. */
export type Via = 'direct' | RuntimePath;

export const KINDS: Kind[] = ['builtin', 'custom', 'everything'];
export const KIND_TITLE: Record<Kind, string> = {
  builtin: '(a) built-in tool github__get_issue; provider: the fake GitHub',
  custom: `(b) custom connector tool ${CUSTOM_SLUG}__${CUSTOM_TOOL}; provider: the local SDK MCP server`,
  everything: `(b) custom connector tool ${EVERYTHING_SLUG}__${EVERYTHING_TOOL}; provider: @modelcontextprotocol/server-everything`,
};
/** The short label of a kind's rows. */
export const KIND_LABEL: Record<Kind, string> = { builtin: '(a)', custom: '(b) SDK', everything: '(b) everything' };

/**
 * Providers that cannot tell the benchmark's requests from the runtime's (server-everything, which is
 * run unmodified, only logs each POST): their count is every POST, checked against all 2xx together.
 */
const COMBINED_COUNTS: ReadonlySet<Kind> = new Set(['everything']);

/** One measured target: a kind, a path, and its figures at one connection count. */
export interface Run {
  kind: Kind;
  via: Via;
  result: TargetResult;
}

export function findRun(runs: Run[], kind: Kind, via: Via, connections: number): TargetResult | undefined {
  return runs.find((r) => r.kind === kind && r.via === via && r.result.connections === connections)?.result;
}

/** 2xx answers the load generator counted in the measured rounds of a kind: through the runtime, or direct. */
export function countedTwoXx(runs: Run[], kind: Kind, throughRuntime: boolean): number {
  return runs.filter((r) => r.kind === kind && (r.via !== 'direct') === throughRuntime).reduce((sum, r) => sum + r.result.requests - r.result.non2xx, 0);
}

export interface Verdict {
  /** Through the edge minus direct at p50, on one connection (the hops' own cost, no queueing), median over rounds. */
  addedP50Us: number;
  /** Through the edge over direct, at the loaded connection count. */
  throughputRatio: number;
  latencyMet: boolean;
  throughputMet: boolean;
}

/** The targets, for one kind; null when the run lacks a figure it needs. */
export function verdictOf(runs: Run[], kind: Kind, loadedConnections: number): Verdict | null {
  const single = { edge: findRun(runs, kind, 'edge', 1), direct: findRun(runs, kind, 'direct', 1) };
  const loaded = { edge: findRun(runs, kind, 'edge', loadedConnections), direct: findRun(runs, kind, 'direct', loadedConnections) };
  if (!single.edge || !single.direct || !loaded.edge || !loaded.direct || loaded.direct.requestsPerSecond === 0) return null;
  const addedP50Us = medianAdded(single.edge, single.direct, (r) => r.p50Us);
  const throughputRatio = loaded.edge.requestsPerSecond / loaded.direct.requestsPerSecond;
  return { addedP50Us, throughputRatio, latencyMet: addedP50Us <= TARGET_ADDED_P50_US, throughputMet: throughputRatio >= TARGET_THROUGHPUT_RATIO };
}

/**
 * Everything that makes the figures untrustworthy: sampled answers that failed, load errors, and
 * answers counted through the runtime that the provider never saw (a cache or a short cut would give
 * good-looking figures for work not done). Empty when the run measured working tool calls.
 */
export function problemsOf(runs: Run[], samples: SampleTally[], providerCalls: Record<Kind, CallCounts>): string[] {
  const problems: string[] = [];
  for (const s of samples) if (s.failed > 0) problems.push(`${s.label}: ${s.failed} of ${s.checked} sampled answers failed; first: ${s.firstProblem}`);
  for (const { result: r } of runs) {
    if (r.non2xx + r.socketErrors > 0) problems.push(`${r.label}, ${r.connections} connection(s): ${r.non2xx} non-2xx answers, ${r.socketErrors} socket errors`);
  }
  for (const kind of KINDS) {
    const viaRuntime = countedTwoXx(runs, kind, true);
    const direct = countedTwoXx(runs, kind, false);
    if (COMBINED_COUNTS.has(kind)) {
      const total = providerCalls[kind].others + providerCalls[kind].bench;
      if (total < viaRuntime + direct) problems.push(`${KIND_TITLE[kind]}: the provider got ${formatInt(total)} POSTs, fewer than the ${formatInt(viaRuntime + direct)} 2xx answers counted`);
      continue;
    }
    if (providerCalls[kind].others < viaRuntime) {
      problems.push(`${KIND_TITLE[kind]}: the provider got ${formatInt(providerCalls[kind].others)} calls from the runtime, fewer than the ${formatInt(viaRuntime)} 2xx answers counted through it`);
    }
    if (providerCalls[kind].bench < direct) {
      problems.push(`${KIND_TITLE[kind]}: the provider got ${formatInt(providerCalls[kind].bench)} direct requests, fewer than the ${formatInt(direct)} 2xx answers counted`);
    }
  }
  return problems;
}
