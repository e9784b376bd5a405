import type { TimeWindow } from './cpu-profile';
import { runLoad, type LoadResult, type LoadTool } from './load';
import type { LoadOptions } from './options';
import { progress } from './report';
import { processCpuUs, type RunningService } from './services';

export interface Target {
  label: string;
  url: string;
  headers?: Record<string, string>;
  /** Defaults to the --connections flag. */
  connections?: number;
  /** What must answer: a benchmark of 401s or 502s measures the wrong thing. */
  expectStatus?: number;
}

export interface TargetResult extends LoadResult {
  label: string;
  connections: number;
  /** CPU microseconds each request cost each watched service during the measured run (null without /proc). */
  cpuUsPerRequest: Record<string, number | null>;
  /** When the measured run took place, on the monotonic clock, to pick its samples out of a CPU profile. */
  window: TimeWindow;
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** One request before loading, so a wrong key or a broken route fails the benchmark with the response in hand. */
export async function checkTarget(target: Target): Promise<void> {
  const res = await fetch(target.url, { headers: target.headers, signal: AbortSignal.timeout(10_000) });
  const body = await res.text();
  const expected = target.expectStatus ?? 200;
  if (res.status !== expected) {
    throw new Error(`${target.label}: GET ${target.url} answered ${res.status}, expected ${expected}:\n${body.slice(0, 500)}`);
  }
}

/** A discarded warm-up run, then the measured run, sampling the CPU the watched services use. */
export async function measureTarget(tool: LoadTool, options: LoadOptions, target: Target, watched: RunningService[]): Promise<TargetResult> {
  const connections = target.connections ?? options.connections;
  const request = { url: target.url, headers: target.headers, connections, threads: Math.min(options.threads, connections) };
  if (options.warmupS > 0) {
    progress(`${target.label}, ${connections} connection(s): warm-up ${options.warmupS} s`);
    await runLoad(tool, { ...request, durationS: options.warmupS });
  }
  progress(`${target.label}, ${connections} connection(s): measuring ${options.durationS} s`);
  const before = watched.map((s) => processCpuUs(s.pid));
  const startUs = monotonicUs();
  const result = await runLoad(tool, { ...request, durationS: options.durationS });
  const window = { startUs, endUs: monotonicUs() };
  const cpuUsPerRequest: Record<string, number | null> = {};
  watched.forEach((service, i) => {
    const start = before[i];
    const end = processCpuUs(service.pid);
    cpuUsPerRequest[service.name] = start == null || end === null || result.requests === 0 ? null : (end - start) / result.requests;
  });
  if (result.non2xx > 0 || result.socketErrors > 0) {
    progress(`${target.label}: ${result.non2xx} non-2xx responses and ${result.socketErrors} socket errors during the measured run`);
  }
  return { ...result, label: target.label, connections, cpuUsPerRequest, window };
}
