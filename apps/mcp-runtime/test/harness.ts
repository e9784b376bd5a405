import type { Server } from 'node:http';
import path from 'node:path';
import { GITHUB_FAKE_TOKENS, startFakeGithub } from '@patchbay/provider-fakes';
import { createLogger } from '@patchbay/service-kit';
import {
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  TEST_SERVICE_TOKEN,
  startAccessKeysService,
  startConnectorRegistryService,
  type RunningAccessKeys,
  type RunningRegistry,
  type TestOrganization,
} from '@patchbay/testing';
import { loadConfig } from '../src/config';
import { createRuntime } from '../src/runtime';

/** The public base URL the registry builds magic links from. */
export const PUBLIC_URL = 'http://patchbay.test';

export interface Harness {
  /** The runtime's base URL (a real HTTP server, so SDK clients can connect). */
  url: string;
  /** Starts one more runtime replica on the same services, database and Redis; closed with the harness. */
  startReplica(): Promise<string>;
  accessKeys: RunningAccessKeys;
  registry: RunningRegistry;
  github: Awaited<ReturnType<typeof startFakeGithub>>;
  close(): Promise<void>;
}

/**
 * The runtime in-process on a real port, wired exactly as main.ts wires it (its database schema,
 * Redis, queues and record workers), with the real access-keys-and-audit and connector-registry
 * services as child processes and a fake GitHub as the only third party.
 */
export async function startHarness(env: NodeJS.ProcessEnv = {}): Promise<Harness> {
  // A test that brings its own Redis (the fault test) gives it to every service, so events cross it as in production.
  const accessKeys = await startAccessKeysService(env.REDIS_URL ? { redisUrl: env.REDIS_URL } : {});
  // Magic links come from configuration, never from the agent's Host header.
  const registry = await startConnectorRegistryService({ registryDir: path.dirname(require.resolve('@patchbay/connector-registry/package.json')), accessKeysUrl: accessKeys.url, env: { PATCHBAY_PUBLIC_URL: PUBLIC_URL, ...(env.REDIS_URL ? { REDIS_URL: env.REDIS_URL } : {}) } });
  const github = await startFakeGithub({ owner: 'octo-org', repo: 'hello', issues: 5 });
  const config = loadConfig({
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_URL: TEST_REDIS_URL,
    ACCESS_KEYS_URL: accessKeys.url,
    CONNECTOR_REGISTRY_URL: registry.url,
    PATCHBAY_SERVICE_TOKEN: TEST_SERVICE_TOKEN,
    PATCHBAY_ALLOW_PRIVATE_NETWORK: 'true',
    // Migrations ran in the global setup.
    PATCHBAY_MIGRATE_ON_START: 'false',
    PACK_CACHE_TTL_MS: '0',
    CREDENTIAL_CACHE_TTL_MS: '0',
    TOOL_CALL_TIMEOUT_MS: '5000',
    TOOL_MAX_ROWS: '100',
    TOOL_MAX_RESPONSE_BYTES: String(1024 * 1024),
    // The same queues as the registry and worker processes, which inherit this process's environment.
    ...(process.env.QUEUE_PREFIX ? { QUEUE_PREFIX: process.env.QUEUE_PREFIX } : {}),
    ...env,
  });
  const replicas: Array<{ server: Server; close(): Promise<void> }> = [];
  const startReplica = async (): Promise<string> => {
    const runtime = await createRuntime(config, createLogger('test', process.env.HARNESS_LOG_LEVEL ?? 'silent'), { baseUrlOverrides: { github: github.url }, meterKeyPrefix: `test-metering-${process.pid}:` });
    const server: Server = await new Promise((resolve) => {
      const s = runtime.app.listen(0, '127.0.0.1', () => resolve(s));
    });
    replicas.push({ server, close: () => runtime.close() });
    return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  };
  const url = await startReplica();
  return {
    url,
    startReplica,
    accessKeys,
    registry,
    github,
    async close() {
      // Every step runs even when one fails, so a failing test leaves no service behind; the first
      // failure is rethrown (a service that hangs on SIGTERM is killed and named by its stop()).
      const failures: unknown[] = [];
      const step = async (run: () => Promise<unknown>) => {
        try {
          await run();
        } catch (err) {
          failures.push(err);
        }
      };
      for (const replica of replicas) {
        replica.server.closeAllConnections();
        await step(() => new Promise((r) => replica.server.close(r)));
        await step(() => replica.close());
      }
      await step(() => github.close());
      await step(() => registry.stop());
      await step(() => accessKeys.stop());
      if (failures.length > 0) throw failures[0];
    },
  };
}

export interface Scenario {
  org: TestOrganization;
  userId: string;
  packId: string;
  mcpUrl: string;
}

export async function api(h: Harness, key: string, method: string, pathname: string, body?: unknown): Promise<any> {
  const res = await fetch(`${h.registry.url}${pathname}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * An organization with a registered user, a tool pack exposing GitHub's issue tools, and (unless
 * `connect: false`) the user's GitHub token stored through the real magic-link form.
 */
export async function scenario(
  h: Harness,
  options: { connect?: boolean; token?: string; plan?: 'free' | 'paid'; credits?: number; environment?: 'production' | 'test'; org?: TestOrganization } = {},
): Promise<Scenario & { key: string }> {
  const org = options.org ?? (await h.accessKeys.createOrganization({ plan: options.plan, credits: options.credits }));
  const adminKey = options.environment === 'test' ? org.test_key : org.master_key;
  const user = await api(h, adminKey, 'POST', '/api/v1/registered-users', { origin_user_id: `u-${Math.random().toString(36).slice(2)}`, origin_user_name: 'Ada', shared_credential_group: { origin_company_id: 'acme', origin_company_name: 'Acme', custom_groupings: {} } });
  const connectors = await api(h, adminKey, 'GET', '/api/v1/connectors/?search=github');
  const pack = await api(h, adminKey, 'POST', '/api/v1/tool-packs/', {
    name: 'Triage',
    description: 'Issue tools',
    connectors: [{ connector_id: connectors.results[0].id, auth_scope: 'INDIVIDUAL', tool_names: ['list_issues', 'get_issue', 'create_issue'] }],
  });
  if (options.connect !== false) {
    const link = await api(h, adminKey, 'POST', `/api/v1/registered-users/${user.id}/link-token/`, { connector: 'github' });
    const res = await fetch(`${h.registry.url}/link/${link.link_token}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: options.token ?? GITHUB_FAKE_TOKENS.valid }), redirect: 'manual' });
    if (res.status >= 400) throw new Error(`connecting GitHub failed: ${res.status} ${await res.text()}`);
  }
  return { org, key: adminKey, userId: user.id, packId: pack.id, mcpUrl: `${h.url}/api/v1/tool-packs/${pack.id}/registered-users/${user.id}/mcp` };
}

/** A bare JSON-RPC POST, as curl or the spec's examples send it (no initialize, no Accept header). */
export async function rpc(url: string, key: string, body: unknown, raw?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: raw ?? JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** A management API request that returns the status and parsed body whatever the outcome. */
export async function request(baseUrl: string, key: string, method: string, pathname: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${baseUrl}${pathname}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
