import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeHubspot, type FakeHubspot } from '@patchbay/provider-fakes';
import Redis from 'ioredis';
import { Client } from 'pg';
import { prepareBackends, describeBackends, type Backends } from './backends';
import type { Benchmark } from './benchmark';
import {
  commandDelta,
  commandStats,
  cpuDelta,
  cpuSnapshot,
  pgDelta,
  rowsInserted,
  schemaBytes,
  settledPgStats,
  sumOf,
  type CpuWatched,
  type PgDatabaseStats,
} from './capacity-counters';
import { DEFAULT_ASSUMPTIONS, formatBytes, size, type KindCost } from './capacity-model';
import { startGatewayLegs } from './gateway-app';
import { chatBody } from './gateway-legs';
import { toolCallBody } from './mcp-checks';
import { CUSTOM_SLUG, CUSTOM_TOOL, setUpMcpBench } from './mcp-setup';
import { pickLoadTool, runLoad } from './load';
import { positiveInteger, UsageError } from './options';
import { formatInt, machineDescription, machineLoad, print, progress, table } from './report';
import { ServiceGroup, type RunningService } from './services';
import { BENCH_LOG_LEVEL, appEntryOf, benchServiceToken, startAccessKeys, startEdgeRouter } from './suite-services';
import { linkHubspot, seedAccount, syncFinished, waitUntil } from './unified';

const USAGE = `pnpm bench capacity [options]

What one request of each kind costs the machines that serve it, for the capacity model in infra/README.md:
  MCP tools/call (a custom MCP server's tool on a local fake), MCP tools/list, gateway chat completion
  without and with streaming (fake OpenAI upstream), a 100-event page of GET /api/mktg/v1/events from an
  account of --events events, and a unified-data sync page (100 records synced from the HubSpot fake by
  the sync worker). Every request goes through the edge router, as deployed.

Per kind: CPU µs per request of each process (utime + stime from /proc/<pid>/stat; PostgreSQL is the
backends of the bench database), Redis commands per request (INFO commandstats of a redis-server of the
bench's own, port --redis-port), PostgreSQL transactions and rows per request (pg_stat_database of the
bench's own database: pg_stat_statements is not loaded on a stock server, so statements are counted as
transactions, which equals statements for the autocommit ones and undercounts multi-statement
transactions), and bytes written per record (pg_total_relation_size of the app's schema, tables with
their indexes and TOAST, before and after, over the records added). Each figure has the services' idle
activity taken off (queue polling, outbox relays), measured for --idle seconds before the kinds.
The HTTP kinds run as a busy pod serves them: wrk (autocannon when wrk is not installed) keeps
--connections requests in flight for --seconds, after --warmup seconds of the same load, so the JIT is
warm and the fixed costs of a process (timers, grant and flush windows) are spread as they are in
production; at a trickle of requests those fixed costs would be counted several times over. Each kind's
answer is checked before its load. Asynchronous writes (tool-call records, usage records) are waited
for before the window closes. No timing targets: these are costs, not latencies.

Uses DATABASE_URL's server (default postgresql://postgres@127.0.0.1:5432/patchbay_bench_capacity, a
database of its own so pg_stat_database sees only this run) and starts redis-server itself.

  --seconds <s>       measured seconds of load per HTTP kind (default 10)
  --warmup <s>        seconds of the same load before each is measured (default 3)
  --connections <n>   requests in flight (default 8)
  --events <n>        events in the account the events page reads (default 100000)
  --sync-events <n>   HubSpot events synced (default 200, each with 10 participants: 2,200 records)
  --idle <s>          seconds of idle baseline (default 5)
  --redis-port <n>    the bench's redis-server (default 19310)
`;

interface Options {
  seconds: number;
  warmupS: number;
  connections: number;
  events: number;
  syncEvents: number;
  idleS: number;
  redisPort: number;
}

function parseOptions(args: string[]): Options | null {
  const values = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--help' || arg === '-h') return null;
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!m || !['seconds', 'warmup', 'connections', 'events', 'sync-events', 'idle', 'redis-port'].includes(m[1]!)) throw new UsageError(`unknown option ${arg}`);
    values.set(m[1]!, m[2] ?? args[++i] ?? '');
  }
  return {
    seconds: positiveInteger('--seconds', values.get('seconds'), 10),
    warmupS: positiveInteger('--warmup', values.get('warmup'), 3),
    connections: positiveInteger('--connections', values.get('connections'), 8),
    events: positiveInteger('--events', values.get('events'), 100_000),
    syncEvents: positiveInteger('--sync-events', values.get('sync-events'), 200),
    idleS: positiveInteger('--idle', values.get('idle'), 5),
    redisPort: positiveInteger('--redis-port', values.get('redis-port'), 19310),
  };
}

const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/patchbay_bench_capacity';
const PARTICIPANTS_PER_EVENT = 10;
/** HubSpot's page size, which the sync worker asks for: one "sync page". */
const SYNC_PAGE_RECORDS = 100;

/** One HTTP request of a kind; the answer is checked, so a kind that fails is not measured as cheap. */
interface KindRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  check(status: number, text: string): string | null;
}

/** Where a kind's records land, so its bytes per record and its settling can be read. */
interface Footprint {
  schema: string;
  tables: string[];
}

interface Kind {
  label: string;
  /** What one "request" of the kind is, for the table's note. */
  unit: string;
  footprint?: Footprint;
  /** Warms the kind up (JIT, caches, pools, rows of first use). */
  warm(): Promise<void>;
  /** Runs the measured load; resolves to the units done (requests answered; for the sync, pages of records). */
  run(): Promise<number>;
  /** Rows expected in the footprint's tables once the kind's asynchronous writes have landed. */
  expectedRows?(requests: number): number;
}

interface KindResult {
  label: string;
  unit: string;
  requests: number;
  seconds: number;
  cpuUsPerRequest: Map<string, number>;
  redisPerRequest: number;
  topCommands: Array<[string, number]>;
  pg: PgDatabaseStats;
  recordsAdded: number | null;
  bytesPerRecord: number | null;
}

/** Requests answered 503 and sent again (see fire); printed with the figures. */
const retried = { count: 0 };
/** Kinds whose load saw a few failed requests (under 1%; more fail the run); printed with the figures. */
const failures: string[] = [];

async function fire(request: KindRequest, count: number, concurrency: number): Promise<number> {
  let next = 0;
  let failure: string | null = null;
  const worker = async () => {
    while (next < count && failure === null) {
      next++;
      // A shared, overloaded machine can make a dependency miss its deadline (503): retried a few times,
      // counted, and the run fails only when one request keeps failing.
      for (let attempt = 1; ; attempt++) {
        const res = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body, signal: AbortSignal.timeout(30_000) });
        const text = await res.text();
        const problem = request.check(res.status, text);
        if (problem === null) break;
        if (res.status !== 503 || attempt === 5) {
          failure ??= problem;
          break;
        }
        retried.count++;
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (failure !== null) throw new Error(`${request.method} ${request.url}: ${failure}`);
  return count;
}

const expectStatus = (status: number, text: string, must: (text: string) => boolean, what: string): string | null =>
  status !== 200 ? `answered ${status}: ${text.slice(0, 300)}` : must(text) ? null : `${what} missing from the answer: ${text.slice(0, 300)}`;

function startRedis(port: number, dir: string): ChildProcess {
  return spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
}

/**
 * Waits until a footprint's row count has not changed for SETTLED_MS (a warm-up's asynchronous records
 * have landed). One second was too short for the tool-call records, which reach PostgreSQL through the
 * queue in batches: the last of the warm-up's landed inside the measured window and came out as 1.1
 * records per call.
 */
const SETTLED_MS = 3_000;

async function settledRows(db: Client, footprint: Footprint): Promise<void> {
  let last = -1;
  let since = Date.now();
  await pollUntil('the warm-up\'s records', async () => {
    const rows = await rowsInserted(db, footprint.schema, footprint.tables);
    if (rows !== last) [last, since] = [rows, Date.now()];
    return Date.now() - since >= SETTLED_MS;
  });
}

/** Polls every quarter second (each poll is a statement the bench then takes off the figures). */
async function pollUntil(what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function run(options: Options): Promise<number> {
  const redisDir = mkdtempSync(path.join(os.tmpdir(), 'bench-capacity-redis-'));
  const redisServer = startRedis(options.redisPort, redisDir);
  const stopRedis = () => redisServer.exitCode === null && redisServer.signalCode === null && redisServer.kill('SIGKILL');
  process.once('exit', stopRedis);
  const group = new ServiceGroup(progress);
  // unified-data's schema first on the path: seedAccount and syncFinished name its tables unqualified.
  const db = new Client({ connectionString: process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL, options: '-c search_path=unified_data,public' });
  // Every statement of the bench's own connection is a transaction pg_stat_database counts: they are counted here and taken off.
  const ownQueries = { count: 0 };
  const query = db.query.bind(db);
  db.query = ((...args: Parameters<typeof query>) => {
    ownQueries.count++;
    return query(...args);
  }) as typeof db.query;
  const redis = new Redis(`redis://127.0.0.1:${options.redisPort}`, { retryStrategy: () => 100 });
  redis.on('error', () => undefined);
  let hubspot: FakeHubspot | undefined;
  const loadBefore = machineLoad().text;
  try {
    await waitUntil('the bench redis-server', async () => redis.ping().then(() => true, () => false), 10_000);
    const backends: Backends = await prepareBackends({ DATABASE_URL: process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL, REDIS_URL: `redis://127.0.0.1:${options.redisPort}/0` });
    await db.connect();

    progress('starting the suite: access keys, registry, MCP runtime and its record worker, gateway and its worker, unified data and its worker, edge routers');
    const mcp = await setUpMcpBench(group, backends, { runtimeNodeArgs: [], bareProxy: false, separateRecordWorker: true, providerLatencyMs: 0 });
    const upstream = await group.start({ name: 'fake-openai', entry: path.join(__dirname, 'gateway-upstream.js'), env: {}, healthPath: '/__fake/health' });
    const gateway = await startGatewayLegs(group, backends, upstream, appEntryOf('model-gateway'));
    hubspot = await startFakeHubspot(undefined, { recordRequests: false });
    // unified-data with an access-keys-and-audit of its own, since the MCP setup keeps its service token to itself.
    const serviceToken = benchServiceToken();
    const accessKeys = await startAccessKeys(group, backends, serviceToken);
    const unifiedEnv: NodeJS.ProcessEnv = {
      DATABASE_URL: backends.databaseUrl,
      REDIS_URL: backends.redisUrl,
      ACCESS_KEYS_URL: accessKeys.baseUrl,
      PATCHBAY_SERVICE_TOKEN: serviceToken,
      PATCHBAY_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
      PATCHBAY_MKTG_HUBSPOT_BASE_URL: hubspot.baseUrl,
      LOG_LEVEL: BENCH_LOG_LEVEL,
      NODE_ENV: 'production',
    };
    const unified = await group.start({ name: 'unified-data', entry: appEntryOf('unified-data'), env: unifiedEnv });
    const unifiedWorker = await group.start({ name: 'unified-data-worker', entry: appEntryOf('unified-data').replace(/main\.js$/, 'worker.js'), env: { ...unifiedEnv, PATCHBAY_MIGRATE_ON_START: 'false' } });
    const unifiedEdge = await startEdgeRouter(group, { accessKeys, UNIFIED_DATA_URL: unified }, [], { name: 'edge-router' });

    const key = mcp.organization.masterKey;
    progress(`seeding an account of ${formatInt(options.events)} events for the events page`);
    const account = await seedAccount(db, mcp.organization.organizationId, options.events);
    await db.query('VACUUM (ANALYZE) unified_data.events');

    const edgePath = mcp.paths.find((p) => p.via === 'edge');
    if (!edgePath) throw new Error('the MCP setup has no path through the edge router');
    const mcpUrl = `${mcp.edge.baseUrl}/api/v1/tool-packs/${mcp.toolPackId}/registered-users/${edgePath.registeredUserId}/mcp`;
    const mcpHeaders = { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const chat = (stream: boolean): KindRequest => ({
      url: gateway.viaEdge.url,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...gateway.viaEdge.headers },
      body: chatBody(gateway.viaEdge.model, stream),
      check: (status, text) => expectStatus(status, text, (t) => (stream ? t.includes('[DONE]') : t.includes('"usage"')), stream ? 'the stream\'s [DONE]' : 'usage'),
    });
    /** Links a new HubSpot portal of `events` events and waits for its sync; resolves to the pages of records synced. */
    const syncOf = async (events: number): Promise<number> => {
      const portal = hubspot!.createPortal();
      portal.seed({ events, participantsPerEvent: PARTICIPANTS_PER_EVENT });
      const start = new Date();
      const linked = await linkHubspot(unified, key, portal.token);
      await waitUntil('the sync', () => syncFinished(db, linked.id, start), 600_000);
      return (events * (1 + PARTICIPANTS_PER_EVENT)) / SYNC_PAGE_RECORDS;
    };
    const loadTool = pickLoadTool(undefined, 1);
    /** A kind of one HTTP request, its answer checked once, then served under load (see the usage text). */
    const httpKind = (label: string, unit: string, request: KindRequest, footprint?: Footprint): Kind => {
      const load = (durationS: number) =>
        runLoad(loadTool, { url: request.url, method: request.method, headers: request.headers, body: request.body, durationS, connections: options.connections, threads: 1 });
      return {
        label,
        unit,
        ...(footprint ? { footprint, expectedRows: (n: number) => n } : {}),
        warm: async () => {
          await fire(request, 1, 1);
          await load(options.warmupS);
        },
        run: async () => {
          const result = await load(options.seconds);
          const failed = result.non2xx + result.socketErrors;
          // A kind whose requests fail is measured as cheaper than it is: a few 503s of a loaded machine are noted, more fail the run.
          if (failed > result.requests * 0.01) throw new Error(`${label}: ${failed} of ${result.requests} requests failed (${result.non2xx} non-2xx, ${result.socketErrors} socket errors)`);
          if (failed > 0) failures.push(`${label}: ${failed} of ${result.requests} requests failed and are left out of the units`);
          return result.requests - failed;
        },
      };
    };
    const kinds: Kind[] = [
      httpKind(
        'MCP tools/call',
        'call',
        { url: mcpUrl, method: 'POST', headers: mcpHeaders, body: toolCallBody(`${CUSTOM_SLUG}__${CUSTOM_TOOL}`, { query: 'capacity' }), check: (s, t) => expectStatus(s, t, (x) => x.includes('structuredContent') && !x.includes('"isError":true'), 'structuredContent') },
        { schema: 'mcp_runtime', tables: ['tool_call_records'] },
      ),
      httpKind('MCP tools/list', 'list', { url: mcpUrl, method: 'POST', headers: mcpHeaders, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), check: (s, t) => expectStatus(s, t, (x) => x.includes(CUSTOM_TOOL), CUSTOM_TOOL) }),
      httpKind('gateway chat', 'completion', chat(false), { schema: 'model_gateway', tables: ['usage_records'] }),
      httpKind('gateway chat, streamed', 'stream', chat(true), { schema: 'model_gateway', tables: ['usage_records'] }),
      httpKind('unified events page', '100-event page', {
        url: `${unifiedEdge.baseUrl}/api/mktg/v1/events?page_size=100`,
        method: 'GET',
        headers: { authorization: `Bearer ${key}`, 'x-account-token': account.token },
        check: (s, t) => expectStatus(s, t, (x) => (JSON.parse(x) as { results?: unknown[] }).results?.length === 100, '100 results'),
      }),
      {
        label: 'unified sync page',
        unit: `${SYNC_PAGE_RECORDS}-record page`,
        footprint: { schema: 'unified_data', tables: ['events', 'contacts'] },
        warm: async () => {
          await syncOf(Math.max(20, Math.floor(options.syncEvents / 10)));
        },
        run: () => syncOf(options.syncEvents),
      },
    ];

    // Every kind once before anything is measured: caches, pools and the JIT warm, the rows of first use written.
    progress('warm-up: every kind once, each HTTP kind under its load');
    for (const kind of kinds) await kind.warm();

    const watched: CpuWatched[] = [];
    const services: RunningService[] = [mcp.accessKeys, accessKeys, mcp.registry, mcp.providers, mcp.runtime, ...(mcp.recordWorker ? [mcp.recordWorker] : []), mcp.edge, upstream, ...gateway.services, unified, unifiedWorker, unifiedEdge];
    const byName = new Map<string, number[]>();
    for (const s of services) byName.set(s.name, [...(byName.get(s.name) ?? []), s.pid]);
    for (const [name, pids] of byName) watched.push({ name, pids: async () => pids });
    const redisPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]);
    watched.push({ name: 'redis', pid: redisPid });
    watched.push({
      name: 'postgres (bench database backends)',
      pids: async () => (await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')).rows.map((r) => r.pid),
    });
    watched.push({ name: 'unified HubSpot fake (bench process)', pid: process.pid });

    const snapshot = async () => {
      const pg = await settledPgStats(db);
      return { at: performance.now(), cpu: await cpuSnapshot(watched), redis: await commandStats(redis), pg, ownQueries: ownQueries.count };
    };

    progress(`idle baseline: ${options.idleS} s with no requests`);
    const idleStart = await snapshot();
    await new Promise((r) => setTimeout(r, options.idleS * 1000));
    const idleEnd = await snapshot();
    const idleSeconds = (idleEnd.at - idleStart.at) / 1000;
    const idleCpu = cpuDelta(idleStart.cpu, idleEnd.cpu);
    const idleRedis = commandDelta(idleStart.redis, idleEnd.redis);
    const idlePg = pgDelta(idleStart.pg, idleEnd.pg);
    idlePg.xactCommit -= idleEnd.ownQueries - idleStart.ownQueries;

    const results: KindResult[] = [];
    for (const kind of kinds) {
      // Warmed again right before its window (the kinds before it ran other code), and its warm-up's records
      // landed, so the window holds this kind's requests and records only.
      progress(`${kind.label}: warming up`);
      await kind.warm();
      const footprint = kind.footprint;
      if (footprint) await settledRows(db, footprint);
      progress(`${kind.label}: measuring`);
      const footprintBefore = footprint ? { bytes: await schemaBytes(db, footprint.schema), rows: await rowsInserted(db, footprint.schema, footprint.tables) } : null;
      const before = await snapshot();
      const requests = await kind.run();
      if (footprint && kind.expectedRows && footprintBefore) {
        // Until every record is in, or none has come for five seconds (the records/unit column then shows what was lost).
        const want = footprintBefore.rows + kind.expectedRows(requests);
        let last = -1;
        let lastChange = Date.now();
        await pollUntil(`${kind.label}'s records`, async () => {
          const rows = await rowsInserted(db, footprint.schema, footprint.tables);
          if (rows !== last) [last, lastChange] = [rows, Date.now()];
          return rows >= want || Date.now() - lastChange > 5_000;
        });
      }
      const after = await snapshot();
      const seconds = (after.at - before.at) / 1000;
      const idleShare = seconds / idleSeconds;
      const cpu = cpuDelta(before.cpu, after.cpu);
      const cpuUsPerRequest = new Map<string, number>();
      // The bench process's own CPU is the load generator's except during the sync, where it is the HubSpot fake's.
      for (const [name, used] of cpu) {
        if (name.startsWith('unified HubSpot fake') && kind.label !== 'unified sync page') continue;
        cpuUsPerRequest.set(name, Math.max(0, used - (idleCpu.get(name) ?? 0) * idleShare) / requests);
      }
      const commands = commandDelta(before.redis, after.redis);
      commands.delete('info');
      for (const [command, calls] of idleRedis) if (command !== 'info') commands.set(command, Math.max(0, (commands.get(command) ?? 0) - calls * idleShare));
      const pg = pgDelta(before.pg, after.pg);
      // The bench's own statements between the two readings (waiting for records, reading sizes) are not the requests'.
      pg.xactCommit -= after.ownQueries - before.ownQueries;
      for (const field of Object.keys(pg) as Array<keyof PgDatabaseStats>) pg[field] = Math.max(0, pg[field] - idlePg[field] * idleShare) / requests;
      const footprintAfter = footprint ? { bytes: await schemaBytes(db, footprint.schema), rows: await rowsInserted(db, footprint.schema, footprint.tables) } : null;
      const recordsAdded = footprintBefore && footprintAfter ? footprintAfter.rows - footprintBefore.rows : null;
      results.push({
        label: kind.label,
        unit: kind.unit,
        requests,
        seconds,
        cpuUsPerRequest,
        redisPerRequest: sumOf(commands.values()) / requests,
        topCommands: [...commands].sort((a, b) => b[1] - a[1]).slice(0, 4),
        pg,
        recordsAdded,
        bytesPerRecord: recordsAdded && footprintBefore && footprintAfter ? (footprintAfter.bytes - footprintBefore.bytes) / recordsAdded : null,
      });
    }

    report(options, backends, results, { idleSeconds, idleRedisPerS: sumOf(idleRedis.values()) / idleSeconds, idleXactPerS: idlePg.xactCommit / idleSeconds }, loadBefore);
    return 0;
  } finally {
    await redis.quit().catch(() => undefined);
    await db.end().catch(() => undefined);
    await hubspot?.close();
    await group.stopAll();
    stopRedis();
    rmSync(redisDir, { recursive: true, force: true });
  }
}

function report(options: Options, backends: Backends, results: KindResult[], idle: { idleSeconds: number; idleRedisPerS: number; idleXactPerS: number }, loadBefore: string): void {
  const fixed = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
  print(`pnpm bench capacity  (${machineDescription()})`);
  print(`${new Date().toISOString()}; ${describeBackends(backends)}; ${options.connections} in flight (${options.warmupS} s warm-up, ${options.seconds} s measured per HTTP kind); machine load before ${loadBefore}, after ${machineLoad().text}`);
  for (const failure of failures) print(failure);
  if (retried.count > 0) print(`${retried.count} request(s) answered 503 under the machine's load and were sent again (their cost is in the figures)`);
  print(`Idle baseline taken off every figure: ${fixed(idle.idleRedisPerS)} Redis commands/s, ${fixed(idle.idleXactPerS)} PostgreSQL transactions/s (over ${fixed(idle.idleSeconds)} s)`);
  print();
  print('Per request (PostgreSQL: pg_stat_database of the bench database; xacts = commits, one per autocommit statement)');
  const rows = results.map((r) => {
    const cpuTotal = sumOf([...r.cpuUsPerRequest.values()]);
    return [
      r.label,
      r.unit,
      formatInt(r.requests),
      fixed(r.requests / r.seconds, 0),
      formatInt(cpuTotal),
      fixed(r.redisPerRequest),
      fixed(r.pg.xactCommit + r.pg.xactRollback),
      fixed(r.pg.tupReturned + r.pg.tupFetched),
      fixed(r.pg.tupInserted + r.pg.tupUpdated + r.pg.tupDeleted),
      r.bytesPerRecord === null ? '-' : formatInt(r.bytesPerRecord),
      r.recordsAdded === null ? '-' : fixed(r.recordsAdded / r.requests),
    ];
  });
  for (const line of table(['kind', 'unit', 'units', 'units/s', 'CPU µs (all)', 'Redis cmds', 'PG xacts', 'PG rows read', 'PG rows written', 'bytes/record', 'records/unit'], rows, ['left', 'left'])) print(line);
  print();
  print('CPU µs per request, by process (idle taken off; "-" under 1 µs)');
  const names = [...new Set(results.flatMap((r) => [...r.cpuUsPerRequest.keys()]))];
  const cpuRows = names
    .map((name) => [name, ...results.map((r) => r.cpuUsPerRequest.get(name) ?? 0)] as [string, ...number[]])
    .filter(([, ...values]) => values.some((v) => v >= 1))
    .map(([name, ...values]) => [name, ...values.map((v) => (v >= 1 ? formatInt(v) : '-'))]);
  for (const line of table(['process', ...results.map((r) => r.label)], cpuRows)) print(line);
  print();
  print('Redis commands per request, the most frequent');
  for (const r of results) print(`  ${r.label}: ${r.topCommands.map(([c, n]) => `${c} ${fixed(n / r.requests, 2)}`).join(', ') || 'none'}`);
  print();
  printCapacityModel(results);
}

/** The figures above through capacity-model.ts: what 1k, 10k and 100k units a second of each kind need (infra/README.md). */
function printCapacityModel(results: KindResult[]): void {
  const a = DEFAULT_ASSUMPTIONS;
  print(
    `Capacity model (capacity-model.ts): pods at ${a.podCpuUs / 1e6} core each, Redis shards at ${formatInt(a.redisOpsPerShard)} commands/s or ${a.redisShardCpuUs / 1e6} core each, ` +
      `PostgreSQL primary up to ${a.pgMaxCores} vCPU and ${formatInt(a.pgRowsWrittenPerSecond)} rows written/s, ${a.retentionDays} days kept`,
  );
  const rows: string[][] = [];
  for (const r of results) {
    const cost: KindCost = {
      label: r.label,
      cpuUsPerUnit: r.cpuUsPerRequest,
      redisCommandsPerUnit: r.redisPerRequest,
      pgRowsWrittenPerUnit: r.pg.tupInserted + r.pg.tupUpdated + r.pg.tupDeleted,
      bytesPerUnit: r.bytesPerRecord !== null && r.recordsAdded !== null ? Math.max(0, r.bytesPerRecord) * (r.recordsAdded / r.requests) : 0,
    };
    for (const rate of [1_000, 10_000, 100_000]) {
      const s = size(cost, rate);
      rows.push([
        r.label,
        formatInt(rate),
        s.pods.map(([name, n]) => `${name} ${n}`).join(', '),
        `${s.redisShards} (${s.redisBound})`,
        s.pgCores.toFixed(1),
        formatInt(s.pgRowsPerSecond),
        formatBytes(s.bytesPerDay),
        formatBytes(s.bytesRetained),
        s.firstLimit,
      ]);
    }
  }
  for (const line of table(['kind', 'units/s', 'pods', 'Redis shards', 'PG vCPU', 'PG rows written/s', 'PG bytes/day', `PG bytes, ${a.retentionDays} d`, 'first limit'], rows, ['left', 'right', 'left', 'right', 'right', 'right', 'right', 'right', 'left'])) print(line);
}

export const capacityBenchmark: Benchmark = {
  name: 'capacity',
  summary: 'CPU per request of each process, Redis commands, PostgreSQL transactions and bytes per record, per request kind (for infra/README.md)',
  async run(args) {
    const options = parseOptions(args);
    if (!options) {
      process.stdout.write(USAGE);
      return 0;
    }
    return run(options);
  },
};
