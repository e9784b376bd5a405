import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { CHROMIUM_ARGS, CHROMIUM_PATH, MEMBER_PASSWORD, ownerSession, type AccessKeysApi } from '@patchbay/testing';
import { Client } from 'pg';
import { chromium, type BrowserContext, type Request } from 'playwright-core';
import { REPO_ROOT } from '../suite';
import type { Benchmark } from './benchmark';
import { CONSOLE_PAGES, DEFAULT_READY, type ConsolePage } from './console-pages';
import { DEFAULT_SEED, bigAccountId, rememberSeed, type ConsoleSeedPlan, seedConsoleOrganization, seededOrganization } from './console-seed';
import { percentile } from './load';
import { positiveInteger, UsageError } from './options';
import { formatInt, machineDescription, machineLoad, print, progress, table } from './report';

const run = promisify(execFile);

const USAGE = `pnpm bench console [options]

The console at the scale of a large organization. Starts the whole suite as pnpm start does (its own
database and ports), seeds ONE organization straight in PostgreSQL (bulk INSERT ... SELECT generate_series):
${formatInt(DEFAULT_SEED.gatewayKeys)} gateway keys, ${formatInt(DEFAULT_SEED.toolCalls)} tool-call records, ${formatInt(DEFAULT_SEED.usageRecords)} gateway usage records and ${formatInt(DEFAULT_SEED.events)} unified
events (with ${formatInt(DEFAULT_SEED.registeredUsers)} registered users, their connections and ${DEFAULT_SEED.linkedAccounts} linked accounts), then for each console page:
  - the API requests one load of the page makes (captured in the browser) and their p95 when called from
    here as the page calls them, with the owner's console session;
  - the p95 time from navigation to the page being usable in headless Chromium (its main table showing
    rows from the API). Target: within 1000 ms.

Uses DATABASE_URL's server with its own database patchbay_bench_console (default server
postgresql://postgres@127.0.0.1:5432) and REDIS_URL's server with database 1 (default redis://127.0.0.1:6379/1).

  --rounds <n>        page loads and API calls measured per page (default 20)
  --keep              keep the seeded database: the next run measures it again without seeding
  --scale <f>         seed f times as many rows (e.g. 0.01 for a quick try; default 1)
  --port-offset <n>   shifts the suite's ports as PATCHBAY_PORT_OFFSET does (default 38000: edge router on 46080)
`;

interface Options {
  rounds: number;
  scale: number;
  keep: boolean;
  portOffset: number;
}

function parseOptions(args: string[]): Options | null {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args, strict: true, allowPositionals: false, options: { rounds: { type: 'string' }, scale: { type: 'string' }, keep: { type: 'boolean' }, 'port-offset': { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) return null;
  const scale = values.scale === undefined ? 1 : Number(values.scale);
  if (!(scale > 0 && scale <= 10)) throw new UsageError(`--scale must be a number above 0 and at most 10, got "${String(values.scale)}"`);
  return {
    rounds: positiveInteger('rounds', values.rounds as string | undefined, 20),
    scale,
    keep: values.keep === true,
    portOffset: positiveInteger('port-offset', values['port-offset'] as string | undefined, 38_000, true),
  };
}

interface BenchSuite {
  publicUrl: string;
  databaseUrl: string;
  accessKeys: AccessKeysApi;
  stop(): Promise<void>;
}

/** `pnpm start` (scripts/dist/start.js) with the bench's database, Redis database and ports. */
async function startBenchSuite(databaseUrl: string, redisUrl: string, portOffset: number): Promise<BenchSuite> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'patchbay-bench-console-'));
  const publicUrl = `http://localhost:${8080 + portOffset}`;
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, PATCHBAY_PORT_OFFSET: String(portOffset), PATCHBAY_DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '' };
  const child: ChildProcess = spawn(process.execPath, [path.join(REPO_ROOT, 'scripts', 'dist', 'start.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 420_000;
  while (!output.includes('Patchbay is running')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the suite did not start:\n${output.split('\n').slice(-30).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const cliPath = path.join(REPO_ROOT, 'apps', 'access-keys-and-audit', 'dist', 'cli', 'main.js');
  const accessKeys: AccessKeysApi = {
    url: publicUrl,
    async cli(args) {
      const { stdout } = await run(process.execPath, [cliPath, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, PATCHBAY_PUBLIC_URL: publicUrl, LOG_LEVEL: 'warn' } });
      return JSON.parse(stdout) as Record<string, unknown>;
    },
  } as AccessKeysApi;
  return { publicUrl, databaseUrl, accessKeys, stop };
}

/** The owner's console session: the cookie a browser would hold. */
interface Session {
  cookie: string;
  token: string;
}

async function signIn(publicUrl: string, email: string): Promise<Session> {
  const res = await fetch(`${publicUrl}/api/v1/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin: publicUrl }, body: JSON.stringify({ email, password: MEMBER_PASSWORD }) });
  if (!res.ok) throw new Error(`signing in as ${email} failed: ${res.status} ${await res.text()} (was the kept database seeded by an older bench? drop patchbay_bench_console)`);
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('patchbay_session='));
  if (!setCookie) throw new Error('signing in set no patchbay_session cookie');
  const token = setCookie.slice('patchbay_session='.length).split(';')[0]!;
  return { token, cookie: `patchbay_session=${token}` };
}

const isApiRequest = (url: string) => {
  const { pathname } = new URL(url);
  return pathname.startsWith('/api/') || pathname.startsWith('/v1/');
};

interface PageResult {
  page: ConsolePage;
  requestsPerLoad: number;
  apiP95: number;
  slowest: { url: string; p95: number } | null;
  usableP95: number | null;
  /** p95 until the page's heading shows: the app's own start, before its data. */
  frameP95: number | null;
  failures: number;
  failure?: string;
}

/** One load of the page: the time until `ready` shows, and the API requests made on the way (until the network is idle). */
async function loadOnce(context: BrowserContext, url: string, ready: string): Promise<{ ms: number | null; frameMs: number | null; requests: string[]; error?: string }> {
  const page = await context.newPage();
  const requests: string[] = [];
  page.on('request', (req: Request) => {
    if (isApiRequest(req.url())) requests.push(`${req.method()} ${req.url()}`);
  });
  try {
    const started = performance.now();
    await page.goto(url, { waitUntil: 'commit' });
    // The frame: the app has booted and the page's heading shows (its data may still be on the way).
    let frameMs: number | null = null;
    await Promise.all([
      page.locator('h1').first().waitFor({ timeout: 15_000 }).then(() => (frameMs = performance.now() - started)),
      page.locator(ready).first().waitFor({ state: 'visible', timeout: 15_000 }),
    ]);
    const ms = performance.now() - started;
    await page.waitForLoadState('networkidle', { timeout: 10_000 }).catch(() => undefined);
    return { ms, frameMs, requests };
  } catch (err) {
    return { ms: null, frameMs: null, requests, error: (err as Error).message.split('\n')[0] };
  } finally {
    await page.close();
  }
}

async function measurePage(context: BrowserContext, publicUrl: string, session: Session, target: ConsolePage, rounds: number, linkedAccountId: string): Promise<PageResult> {
  const url = `${publicUrl}/console${target.path.replace('{linkedAccountId}', linkedAccountId)}`;
  const ready = target.ready ?? DEFAULT_READY;
  // A first load, not measured: assets in the browser's cache and the services' code paths warm, as for someone already using the console.
  const first = await loadOnce(context, url, ready);
  const usable: number[] = [];
  const frames: number[] = [];
  const perLoad: number[] = [];
  let failures = first.ms === null ? 1 : 0;
  let failure = first.error;
  for (let i = 0; i < rounds; i++) {
    const load = await loadOnce(context, url, ready);
    perLoad.push(load.requests.length);
    if (load.ms === null) {
      failures += 1;
      failure ??= load.error;
    } else {
      usable.push(load.ms);
      if (load.frameMs !== null) frames.push(load.frameMs);
    }
  }
  // The same requests from here, as the page makes them (GETs with the session cookie), each `rounds` times.
  const unique = [...new Set(first.requests)].filter((r) => r.startsWith('GET '));
  const all: number[] = [];
  let slowest: PageResult['slowest'] = null;
  for (const line of unique) {
    const requestUrl = line.slice(4);
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const started = performance.now();
      const res = await fetch(requestUrl, { headers: { cookie: session.cookie, accept: 'application/json' } });
      await res.arrayBuffer();
      times.push(performance.now() - started);
      if (!res.ok) failure ??= `${res.status} from GET ${new URL(requestUrl).pathname}`;
    }
    times.sort((a, b) => a - b);
    all.push(...times);
    const p95 = percentile(times, 95);
    if (!slowest || p95 > slowest.p95) slowest = { url: requestUrl.replace(publicUrl, ''), p95 };
  }
  all.sort((a, b) => a - b);
  usable.sort((a, b) => a - b);
  frames.sort((a, b) => a - b);
  perLoad.sort((a, b) => a - b);
  return {
    page: target,
    requestsPerLoad: perLoad[perLoad.length - 1] ?? first.requests.length,
    apiP95: all.length > 0 ? percentile(all, 95) : NaN,
    slowest,
    usableP95: usable.length > 0 ? percentile(usable, 95) : null,
    frameP95: frames.length > 0 ? percentile(frames, 95) : null,
    failures,
    ...(failure ? { failure } : {}),
  };
}

function scaledPlan(scale: number): ConsoleSeedPlan {
  const of = (n: number, min: number) => Math.max(min, Math.round(n * scale));
  return {
    gatewayKeys: of(DEFAULT_SEED.gatewayKeys, 100),
    toolCalls: of(DEFAULT_SEED.toolCalls, 100),
    usageRecords: of(DEFAULT_SEED.usageRecords, 100),
    events: of(DEFAULT_SEED.events, 100),
    registeredUsers: of(DEFAULT_SEED.registeredUsers, 20),
    linkedAccounts: DEFAULT_SEED.linkedAccounts,
  };
}

async function dropDatabase(databaseUrl: string): Promise<void> {
  const admin = Object.assign(new URL(databaseUrl), { pathname: '/postgres' });
  const pg = new Client({ connectionString: admin.toString() });
  await pg.connect();
  await pg.query(`DROP DATABASE IF EXISTS "${new URL(databaseUrl).pathname.slice(1)}" WITH (FORCE)`);
  await pg.end();
}

export const consoleBenchmark: Benchmark = {
  name: 'console',
  summary: 'each console page at scale (100k gateway keys, 1M tool calls, 1M usage records, 100k events): API p95 and time to usable in Chromium',
  async run(args) {
    const options = parseOptions(args);
    if (!options) {
      process.stdout.write(USAGE);
      return 0;
    }
    const base = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
    const databaseUrl = Object.assign(new URL(base), { pathname: '/patchbay_bench_console' }).toString();
    const redisUrl = Object.assign(new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'), { pathname: '/1' }).toString();
    progress(`starting the suite (database patchbay_bench_console, edge router on port ${8080 + options.portOffset})`);
    const suite = await startBenchSuite(databaseUrl, redisUrl, options.portOffset);
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    let browser: Awaited<ReturnType<typeof chromium.launch>> | undefined;
    try {
      let seed = await seededOrganization(db);
      let session: Session;
      let seedSeconds: number | null = null;
      if (seed?.ownerEmail) {
        progress(`measuring the organization seeded before (${seed.organizationId}); drop the database patchbay_bench_console to seed again`);
        session = await signIn(suite.publicUrl, seed.ownerEmail);
      } else {
        const org = (await suite.accessKeys.cli(['org', 'create', '--name', 'Console bench (large organization)', '--plan', 'paid', '--credits', '2000000'])) as { organization_id: string };
        const organizationId = String(org.organization_id);
        const owner = await ownerSession(suite.accessKeys, organizationId);
        session = { cookie: owner.cookie, token: owner.token };
        const plan = scaledPlan(options.scale);
        progress(`seeding organization ${organizationId} (a few minutes)`);
        const started = performance.now();
        await seedConsoleOrganization(db, organizationId, plan, progress);
        seedSeconds = (performance.now() - started) / 1000;
        await rememberSeed(db, organizationId, owner.email, plan);
        seed = { organizationId, ownerEmail: owner.email, plan };
      }

      browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      await context.addCookies([{ name: 'patchbay_session', value: session.token, url: suite.publicUrl, httpOnly: true, sameSite: 'Lax' }]);
      const results: PageResult[] = [];
      for (const target of CONSOLE_PAGES) {
        progress(`measuring ${target.path} (${options.rounds} loads)`);
        results.push(await measurePage(context, suite.publicUrl, session, target, options.rounds, bigAccountId(seed.organizationId)));
      }

      const plan = seed.plan;
      print(`pnpm bench console: ${new Date().toISOString()}`);
      print(`machine: ${machineDescription()}; load average ${machineLoad().text}`);
      print(`organization ${seed.organizationId}: ${formatInt(plan.gatewayKeys)} gateway keys, ${formatInt(plan.toolCalls)} tool-call records, ${formatInt(plan.usageRecords)} usage records, ${formatInt(plan.events)} events in ${plan.linkedAccounts} linked accounts, ${formatInt(plan.registeredUsers)} registered users${seedSeconds === null ? ' (seeded by an earlier run)' : `, seeded in ${seedSeconds.toFixed(0)} s`}`);
      print(`${options.rounds} loads per page in headless Chromium after one unmeasured load (assets cached); API requests replayed ${options.rounds} times each with the owner's session`);
      print();
      const ms = (n: number | null) => (n === null || Number.isNaN(n) ? '–' : formatInt(n));
      const rows = results.map((r) => [
        r.page.path,
        String(r.requestsPerLoad),
        ms(r.apiP95),
        r.usableP95 === null ? 'failed' : ms(r.usableP95),
        ms(r.frameP95),
        '1,000',
        r.usableP95 !== null && r.usableP95 <= 1000 && r.failures === 0 ? 'met' : 'MISSED',
      ]);
      for (const line of table(['page', 'API requests per load', 'API p95 ms', 'usable p95 ms', 'heading p95 ms', 'target ms', ''], rows, ['left', 'right', 'right', 'right', 'right', 'right', 'left'])) print(line);
      print('(heading: until the page\'s h1 shows, the app started and its data not necessarily in: the part of "usable" that is not the data)');
      print();
      print('slowest API request per page (p95 ms):');
      for (const r of results) print(`  ${r.page.path.padEnd(16)} ${r.slowest ? `${ms(r.slowest.p95).padStart(6)}  ${r.slowest.url}` : '–'}`);
      const failed = results.filter((r) => r.failures > 0 || r.failure);
      if (failed.length > 0) {
        print();
        for (const r of failed) print(`  ${r.page.path}: ${r.failures} of ${options.rounds + 1} loads not usable within 15 s${r.failure ? `; ${r.failure}` : ''}`);
      }
      return results.every((r) => r.failures === 0) ? 0 : 1;
    } finally {
      await browser?.close().catch(() => undefined);
      await db.end().catch(() => undefined);
      progress('stopping the suite');
      await suite.stop();
      if (!options.keep) {
        progress('dropping patchbay_bench_console (--keep keeps it)');
        await dropDatabase(databaseUrl);
      }
    }
  },
};
