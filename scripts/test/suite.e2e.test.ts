import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { REPO_ROOT } from '../src/suite';

/**
 * Drives the running suite the way a newcomer does: `pnpm start`'s entry point, then every call
 * through the edge router's public port. Ports are shifted so a developer's own suite can keep running.
 */
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const DATABASE = `patchbay_e2e_${process.pid}`;
const OFFSET = 20_000 + (process.pid % 1000);
const EDGE = `http://127.0.0.1:${8080 + OFFSET}`;
const run = promisify(execFile);

let suite: ChildProcess;
let output = '';
let dataDir: string;
let databaseUrl: string;

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
  suite = spawn(process.execPath, [path.join(REPO_ROOT, 'scripts', 'dist', 'start.js')], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PATCHBAY_PORT_OFFSET: String(OFFSET), PATCHBAY_DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '' },
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
    expect(page.next).toBe(`${EDGE}/api/v1/access-keys/?page_size=1&page=2`);
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
    expect(called.result.structuredContent.magic_link_url).toMatch(new RegExp(`^${EDGE}/link/lt_`));
    const page = await fetch(called.result.structuredContent.magic_link_url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('GitHub');
  });

  it('answers paths of services not deployed yet with a JSON 503', async () => {
    const res = await call('/api/mktg/v1/events');
    expect(res.status).toBe(503);
    expect(((await res.json()) as { code: string }).code).toBe('service_unavailable');
  });

  it('the admin CLI finds the database pnpm start used and prints one JSON object', async () => {
    const cli = path.join(REPO_ROOT, 'apps', 'access-keys-and-audit', 'dist', 'cli', 'main.js');
    const env = { ...process.env, DATABASE_URL: '', PATCHBAY_DATA_DIR: dataDir };
    delete env.DATABASE_URL;
    const { stdout } = await run(process.execPath, [cli, 'org', 'create', '--name', 'Second org'], { env });
    const org = JSON.parse(stdout) as { master_key: string };
    expect((await call('/api/v1/access-keys/', { key: org.master_key })).status).toBe(200);
  });
});
