import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { GITHUB_FAKE_TOKENS, startFakeGithub, type FakeServer } from '@patchbay/provider-fakes';
import { waitFor } from '@patchbay/testing';
import { Client } from 'pg';
import { runFuzz } from '../src/fuzz/run';
import { REPO_ROOT } from '../src/suite';

/**
 * Drives the running suite the way a newcomer does: `pnpm start`'s entry point, then every call
 * through the edge router's public port. Ports are shifted so a developer's own suite can keep running.
 * The only third party, GitHub, is a fake the runtime and the registry reach through
 * PATCHBAY_CONNECTOR_BASE_URL_GITHUB, which `pnpm start` passes on to every service.
 */
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const DATABASE = `patchbay_e2e_${process.pid}`;
const OFFSET = 20_000 + (process.pid % 1000);
const EDGE = `http://127.0.0.1:${8080 + OFFSET}`;
/** The public URL pnpm start configures (the address it prints): links in answers point there. */
const PUBLIC = `http://localhost:${8080 + OFFSET}`;
const run = promisify(execFile);

/**
 * A Redis database of its own (2 to 15; the benchmarks use 1, the services' integration tests 0): the
 * queues carry tool-call records and audit events, and a worker of another suite on the same Redis,
 * with another PostgreSQL database, must not take this suite's jobs, nor this suite theirs.
 */
function isolatedRedisUrl(): string {
  const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  url.pathname = `/${2 + (process.pid % 14)}`;
  return url.toString();
}
const REDIS_URL = isolatedRedisUrl();

let suite: ChildProcess;
let output = '';
let dataDir: string;
let databaseUrl: string;
let github: FakeServer;

function adminClient(): Client {
  const url = new URL(ADMIN_URL);
  url.pathname = '/postgres';
  return new Client({ connectionString: url.toString() });
}

beforeAll(async () => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DATABASE}`;
  databaseUrl = url.toString();
  dataDir = mkdtempSync(path.join(tmpdir(), 'patchbay-e2e-'));
  github = await startFakeGithub({ owner: 'octo-org', repo: 'hello', issues: 3 });
  suite = spawn(process.execPath, [path.join(REPO_ROOT, 'scripts', 'dist', 'start.js')], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      PATCHBAY_PORT_OFFSET: String(OFFSET),
      PATCHBAY_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      PORT: '',
      PATCHBAY_CONNECTOR_BASE_URL_GITHUB: github.url,
      // The fake GitHub listens on 127.0.0.1, which the outbound guard otherwise refuses.
      PATCHBAY_ALLOW_PRIVATE_NETWORK: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  suite.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  suite.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (!output.includes('Patchbay is running')) {
    if (suite.exitCode !== null || Date.now() > deadline) throw new Error(`the suite did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 90_000);

afterAll(async () => {
  if (suite.exitCode === null) {
    const exited = new Promise((r) => suite.once('exit', r));
    suite.kill('SIGTERM');
    await exited;
  }
  await github.close();
  rmSync(dataDir, { recursive: true, force: true });
  const admin = adminClient();
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
  await admin.end();
}, 60_000);

function firstRunKey(label: 'master key (production)' | 'test key'): string {
  const match = new RegExp(`${label.replace(/[()]/g, '\\$&')}:\\s+(\\S+)`).exec(output);
  if (!match?.[1]) throw new Error(`no ${label} in the start output:\n${output}`);
  return match[1];
}

const call = (pathname: string, init: RequestInit & { key?: string } = {}) =>
  fetch(`${EDGE}${pathname}`, { ...init, headers: { 'content-type': 'application/json', ...(init.key ? { authorization: `Bearer ${init.key}` } : {}), ...(init.headers ?? {}) } });

/** A management API call through the edge that must succeed; its parsed body. */
async function api(key: string, method: string, pathname: string, body?: unknown): Promise<any> {
  const res = await call(pathname, { key, method, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** The admin CLI (`pnpm patchbay ...`), finding the database `pnpm start` used the way a newcomer's shell would. */
async function patchbay(args: string[]): Promise<any> {
  const cli = path.join(REPO_ROOT, 'apps', 'access-keys-and-audit', 'dist', 'cli', 'main.js');
  const env: NodeJS.ProcessEnv = { ...process.env, PATCHBAY_DATA_DIR: dataDir, REDIS_URL };
  delete env.DATABASE_URL;
  const { stdout } = await run(process.execPath, [cli, ...args], { env });
  return JSON.parse(stdout);
}

describe('the running suite through the edge router', () => {
  it('starts with a first-run organization whose master and test keys work through the edge', async () => {
    const master = firstRunKey('master key (production)');
    const test = firstRunKey('test key');
    const prod = await call('/api/v1/access-keys/', { key: master });
    expect(prod.status).toBe(200);
    expect(prod.headers.get('x-request-id')).toBeTruthy();
    expect(((await prod.json()) as { results: Array<{ is_master: boolean }> }).results[0]?.is_master).toBe(true);
    expect((await call('/api/v1/access-keys/', { key: test })).status).toBe(200);
  });

  it('creates, pages, revokes and audits keys through the edge, with links that point at the edge', async () => {
    const master = firstRunKey('master key (production)');
    const created = await call('/api/v1/access-keys/', { key: master, method: 'POST', body: JSON.stringify({ name: 'e2e', scopes: ['management:all'], expires_in: 3600 }) });
    expect(created.status).toBe(201);
    const key = (await created.json()) as { id: string; key: string };
    const page = (await (await call('/api/v1/access-keys/?page_size=1', { key: master })).json()) as { next: string };
    expect(page.next).toBe(`${PUBLIC}/api/v1/access-keys/?page_size=1&page=2`);
    expect((await call(`/api/v1/access-keys/${key.id}/revoke/`, { key: master, method: 'POST' })).status).toBe(204);
    expect((await call('/api/v1/access-keys/', { key: key.key })).status).toBe(401);
    const audit = (await (await call('/api/v1/audit-log/?event_type=access_key.revoked', { key: master })).json()) as { results: Array<{ actor_key_id: string; target_key_id: string }> };
    expect(audit.results[0]?.target_key_id).toBe(key.id);
    expect(audit.results[0]?.actor_key_id).toBeTruthy();
  });

  it('never exposes internal routes', async () => {
    const res = await call('/internal/v1/access-keys/verify', { method: 'POST', body: JSON.stringify({ key_hash: '0'.repeat(64) }) });
    expect(res.status).toBe(404);
  });

  it('reports each service on /healthz and serves the merged OpenAPI document', async () => {
    const health = await call('/healthz');
    expect(health.status).toBe(200);
    const body = (await health.json()) as { services: Record<string, { status: string }> };
    expect(body.services['access-keys-and-audit']?.status).toBe('ok');
    const spec = (await (await call('/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(spec.paths)).toContain('/api/v1/access-keys');
    expect(Object.keys(spec.paths)).toContain('/api/v1/tool-packs/{tool_pack_id}/registered-users/{registered_user_id}/mcp');
    expect(Object.keys(spec.paths)).toContain('/api/v1/tool-packs');
    // The runtime's management APIs, the pack's rule overrides among them (the rest of /api/v1/tool-packs is the registry's).
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining(['/api/v1/security-rules', '/api/v1/tool-packs/{tool_pack_id}/security-rules/{rule_id}/override', '/api/v1/tool-call-records', '/api/v1/usage']));
  });

  it('serves MCP through the edge: tools/list of a tool pack, and a tools/call that hands back a magic link to the edge', async () => {
    const master = firstRunKey('master key (production)');
    const json = async (res: Response) => (await res.json()) as any;
    const user = await json(await call('/api/v1/registered-users', { key: master, method: 'POST', body: JSON.stringify({ origin_user_id: 'e2e-user', origin_user_name: 'E2E', shared_credential_group: { origin_company_id: 'e2e', origin_company_name: 'E2E', custom_groupings: {} } }) }));
    const github = (await json(await call('/api/v1/connectors/?search=github', { key: master }))).results[0];
    const pack = await json(await call('/api/v1/tool-packs/', { key: master, method: 'POST', body: JSON.stringify({ name: 'E2E', description: 'd', connectors: [{ connector_id: github.id, auth_scope: 'INDIVIDUAL', tool_names: ['get_issue'] }] }) }));
    const mcp = `/api/v1/tool-packs/${pack.id}/registered-users/${user.id}/mcp`;
    const listed = await json(await call(mcp, { key: master, method: 'POST', body: JSON.stringify({ id: 1, jsonrpc: '2.0', method: 'tools/list' }) }));
    expect(listed.result.tools.map((t: { name: string }) => t.name)).toEqual(['github__get_issue']);
    const called = await json(await call(mcp, { key: master, method: 'POST', body: JSON.stringify({ id: 2, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__get_issue', arguments: { input: { owner: 'o', repo: 'r', issue_number: 1 } } } }) }));
    expect(called.result.isError).toBe(true);
    expect(called.result.structuredContent.magic_link_url).toMatch(new RegExp(`^${PUBLIC}/link/lt_`));
    const page = await fetch(called.result.structuredContent.magic_link_url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('GitHub');
  });

  it('serves the unified data API through the edge: without an account token, the 401 envelope', async () => {
    const res = await call('/api/mktg/v1/events');
    expect(res.status).toBe(401);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/Authorization: Bearer/);
  });

  it('the admin CLI finds the database pnpm start used and prints one JSON object', async () => {
    const org = (await patchbay(['org', 'create', '--name', 'Second org'])) as { master_key: string };
    expect((await call('/api/v1/access-keys/', { key: org.master_key })).status).toBe(200);
  });
});

interface Tenant {
  organizationId: string;
  key: string;
  toolPackId: string;
  /** The MCP endpoint's path on the edge. */
  mcp: string;
}

/**
 * An organization made with the admin CLI, as an operator makes one, then set up through the edge as
 * a customer would: a registered user, a tool pack with GitHub's issue tools, and the user's GitHub
 * token stored through a link token and the magic-link form.
 */
async function tenant(orgOptions: string[] = []): Promise<Tenant> {
  const org = (await patchbay(['org', 'create', '--name', `E2E MCP ${Math.random().toString(36).slice(2, 8)}`, ...orgOptions])) as { organization_id: string; master_key: string };
  const key = org.master_key;
  const user = await api(key, 'POST', '/api/v1/registered-users', { origin_user_id: 'ada', origin_user_name: 'Ada', shared_credential_group: { origin_company_id: 'acme', origin_company_name: 'Acme', custom_groupings: {} } });
  const githubConnector = (await api(key, 'GET', '/api/v1/connectors/?search=github')).results[0];
  const pack = await api(key, 'POST', '/api/v1/tool-packs/', {
    name: 'Triage',
    description: 'Issue tools',
    connectors: [{ connector_id: githubConnector.id, auth_scope: 'INDIVIDUAL', tool_names: ['list_issues', 'get_issue', 'create_issue'] }],
  });
  const link = await api(key, 'POST', `/api/v1/registered-users/${user.id}/link-token/`, { connector: 'github' });
  const form = await fetch(`${EDGE}/link/${link.link_token}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: GITHUB_FAKE_TOKENS.valid }), redirect: 'manual' });
  if (form.status >= 400) throw new Error(`storing the GitHub token through the magic-link form: ${form.status} ${await form.text()}`);
  return { organizationId: org.organization_id, key, toolPackId: pack.id, mcp: `/api/v1/tool-packs/${pack.id}/registered-users/${user.id}/mcp` };
}

/** A bare JSON-RPC POST through the edge, as curl sends it: no initialize, no Accept header. */
async function rpc(t: Tenant, body: unknown): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${EDGE}${t.mcp}`, { method: 'POST', headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

const toolsCall = (id: number, name: string, input: Record<string, unknown>) => ({ id, jsonrpc: '2.0', method: 'tools/call', params: { name, arguments: { input } } });
const getIssue = (id: number, issueNumber = 1) => toolsCall(id, 'github__get_issue', { owner: 'octo-org', repo: 'hello', issue_number: issueNumber });
const createIssue = (id: number, body: string) => toolsCall(id, 'github__create_issue', { owner: 'octo-org', repo: 'hello', title: 'Through the edge', body });
const toolsList = { id: 99, jsonrpc: '2.0', method: 'tools/list' };

describe('mcp-runtime through the edge router', () => {
  it('an official MCP SDK client session: initialize, tools/list, and a tools/call the fake GitHub answers', async () => {
    const t = await tenant();
    const client = new McpClient({ name: 'e2e-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${EDGE}${t.mcp}`), { requestInit: { headers: { Authorization: `Bearer ${t.key}` } } }));
    try {
      expect(client.getServerVersion()?.name).toBeTruthy();
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['github__list_issues', 'github__get_issue', 'github__create_issue']);
      const result = await client.callTool({ name: 'github__get_issue', arguments: { input: { owner: 'octo-org', repo: 'hello', issue_number: 2 } } });
      expect(result.isError).toBeFalsy();
      expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ number: 2, title: 'Issue 2' });
      expect(github.requests.at(-1)!.headers.authorization).toBe(`Bearer ${GITHUB_FAKE_TOKENS.valid}`);
    } finally {
      await client.close();
    }
  });

  it('a bare JSON-RPC tools/call without initialize or Accept header gets result.content', async () => {
    const t = await tenant();
    const res = await rpc(t, toolsCall(7, 'github__list_issues', { owner: 'octo-org', repo: 'hello' }));
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(7);
    expect(res.body.result.content[0].type).toBe('text');
    expect(JSON.parse(res.body.result.content[0].text).issues.length).toBeGreaterThan(0);
  });

  it('a free-plan organization past its allotment gets 402 billing_limit_reached on tools/call, while tools/list still answers', async () => {
    const t = await tenant(['--plan', 'free', '--credits', '1']);
    expect((await rpc(t, getIssue(1))).status).toBe(200);
    const refused = await rpc(t, getIssue(2));
    expect(refused.status).toBe(402);
    expect(refused.body.code).toBe('billing_limit_reached');
    const listed = await rpc(t, toolsList);
    expect(listed.status).toBe(200);
    expect(listed.body.result.tools).toHaveLength(3);
  });

  it('over the per-user rate limit set with the admin CLI, tools/call gets 429 with Retry-After and RateLimit headers', async () => {
    const t = await tenant(['--plan', 'paid']);
    await patchbay(['org', 'update', t.organizationId, '--mcp-rate-limit', '1']);
    // The CLI's change reaches the runtime over Redis; usage shows the limit the runtime now applies.
    await waitFor(async () => (await api(t.key, 'GET', '/api/v1/usage/')).rate_limit_per_minute === 1, 10_000, 'the runtime applying the new rate limit');
    expect((await rpc(t, getIssue(1))).status).toBe(200);
    const limited = await rpc(t, getIssue(2));
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.headers.get('ratelimit-limit')).toBe('1');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('1');
    expect((await rpc(t, toolsList)).status).toBe(200);
  });

  it('security rules made through the edge redact an email in a tool result and block a call naming the rule', async () => {
    const t = await tenant();
    const redact = await api(t.key, 'POST', '/api/v1/security-rules/', { name: 'No emails to the model', detector: 'EMAIL_ADDRESS', direction: 'outbound', action: 'redact' });
    const created = await rpc(t, createIssue(1, 'Reported by ada@example.com'));
    expect(created.body.result.isError).toBeFalsy();
    // Outbound only: GitHub got the address, the model gets the marker.
    expect(JSON.stringify(github.requests.at(-1)!.json)).toContain('ada@example.com');
    expect(created.body.result.content[0].text).toContain('Reported by [REDACTED:EMAIL_ADDRESS]');
    const read = await rpc(t, getIssue(2, created.body.result.structuredContent.number));
    expect(read.body.result.structuredContent.body).toBe('Reported by [REDACTED:EMAIL_ADDRESS]');
    expect(JSON.stringify(read.body)).not.toContain('ada@example.com');

    const block = await api(t.key, 'POST', '/api/v1/security-rules/', { name: 'No cloud keys', detector: 'SECRET', direction: 'inbound', action: 'block' });
    const requestsBefore = github.requests.length;
    const blocked = await rpc(t, createIssue(3, 'deploy with AKIAIOSFODNN7EXAMPLE'));
    expect(blocked.body.result.isError).toBe(true);
    expect(blocked.body.result.content[0].text).toContain(`Blocked by security rule "No cloud keys" (SECRET, rule ${block.id}): the tool was not called.`);
    expect(blocked.body.result.structuredContent).toMatchObject({ error: 'security_rule_blocked', rule_id: block.id, direction: 'inbound' });
    expect(github.requests.length).toBe(requestsBefore);

    const packView = await api(t.key, 'GET', `/api/v1/tool-packs/${t.toolPackId}/security-rules/`);
    expect(packView.results.map((r: { id: string; override: unknown }) => [r.id, r.override])).toEqual([
      [redact.id, null],
      [block.id, null],
    ]);
  });

  it('the calls show in tool-call records and usage through the edge', async () => {
    const t = await tenant();
    await api(t.key, 'POST', '/api/v1/security-rules/', { name: 'No cloud keys', detector: 'SECRET', direction: 'inbound', action: 'block' });
    expect((await rpc(t, getIssue(1))).body.result.isError).toBeFalsy();
    expect((await rpc(t, createIssue(2, 'token AKIAIOSFODNN7EXAMPLE'))).body.result.isError).toBe(true);
    // Records reach the database over a queue after the answer was sent.
    let records: any[] = [];
    await waitFor(
      async () => {
        records = (await api(t.key, 'GET', `/api/v1/tool-call-records/?tool_pack_id=${t.toolPackId}`)).results;
        return records.length === 2;
      },
      15_000,
      'two tool-call records',
    );
    expect(records.map((r) => [r.tool_name, r.status, r.error_code, r.credits])).toEqual([
      ['github__create_issue', 'blocked', 'security_rule_blocked', 1],
      ['github__get_issue', 'success', null, 1],
    ]);
    expect(JSON.stringify(records)).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect((await api(t.key, 'GET', `/api/v1/tool-call-records/${records[1].id}/`)).id).toBe(records[1].id);
    const usage = await api(t.key, 'GET', '/api/v1/usage/');
    expect(usage).toMatchObject({ credits_used: 2, billing_limit_reached: false });
  });

  // Last: the fuzzer leaves the first-run organization full of odd resources. The same run as `pnpm fuzz`, smaller.
  it('survives the seeded fuzzer: every operation of the merged OpenAPI document, no 5xx, every error in the envelope, no stalled connection', async () => {
    const report = await runFuzz({
      baseUrl: EDGE,
      requests: Number(process.env.PATCHBAY_FUZZ_REQUESTS ?? 1_500),
      seed: Number(process.env.PATCHBAY_FUZZ_SEED ?? 1),
      concurrency: 4,
      credentials: { key: firstRunKey('master key (production)'), testKey: firstRunKey('test key') },
    });
    expect(report.operations).toBeGreaterThan(20);
    expect(report.failures).toEqual([]);
    expect(report.failureCount).toBe(0);
  }, 300_000);
});
