import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hashAccessKey } from '@patchbay/auth';
import { startFakeHubspot, type FakeHubspot } from '@patchbay/provider-fakes';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { Client } from 'pg';
import { REPO_ROOT } from '../suite';
import { describeBackends, prepareBackends, type Backends } from './backends';
import type { Benchmark } from './benchmark';
import { newestProfile, summarizeCpuProfile } from './cpu-profile';
import { UsageError } from './options';
import { formatInt, machineDescription, machineLoad, print, progress, table } from './report';
import { freePort, ServiceGroup, type RunningService } from './services';
import { BENCH_LOG_LEVEL, appEntryOf, benchServiceToken, createBenchOrganization, startAccessKeys } from './suite-services';

const USAGE = `pnpm bench unified [options]

unified-data (the /api/mktg/v1 API and its sync worker), in one run:
  (a) p50/p99 of a 100-event page of GET /api/mktg/v1/events, the first page and one 900,000 rows deep,
      without filters, with filters (created_before + modified_after) and with include_remote_data, from a
      linked account holding --events events (seeded with one generate_series INSERT); the same pages of a
      100-event account are the reference. Target: p99 at most 15 ms.
  (b) sync throughput, records (events + contacts) per second, from the local HubSpot fake through the
      real worker: the initial full sync and an incremental one. Target: at least 5,000 records/s.
  (c) a full sync whose worker is killed (SIGKILL) halfway and restarted: records written twice
      (target 0) and the time from the restart to the end.

Uses DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/patchbay_bench) and REDIS_URL
(default redis://127.0.0.1:6379/1). The seeded accounts are deleted at the end. Give it a database no
other unified-data installation uses at the same time: installations sharing a database share its
outbox, and each would deliver the other's sync jobs to its own queue.

  --events <n>        events in the big account (default 1000000)
  --requests <n>      requests per page measured (default 400)
  --sync-events <n>   HubSpot events for (b) and (c) (default 1000, so 51,000 records: long enough that the
                      link call and the job's delivery, about half a second, do not dominate), each with
                      --per-event participants (default 50)
  --per-event <n>
  --sync-only         skip (a): only the sync figures (b) and (c)
  --profile           run the worker of (b) under node --cpu-prof and print where its CPU time went
`;

interface Options {
  events: number;
  requests: number;
  syncEvents: number;
  perEvent: number;
  syncOnly: boolean;
  profile: boolean;
}

function parseOptions(args: string[]): Options | null {
  const out: Options = { events: 1_000_000, requests: 400, syncEvents: 1000, perEvent: 50, syncOnly: false, profile: false };
  const names: Record<string, 'events' | 'requests' | 'syncEvents' | 'perEvent'> = { events: 'events', requests: 'requests', 'sync-events': 'syncEvents', 'per-event': 'perEvent' };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--help' || arg === '-h') return null;
    if (arg === '--sync-only' || arg === '--profile') {
      out[arg === '--profile' ? 'profile' : 'syncOnly'] = true;
      continue;
    }
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    const key = match ? names[match[1] as string] : undefined;
    if (!match || !key) throw new UsageError(`unknown option ${arg}`);
    const value = match[2] ?? args[++i];
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`--${match[1]} must be a whole number of at least 1, got "${value ?? ''}"`);
    out[key] = n;
  }
  if (out.events < 1000) throw new UsageError('--events must be at least 1000');
  return out;
}

const SCHEMA = 'unified_data';

export interface SeededAccount {
  id: string;
  token: string;
}

/** A linked account straight in SQL (its platform is never called): only reads are measured on it. */
export async function seedAccount(db: Client, organizationId: string, events: number): Promise<SeededAccount> {
  const id = randomUUID();
  const token = `pbat_${randomBytes(32).toString('base64url')}`;
  await db.query(
    `INSERT INTO linked_accounts (id, organization_id, environment, platform, status, end_user_origin_id, end_user_organization_name,
       account_token_hash, credentials_sealed, sync_frequency_seconds)
     VALUES ($1, $2, 'production', 'hubspot', 'COMPLETE', $3, 'bench', $4, 'none', 86400)`,
    [id, organizationId, `bench-${id}`, hashAccessKey(token)],
  );
  // One statement: created a millisecond apart (the list order), modified in ten bands, with remote data.
  await db.query(
    `INSERT INTO events (id, linked_account_id, remote_id, created_at, modified_at, name, description, remote_created_at, start_time, end_time,
       emails, messages, field_mappings, remote_data, hash, remote_was_deleted, is_shell, run_writes)
     SELECT gen_random_uuid(), $1::uuid, 'bench-' || g, t0 + g * interval '1 millisecond', t0 + (g % 10) * interval '1 day',
       'Webinar ' || g, 'Bench event number ' || g, t0, t0 + g * interval '1 hour', t0 + g * interval '1 hour' + interval '45 minutes',
       '[]'::jsonb, '[]'::jsonb, '{"organization_defined_targets": {}, "linked_account_defined_targets": {}}'::jsonb,
       jsonb_build_array(jsonb_build_object('path', '/marketing/v3/marketing-events/' || g,
         'data', jsonb_build_object('objectId', g::text, 'eventName', 'Webinar ' || g, 'eventType', 'WEBINAR', 'registrants', g % 97))),
       md5(g::text), false, false, 1
     FROM generate_series(1, $2::int) AS g, (SELECT timestamptz '2026-01-01T00:00:00Z' AS t0) AS base`,
    [id, events],
  );
  return { id, token };
}

interface PageTarget {
  name: string;
  account: 'big' | 'small';
  path: string;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/**
 * Requests sent to each page before its measured ones: the API's code paths are optimized and its
 * pools warm by then, as in a server that has been serving (with 20, the first variant measured
 * carried the JIT's tail).
 */
const WARMUP_REQUESTS = 100;

/** Sequential requests over one keep-alive connection; client-side latency in ms. */
async function measurePage(base: string, headers: Record<string, string>, target: PageTarget, requests: number): Promise<{ p50: number; p99: number; results: number }> {
  const times: number[] = [];
  let results = 0;
  for (let i = 0; i < requests + WARMUP_REQUESTS; i++) {
    const start = performance.now();
    const res = await fetch(`${base}${target.path}`, { headers });
    const body = (await res.json()) as { results?: unknown[] };
    const ms = performance.now() - start;
    if (res.status !== 200) throw new Error(`${target.name}: ${res.status} ${JSON.stringify(body)}`);
    results = body.results?.length ?? 0;
    if (i >= WARMUP_REQUESTS) times.push(ms);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), results };
}

interface RecordsModule {
  eventsCursorAfter(linkedAccountId: string, query: Record<string, string>, createdAt: Date, id: string): string;
  listEvents(db: unknown, linkedAccountId: string, query: Record<string, string>): Promise<{ results: unknown[] }>;
}

const appModule = async <T>(...segments: string[]): Promise<T> => (await import(path.join(REPO_ROOT, 'apps', 'unified-data', 'dist', ...segments))) as T;

/** The same page computed in this process by the app's own list function: the database's share, without HTTP. */
async function measureInProcess(records: RecordsModule, prisma: unknown, accountId: string, query: Record<string, string>, requests: number): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < requests + WARMUP_REQUESTS; i++) {
    const start = performance.now();
    await records.listEvents(prisma, accountId, query);
    if (i >= WARMUP_REQUESTS) times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

async function deepCursor(db: Client, account: SeededAccount, offset: number, query: Record<string, string>): Promise<string> {
  const records = await appModule<RecordsModule>('domain', 'records.js');
  const row = await db.query<{ created_at: Date; id: string }>(
    `SELECT created_at, id FROM events WHERE linked_account_id = $1 ORDER BY created_at, id OFFSET $2 LIMIT 1`,
    [account.id, offset],
  );
  const r = row.rows[0];
  if (!r) throw new Error('no row at the deep offset');
  return records.eventsCursorAfter(account.id, query, r.created_at, r.id);
}

/** The sync worker as its own process (so it can be killed), ready when its /healthz answers. */
async function startWorker(env: NodeJS.ProcessEnv, nodeArgs: string[] = []): Promise<{ child: ChildProcess; exited: Promise<unknown> }> {
  const child = spawn(process.execPath, [...nodeArgs, appEntryOf('unified-data').replace(/main\.js$/, 'worker.js')], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.on('data', () => undefined);
  const exited = once(child, 'exit');
  await waitUntil('the worker to start', async () => {
    if (child.exitCode !== null) throw new Error('the unified-data worker exited while starting');
    return fetch(`http://127.0.0.1:${env.PORT}/healthz`).then((r) => r.ok, () => false);
  }, 60_000);
  return { child, exited };
}

export async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function syncFinished(db: Client, accountId: string, after: Date): Promise<boolean> {
  const res = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM sync_statuses WHERE linked_account_id = $1 AND status = 'DONE' AND last_sync_finished > $2`,
    [accountId, after],
  );
  return Number(res.rows[0]?.n) === 2;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); 0 when it is gone or unreadable. */
function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Where a sync's CPU went: the worker process, the PostgreSQL backends of this database, this process (the HubSpot fake). */
interface CpuSplit {
  worker: number;
  postgres: number;
  fake: number;
}

async function cpuNow(db: Client, workerPid: number): Promise<CpuSplit & { pgPids: Map<number, number> }> {
  const res = await db.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
  const pgPids = new Map(res.rows.map((r) => [r.pid, processCpuSeconds(r.pid)]));
  const usage = process.cpuUsage();
  return { worker: processCpuSeconds(workerPid), postgres: [...pgPids.values()].reduce((a, b) => a + b, 0), fake: (usage.user + usage.system) / 1e6, pgPids };
}

function cpuSince(before: Awaited<ReturnType<typeof cpuNow>>, after: Awaited<ReturnType<typeof cpuNow>>): CpuSplit {
  // Backends that came and went in between are missed; those present at both ends count their difference.
  let postgres = 0;
  for (const [pid, cpu] of after.pgPids) postgres += cpu - (before.pgPids.get(pid) ?? 0);
  return { worker: after.worker - before.worker, postgres, fake: after.fake - before.fake };
}

/** How long the last sync ran inside the worker: from its run's start to its finish, as sync_statuses hold them. */
async function runSeconds(db: Client, accountId: string): Promise<number> {
  const res = await db.query<{ s: number }>(
    `SELECT extract(epoch FROM max(last_sync_finished) - max(last_sync_start))::float8 AS s FROM sync_statuses WHERE linked_account_id = $1`,
    [accountId],
  );
  return Number(res.rows[0]?.s);
}

async function recordCount(db: Client, accountId: string): Promise<{ records: number; twice: number }> {
  const res = await db.query<{ records: string; twice: string }>(
    `SELECT (SELECT count(*) FROM events WHERE linked_account_id = $1) + (SELECT count(*) FROM contacts WHERE linked_account_id = $1) AS records,
            (SELECT count(*) FROM events WHERE linked_account_id = $1 AND run_writes > 1) + (SELECT count(*) FROM contacts WHERE linked_account_id = $1 AND run_writes > 1) AS twice`,
    [accountId],
  );
  return { records: Number(res.rows[0]?.records), twice: Number(res.rows[0]?.twice) };
}

export async function linkHubspot(api: RunningService, masterKey: string, token: string): Promise<{ id: string; account_token: string }> {
  const res = await fetch(`${api.baseUrl}/api/mktg/v1/linked-accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${masterKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ platform: 'hubspot', credentials: { access_token: token }, end_user_origin_id: `bench-${randomUUID()}`, end_user_organization_name: 'bench' }),
  });
  if (res.status !== 201) throw new Error(`linking failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string; account_token: string };
}

async function run(options: Options): Promise<number> {
  const backends: Backends = await prepareBackends();
  const group = new ServiceGroup(progress);
  const serviceToken = benchServiceToken();
  // A queue prefix of its own, for every service it starts (access-keys-and-audit reads it from the
  // environment): a test run sharing the Redis database never takes this run's jobs, nor the reverse.
  const prefix = `${process.env.QUEUE_PREFIX ?? 'bull'}-bench-${randomBytes(3).toString('hex')}`;
  process.env.QUEUE_PREFIX = prefix;
  const encryptionKeys = `bench:${randomBytes(32).toString('base64')}`;
  let hubspot: FakeHubspot | undefined;
  const db = new Client({ connectionString: backends.databaseUrl, options: `-c search_path=${SCHEMA}` });
  const seeded: string[] = [];
  const workers: ChildProcess[] = [];
  const loadBefore = machineLoad().text;
  try {
    hubspot = await startFakeHubspot(undefined, { recordRequests: false });
    const accessKeys = await startAccessKeys(group, backends, serviceToken);
    const appEnv: NodeJS.ProcessEnv = {
      DATABASE_URL: backends.databaseUrl,
      REDIS_URL: backends.redisUrl,
      QUEUE_PREFIX: prefix,
      ACCESS_KEYS_URL: accessKeys.baseUrl,
      PATCHBAY_SERVICE_TOKEN: serviceToken,
      PATCHBAY_ENCRYPTION_KEYS: encryptionKeys,
      PATCHBAY_MKTG_HUBSPOT_BASE_URL: hubspot.baseUrl,
      MKTG_SYNC_LEASE_TTL_MS: '3000',
      LOG_LEVEL: BENCH_LOG_LEVEL,
      NODE_ENV: 'production',
    };
    const api = await group.start({ name: 'unified-data', entry: appEntryOf('unified-data'), env: appEnv });
    await db.connect();
    const org = await createBenchOrganization(backends);

    // (a) pages of a big account and of a 100-event reference account.
    const rows: string[][] = [];
    let worstP99 = 0;
    let worstDbP99 = 0;
    let seedSeconds = 0;
    if (!options.syncOnly) {
      progress(`seeding ${formatInt(options.events)} events with one INSERT ... SELECT generate_series`);
      const seedStart = performance.now();
      const big = await seedAccount(db, org.organizationId, options.events);
      seeded.push(big.id);
      const small = await seedAccount(db, org.organizationId, 100);
      seeded.push(small.id);
      // What autovacuum did long ago for an account that took months to reach a million events; left to
      // it here, its pass over the fresh rows would run during the first variant and measure it instead.
      await db.query('VACUUM (ANALYZE) events');
      seedSeconds = (performance.now() - seedStart) / 1000;
      const deep = Math.min(900_000, Math.floor(options.events * 0.9));
      const filters = { created_before: '2030-01-01T00:00:00Z', modified_after: '2025-12-31T00:00:00Z' };
      const variants: Array<{ label: string; query: Record<string, string> }> = [
        { label: 'no filters', query: {} },
        { label: 'created_before + modified_after', query: filters },
        { label: 'include_remote_data', query: { include_remote_data: 'true' } },
      ];
      const records = await appModule<RecordsModule>('domain', 'records.js');
      const prisma = (await appModule<{ createPrisma(url: string, pool: number): { $disconnect(): Promise<void> } }>('db.js')).createPrisma(backends.databaseUrl, 2);
      for (const variant of variants) {
        const qs = new URLSearchParams({ page_size: '100', ...variant.query }).toString();
        for (const [label, account, offset] of [
          ['first page', big, 0],
          [`page at row ${formatInt(deep)}`, big, deep],
          ['reference: 100-event account', small, 0],
        ] as const) {
          const rawCursor = offset > 0 ? await deepCursor(db, account, offset, variant.query) : undefined;
          const cursor = rawCursor ? `&cursor=${encodeURIComponent(rawCursor)}` : '';
          const headers = { authorization: `Bearer ${org.masterKey}`, 'x-account-token': account.token };
          const target: PageTarget = { name: `${variant.label} ${label}`, account: account === big ? 'big' : 'small', path: `/api/mktg/v1/events?${qs}${cursor}` };
          progress(`measuring ${target.name}`);
          const m = await measurePage(api.baseUrl, headers, target, options.requests);
          const inProcess = await measureInProcess(records, prisma, account.id, { page_size: '100', ...variant.query, ...(rawCursor ? { cursor: rawCursor } : {}) }, options.requests);
          if (account === big) {
            worstP99 = Math.max(worstP99, m.p99);
            worstDbP99 = Math.max(worstDbP99, inProcess.p99);
          }
          rows.push([variant.label, label, String(m.results), m.p50.toFixed(2), m.p99.toFixed(2), inProcess.p50.toFixed(2), inProcess.p99.toFixed(2)]);
        }
      }
      await prisma.$disconnect();
    }

    // (b) sync throughput through the real worker.
    const workerEnv = { ...process.env, ...appEnv, PORT: String(await freePort()) };
    const profileDir = options.profile ? mkdtempSync(path.join(os.tmpdir(), 'unified-worker-profile-')) : null;
    const w1 = await startWorker(workerEnv, profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
    workers.push(w1.child);
    const portal = hubspot.createPortal();
    portal.seed({ events: options.syncEvents, participantsPerEvent: options.perEvent });
    const expected = options.syncEvents * (1 + options.perEvent);
    progress(`full sync of ${formatInt(expected)} records`);
    let start = new Date();
    let cpuBefore = await cpuNow(db, w1.child.pid ?? 0);
    const linked = await linkHubspot(api, org.masterKey, portal.token);
    seeded.push(linked.id);
    await waitUntil('the full sync', () => syncFinished(db, linked.id, start), 600_000);
    const fullSeconds = (Date.now() - start.getTime()) / 1000;
    const full = await recordCount(db, linked.id);
    const fullRunSeconds = await runSeconds(db, linked.id);
    const fullCpu = cpuSince(cpuBefore, await cpuNow(db, w1.child.pid ?? 0));
    const queue = new Queue('patchbay-unified-data-sync', { connection: new Redis(backends.redisUrl, { maxRetriesPerRequest: null }), prefix });
    const job = (mode: 'full' | 'incremental', accountId: string) => ({
      event_id: randomUUID(),
      organization_id: org.organizationId,
      environment: 'production',
      linked_account_id: accountId,
      integration_slug: 'hubspot',
      models: ['events', 'contacts'],
      mode,
      trigger: 'manual',
      requested_at: new Date().toISOString(),
    });
    progress('incremental sync (nothing changed on the platform: every record is fetched and compared by hash)');
    start = new Date();
    cpuBefore = await cpuNow(db, w1.child.pid ?? 0);
    await queue.add('incremental-sync', job('incremental', linked.id));
    await waitUntil('the incremental sync', () => syncFinished(db, linked.id, start), 600_000);
    const incrementalSeconds = (Date.now() - start.getTime()) / 1000;
    const incrementalRunSeconds = await runSeconds(db, linked.id);
    const incrementalCpu = cpuSince(cpuBefore, await cpuNow(db, w1.child.pid ?? 0));
    const changed = await db.query<{ n: string }>(
      `SELECT (SELECT count(*) FROM events WHERE linked_account_id = $1 AND modified_at >= $2) + (SELECT count(*) FROM contacts WHERE linked_account_id = $1 AND modified_at >= $2) AS n`,
      [linked.id, start],
    );

    // Stopped the ordinary way (it writes its CPU profile as it exits); (c) kills a worker of its own.
    w1.child.kill('SIGTERM');
    await w1.exited;
    const profileFile = profileDir ? newestProfile(profileDir) : null;

    // (c) killed halfway and restarted.
    const w2 = await startWorker({ ...workerEnv, PORT: String(await freePort()) });
    workers.push(w2.child);
    const portal2 = hubspot.createPortal();
    portal2.seed({ events: options.syncEvents, participantsPerEvent: options.perEvent });
    progress('full sync killed halfway (SIGKILL) and restarted');
    const killStart = new Date();
    const linked2 = await linkHubspot(api, org.masterKey, portal2.token);
    seeded.push(linked2.id);
    await waitUntil('half the records', async () => (await recordCount(db, linked2.id)).records >= expected / 2, 600_000);
    w2.child.kill('SIGKILL');
    await w2.exited;
    const atKill = await recordCount(db, linked2.id);
    const restart = new Date();
    const w3 = await startWorker({ ...workerEnv, PORT: String(await freePort()) });
    workers.push(w3.child);
    // The killed worker's job comes back by BullMQ's stalled-job check; a manual job asks at once (it waits out the dead worker's lease).
    await queue.add('full-sync', job('full', linked2.id));
    await waitUntil('the restarted sync', () => syncFinished(db, linked2.id, killStart), 600_000);
    const restartSeconds = (Date.now() - restart.getTime()) / 1000;
    const afterRestart = await recordCount(db, linked2.id);
    await queue.close();

    const loadAfter = machineLoad().text;
    print(`pnpm bench unified  (${machineDescription()})`);
    print(describeBackends(backends));
    print(`load average before ${loadBefore}, after ${loadAfter}`);
    print();
    if (!options.syncOnly) {
      print(`(a) GET /api/mktg/v1/events?page_size=100, ${formatInt(options.requests)} sequential requests each, client-side ms (seeded ${formatInt(options.events)} events in ${seedSeconds.toFixed(1)} s)`);
      print('HTTP: through the API process; query: the app\'s listEvents in this process (PostgreSQL and mapping, no HTTP)');
      for (const line of table(['variant', 'page', 'results', 'HTTP p50', 'HTTP p99', 'query p50', 'query p99'], rows, ['left', 'left', 'right', 'right', 'right', 'right', 'right'])) print(line);
      print(`worst p99 on the ${formatInt(options.events)}-event account: HTTP ${worstP99.toFixed(2)} ms, query ${worstDbP99.toFixed(2)} ms (target <= 15 ms: ${worstP99 <= 15 ? 'met' : 'NOT met'} over HTTP)`);
      print();
    }
    print(`(b) sync from the HubSpot fake through the worker (${formatInt(options.syncEvents)} events x ${formatInt(options.perEvent)} participants = ${formatInt(expected)} records)`);
    const fullRate = full.records / fullSeconds;
    const incRate = full.records / incrementalSeconds;
    for (const line of table(
      ['sync', 'records', 'seconds', 'records/s', 'run seconds', 'run records/s'],
      [
        ['full (initial)', formatInt(full.records), fullSeconds.toFixed(2), formatInt(Math.round(fullRate)), fullRunSeconds.toFixed(2), formatInt(Math.round(full.records / fullRunSeconds))],
        ['incremental', formatInt(full.records), incrementalSeconds.toFixed(2), formatInt(Math.round(incRate)), incrementalRunSeconds.toFixed(2), formatInt(Math.round(full.records / incrementalRunSeconds))],
      ],
      ['left', 'right', 'right', 'right', 'right', 'right'],
    )) print(line);
    const cpuLine = (label: string, cpu: CpuSplit) =>
      `${label}: worker ${cpu.worker.toFixed(2)} s, PostgreSQL ${cpu.postgres.toFixed(2)} s, HubSpot fake and bench ${cpu.fake.toFixed(2)} s (${((cpu.worker + cpu.postgres + cpu.fake) * 1e6 / full.records).toFixed(0)} CPU-µs per record)`;
    print(`incremental: ${formatInt(Number(changed.rows[0]?.n))} records changed (modified_at moved; the platform changed nothing)`);
    print(`CPU used, ${cpuLine('full', fullCpu)}`);
    print(`          ${cpuLine('incremental', incrementalCpu)}`);
    print('seconds: from the link request (full) or the job added (incremental) to the DONE status seen; run: the worker\'s last_sync_start to last_sync_finished');
    print(`target >= 5,000 records/s: full ${fullRate >= 5000 ? 'met' : 'NOT met'}, incremental ${incRate >= 5000 ? 'met' : 'NOT met'}`);
    print();
    print('(c) full sync, worker killed with SIGKILL halfway, a new worker started');
    print(`records at the kill: ${formatInt(atKill.records)}; after the restart: ${formatInt(afterRestart.records)} of ${formatInt(expected)}`);
    print(`records written twice: ${afterRestart.twice} (target 0); restart to finish: ${restartSeconds.toFixed(2)} s (from spawning the new worker: its start-up and the dead worker's 3 s lease included)`);
    if (profileFile) printWorkerProfile(summarizeCpuProfile(profileFile, REPO_ROOT, { limit: 20 }));
    else if (profileDir) print('the worker wrote no CPU profile');
    return 0;
  } finally {
    for (const child of workers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    for (const id of seeded) {
      await db.query('DELETE FROM event_contacts WHERE linked_account_id = $1', [id]).catch(() => undefined);
      await db.query('DELETE FROM contacts WHERE linked_account_id = $1', [id]).catch(() => undefined);
      await db.query('DELETE FROM events WHERE linked_account_id = $1', [id]).catch(() => undefined);
      await db.query('DELETE FROM linked_accounts WHERE id = $1', [id]).catch(() => undefined);
    }
    await db.end().catch(() => undefined);
    await group.stopAll();
    await hubspot?.close();
  }
}

function printWorkerProfile(profile: ReturnType<typeof summarizeCpuProfile>): void {
  const ms = (us: number) => (us / 1000).toFixed(0);
  print();
  print(`Worker CPU profile, (b) whole run (${profile.file}; (b) ran under --cpu-prof): ${ms(profile.busyUs)} ms busy of ${ms(profile.totalUs)} ms`);
  const section = (title: string, entries: Array<{ name: string; timeUs: number; share: number }>) => {
    print(`  ${title}`);
    for (const e of entries) print(`    ${ms(e.timeUs).padStart(6)} ms ${(e.share * 100).toFixed(1).padStart(5)}%  ${e.name}`);
  };
  section('self time by origin', profile.selfByOrigin);
  section('self time by function', profile.selfByFunction);
  section('time in our own code, callees included', profile.inclusiveOwnCode);
}

export const unifiedBenchmark: Benchmark = {
  name: 'unified',
  summary: 'unified-data: event pages in a 1,000,000-event account, sync records/s, a killed and restarted sync',
  async run(args) {
    const options = parseOptions(args);
    if (!options) {
      process.stdout.write(USAGE);
      return 0;
    }
    return run(options);
  },
};
