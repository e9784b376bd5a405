import { execFile, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';

const execFileAsync = promisify(execFile);

export type LoadToolName = 'wrk' | 'autocannon';

export interface LoadTool {
  name: LoadToolName;
  /** For the header, e.g. "wrk 4.1.0 (1 thread, latency to the microsecond)". */
  description: string;
}

export interface LoadRequest {
  url: string;
  /** GET unless given; a body is sent with every request (a JSON-RPC POST, for example). */
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  durationS: number;
  connections: number;
  threads: number;
  /** Also report percentiles of the raw latencies (see rawLatencyDone). */
  rawLatency?: boolean;
}

export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  p50Us: number;
  p99Us: number;
  /** Responses outside 2xx/3xx: a benchmark with any of these measured the wrong thing. */
  non2xx: number;
  /** Connect, read, write errors and timeouts. */
  socketErrors: number;
  /** Percentiles of the latencies as measured, without wrk's coordinated-omission correction (when asked for). */
  rawP50Us?: number;
  rawP99Us?: number;
}

/** Loads only 127.0.0.1: a benchmark must never send traffic anywhere else. */
function assertLoopback(url: string): void {
  const { hostname } = new URL(url);
  if (hostname !== '127.0.0.1') throw new Error(`benchmarks only target 127.0.0.1, not ${hostname}`);
}

function wrkVersion(): string | null {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  if (probe.error) return null;
  // wrk prints its version (and usage) and exits with 1.
  const match = /wrk (\S+)/.exec(`${probe.stdout}${probe.stderr}`);
  return match?.[1] ?? 'unknown version';
}

/** wrk when installed (C, several threads possible), else autocannon (from npm, runs in this process). */
export function pickLoadTool(preferred: LoadToolName | undefined, threads: number): LoadTool {
  const version = preferred === 'autocannon' ? null : wrkVersion();
  if (preferred === 'wrk' && version === null) throw new Error('--tool wrk: wrk is not installed (Debian: apt-get install wrk)');
  if (version !== null) {
    return { name: 'wrk', description: `wrk ${version} (${threads} thread${threads === 1 ? '' : 's'}, latency to the microsecond)` };
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { version: acVersion } = require('autocannon/package.json') as { version: string };
  const why = preferred === 'autocannon' ? '' : ', because wrk is not installed';
  return { name: 'autocannon', description: `autocannon ${acVersion} (in process${why}; latency from each response's time, to the microsecond)` };
}

export async function runLoad(tool: LoadTool, request: LoadRequest): Promise<LoadResult> {
  assertLoopback(request.url);
  return tool.name === 'wrk' ? runWrk(request) : runAutocannon(request);
}

const runningWrk = new Set<ChildProcess>();

/** Ends any load generator still running, when the benchmark is interrupted. */
export function stopLoadGenerators(): void {
  for (const child of runningWrk) child.kill('SIGTERM');
}

/**
 * The Lua script that makes wrk send another method or a body (wrk has no flags for either). The body
 * goes in a long bracket string, whose level is picked so that nothing in the body can close it.
 */
export function wrkScript(method: string, body: string | undefined, rawLatencyConnections?: number): string {
  let eq = '';
  // The first closing bracket Lua finds must be the one after the body, also where the body's end and the bracket overlap.
  while (body !== undefined && `${body}]${eq}]`.indexOf(`]${eq}]`) !== body.length) eq += '=';
  // A newline right after the opening bracket is dropped by Lua: start the string with one so a body that begins with a newline keeps it.
  const done = rawLatencyConnections === undefined ? '' : rawLatencyDone(rawLatencyConnections);
  return `wrk.method = "${method}"\n${body === undefined ? '' : `wrk.body = [${eq}[\n${body}]${eq}]\n`}${done}`;
}

/**
 * A wrk `done` callback that prints percentiles of the latencies as measured. Before it prints its
 * own percentiles (and before `done` runs) wrk "corrects" its histogram for coordinated omission:
 * every latency n >= 2e, with e = duration / (requests / connections), also adds its count at n - e,
 * n - 2e, ... down to above e (wrk.c, stats_correct). That inflates fast legs far more than slow ones
 * (a 20 ms outlier at 10k req/s per connection adds 200 made-up samples). The callback undoes it:
 * from the largest latency down, raw(n) = seen(n) - sum of raw(n + k e), k >= 1, for n > e; the raw
 * counts add up to the number of requests again (the line says so: count=).
 */
export function rawLatencyDone(connections: number): string {
  return `
local connections = ${connections}
done = function(summary, latency, requests)
  local per = math.floor(summary.requests / connections)
  local e = per > 0 and math.floor(summary.duration / per) or 0
  local counts, values, maxv = {}, {}, 0
  for i = 1, #latency do
    local v, c = latency(i)
    if v == nil or c == nil then break end
    if c > 0 then counts[v] = c; values[#values + 1] = v; if v > maxv then maxv = v end end
  end
  table.sort(values, function(a, b) return a > b end)
  local raw, total = {}, 0
  for _, n in ipairs(values) do
    local r = counts[n]
    if e > 0 and n > e then
      local k = n + e
      while k <= maxv do r = r - (raw[k] or 0); k = k + e end
    end
    raw[n] = r
    total = total + r
  end
  table.sort(values)
  local out = {}
  for _, p in ipairs({50, 99}) do
    local rank = math.max(1, math.ceil(p / 100 * total))
    local seen, at = 0, 0
    for _, v in ipairs(values) do seen = seen + raw[v]; if seen >= rank then at = v; break end end
    out[#out + 1] = string.format("p%d=%d", p, at)
  end
  io.write(string.format("RAW_LATENCY_US count=%d %s\\n", total, table.concat(out, " ")))
end
`;
}

async function runWrk(request: LoadRequest): Promise<LoadResult> {
  const args = ['--latency', '-t', String(request.threads), '-c', String(request.connections), '-d', `${request.durationS}s`, '--timeout', '10s'];
  for (const [name, value] of Object.entries(request.headers ?? {})) args.push('-H', `${name}: ${value}`);
  let scriptDir: string | null = null;
  if (request.method !== undefined || request.body !== undefined || request.rawLatency) {
    scriptDir = mkdtempSync(path.join(tmpdir(), 'patchbay-bench-wrk-'));
    const script = path.join(scriptDir, 'request.lua');
    writeFileSync(script, wrkScript(request.method ?? 'GET', request.body, request.rawLatency ? request.connections : undefined));
    args.push('-s', script);
  }
  args.push(request.url);
  const run = execFileAsync('wrk', args, { maxBuffer: 1 << 20 });
  runningWrk.add(run.child);
  try {
    const { stdout, stderr } = await run;
    const result = parseWrkOutput(stdout);
    // A script wrk cannot load is only a line on stderr, and wrk then sends plain GETs: never measure those.
    if (request.rawLatency && result.rawP50Us === undefined) throw new Error(`wrk printed no raw latencies (its script failed?):\n${stderr}\n${stdout}`);
    return result;
  } finally {
    runningWrk.delete(run.child);
    if (scriptDir) rmSync(scriptDir, { recursive: true, force: true });
  }
}

const TIME_UNITS_US: Record<string, number> = { us: 1, ms: 1_000, s: 1_000_000, m: 60_000_000, h: 3_600_000_000 };

/** wrk writes durations as "812.00us", "1.25ms", "2.00s". */
export function parseWrkTime(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m|h)$/.exec(text.trim());
  if (!match) throw new Error(`unexpected wrk time "${text}"`);
  return Number(match[1]) * TIME_UNITS_US[match[2]!]!;
}

export function parseWrkOutput(output: string): LoadResult {
  const percentile = (p: string) => {
    const match = new RegExp(`^\\s+${p}%\\s+(\\S+)\\s*$`, 'm').exec(output);
    if (!match) throw new Error(`wrk output has no ${p}% latency (was --latency given?):\n${output}`);
    return parseWrkTime(match[1]!);
  };
  const total = /^\s*(\d+) requests in /m.exec(output);
  const rate = /^Requests\/sec:\s+([\d.]+)/m.exec(output);
  if (!total || !rate) throw new Error(`unexpected wrk output:\n${output}`);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(output);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const socketErrors = socket ? socket.slice(1, 5).reduce((sum, n) => sum + Number(n), 0) : 0;
  const raw = /^RAW_LATENCY_US count=(\d+) p50=(\d+) p99=(\d+)$/m.exec(output);
  return {
    ...(raw ? { rawP50Us: Number(raw[2]), rawP99Us: Number(raw[3]) } : {}),
    requests: Number(total[1]),
    requestsPerSecond: Number(rate[1]),
    p50Us: percentile('50'),
    p99Us: percentile('99'),
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    socketErrors,
  };
}

/** Nearest-rank percentile of an ascending list. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/**
 * autocannon's own percentiles are whole milliseconds (its histogram's unit), too coarse for a hop that
 * costs a fraction of one: every response time it reports (fractional ms) is kept and ranked here instead.
 */
async function runAutocannon(request: LoadRequest): Promise<LoadResult> {
  let latenciesMs = new Float64Array(1 << 16);
  let count = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: request.url,
        // autocannon refuses an explicit undefined method.
        ...(request.method ? { method: request.method } : {}),
        headers: request.headers,
        body: request.body,
        connections: request.connections,
        duration: request.durationS,
        timeout: 10,
      },
      (err: unknown, res: autocannon.Result) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(res)),
    );
    instance.on('response', (_client, _status, _bytes, responseTimeMs) => {
      if (count === latenciesMs.length) {
        const grown = new Float64Array(latenciesMs.length * 2);
        grown.set(latenciesMs);
        latenciesMs = grown;
      }
      latenciesMs[count++] = responseTimeMs;
    });
  });
  const sorted = latenciesMs.subarray(0, count).sort();
  return {
    requests: result.requests.total,
    requestsPerSecond: result.requests.total / result.duration,
    p50Us: percentile(sorted, 50) * 1000,
    p99Us: percentile(sorted, 99) * 1000,
    // autocannon keeps every response time as it was: its percentiles are raw already.
    rawP50Us: percentile(sorted, 50) * 1000,
    rawP99Us: percentile(sorted, 99) * 1000,
    non2xx: result.non2xx,
    // autocannon counts timeouts among its errors.
    socketErrors: result.errors,
  };
}
