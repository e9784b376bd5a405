import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { GITHUB_FAKE_TOKENS } from '@patchbay/provider-fakes';
import type { Backends } from './backends';
import { BENCH_USER_AGENT, type ProvidersStatus } from './mcp-providers';
import { registerKept, startServerEverything, type ServerEverything } from './registry-registration';
import type { RunningService, ServiceGroup } from './services';
import {
  BENCH_LOG_LEVEL,
  appEntryOf,
  benchServiceToken,
  createBenchOrganization,
  startAccessKeys,
  startBareProxy,
  startConnectorRegistry,
  startEdgeRouter,
  type BenchOrganization,
  type BenchOrganizationSettings,
} from './suite-services';

/** Paid, so credits never refuse a call (a paid plan goes into overage), and the most calls a minute the admin CLI allows. */
export const BENCH_ORGANIZATION: BenchOrganizationSettings = { plan: 'paid', monthlyCredits: 1_000_000_000, mcpRateLimitPerMinute: 100_000 };

export const GITHUB_ISSUE = { owner: 'octo-org', repo: 'hello', issue_number: 1, title: 'Issue 1' } as const;
/** The custom connector's slug, and the one tool of its server the pack shows. */
export const CUSTOM_SLUG = 'bench-echo';
export const CUSTOM_TOOL = 'tool_001';
/** server-everything's connector slug and the tool of it the pack shows. */
export const EVERYTHING_SLUG = 'everything';
export const EVERYTHING_TOOL = 'echo';

/** Headers of the benchmark's own requests to the providers, so the providers can tell them from the runtime's. */
export const BENCH_PROVIDER_HEADERS = { 'user-agent': BENCH_USER_AGENT } as const;

/** The ways a tools/call can reach mcp-runtime: straight, through the edge router, through a bare proxy. */
export type RuntimePath = 'runtime' | 'edge' | 'bare' | 'reference';

export interface RuntimeEntry {
  via: RuntimePath;
  baseUrl: string;
  /** Each path calls as a registered user of its own (see setUpMcpBench). */
  registeredUserId: string;
}

export interface McpBenchSetup {
  accessKeys: RunningService;
  registry: RunningService;
  providers: RunningService;
  runtime: RunningService;
  edge: RunningService;
  bare: RunningService | null;
  /** Another build of mcp-runtime (PATCHBAY_BENCH_REFERENCE_RUNTIME), on the same services, database and Redis, for an A/B. */
  reference: RunningService | null;
  /** mcp-runtime's record workers as their own process (node dist/worker.js), when asked; else they run in mcp-runtime. */
  recordWorker: RunningService | null;
  status: ProvidersStatus;
  /** The reference server (its own process), with the session the direct requests use. */
  everything: ServerEverything & { sessionId: string; service: RunningService };
  /** The custom connector's MCP server secret (the direct requests send it). */
  mcpSecret: string;
  organization: BenchOrganization;
  toolPackId: string;
  /** The paths to the runtime this run measures. */
  paths: RuntimeEntry[];
  /** The variables mcp-runtime was started with, secrets and URLs of the other services left out, for the report. */
  runtimeEnvReport: string[];
}

async function api<T>(registry: RunningService, key: string, method: string, pathname: string, body?: unknown): Promise<T> {
  const res = await fetch(`${registry.baseUrl}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${pathname} answered ${res.status}: ${text.slice(0, 800)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

async function connectorId(registry: RunningService, key: string, slug: string): Promise<string> {
  const list = await api<{ results: Array<{ id: string; slug: string }> }>(registry, key, 'GET', `/api/v1/connectors/?search=${encodeURIComponent(slug)}&page_size=100`);
  const found = list.results.find((c) => c.slug === slug);
  if (!found) throw new Error(`the registry lists no connector "${slug}"`);
  return found.id;
}

/** A registered user whose GitHub token is stored as a user would store it: a link token, then the magic-link form. */
async function connectedUser(registry: RunningService, key: string, name: string): Promise<string> {
  const user = await api<{ id: string }>(registry, key, 'POST', '/api/v1/registered-users', {
    origin_user_id: `bench-${name}-${randomBytes(4).toString('hex')}`,
    origin_user_name: `Bench ${name}`,
    shared_credential_group: { origin_company_id: 'bench', origin_company_name: 'Bench', custom_groupings: {} },
  });
  const link = await api<{ link_token: string }>(registry, key, 'POST', `/api/v1/registered-users/${user.id}/link-token/`, { connector: 'github' });
  const res = await fetch(`${registry.baseUrl}/link/${link.link_token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: GITHUB_FAKE_TOKENS.valid }),
    redirect: 'manual',
    signal: AbortSignal.timeout(30_000),
  });
  if (res.status >= 400) throw new Error(`storing the GitHub token through the magic-link form answered ${res.status}: ${(await res.text()).slice(0, 800)}`);
  await res.arrayBuffer();
  return user.id;
}

/**
 * server-everything in its own process (stopped by the caller, and killed when the benchmark exits), counting the POSTs it logs (it is run
 * unmodified, so that line is how its calls are counted), with a session of the benchmark's own for the
 * direct requests (it answers tools/call only within a session).
 */
async function startEverything(): Promise<McpBenchSetup['everything']> {
  const server = await startServerEverything({ countLine: 'Received MCP POST request' });
  const headers = { ...BENCH_PROVIDER_HEADERS, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(server.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'patchbay-bench', version: '1' } } }), signal: AbortSignal.timeout(10_000) });
  const sessionId = init.headers.get('mcp-session-id');
  await init.text();
  if (!init.ok || !sessionId) throw new Error(`server-everything answered initialize with ${init.status} and no session id`);
  const note = await fetch(server.url, { method: 'POST', headers: { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), signal: AbortSignal.timeout(10_000) });
  await note.text();
  const port = Number(new URL(server.url).port);
  const service: RunningService = { name: 'server-everything', port, baseUrl: `http://127.0.0.1:${port}`, pid: server.pid, recentOutput: () => '' };
  return { ...server, sessionId, service };
}

export async function readProvidersStatus(providers: RunningService): Promise<ProvidersStatus> {
  const res = await fetch(`${providers.baseUrl}/healthz`, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`the providers process answered ${res.status} on /healthz`);
  return (await res.json()) as ProvidersStatus;
}

/**
 * The suite (access-keys-and-audit, connector-registry, mcp-runtime, the edge router; a bare proxy
 * in front of the runtime when asked), the providers, and an organization set up as a customer would:
 * a tool pack with GitHub's get_issue and the custom connector's echo tool, and one registered user
 * per path to the runtime (so the per-user rate limit, at most 100,000 calls a minute, cannot be what
 * caps a path), each with the fake's valid GitHub token stored through the magic-link form.
 */
export async function setUpMcpBench(
  group: ServiceGroup,
  backends: Backends,
  options: { runtimeNodeArgs: string[]; bareProxy: boolean; separateRecordWorker: boolean; providerLatencyMs: number; referenceRuntime?: string; edgeNodeArgs?: string[]; bareNodeArgs?: string[] },
): Promise<McpBenchSetup> {
  const serviceToken = benchServiceToken();
  const accessKeys = await startAccessKeys(group, backends, serviceToken);
  const registry = await startConnectorRegistry(group, backends, accessKeys, serviceToken);
  const mcpSecret = randomBytes(24).toString('base64url');
  const providers = await group.start({ name: 'providers', entry: path.join(__dirname, 'mcp-providers.js'), env: { SECRET: mcpSecret, LATENCY_MS: String(options.providerLatencyMs) } });
  const status = await readProvidersStatus(providers);
  const everything = await startEverything();

  const runtimeEnv: NodeJS.ProcessEnv = {
    // Tool-call records and security rules live in PostgreSQL (schema mcp_runtime), migrated at start.
    DATABASE_URL: backends.databaseUrl,
    REDIS_URL: backends.redisUrl,
    ACCESS_KEYS_URL: accessKeys.baseUrl,
    CONNECTOR_REGISTRY_URL: registry.baseUrl,
    PATCHBAY_SERVICE_TOKEN: serviceToken,
    // The fake GitHub and the MCP server listen on 127.0.0.1 over plain http.
    PATCHBAY_ALLOW_PRIVATE_NETWORK: 'true',
    PATCHBAY_CONNECTOR_BASE_URL_GITHUB: status.github.url,
    LOG_LEVEL: BENCH_LOG_LEVEL,
    NODE_ENV: 'production',
  };
  if (options.separateRecordWorker) runtimeEnv.TOOL_CALL_RECORD_WORKERS = 'false';
  const runtime = await group.start({ name: 'mcp-runtime', entry: appEntryOf('mcp-runtime'), env: runtimeEnv, nodeArgs: options.runtimeNodeArgs });
  const recordWorker = options.separateRecordWorker
    ? await group.start({ name: 'mcp-runtime-worker', entry: path.join(path.dirname(appEntryOf('mcp-runtime')), 'worker.js'), env: { ...runtimeEnv, TOOL_CALL_RECORD_WORKERS: 'true', PATCHBAY_MIGRATE_ON_START: 'false' } })
    : null;
  // A reference build (another checkout's apps/mcp-runtime/dist/main.js) beside this one: same env, its migrations
  // left to this runtime (both builds must share the schema), its record workers off (this runtime's store both).
  const reference = options.referenceRuntime
    ? await group.start({ name: 'mcp-runtime-reference', entry: options.referenceRuntime, env: { ...runtimeEnv, PATCHBAY_MIGRATE_ON_START: 'false', TOOL_CALL_RECORD_WORKERS: 'false' } })
    : null;
  const edge = await startEdgeRouter(group, { accessKeys, MCP_RUNTIME_URL: runtime }, options.edgeNodeArgs ?? []);
  const bare = options.bareProxy ? await startBareProxy(group, runtime, options.bareNodeArgs ?? []) : null;

  const organization = await createBenchOrganization(backends, BENCH_ORGANIZATION);
  const key = organization.masterKey;
  await registerKept({ service: registry, baseUrl: registry.baseUrl, path: 'direct' }, key, { key: 'echo', label: 'bench echo MCP server', url: status.mcp.url, secret: mcpSecret }, CUSTOM_SLUG);
  await registerKept({ service: registry, baseUrl: registry.baseUrl, path: 'direct' }, key, { key: 'everything', label: `server-everything ${everything.version}`, url: everything.url, secret: null }, EVERYTHING_SLUG);
  const pack = await api<{ id: string }>(registry, key, 'POST', '/api/v1/tool-packs/', {
    name: 'Bench',
    description: 'pnpm bench mcp: one built-in tool, two custom tools',
    connectors: [
      { connector_id: await connectorId(registry, key, 'github'), auth_scope: 'INDIVIDUAL', tool_names: ['get_issue'] },
      { connector_id: await connectorId(registry, key, CUSTOM_SLUG), tool_names: [CUSTOM_TOOL] },
      { connector_id: await connectorId(registry, key, EVERYTHING_SLUG), tool_names: [EVERYTHING_TOOL] },
    ],
  });
  const paths: RuntimeEntry[] = [];
  for (const [via, service] of [['runtime', runtime], ['edge', edge], ['bare', bare], ['reference', reference]] as const) {
    if (service) paths.push({ via, baseUrl: service.baseUrl, registeredUserId: await connectedUser(registry, key, via) });
  }

  const runtimeEnvReport = [
    'PATCHBAY_CONNECTOR_BASE_URL_GITHUB=<the fake GitHub>',
    'PATCHBAY_ALLOW_PRIVATE_NETWORK=true',
    'DATABASE_URL, REDIS_URL as above',
    `LOG_LEVEL=${BENCH_LOG_LEVEL}`,
    'NODE_ENV=production',
    ...(options.separateRecordWorker ? ['TOOL_CALL_RECORD_WORKERS=false (records stored by node dist/worker.js, its own process)'] : []),
    ...(options.referenceRuntime ? [`reference runtime: ${options.referenceRuntime} (same env, no migrations, no record workers)`] : []),
    'PACK_CACHE_TTL_MS, TOOL_CALL_TIMEOUT_MS and the rest: defaults',
  ];
  return { accessKeys, registry, providers, runtime, edge, bare, reference, recordWorker, status, everything, mcpSecret, organization, toolPackId: pack.id, paths, runtimeEnvReport };
}
