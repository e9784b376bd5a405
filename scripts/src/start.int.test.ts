import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { freePort, redisAnswers } from './local-services';
import { REPO_ROOT } from './suite';

/*
 * `pnpm start` on a machine with neither PostgreSQL nor Redis, forced with PATCHBAY_EMBEDDED_*=force:
 * the whole suite (built dist) starts with an embedded PostgreSQL and the embedded Redis under a
 * temporary data folder and ports of its own, so nothing of the machine's real servers is touched.
 * The README's first calls run against the edge router, including an MCP tools/call through the
 * official SDK client, and Ctrl-C stops everything it started.
 */

const START = path.join(REPO_ROOT, 'scripts', 'dist', 'start.js');
const APP_PORTS = [8080, 8081, 8082, 8083, 8084, 8085];
/** Every port the suite listens on (the apps, then their workers). */
const SUITE_PORTS = [...APP_PORTS, 8094, 8095];

class Suite {
  output = '';
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** The start script's own lines (the services log JSON). */
  get said(): string[] {
    return this.output.split('\n').filter((line) => line.startsWith('[patchbay]'));
  }

  /** What a failure shows: the start script's lines, then the services' last log lines (why one exited). */
  get story(): string {
    const logs = this.output.split('\n').filter((line) => line.trim() && !line.startsWith('[patchbay]'));
    return `${this.said.join('\n')}\n--- last service log lines ---\n${logs.slice(-30).join('\n')}`;
  }

  async waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(this.output);
      if (match) return match;
      if (this.child.exitCode !== null) throw new Error(`pnpm start exited with ${this.child.exitCode}:\n${this.story}`);
      if (Date.now() > deadline) throw new Error(`pnpm start did not print ${pattern} in time:\n${this.story}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<number | null> {
    if (this.child.exitCode === null) this.child.kill('SIGINT');
    return this.exited;
  }
}

/** The kernel's ephemeral range: its ports are handed to outgoing connections at any moment. */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low && high) return [low, high];
  } catch {
    // not Linux: the IANA dynamic range
  }
  return [49152, 65535];
}

/**
 * An offset whose suite ports are free now, away from the ports people use and below the ephemeral
 * range. A port in that range can become the local end of any outgoing connection (the parallel test
 * packages open hundreds to PostgreSQL and Redis, and so does the suite itself while it boots), and
 * a connected socket's port cannot be listened on: that made an app exit with EADDRINUSE at random.
 */
async function freeOffset(): Promise<number> {
  const [ephemeralLow] = ephemeralRange();
  const lowest = 10_000;
  const highest = Math.min(ephemeralLow, 65_536) - Math.max(...SUITE_PORTS) - 1;
  if (highest <= lowest) throw new Error(`no port range below the ephemeral range (${ephemeralLow}) for the suite`);
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const offset = lowest + Math.floor(Math.random() * (highest - lowest));
    const free = await Promise.all(SUITE_PORTS.map(async (port) => (await freePort(port + offset)) === port + offset));
    if (free.every(Boolean)) return offset;
  }
  throw new Error('no free port range for the suite');
}

function startSuite(dataDir: string, offset: number): Suite {
  const env: NodeJS.ProcessEnv = {};
  // The machine's own servers and secrets stay out: only what the test sets applies.
  const dropped = /^(DATABASE_URL|REDIS_URL|PORT|QUEUE_PREFIX|PATCHBAY_.*|OTEL_.*|PG.*)$/;
  for (const [k, v] of Object.entries(process.env)) if (!dropped.test(k)) env[k] = v;
  Object.assign(env, {
    PATCHBAY_EMBEDDED_POSTGRES: 'force',
    PATCHBAY_EMBEDDED_REDIS: 'force',
    PATCHBAY_DATA_DIR: dataDir,
    PATCHBAY_PORT_OFFSET: String(offset),
    LOG_LEVEL: 'warn',
  });
  return new Suite(spawn(process.execPath, [START], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const HEALTHY = /Patchbay is running at (http:\/\/localhost:\d+)/;
const suites: Suite[] = [];
let dataDir: string;

beforeAll(() => {
  if (!existsSync(START)) throw new Error('scripts/dist/start.js is missing: run `pnpm build` first');
  dataDir = mkdtempSync(path.join(tmpdir(), 'patchbay-start-test-'));
});

afterAll(async () => {
  for (const suite of suites) await suite.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('pnpm start with an embedded PostgreSQL and the embedded Redis serves the README first calls, an MCP tools/call included, and stops cleanly', async () => {
  const offset = await freeOffset();
  const suite = startSuite(dataDir, offset);
  suites.push(suite);
  const [, base] = (await suite.waitFor(HEALTHY, 180_000)) as unknown as [string, string];
  expect(base).toBe(`http://localhost:${8080 + offset}`);

  // One clear line for each embedded server, saying what it is and how to use a real one.
  expect(suite.said.find((l) => l.includes('embedded Redis-compatible server'))).toMatch(/in memory.*local use only.*set REDIS_URL/);
  expect(suite.said.find((l) => l.includes('embedded PostgreSQL'))).toContain('set DATABASE_URL');
  const redisUrl = /Redis: (redis:\/\/127\.0\.0\.1:\d+) \(embedded\)/.exec(suite.output)?.[1];
  expect(redisUrl).toBeDefined();
  expect(redisUrl).not.toBe('redis://127.0.0.1:6379');

  // The first start made an organization and printed its keys once; the file holds the same ones.
  const keys = JSON.parse(readFileSync(path.join(dataDir, 'first-run-keys.json'), 'utf8')) as { master_key: string; test_key: string; organization_id: string };
  expect(suite.output).toContain(`master key (production): ${keys.master_key}`);
  const KEY = keys.master_key;
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { Authorization: `Bearer ${KEY}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  // The README's first calls, as written there.
  const listed = await call('GET', '/api/v1/access-keys/');
  expect(listed.status).toBe(200);
  expect(listed.body.results).toEqual([expect.objectContaining({ is_master: true, environment: 'production' })]);
  const ciKey = await call('POST', '/api/v1/access-keys/', { name: 'ci', scopes: ['runtime:all'], expires_in: 3600 });
  expect(ciKey.status).toBe(201);
  expect(ciKey.body).toMatchObject({ name: 'ci', scopes: ['runtime:all'] });
  const audit = await call('GET', '/api/v1/audit-log/?event_type=access_key.created');
  expect(audit.status).toBe(200);
  expect(audit.body.results.some((e: { target_key_id: string }) => e.target_key_id === ciKey.body.id)).toBe(true);

  const user = await call('POST', '/api/v1/registered-users', {
    origin_user_id: 'u-42',
    origin_user_name: 'Ada',
    shared_credential_group: { origin_company_id: 'acme', origin_company_name: 'Acme', custom_groupings: {} },
  });
  expect(user.status).toBe(201);
  const link = await call('POST', `/api/v1/registered-users/${user.body.id}/link-token/`, { connector: 'github' });
  expect(link.status).toBe(201);
  const connectors = await call('GET', '/api/v1/connectors/?page_size=100');
  const github = connectors.body.results.find((c: { slug: string }) => c.slug === 'github');
  expect(github).toBeDefined();
  const pack = await call('POST', '/api/v1/tool-packs/', {
    name: 'Triage',
    description: 'Read issues',
    connectors: [{ connector_id: github.id, auth_scope: 'INDIVIDUAL', tool_names: ['list_issues', 'get_issue'] }],
  });
  expect(pack.status).toBe(201);

  // The agent's side, with the official MCP client through the edge router.
  const client = new Client({ name: 'start-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/api/v1/tool-packs/${pack.body.id}/registered-users/${user.body.id}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${KEY}` } },
    }),
  );
  const tools = await client.listTools();
  expect(tools.tools.map((t) => t.name).sort()).toEqual(['github__get_issue', 'github__list_issues']);
  const result = await client.callTool({ name: 'github__list_issues', arguments: { input: { owner: 'octocat', repo: 'Hello-World' } } });
  // Until the user has connected GitHub, the call answers with isError and a fresh magic link.
  expect(result.isError).toBe(true);
  expect((result.structuredContent as { magic_link_url: string }).magic_link_url).toMatch(new RegExp(`^${base}/link/lt_`));
  await client.close();

  const usage = await call('GET', '/api/v1/usage/');
  expect(usage.status).toBe(200);

  // Ctrl-C: the apps, the embedded Redis and the embedded PostgreSQL all stop.
  expect(await suite.stop()).toBe(0);
  expect(suite.said).toContain('[patchbay] stopped.');
  expect(await redisAnswers(redisUrl!, 500)).toBe(false);
  expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  for (const port of APP_PORTS.slice(0, 4)) expect(await portAnswers(port + offset)).toBe(false);
}, 300_000);

test('a second start on a database that already has organizations prints no keys, says how to get one, and warns about a new encryption key', async () => {
  // A newcomer's fresh checkout pointed at the same database: no first-run file, a new encryption key.
  unlinkSync(path.join(dataDir, 'first-run-keys.json'));
  unlinkSync(path.join(dataDir, 'encryption-keys'));
  const offset = await freeOffset();
  const suite = startSuite(dataDir, offset);
  suites.push(suite);
  await suite.waitFor(HEALTHY, 180_000);
  expect(suite.output).not.toMatch(/master key \(production\): pb_live_/);
  expect(existsSync(path.join(dataDir, 'first-run-keys.json'))).toBe(false);
  const notice = suite.said.join('\n');
  expect(notice).toMatch(/already has 1 organization\(s\): "Local development"/);
  expect(notice).toMatch(/pnpm --silent patchbay key create --org [0-9a-f-]{36}/);
  expect(notice).toMatch(/WARNING: this checkout made a new encryption key/);
  expect(await suite.stop()).toBe(0);
}, 300_000);
