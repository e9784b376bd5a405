import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { stopLoadGenerators } from './load';

const OUTPUT_LINES_KEPT = 40;

let interrupted = false;

/** Whether Ctrl-C (or SIGTERM) stopped the benchmark: the failures that follow are expected, not worth reporting. */
export function wasInterrupted(): boolean {
  return interrupted;
}

/** A port nobody listens on right now (the kernel picks it; the service binds it a moment later). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '0.0.0.0');
  await once(server, 'listening');
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('could not find a free port');
  return address.port;
}

export interface ServiceSpec {
  /** Shown in progress lines and errors. */
  name: string;
  /** The built entry point, run with the current node. */
  entry: string;
  /** Added to the parent's environment; PORT is set by start(), and '<PORT>' in a value becomes the port (a service's own URL). */
  env: NodeJS.ProcessEnv;
  /** Extra node flags, for example --cpu-prof. */
  nodeArgs?: string[];
  /** Arguments after the entry point, for programs configured by flags (e.g. --port=<PORT>: '<PORT>' becomes the port). */
  args?: string[];
  healthPath?: string;
  startTimeoutMs?: number;
}

export interface RunningService {
  name: string;
  port: number;
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  pid: number;
  /** The last lines the service wrote, for error messages. */
  recentOutput(): string;
}

interface Managed {
  service: RunningService;
  child: ChildProcess;
}

/**
 * The services one benchmark starts. Stops them all, newest first, when the benchmark ends,
 * fails, or is interrupted, so no service outlives `pnpm bench`.
 */
export class ServiceGroup {
  private readonly managed: Managed[] = [];
  private stopping: Promise<void> | null = null;
  private readonly onSignal = (signal: NodeJS.Signals) => {
    interrupted = true;
    process.stderr.write(`[bench] ${signal}: stopping the load generator and the services\n`);
    stopLoadGenerators();
    void this.stopAll().finally(() => process.exit(130));
  };

  constructor(private readonly log: (message: string) => void) {
    process.once('SIGINT', this.onSignal);
    process.once('SIGTERM', this.onSignal);
  }

  async start(spec: ServiceSpec): Promise<RunningService> {
    const port = await freePort();
    if (this.stopping) throw new Error(`not starting ${spec.name}: the benchmark is stopping`);
    const lines: string[] = [];
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        lines.push(line);
        if (lines.length > OUTPUT_LINES_KEPT) lines.shift();
      }
    };
    const args = (spec.args ?? []).map((arg) => arg.replaceAll('<PORT>', String(port)));
    const env = Object.fromEntries(Object.entries(spec.env).map(([name, value]) => [name, value?.replaceAll('<PORT>', String(port))]));
    const child = spawn(process.execPath, [...(spec.nodeArgs ?? []), spec.entry, ...args], {
      env: { ...process.env, ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const service: RunningService = {
      name: spec.name,
      port,
      baseUrl: `http://127.0.0.1:${port}`,
      pid: child.pid ?? -1,
      recentOutput: () => lines.join('\n'),
    };
    this.managed.push({ service, child });
    this.log(`starting ${spec.name} on port ${port}`);
    await waitHealthy(service, child, spec.healthPath ?? '/healthz', spec.startTimeoutMs ?? 60_000);
    return service;
  }

  /** SIGTERM (the services drain and exit), then SIGKILL for any that is still there after the grace period. */
  stopAll(graceMs = 15_000): Promise<void> {
    // The signal handler and the benchmark's own clean-up may both ask: both wait for the same stop.
    this.stopping ??= this.stopEach(graceMs);
    return this.stopping;
  }

  private async stopEach(graceMs: number): Promise<void> {
    const all = [...this.managed].reverse();
    for (const { service, child } of all) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        this.log(`${service.name} did not stop within ${graceMs} ms: killing it`);
        child.kill('SIGKILL');
      }, graceMs);
      await exited;
      clearTimeout(timer);
    }
    process.removeListener('SIGINT', this.onSignal);
    process.removeListener('SIGTERM', this.onSignal);
  }
}

async function waitHealthy(service: RunningService, child: ChildProcess, healthPath: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${service.name} exited (${child.exitCode ?? child.signalCode}) while starting. Its last output:\n${service.recentOutput()}`);
    }
    try {
      const res = await fetch(`${service.baseUrl}${healthPath}`, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${service.name} did not answer ${healthPath} with 200 within ${timeoutMs} ms. Its last output:\n${service.recentOutput()}`);
}

let clockTicksPerSecond: number | undefined;

/**
 * CPU time (user + system) a process has used so far, in microseconds, from /proc; null where there is
 * no /proc (not Linux). Sampled around a run, it gives the CPU each request costs a service.
 */
export function processCpuUs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    clockTicksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
    return (ticks / clockTicksPerSecond) * 1_000_000;
  } catch {
    return null;
  }
}
