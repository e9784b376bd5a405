import type { TimeWindow } from './cpu-profile';
import { runLoad, type LoadResult, type LoadTool } from './load';
import type { LoadOptions } from './options';
import { progress } from './report';
import { processCpuUs, type RunningService } from './services';

export interface Target {
  label: string;
  url: string;
  /** GET unless given. */
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Sent with every request. */
  body?: string;
  /** Defaults to the --connections flag. */
  connections?: number;
  /** What must answer: a benchmark of 401s or 502s measures the wrong thing. */
  expectStatus?: number;
  /** Also measure percentiles of the raw latencies (wrk: see rawLatencyDone). */
  rawLatency?: boolean;
}

export interface RoundResult extends LoadResult {
  /** When the round ran, on the monotonic clock, to pick its samples out of a CPU profile. */
  window: TimeWindow;
  /** CPU microseconds each watched service used during the round (null without /proc). */
  cpuUs: Record<string, number | null>;
}

export interface TargetResult {
  label: string;
  connections: number;
  rounds: RoundResult[];
  requests: number;
  requestsPerSecond: number;
  /** Median over the rounds: one round disturbed by other work on the machine does not move it. */
  p50Us: number;
  /** Median over the rounds, as p50. */
  p99Us: number;
  /** Medians over the rounds of the raw percentiles, when measured. */
  rawP50Us?: number;
  rawP99Us?: number;
  non2xx: number;
  socketErrors: number;
  /** CPU microseconds each request cost each watched service (null without /proc). */
  cpuUsPerRequest: Record<string, number | null>;
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** One request before loading, so a wrong key or a broken route fails the benchmark with the response in hand. */
export async function checkTarget(target: Target): Promise<void> {
  const method = target.method ?? 'GET';
  const res = await fetch(target.url, { method, headers: target.headers, body: target.body, signal: AbortSignal.timeout(10_000) });
  const body = await res.text();
  const expected = target.expectStatus ?? 200;
  if (res.status !== expected) {
    throw new Error(`${target.label}: ${method} ${target.url} answered ${res.status}, expected ${expected}:\n${body.slice(0, 500)}`);
  }
}

/** Seconds per round: the measured time split into --rounds whole seconds (wrk's unit), at least one each. */
export function roundSeconds(options: LoadOptions): number {
  return Math.max(1, Math.round(options.durationS / options.rounds));
}

/**
 * Warms every target up, then measures them in interleaved rounds (A B C, A B C, ...), so targets that
 * are compared run seconds apart and a change in the machine's other work hits them alike.
 */
/**
 * A process whose CPU each round is charged to (a service), or a group of processes under one name
 * found again at every round (a database's backends, which come and go with connection pools): a
 * process that appears during the round counts in full, one that exits counts nothing.
 */
export type Watched = Pick<RunningService, 'name' | 'pid'> | { name: string; pids: () => number[] };

function pidsOf(watched: Watched): number[] {
  return 'pid' in watched ? [watched.pid] : watched.pids();
}

export async function measureInterleaved(tool: LoadTool, options: LoadOptions, targets: Target[], watched: Watched[]): Promise<TargetResult[]> {
  const requests = targets.map((target) => {
    const connections = target.connections ?? options.connections;
    return { url: target.url, method: target.method, headers: target.headers, body: target.body, connections, threads: Math.min(options.threads, connections), rawLatency: target.rawLatency };
  });
  const describe = (i: number) => `${targets[i]!.label}, ${requests[i]!.connections} connection(s)`;
  if (options.warmupS > 0) {
    for (let i = 0; i < targets.length; i++) {
      progress(`${describe(i)}: warm-up ${options.warmupS} s`);
      await runLoad(tool, { ...requests[i]!, durationS: options.warmupS });
    }
  }
  const seconds = roundSeconds(options);
  const rounds: RoundResult[][] = targets.map(() => []);
  for (let round = 1; round <= options.rounds; round++) {
    for (let i = 0; i < targets.length; i++) {
      progress(`${describe(i)}: round ${round}/${options.rounds}, ${seconds} s`);
      const before = watched.map((s) => new Map(pidsOf(s).map((pid) => [pid, processCpuUs(pid)])));
      const startUs = monotonicUs();
      const result = await runLoad(tool, { ...requests[i]!, durationS: seconds });
      const window = { startUs, endUs: monotonicUs() };
      const cpuUs: Record<string, number | null> = {};
      watched.forEach((service, w) => {
        if ('pid' in service) {
          const start = before[w]!.get(service.pid);
          const end = processCpuUs(service.pid);
          cpuUs[service.name] = start == null || end === null ? null : end - start;
          return;
        }
        let used = 0;
        for (const pid of service.pids()) {
          const end = processCpuUs(pid);
          if (end !== null) used += end - (before[w]!.get(pid) ?? 0);
        }
        cpuUs[service.name] = used;
      });
      rounds[i]!.push({ ...result, window, cpuUs });
    }
  }
  return targets.map((target, i) => summarizeTarget(target.label, requests[i]!.connections, rounds[i]!, watched));
}

function summarizeTarget(label: string, connections: number, rounds: RoundResult[], watched: Watched[]): TargetResult {
  const requests = rounds.reduce((sum, r) => sum + r.requests, 0);
  const elapsedS = rounds.reduce((sum, r) => sum + r.requests / (r.requestsPerSecond || Infinity), 0);
  const cpuUsPerRequest: Record<string, number | null> = {};
  for (const { name } of watched) {
    const used = rounds.map((r) => r.cpuUs[name]);
    cpuUsPerRequest[name] = used.some((u) => u == null) || requests === 0 ? null : used.reduce<number>((sum, u) => sum + (u ?? 0), 0) / requests;
  }
  const result: TargetResult = {
    label,
    connections,
    rounds,
    requests,
    requestsPerSecond: elapsedS > 0 ? requests / elapsedS : 0,
    p50Us: median(rounds.map((r) => r.p50Us)),
    p99Us: median(rounds.map((r) => r.p99Us)),
    ...(rounds.every((r) => r.rawP50Us !== undefined && r.rawP99Us !== undefined)
      ? { rawP50Us: median(rounds.map((r) => r.rawP50Us!)), rawP99Us: median(rounds.map((r) => r.rawP99Us!)) }
      : {}),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
    socketErrors: rounds.reduce((sum, r) => sum + r.socketErrors, 0),
    cpuUsPerRequest,
  };
  if (result.non2xx > 0 || result.socketErrors > 0) {
    progress(`${label}: ${result.non2xx} non-2xx responses and ${result.socketErrors} socket errors`);
  }
  return result;
}

/** What a hop adds, round by round (its rounds ran right after the direct ones), then the median. */
export function medianAdded(hop: TargetResult, direct: TargetResult, pick: (r: RoundResult) => number): number {
  const n = Math.min(hop.rounds.length, direct.rounds.length);
  return median(Array.from({ length: n }, (_, i) => pick(hop.rounds[i]!) - pick(direct.rounds[i]!)));
}
