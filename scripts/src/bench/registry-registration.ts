import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { REPO_ROOT } from '../suite';
import { percentile } from './load';
import { median } from './measure';
import { progress } from './report';
import { freePort, processCpuUs, type RunningService } from './services';

/** A remote MCP server the benchmark registers, and how the registry must authenticate to it. */
export interface McpTarget {
  /** Short, for slugs: lowercase letters and hyphens. */
  key: string;
  label: string;
  url: string;
  secret: string | null;
}

export interface Timings {
  /** Milliseconds, in the order measured. */
  samples: number[];
  p50: number;
  p90: number;
  max: number;
}

export interface RegistrationRow {
  target: McpTarget;
  /** 'direct', 'edge-router', or 'handshake only' (the SDK client in the benchmark, no registry). */
  path: string;
  tools: number;
  register: Timings;
  /** Registry CPU per registration, ms (null without /proc). */
  registryCpuMs: number | null;
  delete: Timings | null;
}

export function timings(samples: number[]): Timings {
  const sorted = Float64Array.from(samples).sort();
  return { samples, p50: median(samples), p90: percentile(sorted, 90), max: sorted[sorted.length - 1] ?? 0 };
}

const SERVER_EVERYTHING_DIR = path.join(REPO_ROOT, 'apps', 'connector-registry', 'node_modules', '@modelcontextprotocol', 'server-everything');

export interface ServerEverything {
  url: string;
  version: string;
  pid: number;
  /** The lines of its output that held `countLine` since it listened (0 without one). */
  posts(): number;
  stop(): Promise<void>;
}

/**
 * The reference MCP server (a devDependency of connector-registry), over Streamable HTTP with sessions.
 * Started like connector-registry's own tests start it: its built entry with the current node, PORT set.
 * It prints a line per request: its output is dropped once it listens.
 */
export async function startServerEverything(options: { countLine?: string } = {}): Promise<ServerEverything> {
  const entry = path.join(SERVER_EVERYTHING_DIR, 'dist', 'index.js');
  if (!existsSync(entry)) throw new Error(`@modelcontextprotocol/server-everything is not installed at ${SERVER_EVERYTHING_DIR} (run pnpm install)`);
  const { version } = JSON.parse(readFileSync(path.join(SERVER_EVERYTHING_DIR, 'package.json'), 'utf8')) as { version: string };
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [entry, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  // Never outlive the benchmark, also when it exits on Ctrl-C through the service group's handler.
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  let output = '';
  const listening = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything did not listen within 30 s:\n${output.slice(-2000)}`)), 30_000);
    const watch = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('listening on port')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', watch);
    child.stderr?.on('data', watch);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited (${code ?? signal}) while starting:\n${output.slice(-2000)}`));
    });
  });
  progress(`starting server-everything ${version} on port ${port}`);
  try {
    await listening;
  } catch (err) {
    kill();
    throw err;
  }
  child.stdout?.removeAllListeners('data').resume();
  child.stderr?.removeAllListeners('data').resume();
  // It logs a line per request: counted (a line may straddle two chunks) when asked, else dropped.
  let posts = 0;
  const countLine = options.countLine;
  if (countLine) {
    let rest = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      const text = rest + chunk.toString('utf8');
      const lines = text.split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (line.includes(countLine)) posts += 1;
    });
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    version,
    pid: child.pid ?? -1,
    posts: () => posts,
    async stop() {
      process.removeListener('exit', kill);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface RegistryPath {
  service: RunningService;
  /** Where requests go: the registry itself or the edge router in front of it. */
  baseUrl: string;
  path: string;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

async function register(via: RegistryPath, masterKey: string, target: McpTarget, slug: string): Promise<{ ms: number; tools: number; cpuUs: number | null }> {
  const body = {
    name: `Bench ${target.label} ${slug}`,
    slug,
    // The same server under many connectors: the registry refuses a URL registered twice, the query makes each distinct.
    url: `${target.url}?registration=${slug}`,
    auth: target.secret === null ? { type: 'none' } : { type: 'secret', secret: target.secret },
  };
  const cpuBefore = processCpuUs(via.service.pid);
  const { ms, value: res } = await timed(() =>
    fetch(`${via.baseUrl}/api/v1/connectors/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${masterKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    }).then(async (r) => ({ status: r.status, text: await r.text() })),
  );
  const cpuAfter = processCpuUs(via.service.pid);
  if (res.status !== 200) throw new Error(`POST /api/v1/connectors/ (${target.label}, ${via.path}) answered ${res.status}, expected 200:\n${res.text.slice(0, 800)}`);
  const tools = (JSON.parse(res.text) as { tools?: unknown[] }).tools?.length ?? 0;
  return { ms, tools, cpuUs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore };
}

async function unregister(via: RegistryPath, masterKey: string, slug: string): Promise<number> {
  const { ms, value: res } = await timed(() =>
    fetch(`${via.baseUrl}/api/v1/connectors/${slug}/`, { method: 'DELETE', headers: { Authorization: `Bearer ${masterKey}` }, signal: AbortSignal.timeout(30_000) }).then(
      async (r) => ({ status: r.status, text: await r.text() }),
    ),
  );
  if (res.status !== 204) throw new Error(`DELETE /api/v1/connectors/${slug}/ answered ${res.status}, expected 204:\n${res.text.slice(0, 800)}`);
  return ms;
}

/** What registration does with the server, without the registry: initialize, every tools/list page, end the session. */
async function handshakeOnly(target: McpTarget): Promise<{ ms: number; tools: number }> {
  return timed(async () => {
    const transport = new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: target.secret === null ? {} : { headers: { Authorization: `Bearer ${target.secret}` } },
    });
    const client = new Client({ name: 'patchbay-bench', version: '1.0.0' }, { capabilities: {} });
    try {
      await client.connect(transport);
      let tools = 0;
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? undefined : { cursor });
        tools += page.tools.length;
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      if (transport.sessionId !== undefined) await transport.terminateSession();
      return tools;
    } finally {
      await client.close();
    }
  }).then(({ ms, value }) => ({ ms, tools: value }));
}

/**
 * Registers each server `count` times through each path (register, then delete, with a new slug and URL
 * each time), interleaved (server A direct, A via edge, B direct, ...), so a change in the machine's
 * other work hits every row alike; and times the bare handshake against each server the same way.
 * `warmup` rounds before that are discarded (JIT, connection pools, the key cache).
 */
export async function measureRegistrations(
  paths: RegistryPath[],
  masterKey: string,
  targets: McpTarget[],
  options: { count: number; warmup: number },
): Promise<RegistrationRow[]> {
  const rows = new Map<string, { target: McpTarget; path: string; tools: number; register: number[]; delete: number[]; cpuUs: Array<number | null> }>();
  const row = (target: McpTarget, pathName: string) => {
    const key = `${target.key} ${pathName}`;
    let r = rows.get(key);
    if (!r) rows.set(key, (r = { target, path: pathName, tools: 0, register: [], delete: [], cpuUs: [] }));
    return r;
  };
  for (const target of targets) for (const via of paths) row(target, via.path);
  for (const target of targets) row(target, 'handshake only');

  for (let round = -options.warmup; round < options.count; round++) {
    const measured = round >= 0;
    if (round === -options.warmup || round === 0 || (round + 1) % 10 === 0) {
      progress(measured ? `registrations: round ${round + 1}/${options.count}` : `registrations: warm-up (${options.warmup} rounds)`);
    }
    for (const target of targets) {
      for (const via of paths) {
        const slug = `bench-${target.key}-${via.path === 'direct' ? 'd' : 'e'}-${measured ? round + 1 : `w${round + options.warmup + 1}`}`;
        const reg = await register(via, masterKey, target, slug);
        const del = await unregister(via, masterKey, slug);
        if (!measured) continue;
        const r = row(target, via.path);
        r.tools = reg.tools;
        r.register.push(reg.ms);
        r.cpuUs.push(reg.cpuUs);
        r.delete.push(del);
      }
      const bare = await handshakeOnly(target);
      if (!measured) continue;
      const r = row(target, 'handshake only');
      r.tools = bare.tools;
      r.register.push(bare.ms);
    }
  }
  return [...rows.values()].map((r) => ({
    target: r.target,
    path: r.path,
    tools: r.tools,
    register: timings(r.register),
    registryCpuMs: r.cpuUs.length === 0 || r.cpuUs.some((c) => c === null) ? null : r.cpuUs.reduce<number>((sum, c) => sum + (c ?? 0), 0) / r.cpuUs.length / 1000,
    delete: r.delete.length === 0 ? null : timings(r.delete),
  }));
}

/** Registers a connector that stays, so the connector list has custom connectors with their tools to read. */
export async function registerKept(via: RegistryPath, masterKey: string, target: McpTarget, slug: string): Promise<number> {
  return (await register(via, masterKey, target, slug)).tools;
}
