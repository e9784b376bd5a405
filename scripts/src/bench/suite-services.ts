import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, appEntry } from '../suite';
import type { Backends } from './backends';
import type { RunningService, ServiceGroup } from './services';

const execFileAsync = promisify(execFile);

/** Logging every request would be most of what a service does under load: only warnings and errors. */
export const BENCH_LOG_LEVEL = 'warn';

/** One token per benchmark run, shared by the services for their /internal routes. */
export function benchServiceToken(): string {
  return randomBytes(24).toString('base64url');
}

export function appEntryOf(name: string): string {
  return appEntry({ name, port: 0 });
}

export async function startAccessKeys(group: ServiceGroup, backends: Backends, serviceToken: string, nodeArgs: string[] = []): Promise<RunningService> {
  return group.start({
    name: 'access-keys-and-audit',
    entry: appEntryOf('access-keys-and-audit'),
    nodeArgs,
    env: {
      DATABASE_URL: backends.databaseUrl,
      REDIS_URL: backends.redisUrl,
      PATCHBAY_SERVICE_TOKEN: serviceToken,
      LOG_LEVEL: BENCH_LOG_LEVEL,
      NODE_ENV: 'production',
    },
  });
}

export async function startConnectorRegistry(group: ServiceGroup, backends: Backends, accessKeys: RunningService, serviceToken: string): Promise<RunningService> {
  return group.start({
    name: 'connector-registry',
    entry: appEntryOf('connector-registry'),
    env: {
      DATABASE_URL: backends.databaseUrl,
      REDIS_URL: backends.redisUrl,
      ACCESS_KEYS_URL: accessKeys.baseUrl,
      PATCHBAY_SERVICE_TOKEN: serviceToken,
      // A new key each run: nothing sealed by a run needs to open in another one.
      PATCHBAY_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
      PATCHBAY_ENCRYPTION_ACTIVE_KEY: 'bench',
      // The MCP servers are on 127.0.0.1, which the registry refuses otherwise.
      PATCHBAY_ALLOW_PRIVATE_NETWORK: 'true',
      // Magic links are built on the public URL (the registry refuses to guess it); the benchmarks
      // follow them on the registry itself.
      PATCHBAY_PUBLIC_URL: 'http://127.0.0.1:<PORT>',
      LOG_LEVEL: BENCH_LOG_LEVEL,
      NODE_ENV: 'production',
    },
  });
}

/**
 * The edge router in front of the given services (an upstream left out is "not deployed"). `name`
 * tells a second one apart; one in front of something other than our services (a vendor fake) is
 * ready when it serves its own /docs, since its /healthz asks the upstreams' /healthz.
 */
export async function startEdgeRouter(
  group: ServiceGroup,
  upstreams: { accessKeys: RunningService; [variable: string]: RunningService },
  nodeArgs: string[] = [],
  options: { name?: string; healthPath?: string } = {},
): Promise<RunningService> {
  const env: NodeJS.ProcessEnv = {
    HOST: '127.0.0.1',
    ACCESS_KEYS_URL: upstreams.accessKeys.baseUrl,
    CONNECTOR_REGISTRY_URL: '',
    MCP_RUNTIME_URL: '',
    MODEL_GATEWAY_URL: '',
    UNIFIED_DATA_URL: '',
    LOG_LEVEL: BENCH_LOG_LEVEL,
    NODE_ENV: 'production',
  };
  for (const [variable, service] of Object.entries(upstreams)) if (variable !== 'accessKeys') env[variable] = service.baseUrl;
  return group.start({ name: options.name ?? 'edge-router', entry: appEntryOf('edge-router'), env, nodeArgs, ...(options.healthPath ? { healthPath: options.healthPath } : {}) });
}

export interface BenchOrganization {
  organizationId: string;
  /** The organization's master key (production, both scopes, unrestricted). */
  masterKey: string;
}

/** Settings for a benchmark's organization other than the CLI's defaults (free plan, 30 tool calls a minute per user). */
export interface BenchOrganizationSettings {
  plan?: 'free' | 'paid';
  monthlyCredits?: number;
  mcpRateLimitPerMinute?: number;
}

/** A fresh organization through the admin CLI, as an operator would make one. */
export async function createBenchOrganization(backends: Backends, settings: BenchOrganizationSettings = {}): Promise<BenchOrganization> {
  const cli = path.join(REPO_ROOT, 'apps', 'access-keys-and-audit', 'dist', 'cli', 'main.js');
  const name = `bench ${new Date().toISOString()}`;
  const admin = (args: string[]) =>
    execFileAsync(process.execPath, [cli, ...args], { env: { ...process.env, DATABASE_URL: backends.databaseUrl, REDIS_URL: backends.redisUrl, LOG_LEVEL: BENCH_LOG_LEVEL } });
  const createArgs = ['org', 'create', '--name', name];
  if (settings.plan !== undefined) createArgs.push('--plan', settings.plan);
  if (settings.monthlyCredits !== undefined) createArgs.push('--credits', String(settings.monthlyCredits));
  const { stdout } = await admin(createArgs);
  const org = JSON.parse(stdout) as { organization_id?: string; master_key?: string | null };
  if (!org.organization_id || !org.master_key) throw new Error(`the admin CLI did not print an organization with a master key:\n${stdout}`);
  // `org create` has no flag for the rate limit: an operator sets it afterwards.
  if (settings.mcpRateLimitPerMinute !== undefined) await admin(['org', 'update', org.organization_id, '--mcp-rate-limit', String(settings.mcpRateLimitPerMinute)]);
  return { organizationId: org.organization_id, masterKey: org.master_key };
}

/** A minimal keep-alive proxy in front of a service: the floor for one Node HTTP hop (see bare-proxy.ts). */
export async function startBareProxy(group: ServiceGroup, target: RunningService, nodeArgs: string[] = []): Promise<RunningService> {
  return group.start({ name: 'bare-proxy', entry: path.join(__dirname, 'bare-proxy.js'), env: { TARGET: target.baseUrl }, nodeArgs });
}
