import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { hashAccessKey } from '@patchbay/auth';
import request from 'supertest';
import { TEST_DATABASE_URL, TEST_REDIS_URL, TEST_SERVICE_TOKEN } from './env';
import { bearer, startHarness, type Harness } from './harness';

const run = promisify(execFile);
const CLI = path.resolve(__dirname, '..', 'dist', 'cli', 'main.js');

async function patchbay(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL, REDIS_URL: TEST_REDIS_URL } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('patchbay admin CLI', () => {
  it('org create prints one JSON object with organization_id, master_key and test_key, and both keys work', async () => {
    const out = await patchbay('org', 'create', '--name', 'CLI Org', '--plan', 'paid', '--credits', '2500', '--callback-origin', 'https://app.example.com', '--callback-origin', 'http://localhost:3000');
    expect(out.code).toBe(0);
    const org = JSON.parse(out.stdout);
    expect(org).toMatchObject({ name: 'CLI Org', plan: 'paid', monthly_credits: 2500, callback_origins: ['https://app.example.com', 'http://localhost:3000'] });
    expect(org.organization_id).toMatch(/^[0-9a-f-]{36}$/);
    const master = await request(h.app).get(`/api/v1/access-keys/${org.master_key_id}/`).set(bearer(org.master_key));
    expect(master.body).toMatchObject({ name: null, environment: 'production', is_master: true, tool_pack_ids: null, registered_user_ids: null, expires_at: null, scopes: ['runtime:all', 'management:all'] });
    const testKey = await request(h.app).get(`/api/v1/access-keys/${org.test_key_id}/`).set(bearer(org.test_key));
    expect(testKey.body).toMatchObject({ environment: 'test', tool_pack_ids: null, registered_user_ids: null });
  });

  it('org update changes plan, allotment, callback origins, environment matching and the MCP rate limit, effective at once', async () => {
    const org = JSON.parse((await patchbay('org', 'create', '--name', 'Settings Org')).stdout);
    const verify = () => request(h.app).post('/internal/v1/access-keys/verify').set('X-Service-Token', TEST_SERVICE_TOKEN).send({ key_hash: hashAccessKey(org.master_key) });
    expect((await verify()).body.organization.mcpRateLimitPerMinute).toBe(30);
    const out = await patchbay('org', 'update', org.organization_id, '--plan', 'paid', '--credits', '9000', '--callback-origin', 'https://new.example.com', '--environment-matching', 'true', '--mcp-rate-limit', '120');
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ plan: 'paid', monthly_credits: 9000, callback_origins: ['https://new.example.com'], environment_matching: true, mcp_rate_limit_per_minute: 120 });
    expect((await verify()).body.organization).toMatchObject({ plan: 'paid', monthlyCredits: 9000, environmentMatching: true, mcpRateLimitPerMinute: 120 });
    const shown = JSON.parse((await patchbay('org', 'show', org.organization_id)).stdout);
    expect(shown.mcp_rate_limit_per_minute).toBe(120);
  });

  it('the allowed MCP browser origins: none by default, set on create and update, cleared, carried with the key, and validated', async () => {
    const org = JSON.parse((await patchbay('org', 'create', '--name', 'Origins Org', '--mcp-allowed-origin', 'https://agent.example.com')).stdout);
    expect(org.mcp_allowed_origins).toEqual(['https://agent.example.com']);
    expect(JSON.parse((await patchbay('org', 'create', '--name', 'Default Org')).stdout).mcp_allowed_origins).toEqual([]);
    const verify = () => request(h.app).post('/internal/v1/access-keys/verify').set('X-Service-Token', TEST_SERVICE_TOKEN).send({ key_hash: hashAccessKey(org.master_key) });
    expect((await verify()).body.organization.mcpAllowedOrigins).toEqual(['https://agent.example.com']);
    const updated = await patchbay('org', 'update', org.organization_id, '--mcp-allowed-origin', 'https://a.example.com/', '--mcp-allowed-origin', 'http://localhost:5173');
    expect(JSON.parse(updated.stdout).mcp_allowed_origins).toEqual(['https://a.example.com', 'http://localhost:5173']);
    expect((await verify()).body.organization.mcpAllowedOrigins).toEqual(['https://a.example.com', 'http://localhost:5173']);
    expect(JSON.parse((await patchbay('org', 'update', org.organization_id, '--clear-mcp-allowed-origins')).stdout).mcp_allowed_origins).toEqual([]);
    const bad = await patchbay('org', 'update', org.organization_id, '--mcp-allowed-origin', 'http://evil.example.com');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('mcp_allowed_origin');
    expect(bad.stderr).toContain('must use https');
  });

  it('key create-service-account makes a key linked to a service account, which cannot be regenerated', async () => {
    const org = JSON.parse((await patchbay('org', 'create', '--name', 'SA Org')).stdout);
    const out = await patchbay('key', 'create-service-account', '--org', org.organization_id, '--service-account', 'deploy-bot', '--scope', 'management:all');
    expect(out.code).toBe(0);
    const key = JSON.parse(out.stdout);
    expect(key).toMatchObject({ service_account: 'deploy-bot', scopes: ['management:all'] });
    expect((await request(h.app).get('/api/v1/access-keys/').set(bearer(key.key))).status).toBe(200);
    expect((await request(h.app).post(`/api/v1/access-keys/${key.id}/regenerate/`).set(bearer(org.master_key))).status).toBe(400);
  });

  it('key create prints a new working unrestricted key for an organization whose first keys are gone, and audits it', async () => {
    const org = JSON.parse((await patchbay('org', 'create', '--name', 'Existing Org')).stdout);
    const out = await patchbay('key', 'create', '--org', org.organization_id, '--name', 'newcomer');
    expect(out.code).toBe(0);
    const key = JSON.parse(out.stdout);
    expect(key).toMatchObject({ name: 'newcomer', environment: 'production', is_master: false, service_account: null, tool_pack_ids: null, registered_user_ids: null, expires_at: null, scopes: ['runtime:all', 'management:all'] });
    expect(key.key).toMatch(/^pb_live_/);
    const listed = await request(h.app).get('/api/v1/access-keys/').set(bearer(key.key));
    expect(listed.status).toBe(200);
    expect(listed.body.results.map((k: { id: string }) => k.id)).toContain(org.master_key_id);
    const audit = await request(h.app).get('/api/v1/audit-log/?event_type=access_key.created&page_size=100').set(bearer(org.master_key));
    expect(audit.body.results.filter((e: { target_key_id: string }) => e.target_key_id === key.id)).toEqual([expect.objectContaining({ actor_type: 'admin_cli', details: expect.objectContaining({ name: 'newcomer' }) })]);

    const test = JSON.parse((await patchbay('key', 'create', '--org', org.organization_id, '--environment', 'test', '--expires-in', '3600')).stdout);
    expect(test.key).toMatch(/^pb_test_/);
    expect(new Date(test.expires_at).getTime()).toBeGreaterThan(Date.now());
  });

  it('key create without --org names the choice when there are several organizations, and rejects a bad expiry', async () => {
    const ambiguous = await patchbay('key', 'create');
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/there are \d+ organizations: pick one with --org <organization_id>/);
    const org = JSON.parse((await patchbay('org', 'create', '--name', 'Expiry Org')).stdout);
    const bad = await patchbay('key', 'create', '--org', org.organization_id, '--expires-in', '5');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--expires-in: must be a whole number of seconds, 60 or more');
  });

  it('org create --no-master-key starts the organization with a named unrestricted key instead', async () => {
    const org = JSON.parse((await patchbay('org', 'create', '--name', 'No master', '--no-master-key')).stdout);
    expect(org.master_key).toBeNull();
    expect(org.initial_key).toMatch(/^pb_live_/);
  });

  it('explains bad input without a stack trace and writes nothing', async () => {
    const badPlan = await patchbay('org', 'create', '--name', 'Bad', '--plan', 'gold');
    expect(badPlan.code).toBe(1);
    expect(badPlan.stderr).toContain('--plan: must be free or paid');
    expect(badPlan.stderr).not.toMatch(/at .*\.js:\d+/);
    const badOrigin = await patchbay('org', 'create', '--name', 'Bad', '--callback-origin', 'ftp://x.example.com/path');
    expect(badOrigin.code).toBe(1);
    expect(badOrigin.stderr).toContain('callback_origin');
    const missing = await patchbay('org', 'create');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('org create needs --name');
    const unknownOrg = await patchbay('org', 'show', '00000000-0000-4000-8000-000000000000');
    expect(unknownOrg.code).toBe(1);
    expect(unknownOrg.stderr).toContain('not found');
    expect(await h.db.organization.count({ where: { name: 'Bad' } })).toBe(0);
  });

  it('prints usage for help', async () => {
    const out = await patchbay('help');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('patchbay org create --name <name>');
  });
});
