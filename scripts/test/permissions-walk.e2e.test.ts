import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { memberSession, ownerSession, type AccessKeysApi, type MemberSession } from '@patchbay/testing';
import { Client } from 'pg';
import { REPO_ROOT } from '../src/suite';

/**
 * The catalog walk (issue 25): "Permissions are enforced by the service that owns each resource. One test
 * walks the whole catalog: for every permission, every endpoint it guards answers 403 without it and
 * succeeds with it." Against the whole suite behind the edge router, as the console calls it: a member's
 * session cookie, the anti-forgery token and Patchbay's own Origin.
 *
 * ROUTES is the explicit table of every public route and what guards it for a member's session. A route
 * of the merged OpenAPI document missing from it fails the test, so a new route cannot go unguarded:
 * add its row (the permission that guards it, or why sessions never call it).
 */

type Guard =
  /** A member's session needs this permission (and `alsoNeeds`, when the route checks two). */
  | { permission: string; alsoNeeds?: string[]; body?: () => unknown; params?: Record<string, string>; ok?: number }
  /** A runtime call by keys: a member's session gets 401, whatever they hold. */
  | { keysOnly: string }
  /** Any signed-in member, about their own session or account. */
  | { signedIn: true }
  /** No credential: sign-in steps and invitation links. */
  | { open: string };

type Row = [method: string, path: string, guard: Guard];

const MODEL_CALL = 'model calls spend the gateway key\'s budget and are billed to it; the console has no key to spend';
const GATEWAY_FILES = 'files and batches belong to the gateway key (and customer) that made them';
const n = () => randomUUID().slice(0, 8);
/** A custom role without permissions, which a member holding only manage_members may grant. */
let emptyRoleId = '';

const ROUTES: Row[] = [
  // access-keys-and-audit: the member's own session and account.
  ['POST', '/api/v1/session', { open: 'sign-in with email and password' }],
  ['POST', '/api/v1/session/two-factor', { open: 'the second sign-in step (pending sign-in cookie)' }],
  ['POST', '/api/v1/session/two-factor/enrolment', { open: 'two-factor enrolment during sign-in (pending sign-in cookie)' }],
  ['POST', '/api/v1/sso/start', { open: 'single sign-on starts before there is a session' }],
  ['GET', '/api/v1/sso/callback', { open: "the identity provider's redirect" }],
  ['POST', '/api/v1/invitations/accept', { open: 'the invitation link is the credential' }],
  ['GET', '/api/v1/session', { signedIn: true }],
  ['DELETE', '/api/v1/session', { signedIn: true }],
  ['POST', '/api/v1/session/environment', { signedIn: true }],
  ['POST', '/api/v1/session/organization', { signedIn: true }],
  ['GET', '/api/v1/session/all', { signedIn: true }],
  ['DELETE', '/api/v1/session/all', { signedIn: true }],
  ['GET', '/api/v1/permissions', { signedIn: true }],
  ['PUT', '/api/v1/account/password', { signedIn: true }],
  ['GET', '/api/v1/account/two-factor', { signedIn: true }],
  ['POST', '/api/v1/account/two-factor/enrolment', { signedIn: true }],
  ['POST', '/api/v1/account/two-factor/confirmation', { signedIn: true }],
  ['POST', '/api/v1/account/two-factor/disable', { signedIn: true }],
  ['POST', '/api/v1/account/two-factor/recovery-codes', { signedIn: true }],
  // access-keys-and-audit: the organization.
  ['GET', '/api/v1/members', { permission: 'view_members', ok: 200 }],
  ['POST', '/api/v1/members', { permission: 'manage_members', body: () => ({ email: `walk-${n()}@example.test`, role_ids: [emptyRoleId] }), ok: 201 }],
  ['GET', '/api/v1/members/{member_id}', { permission: 'view_members' }],
  ['PATCH', '/api/v1/members/{member_id}', { permission: 'manage_members', body: () => ({ status: 'active' }) }],
  ['DELETE', '/api/v1/members/{member_id}', { permission: 'manage_members' }],
  ['DELETE', '/api/v1/members/{member_id}/two-factor', { permission: 'manage_members' }],
  ['GET', '/api/v1/roles', { permission: 'view_roles', ok: 200 }],
  ['POST', '/api/v1/roles', { permission: 'manage_roles', body: () => ({ name: `Walk ${n()}`, permissions: [] }), ok: 201 }],
  ['GET', '/api/v1/roles/{role_id}', { permission: 'view_roles' }],
  ['PATCH', '/api/v1/roles/{role_id}', { permission: 'manage_roles', body: () => ({ description: 'walk' }) }],
  ['DELETE', '/api/v1/roles/{role_id}', { permission: 'manage_roles' }],
  ['GET', '/api/v1/organization', { permission: 'view_org_settings', ok: 200 }],
  ['PATCH', '/api/v1/organization', { permission: 'manage_org_settings', body: () => ({ environment_matching: false }) }],
  ['PATCH', '/api/v1/organization', { permission: 'manage_billing', alsoNeeds: ['manage_org_settings'], body: () => ({ plan: 'free' }) }],
  ['GET', '/api/v1/two-factor-policy', { permission: 'view_org_settings', ok: 200 }],
  ['PUT', '/api/v1/two-factor-policy', { permission: 'manage_org_settings', body: () => ({ require_two_factor: false }) }],
  ['GET', '/api/v1/sso', { permission: 'view_sso' }],
  ['PUT', '/api/v1/sso', { permission: 'manage_sso', body: () => ({}) }],
  ['DELETE', '/api/v1/sso', { permission: 'manage_sso' }],
  ['GET', '/api/v1/audit-log', { permission: 'view_audit_log', ok: 200 }],
  ['GET', '/api/v1/audit-log/export', { permission: 'view_audit_log', ok: 200 }],
  ['GET', '/api/v1/access-keys', { permission: 'view_access_keys', ok: 200 }],
  ['POST', '/api/v1/access-keys', { permission: 'manage_access_keys', body: () => ({ name: `walk ${n()}` }) }],
  ['GET', '/api/v1/access-keys/{key_id}', { permission: 'view_access_keys' }],
  ['POST', '/api/v1/access-keys/{key_id}/regenerate', { permission: 'manage_access_keys' }],
  ['POST', '/api/v1/access-keys/{key_id}/revoke', { permission: 'manage_access_keys' }],
  ['GET', '/api/v1/management-keys', { permission: 'view_access_keys', ok: 200 }],
  ['POST', '/api/v1/management-keys', { permission: 'manage_access_keys', body: () => ({}) }],
  ['POST', '/api/v1/management-keys/{management_key_id}/revoke', { permission: 'manage_access_keys' }],
  // connector-registry.
  ['GET', '/api/v1/tool-packs', { permission: 'view_tool_packs', ok: 200 }],
  ['POST', '/api/v1/tool-packs', { permission: 'manage_tool_packs', body: () => ({ name: `Walk ${n()}`, description: 'walk' }), ok: 201 }],
  ['GET', '/api/v1/tool-packs/{id}', { permission: 'view_tool_packs' }],
  ['PATCH', '/api/v1/tool-packs/{id}', { permission: 'manage_tool_packs', body: () => ({ description: 'walk' }) }],
  ['DELETE', '/api/v1/tool-packs/{id}', { permission: 'manage_tool_packs' }],
  ['GET', '/api/v1/registered-users', { permission: 'view_registered_users', ok: 200 }],
  ['POST', '/api/v1/registered-users', { permission: 'manage_registered_users', body: () => ({ origin_user_id: `walk-${n()}`, origin_user_name: 'Walk', shared_credential_group: { origin_company_id: 'walk', origin_company_name: 'Walk', custom_groupings: {} } }), ok: 201 }],
  ['GET', '/api/v1/registered-users/{registered_user_id}', { permission: 'view_registered_users' }],
  ['PATCH', '/api/v1/registered-users/{registered_user_id}', { permission: 'manage_registered_users', body: () => ({ origin_user_name: 'Walk' }) }],
  ['DELETE', '/api/v1/registered-users/{registered_user_id}', { permission: 'manage_registered_users' }],
  ['POST', '/api/v1/registered-users/{registered_user_id}/link-token', { permission: 'manage_registered_users', body: () => ({}) }],
  ['DELETE', '/api/v1/credentials/registered-users/{registered_user_id}/connectors/{connector_slug}', { permission: 'manage_registered_users', params: { connector_slug: 'github' } }],
  ['GET', '/api/v1/connections', { permission: 'view_registered_users' }],
  ['GET', '/api/v1/connectors', { permission: 'view_connectors', ok: 200 }],
  ['GET', '/api/v1/connectors/{slug}', { permission: 'view_connectors', params: { slug: 'github' }, ok: 200 }],
  ['POST', '/api/v1/connectors', { permission: 'manage_connectors', body: () => ({}) }],
  ['POST', '/api/v1/connectors/{slug}/refresh', { permission: 'manage_connectors', params: { slug: `no-such-${n()}` } }],
  ['DELETE', '/api/v1/connectors/{slug}', { permission: 'manage_connectors', params: { slug: `no-such-${n()}` } }],
  ['GET', '/api/v1/application-credentials', { permission: 'view_connectors', ok: 200 }],
  ['POST', '/api/v1/application-credentials', { permission: 'manage_connectors', body: () => ({}) }],
  ['GET', '/api/v1/application-credentials/{id}', { permission: 'view_connectors' }],
  ['PATCH', '/api/v1/application-credentials/{id}', { permission: 'manage_connectors', body: () => ({}) }],
  ['DELETE', '/api/v1/application-credentials/{id}', { permission: 'manage_connectors' }],
  // mcp-runtime: the MCP endpoint (the console's playground) and its management APIs.
  ['POST', '/api/v1/tool-packs/{tool_pack_id}/registered-users/{registered_user_id}/mcp', { permission: 'manage_tool_packs', body: () => ({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) }],
  ['POST', '/api/v1/tool-packs/{tool_pack_id}/registered-users/{registered_user_id}/tools/list', { permission: 'view_tool_packs', body: () => ({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) }],
  ['POST', '/api/v1/tool-packs/{tool_pack_id}/registered-users/{registered_user_id}/search', { permission: 'view_tool_packs', body: () => ({ query: 'issues' }) }],
  ['GET', '/api/v1/security-rules', { permission: 'view_security_rules', ok: 200 }],
  ['POST', '/api/v1/security-rules', { permission: 'manage_security_rules', body: () => ({}) }],
  ['GET', '/api/v1/security-rules/{rule_id}', { permission: 'view_security_rules' }],
  ['PATCH', '/api/v1/security-rules/{rule_id}', { permission: 'manage_security_rules', body: () => ({}) }],
  ['DELETE', '/api/v1/security-rules/{rule_id}', { permission: 'manage_security_rules' }],
  ['POST', '/api/v1/security-rules/test', { permission: 'view_security_rules', body: () => ({ text: 'mail ada@example.com' }), ok: 200 }],
  ['GET', '/api/v1/tool-packs/{tool_pack_id}/security-rules', { permission: 'view_security_rules' }],
  ['PUT', '/api/v1/tool-packs/{tool_pack_id}/security-rules/{rule_id}/override', { permission: 'manage_security_rules', body: () => ({}) }],
  ['DELETE', '/api/v1/tool-packs/{tool_pack_id}/security-rules/{rule_id}/override', { permission: 'manage_security_rules' }],
  ['GET', '/api/v1/tool-call-records', { permission: 'view_tool_call_records', ok: 200 }],
  ['GET', '/api/v1/tool-call-records/{record_id}', { permission: 'view_tool_call_records' }],
  ['GET', '/api/v1/usage', { permission: 'view_billing' }],
  ['GET', '/api/v1/usage/daily', { permission: 'view_billing', ok: 200 }],
  // unified-data: the account-token routes also need X-Account-Token, from a session as from a key.
  ['POST', '/api/mktg/v1/link-token', { permission: 'manage_linked_accounts', body: () => ({}) }],
  ['POST', '/api/mktg/v1/linked-accounts', { permission: 'manage_linked_accounts', body: () => ({}) }],
  ['GET', '/api/mktg/v1/linked-accounts', { permission: 'view_linked_accounts', ok: 200 }],
  ['GET', '/api/mktg/v1/linked-accounts/{id}', { permission: 'view_linked_accounts' }],
  ['GET', '/api/mktg/v1/linked-accounts/{id}/sync-runs', { permission: 'view_linked_accounts' }],
  ['DELETE', '/api/mktg/v1/linked-accounts/{id}', { permission: 'manage_linked_accounts' }],
  ['POST', '/api/mktg/v1/linked-accounts/{id}/regenerate-account-token', { permission: 'manage_linked_accounts' }],
  ['POST', '/api/mktg/v1/account-token/regenerate', { permission: 'manage_linked_accounts' }],
  ['GET', '/api/mktg/v1/account-token/{public_token}', { permission: 'manage_linked_accounts', params: { public_token: `pt_${n()}` } }],
  ['GET', '/api/mktg/v1/sync-status', { permission: 'view_linked_accounts' }],
  ['POST', '/api/mktg/v1/sync-status/resync', { permission: 'force_resync' }],
  ['POST', '/api/mktg/v1/sync-status/{model_id}/disable', { permission: 'manage_linked_accounts', params: { model_id: 'events' } }],
  ['POST', '/api/mktg/v1/sync-status/{model_id}/enable', { permission: 'manage_linked_accounts', params: { model_id: 'events' } }],
  ['GET', '/api/mktg/v1/field-mappings', { permission: 'view_linked_accounts' }],
  ['POST', '/api/mktg/v1/field-mappings', { permission: 'manage_linked_accounts', body: () => ({}) }],
  ['DELETE', '/api/mktg/v1/field-mappings/{id}', { permission: 'manage_linked_accounts' }],
  ['GET', '/api/mktg/v1/events', { permission: 'view_linked_accounts' }],
  ['GET', '/api/mktg/v1/events/{id}', { permission: 'view_linked_accounts' }],
  ['GET', '/api/mktg/v1/events/{parent_id}/contacts', { permission: 'view_linked_accounts' }],
  // model-gateway: management.
  ['GET', '/v1/keys', { permission: 'view_api_keys', ok: 200 }],
  ['POST', '/v1/keys', { permission: 'manage_api_keys', body: () => ({ name: `walk ${n()}` }) }],
  ['GET', '/v1/keys/{hash}', { permission: 'view_api_keys', params: { hash: '0'.repeat(64) } }],
  ['GET', '/v1/organization/batches', { permission: 'view_api_keys', ok: 200 }],
  ['GET', '/v1/organization/batches/{batch_id}', { permission: 'view_api_keys' }],
  ['PATCH', '/v1/keys/{hash}', { permission: 'manage_api_keys', params: { hash: '0'.repeat(64) }, body: () => ({ name: 'walk' }) }],
  ['DELETE', '/v1/keys/{hash}', { permission: 'manage_api_keys', params: { hash: '0'.repeat(64) } }],
  ['POST', '/v1/keys/{hash}/rotate', { permission: 'manage_api_keys', params: { hash: '0'.repeat(64) } }],
  ['GET', '/v1/key', { keysOnly: 'describes the calling gateway key; a session is not one (GET /v1/keys lists them)' }],
  ['GET', '/v1/projects', { permission: 'view_projects', ok: 200 }],
  ['POST', '/v1/projects', { permission: 'manage_projects', body: () => ({ name: `walk ${n()}` }), ok: 201 }],
  ['GET', '/v1/projects/{id}', { permission: 'view_projects' }],
  ['PATCH', '/v1/projects/{id}', { permission: 'manage_projects', body: () => ({ name: 'walk' }) }],
  ['DELETE', '/v1/projects/{id}', { permission: 'manage_projects' }],
  ['GET', '/v1/customers', { permission: 'view_customers', ok: 200 }],
  ['POST', '/v1/customers', { permission: 'manage_customers', body: () => ({ id: randomUUID(), name: 'walk' }) }],
  ['GET', '/v1/customers/{customer_id}', { permission: 'view_customers' }],
  ['PATCH', '/v1/customers/{customer_id}', { permission: 'manage_customers', body: () => ({ name: 'walk' }) }],
  ['DELETE', '/v1/customers/{customer_id}', { permission: 'manage_customers' }],
  ['GET', '/v1/customers/{customer_id}/api-keys', { permission: 'view_customers' }],
  ['POST', '/v1/customers/{customer_id}/api-keys', { permission: 'manage_customers', body: () => ({ name: 'walk' }) }],
  ['GET', '/v1/vendor-keys', { permission: 'view_vendor_keys', ok: 200 }],
  ['PUT', '/v1/vendor-keys/{vendor}', { permission: 'manage_vendor_keys', params: { vendor: 'no-such-vendor' }, body: () => ({ api_key: 'sk-walk' }) }],
  ['DELETE', '/v1/vendor-keys/{vendor}', { permission: 'manage_vendor_keys', params: { vendor: 'no-such-vendor' } }],
  ['GET', '/v1/tags', { permission: 'view_policies', ok: 200 }],
  ['POST', '/v1/tags', { permission: 'manage_policies', body: () => ({ key: 'walk', value: n() }), ok: 201 }],
  ['DELETE', '/v1/tags/{id}', { permission: 'manage_policies' }],
  ['GET', '/v1/blocklist', { permission: 'view_policies', ok: 200 }],
  ['PUT', '/v1/blocklist', { permission: 'manage_policies', body: () => ({ models: [] }), ok: 200 }],
  ['GET', '/v1/routing-policies', { permission: 'view_routing', ok: 200 }],
  ['POST', '/v1/routing-policies', { permission: 'manage_routing', body: () => ({}) }],
  ['GET', '/v1/routing-policies/{policy_id}', { permission: 'view_routing' }],
  ['PATCH', '/v1/routing-policies/{policy_id}', { permission: 'manage_routing', body: () => ({}) }],
  ['DELETE', '/v1/routing-policies/{policy_id}', { permission: 'manage_routing' }],
  ['POST', '/v1/routing-policies/{policy_id}/set-default', { permission: 'manage_routing' }],
  ['POST', '/v1/routing-policies/{policy_id}/dry-run', { permission: 'view_routing', body: () => ({ request: { input: 'walk' } }) }],
  ['GET', '/v1/organization/pi-settings', { permission: 'view_guardrails', ok: 200 }],
  ['PUT', '/v1/organization/pi-settings', { permission: 'manage_guardrails', body: () => ({}) }],
  ['GET', '/v1/customers/{customer_id}/pi-settings', { permission: 'view_guardrails' }],
  ['PUT', '/v1/customers/{customer_id}/pi-settings', { permission: 'manage_guardrails', body: () => ({}) }],
  ['GET', '/v1/organization/dlp-rules', { permission: 'view_guardrails', ok: 200 }],
  ['PUT', '/v1/organization/dlp-rules', { permission: 'manage_guardrails', body: () => ({ rules: [] }) }],
  ['GET', '/v1/organization/pi-check', { permission: 'view_guardrails', ok: 200 }],
  ['PUT', '/v1/organization/pi-check', { permission: 'manage_guardrails', body: () => ({ enabled: true }) }],
  ['POST', '/v1/prompt-injection/check', { permission: 'view_guardrails', body: () => ({ input: 'hello' }) }],
  ['GET', '/v1/usage', { permission: 'view_billing' }],
  ['GET', '/v1/usage/daily', { permission: 'view_billing', ok: 200 }],
  // model-gateway: runtime calls by keys.
  ...['/v1/responses', '/v1/chat/completions', '/v1/openai/chat/completions', '/v1/openai/responses', '/v1/embeddings', '/v1/openai/embeddings', '/v1/messages', '/v1/anthropic/v1/messages', '/v1/messages/count_tokens', '/v1/anthropic/v1/messages/count_tokens'].map((p): Row => ['POST', p, { keysOnly: MODEL_CALL }]),
  // The catalog with prices is no secret: any signed-in member reads it (the console's /models page).
  ['GET', '/v1/models', { signedIn: true }],
  ['GET', '/v1/models/{model}', { signedIn: true }],
  ['GET', '/v1/openai/models', { keysOnly: "the OpenAI SDK's model list, as the calling gateway key's organization and vendors see it" }],
  ...['', '/openai', '/openai/v1'].flatMap((base): Row[] => ['/audio/speech', '/audio/transcriptions', '/images/edits', '/images/generations'].map((p): Row => ['POST', `/v1${base}${p}`, { keysOnly: MODEL_CALL }])),
  ...['/v1/responses/{response_id}', '/v1/openai/responses/{response_id}'].flatMap((p): Row[] => [
    ['GET', p, { keysOnly: 'a stored response belongs to the gateway key whose call made it' }],
    ['DELETE', p, { keysOnly: 'a stored response belongs to the gateway key whose call made it' }],
  ]),
  ...['/v1', '/v1/openai'].flatMap((base): Row[] => [
    ['POST', `${base}/files`, { keysOnly: GATEWAY_FILES }],
    ['GET', `${base}/files`, { keysOnly: GATEWAY_FILES }],
    ['GET', `${base}/files/{file_id}`, { keysOnly: GATEWAY_FILES }],
    ['DELETE', `${base}/files/{file_id}`, { keysOnly: GATEWAY_FILES }],
    ['GET', `${base}/files/{file_id}/content`, { keysOnly: GATEWAY_FILES }],
    ['POST', `${base}/batches`, { keysOnly: GATEWAY_FILES }],
    ['GET', `${base}/batches`, { keysOnly: GATEWAY_FILES }],
    ['GET', `${base}/batches/{batch_id}`, { keysOnly: GATEWAY_FILES }],
    ['POST', `${base}/batches/{batch_id}/cancel`, { keysOnly: GATEWAY_FILES }],
  ]),
];

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const DATABASE = `patchbay_walk_${process.pid}`;
const OFFSET = 23_000 + (process.pid % 1000);
/** The public URL pnpm start configures: a session's writes must come from this origin. */
const PUBLIC = `http://localhost:${8080 + OFFSET}`;
const run = promisify(execFile);

function isolatedRedisUrl(): string {
  const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  url.pathname = `/${2 + ((process.pid + 7) % 14)}`;
  return url.toString();
}
const REDIS_URL = isolatedRedisUrl();

let suite: ChildProcess;
let output = '';
let dataDir: string;

function adminClient(): Client {
  const url = new URL(ADMIN_URL);
  url.pathname = '/postgres';
  return new Client({ connectionString: url.toString() });
}

beforeAll(async () => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DATABASE}`;
  dataDir = mkdtempSync(path.join(tmpdir(), 'patchbay-walk-'));
  suite = spawn(process.execPath, [path.join(REPO_ROOT, 'scripts', 'dist', 'start.js')], {
    env: { ...process.env, DATABASE_URL: url.toString(), REDIS_URL, PATCHBAY_PORT_OFFSET: String(OFFSET), PATCHBAY_DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  suite.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  suite.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 420_000;
  while (!output.includes('Patchbay is running')) {
    if (suite.exitCode !== null || Date.now() > deadline) throw new Error(`the suite did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 450_000);

afterAll(async () => {
  if (suite && suite.exitCode === null) {
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

/** The admin CLI against the database `pnpm start` used. */
async function patchbay(args: string[]): Promise<Record<string, unknown>> {
  const cli = path.join(REPO_ROOT, 'apps', 'access-keys-and-audit', 'dist', 'cli', 'main.js');
  const env: NodeJS.ProcessEnv = { ...process.env, PATCHBAY_DATA_DIR: dataDir, REDIS_URL };
  delete env.DATABASE_URL;
  const { stdout } = await run(process.execPath, [cli, ...args], { env });
  return JSON.parse(stdout) as Record<string, unknown>;
}

const api: AccessKeysApi = { url: PUBLIC, cli: patchbay };
const key = (method: string, p: string) => `${method} ${p}`;

function fill(p: string, params: Record<string, string> = {}): string {
  return p.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? randomUUID()));
}

async function call(session: MemberSession | null, method: string, p: string, guard: Guard): Promise<{ status: number; detail: string }> {
  const target = `${PUBLIC}${fill(p, 'params' in guard ? guard.params : undefined)}`;
  const body = 'body' in guard && guard.body ? JSON.stringify(guard.body()) : ['POST', 'PUT', 'PATCH'].includes(method) ? '{}' : undefined;
  const res = await fetch(target, { method, headers: { 'content-type': 'application/json', ...(session ? session.headers(method, target) : {}) }, body, redirect: 'manual' });
  const text = await res.text();
  let detail = text;
  try {
    const parsed = JSON.parse(text) as { detail?: unknown; error?: { message?: string } };
    detail = typeof parsed.detail === 'string' ? parsed.detail : parsed.error?.message ?? JSON.stringify(parsed.detail ?? parsed);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, detail: detail.slice(0, 300) };
}

interface CatalogEntry {
  codename: string;
  display_name: string;
  kind: string;
  resource: string;
}

describe('the permission catalog, walked against the running suite', () => {
  let organizationId: string;
  let owner: MemberSession;
  let catalog: CatalogEntry[];

  beforeAll(async () => {
    organizationId = (await patchbay(['org', 'create', '--name', 'Catalog walk'])).organization_id as string;
    owner = await ownerSession(api, organizationId);
    const res = await fetch(`${PUBLIC}/api/v1/permissions`, { headers: owner.headers('GET', PUBLIC) });
    catalog = ((await res.json()) as { results: CatalogEntry[] }).results;
    const rolesUrl = `${PUBLIC}/api/v1/roles`;
    const role = await fetch(rolesUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...owner.headers('POST', rolesUrl) }, body: JSON.stringify({ name: 'Nothing', permissions: [] }) });
    emptyRoleId = ((await role.json()) as { id: string }).id;
    // The screening endpoint answers only once an organization turns it on (its own 403 otherwise).
    const piCheck = `${PUBLIC}/v1/organization/pi-check`;
    const enabled = await fetch(piCheck, { method: 'PUT', headers: { 'content-type': 'application/json', ...owner.headers('PUT', piCheck) }, body: JSON.stringify({ enabled: true }) });
    if (!enabled.ok) throw new Error(`enabling the prompt-injection check failed: ${enabled.status} ${await enabled.text()}`);
  }, 120_000);

  it('every route of the merged OpenAPI document is in the table, and every table row is in the document', async () => {
    const spec = (await (await fetch(`${PUBLIC}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const documented = new Set<string>();
    for (const [p, ops] of Object.entries(spec.paths)) for (const method of Object.keys(ops)) if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) documented.add(key(method.toUpperCase(), p));
    const table = new Set(ROUTES.map(([method, p]) => key(method, p)));
    expect([...documented].filter((r) => !table.has(r)).sort()).toEqual([]);
    expect([...table].filter((r) => !documented.has(r)).sort()).toEqual([]);
  });

  it('every permission of the catalog guards at least one endpoint', () => {
    const guarded = new Set(ROUTES.flatMap(([, , g]) => ('permission' in g ? [g.permission] : [])));
    expect(catalog.map((c) => c.codename).filter((c) => !guarded.has(c))).toEqual([]);
    for (const [, , g] of ROUTES) if ('permission' in g) expect(catalog.map((c) => c.codename)).toContain(g.permission);
  });

  it('for every permission, every endpoint it guards answers 403 without it and succeeds with it', async () => {
    const failures: string[] = [];
    const codenames = catalog.map((c) => c.codename);
    // The members first, a few at a time (each sign-in is an argon2 hash), then the walk.
    const wanted = new Map<string, string[]>();
    for (const entry of catalog) {
      // Without: every other permission, except those that bring this one with them (a manage_ brings its view_).
      const bringsIt = (c: string) => entry.kind === 'view' && catalog.some((o) => o.codename === c && o.resource === entry.resource && o.kind !== 'view');
      wanted.set(`without:${entry.codename}`, codenames.filter((c) => c !== entry.codename && !bringsIt(c)));
      for (const [, , g] of ROUTES) {
        if ('permission' in g && g.permission === entry.codename) wanted.set(`with:${[entry.codename, ...(g.alsoNeeds ?? [])].join(',')}`, [entry.codename, ...(g.alsoNeeds ?? [])]);
      }
    }
    const sessions = new Map<string, MemberSession>();
    const queue = [...wanted];
    await Promise.all(Array.from({ length: 4 }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) sessions.set(next[0], await memberSession(api, organizationId, { permissions: next[1] }));
    }));
    for (const entry of catalog) {
      const rows = ROUTES.filter(([, , g]) => 'permission' in g && g.permission === entry.codename);
      const without = sessions.get(`without:${entry.codename}`)!;
      for (const [method, p, guard] of rows) {
        const { status, detail } = await call(without, method, p, guard);
        if (status !== 403 || !detail.includes(entry.display_name)) failures.push(`${entry.codename} missing: ${method} ${p} answered ${status} ${detail}`);
      }
      for (const [method, p, guard] of rows) {
        const g = guard as Extract<Guard, { permission: string }>;
        const holder = sessions.get(`with:${[entry.codename, ...(g.alsoNeeds ?? [])].join(',')}`)!;
        const { status, detail } = await call(holder, method, p, guard);
        // Success: the route's answer, past the permission: its success status where the table names one,
        // else anything but 401 and 403 (a made-up id is 404, an empty body 400; the account-token routes
        // still ask for X-Account-Token, as they do of a key).
        const accountTokenAsked = status === 401 && /account token/i.test(detail);
        const passed = g.ok !== undefined ? status === g.ok : (status !== 401 && status !== 403 && status < 500) || accountTokenAsked;
        if (!passed) failures.push(`${entry.codename} held: ${method} ${p} answered ${status} ${detail}`);
      }
    }
    expect(failures).toEqual([]);
  }, 1_800_000);

  it('runtime calls by keys answer 401 to a session holding every permission, and signed-in routes 401 without a session', async () => {
    const failures: string[] = [];
    for (const [method, p, guard] of ROUTES) {
      if ('keysOnly' in guard) {
        const { status, detail } = await call(owner, method, p, guard);
        if (status !== 401) failures.push(`${method} ${p} (keys only) answered the owner's session ${status} ${detail}`);
      } else if ('signedIn' in guard) {
        const { status } = await call(null, method, p, guard);
        if (status !== 401) failures.push(`${method} ${p} (signed in) answered no session ${status}`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
