import { randomBytes } from 'node:crypto';
import path from 'node:path';
import Redis from 'ioredis';
import type { Client } from 'pg';
import type { Benchmark } from './benchmark';
import { describeBackends, prepareBackends, type Backends } from './backends';
import { pickLoadTool, type LoadTool } from './load';
import { checkTarget, measureInterleaved, roundSeconds, type Target, type TargetResult } from './measure';
import { LOAD_OPTIONS_USAGE, UsageError, parseLoadOptions, type LoadOptions } from './options';
import { formatInt, machineDescription, machineLoad, print, progress, table } from './report';
import {
  analyzeSeededTables,
  benchOriginUserId,
  connectRegistryDb,
  createUsersThroughApi,
  INDIVIDUAL_CONNECTORS,
  deleteOrganizationRows,
  postgresVersion,
  seedConnections,
  seedRegisteredUsers,
  waitForAuditBacklog,
  type ApiCreates,
  type SeededConnections,
} from './registry-seed';
import {
  measureRegistrations,
  registerKept,
  startServerEverything,
  type McpTarget,
  type RegistrationRow,
  type RegistryPath,
  type ServerEverything,
} from './registry-registration';
import { ServiceGroup } from './services';
import { BENCH_LOG_LEVEL, benchServiceToken, createBenchOrganization, startAccessKeys, startConnectorRegistry, startEdgeRouter, type BenchOrganization } from './suite-services';

/** Where the issue asks to look again: a page of a list slower than this at p50 on one connection. */
const LIST_P50_LIMIT_MS = 20;
/** And a registration slower than this at p50 against a server on the same machine. */
const REGISTRATION_P50_LIMIT_MS = 200;

const PAGED_SERVER = { tools: 50, pageSize: 17 };
const COMPANY_SIZE = 20;
const API_USERS_MAX = 1000;
const API_CONCURRENCY = 16;
const REGISTRATION_WARMUP = 3;
const KEPT_PER_SERVER = 2;

const USAGE = `pnpm bench registry [options]

connector-registry at scale, in one run:
  1. custom MCP registration time: POST /api/v1/connectors/ (then DELETE) against two local MCP servers,
     @modelcontextprotocol/server-everything and an SDK server with ${PAGED_SERVER.tools} tools over ${Math.ceil(PAGED_SERVER.tools / PAGED_SERVER.pageSize)} tools/list pages,
     direct and through the edge router, median/p90 in ms;
  2. list latency with 10,000 registered users in one organization (most inserted with SQL, the last
     ${formatInt(API_USERS_MAX)} through the API) and their connections (SQL): registered users (first page, a deep
     page, one origin_user_id), connections and connectors, p50/p99 µs and req/s, direct and through the edge.

Uses DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/patchbay_bench, created if missing)
and REDIS_URL (default redis://127.0.0.1:6379/1). Each run creates one organization there and deletes
its registry rows at the end; the organization itself (with its keys and audit events) stays.

  --registrations <n>  registrations per server and path (default 30)
  --users <n>          registered users to seed (default 10000)
  --connections-per-user <n>  INDIVIDUAL connections of every user, one per connector (default 2: github, slack)
${LOAD_OPTIONS_USAGE.split('\n')
  .filter((line) => !/^\s+--(profile|bare-proxy)\b/.test(line) && !/^\s+the floor for one Node hop/.test(line))
  .join('\n')}
`;

export interface RegistryOptions {
  registrations: number;
  users: number;
  connectionsPerUser: number;
  load: LoadOptions;
}

/** This benchmark's own flags, then the load flags every HTTP benchmark shares. */
export function parseRegistryOptions(args: string[]): RegistryOptions {
  const own: Record<string, number> = { registrations: 30, users: 10_000, 'connections-per-user': 2 };
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const match = /^--(registrations|users|connections-per-user)(?:=(.*))?$/.exec(arg);
    if (!match) {
      rest.push(arg);
      continue;
    }
    const value = match[2] ?? args[++i];
    const n = Number(value);
    // No connections is a case worth measuring; no users or registrations is not.
    const least = match[1] === 'connections-per-user' ? 0 : 1;
    if (value === undefined || value.trim() === '' || !Number.isSafeInteger(n) || n < least) {
      throw new UsageError(`--${match[1]} must be a whole number of at least ${least}, got "${value ?? ''}"`);
    }
    own[match[1]!] = n;
  }
  if (own['connections-per-user']! > INDIVIDUAL_CONNECTORS.length) {
    throw new UsageError(`--connections-per-user must be at most ${INDIVIDUAL_CONNECTORS.length} (one per built-in connector)`);
  }
  const load = parseLoadOptions(rest);
  if (load.profile || load.bareProxy) throw new UsageError('pnpm bench registry does not take --profile or --bare-proxy (pnpm bench auth does)');
  return { registrations: own.registrations!, users: own.users!, connectionsPerUser: own['connections-per-user']!, load };
}

interface ListTarget {
  name: string;
  path: string;
  /** What `count` must be, to know the list measured is the one seeded. */
  expectCount: number;
}

interface ListRun {
  list: ListTarget;
  via: 'direct' | 'edge-router';
  result: TargetResult;
}

interface Figures {
  backends: Backends;
  ports: Record<string, number>;
  postgres: string;
  everything: ServerEverything;
  organization: BenchOrganization;
  registrations: RegistrationRow[];
  sqlUsers: { count: number; seconds: number };
  companies: number;
  apiUsers: ApiCreates | null;
  connections: SeededConnections;
  kept: string[];
  lists: ListRun[];
  listTargets: ListTarget[];
  auditDrained: boolean;
  loadBefore: string;
  loadAfter: string;
}

function listTargets(users: number, connections: number, connectors: number): ListTarget[] {
  const deepPage = Math.max(1, Math.floor((users * 0.8) / 20));
  const oneUser = benchOriginUserId(Math.max(1, Math.floor(users / 2)));
  return [
    { name: 'registered-users page 1', path: '/api/v1/registered-users/?page_size=20', expectCount: users },
    { name: `registered-users page ${deepPage}`, path: `/api/v1/registered-users/?page_size=20&page=${deepPage}`, expectCount: users },
    { name: `registered-users origin_user_id=${oneUser}`, path: `/api/v1/registered-users/?origin_user_id=${oneUser}`, expectCount: 1 },
    { name: 'connections page 1', path: '/api/v1/connections/?page_size=20', expectCount: connections },
    { name: 'connectors page 1', path: '/api/v1/connectors/?page_size=20', expectCount: connectors },
  ];
}

/** One request first: the list must hold what was seeded, or the figures are of something else. */
async function checkCount(url: string, headers: Record<string, string>, expected: number): Promise<void> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as { count?: number; results?: unknown[] };
  if (body.count !== expected) throw new Error(`GET ${url} counts ${body.count}, expected ${expected}: the seeding did not do what the benchmark assumes`);
}

async function measure(tool: LoadTool, options: RegistryOptions): Promise<Figures> {
  const backends = await prepareBackends();
  progress(`backends: ${describeBackends(backends)}`);
  const group = new ServiceGroup(progress);
  let db: Client | null = null;
  let everything: ServerEverything | null = null;
  let organization: BenchOrganization | null = null;
  try {
    const serviceToken = benchServiceToken();
    const accessKeys = await startAccessKeys(group, backends, serviceToken);
    const registry = await startConnectorRegistry(group, backends, accessKeys, serviceToken);
    const edge = await startEdgeRouter(group, { accessKeys, CONNECTOR_REGISTRY_URL: registry });
    const secret = randomBytes(24).toString('base64url');
    const paged = await group.start({
      name: 'bench MCP server',
      entry: path.join(__dirname, 'registry-mcp-server.js'),
      env: { TOOL_COUNT: String(PAGED_SERVER.tools), PAGE_SIZE: String(PAGED_SERVER.pageSize), SECRET: secret },
    });
    everything = await startServerEverything();
    db = await connectRegistryDb(backends.databaseUrl);
    const postgres = await postgresVersion(db);
    organization = await createBenchOrganization(backends);
    const { masterKey, organizationId } = organization;
    progress(`organization ${organizationId}`);

    const targets: McpTarget[] = [
      { key: 'everything', label: `server-everything ${everything.version}, auth none`, url: everything.url, secret: null },
      {
        key: 'sdk50',
        label: `SDK server, ${PAGED_SERVER.tools} tools in ${Math.ceil(PAGED_SERVER.tools / PAGED_SERVER.pageSize)} tools/list pages, bearer secret`,
        url: `${paged.baseUrl}/mcp`,
        secret,
      },
    ];
    const direct: RegistryPath = { service: registry, baseUrl: registry.baseUrl, path: 'direct' };
    const viaEdge: RegistryPath = { service: registry, baseUrl: edge.baseUrl, path: 'edge-router' };
    const registrations = await measureRegistrations([direct, viaEdge], masterKey, targets, { count: options.registrations, warmup: REGISTRATION_WARMUP });

    // Seeding: the oldest users with SQL (fast), the newest through the API (timed), then connections.
    const apiCount = Math.min(API_USERS_MAX, options.users);
    const sqlCount = options.users - apiCount;
    const companies = Math.max(1, Math.round(options.users / COMPANY_SIZE));
    progress(`seeding ${formatInt(sqlCount)} registered users with SQL`);
    const sqlStart = performance.now();
    await seedRegisteredUsers(db, organizationId, { sqlUsers: sqlCount, companies });
    const sqlUsers = { count: sqlCount, seconds: (performance.now() - sqlStart) / 1000 };
    progress(`creating ${formatInt(apiCount)} registered users through POST /api/v1/registered-users/, ${API_CONCURRENCY} at a time`);
    const apiUsers = apiCount > 0 ? await createUsersThroughApi(registry.baseUrl, masterKey, { firstUser: sqlCount + 1, count: apiCount, companies, concurrency: API_CONCURRENCY }) : null;
    const connections = await seedConnections(db, organizationId, { perUser: options.connectionsPerUser, companies });
    const kept: string[] = [];
    for (const target of targets) {
      for (let i = 1; i <= KEPT_PER_SERVER; i++) {
        const tools = await registerKept(direct, masterKey, target, `listed-${target.key}-${i}`);
        kept.push(`${target.key === 'everything' ? 'server-everything' : 'SDK server'} (${tools} tools)`);
      }
    }
    await analyzeSeededTables(db);
    progress('waiting for the audit events of the writes to be stored');
    const redis = new Redis(backends.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    let auditDrained: boolean;
    try {
      await redis.connect();
      auditDrained = await waitForAuditBacklog(db, redis, 60_000);
    } finally {
      redis.disconnect();
    }
    if (!auditDrained) progress('the audit backlog did not drain within 60 s (another process on this Redis?): measuring anyway');

    const auth = { Authorization: `Bearer ${masterKey}` };
    // Built-in and custom: whatever the catalog holds today, plus the ones kept above.
    const connectorCount = await fetch(`${registry.baseUrl}/api/v1/connectors/?page_size=1`, { headers: auth }).then(async (r) => ((await r.json()) as { count: number }).count);
    const lists = listTargets(options.users, connections.total, connectorCount);
    const plan: Array<{ list: ListTarget; via: ListRun['via']; target: Target }> = [];
    for (const conns of new Set([1, options.load.connections])) {
      for (const list of lists) {
        for (const [via, base] of [['direct', registry.baseUrl], ['edge-router', edge.baseUrl]] as const) {
          plan.push({ list, via, target: { label: `${via.padEnd(11)} ${list.name}`, url: `${base}${list.path}`, headers: auth, connections: conns } });
        }
      }
    }
    for (const list of lists) await checkCount(`${registry.baseUrl}${list.path}`, auth, list.expectCount);
    for (const { target } of plan.slice(0, lists.length * 2)) await checkTarget(target);
    const loadBefore = machineLoad().text;
    const results = await measureInterleaved(tool, options.load, plan.map((p) => p.target), [edge, registry]);

    return {
      backends,
      ports: Object.fromEntries([accessKeys, registry, edge, paged].map((s) => [s.name, s.port])),
      postgres,
      everything,
      organization,
      registrations,
      sqlUsers,
      companies,
      apiUsers,
      connections,
      kept,
      lists: plan.map((p, i) => ({ list: p.list, via: p.via, result: results[i]! })),
      listTargets: lists,
      auditDrained,
      loadBefore,
      loadAfter: machineLoad().text,
    };
  } finally {
    if (db && organization) {
      progress(`deleting the registry rows of organization ${organization.organizationId}`);
      await deleteOrganizationRows(db, organization.organizationId).catch((err: unknown) => progress(`could not delete them: ${(err as Error).message}`));
    }
    await db?.end();
    await everything?.stop();
    await group.stopAll();
  }
}

const ms = (n: number) => n.toFixed(1);
const SHORT_NAMES: Record<string, string> = { 'edge-router': 'edge', 'connector-registry': 'registry' };

function printReport(tool: LoadTool, options: RegistryOptions, f: Figures): void {
  const load = options.load;
  print(`pnpm bench registry: custom MCP registration time, and list latency with ${formatInt(options.users)} registered users`);
  print(`machine:  ${machineDescription()}`);
  print(`          load average ${f.loadBefore} before the list runs, ${f.loadAfter} after`);
  print(`data:     ${describeBackends(f.backends)} (server ${f.postgres})`);
  print(`          organization ${f.organization.organizationId}, new this run (admin CLI); its registry rows were deleted at the end, the organization and its audit events stay`);
  print(`services: ${Object.entries(f.ports).map(([name, port]) => `${name} :${port}`).join(', ')} on 127.0.0.1; LOG_LEVEL=${BENCH_LOG_LEVEL}, NODE_ENV=production`);
  print('          connector-registry: PATCHBAY_ALLOW_PRIVATE_NETWORK=true (local MCP servers), one PATCHBAY_ENCRYPTION_KEYS key generated for the run, DATABASE_POOL_SIZE default (10)');
  print(`          server-everything ${f.everything.version} from apps/connector-registry/node_modules (Streamable HTTP with sessions) on :${new URL(f.everything.url).port}`);
  print(`load:     ${tool.description}; 1 connection, then ${load.connections}; per target ${load.warmupS} s warm-up, then ${load.rounds} rounds of ${roundSeconds(load)} s interleaved with the other targets (p50/p99: median of the rounds)`);
  print();

  print(
    `1. Custom MCP registration: POST /api/v1/connectors/ then DELETE /api/v1/connectors/{slug}/, ${options.registrations} times per row ` +
      `(new slug and URL each time; rows interleaved; ${REGISTRATION_WARMUP} warm-up rounds discarded)`,
  );
  for (const line of table(
    ['server', 'path', 'tools', 'register p50 ms', 'p90 ms', 'max ms', 'registry CPU ms/reg', 'delete p50 ms', 'p90 ms'],
    f.registrations.map((r) => [
      r.target.label,
      r.path,
      String(r.tools),
      ms(r.register.p50),
      ms(r.register.p90),
      ms(r.register.max),
      r.registryCpuMs === null ? (r.path === 'handshake only' ? '' : 'n/a') : ms(r.registryCpuMs),
      r.delete ? ms(r.delete.p50) : '',
      r.delete ? ms(r.delete.p90) : '',
    ]),
    ['left', 'left'],
  )) print(line);
  print('  handshake only: the MCP SDK client in the benchmark process (initialize, every tools/list page, end of session), no registry: the floor for that server');
  print();

  print(`2. Seeded organization`);
  print(`  ${formatInt(f.sqlUsers.count)} registered users with one SQL INSERT into connector_registry.registered_users (${f.sqlUsers.seconds.toFixed(1)} s); users belong to ${formatInt(f.companies)} companies`);
  if (f.apiUsers) {
    const a = f.apiUsers;
    print(
      `  ${formatInt(a.created)} more through POST /api/v1/registered-users/ (direct, ${API_CONCURRENCY} at a time): ${formatInt(a.created / a.seconds)} creates/s, ` +
        `p50 ${ms(a.p50Ms)} ms, p99 ${ms(a.p99Ms)} ms`,
    );
  }
  print(`  ${formatInt(f.connections.total)} connections with SQL: ${f.connections.parts.join(', ')}`);
  print(`  ${f.kept.length} custom connectors registered for the connectors list: ${f.kept.join(', ')}`);
  if (!f.auditDrained) print('  the audit backlog had not drained when the lists were measured: access-keys-and-audit was still busy');
  print();

  print(`3. Lists: GET with Authorization: Bearer <master key>`);
  for (const line of table(
    ['target', 'count', 'conns', 'req/s', 'p50 µs', 'p99 µs', 'errors', ...['edge-router', 'connector-registry'].map((n) => `${SHORT_NAMES[n]} CPU µs/req`)],
    f.lists.map(({ list, result: r }) => {
      return [
        r.label,
        formatInt(list.expectCount),
        String(r.connections),
        formatInt(r.requestsPerSecond),
        formatInt(r.p50Us),
        formatInt(r.p99Us),
        formatInt(r.non2xx + r.socketErrors),
        ...['edge-router', 'connector-registry'].map((n) => {
          const cpu = r.cpuUsPerRequest[n];
          return cpu == null ? 'n/a' : formatInt(cpu);
        }),
      ];
    }),
  )) print(line);
  print('  paths: ' + f.listTargets.map((t) => `${t.name} = ${t.path}`).join('; '));
  print();

  const notes: string[] = [];
  for (const r of f.registrations.filter((row) => row.path === 'direct')) {
    const slow = r.register.p50 > REGISTRATION_P50_LIMIT_MS;
    notes.push(`registration, ${r.target.label}: p50 ${ms(r.register.p50)} ms direct, ${slow ? 'OVER' : 'within'} ${REGISTRATION_P50_LIMIT_MS} ms`);
  }
  for (const { list, result: r } of f.lists.filter((run) => run.result.connections === 1 && run.via === 'direct')) {
    const slow = r.p50Us > LIST_P50_LIMIT_MS * 1000;
    notes.push(`${list.name}: p50 ${ms(r.p50Us / 1000)} ms direct on 1 connection, ${slow ? 'OVER' : 'within'} ${LIST_P50_LIMIT_MS} ms`);
  }
  if (f.lists.some(({ result: r }) => r.non2xx + r.socketErrors > 0)) notes.push('some list requests failed: see the errors column');
  print('notes:');
  for (const note of notes) print(`  ${note}`);
}

async function run(args: string[]): Promise<number> {
  const options = parseRegistryOptions(args);
  if (options.load.help) {
    print(USAGE);
    return 0;
  }
  const tool = pickLoadTool(options.load.tool, options.load.threads);
  progress(`load generator: ${tool.description}`);
  const figures = await measure(tool, options);
  printReport(tool, options, figures);
  return 0;
}

export const registryBenchmark: Benchmark = {
  name: 'registry',
  summary: 'connector-registry: custom MCP registration time, and list latency with 10,000 registered users (edge vs direct)',
  run,
};
