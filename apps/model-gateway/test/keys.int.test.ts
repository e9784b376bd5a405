import { createHash } from 'node:crypto';
import { call, createKey, createOrg, eventually, startHarness, type Harness, type TestOrg } from './harness';

let h: Harness;
let org: TestOrg;

beforeAll(async () => {
  h = await startHarness();
  org = await createOrg(h);
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const chat = (key: string, model = 'openai/gpt-4o-mini') => call(h.edgeUrl, key, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] });

describe('management keys (admin CLI)', () => {
  it('mgmt-key create prints key, id and scopes (default: all), list shows it masked, revoke stops it', async () => {
    const created = (await h.accessKeys.cli(['mgmt-key', 'create', '--org', org.organizationId])) as { key: string; id: string; scopes: string[] };
    expect(created.key).toMatch(/^mgmt_/);
    expect(created.scopes).toEqual(expect.arrayContaining(['manage_api_keys', 'view_billing', 'manage_routing', 'view_routing']));
    const listed = (await h.accessKeys.cli(['mgmt-key', 'list', '--org', org.organizationId])) as Array<{ id: string; key_masked: string }>;
    expect(listed.find((k) => k.id === created.id)?.key_masked).toMatch(/^mgmt_\*+/);
    expect(JSON.stringify(listed)).not.toContain(created.key);
    expect((await call(h.edgeUrl, created.key, 'GET', '/v1/keys')).status).toBe(200);
    await h.accessKeys.cli(['mgmt-key', 'revoke', created.id]);
    await eventually(async () => { expect((await call(h.edgeUrl, created.key, 'GET', '/v1/keys')).status).toBe(401); }, 1000);
  });

  it('a management key gets 401 on every model endpoint', async () => {
    for (const path of ['/v1/responses', '/v1/chat/completions', '/v1/openai/chat/completions', '/v1/embeddings', '/v1/messages', '/v1/anthropic/v1/messages']) {
      const res = await call(h.edgeUrl, org.mgmtKey, 'POST', path, { model: 'openai/gpt-4o-mini', input: 'hi' });
      expect(res.status).toBe(401);
    }
    // The model catalog is a model endpoint too: its GET routes refuse a management key the same way.
    const { key: gatewayKey } = await createKey(h, org);
    for (const path of ['/v1/models', '/v1/openai/models', '/v1/openai/v1/models', '/v1/models/openai/gpt-4o-mini', '/v1/openai/models/openai%2Fgpt-4o-mini']) {
      const res = await call(h.edgeUrl, org.mgmtKey, 'GET', path);
      expect({ path, status: res.status, code: (res.body as { error?: { code?: string } }).error?.code }).toEqual({ path, status: 401, code: 'management_key_not_allowed' });
      expect((await call(h.edgeUrl, gatewayKey, 'GET', path)).status).toBe(200);
    }
  });

  it('the old scope names manage_keys and read_usage work as manage_api_keys and view_billing; a missing scope is 403', async () => {
    const legacy = (await h.accessKeys.cli(['mgmt-key', 'create', '--org', org.organizationId, '--scope', 'manage_keys', '--scope', 'read_usage'])) as { key: string; scopes: string[] };
    expect(legacy.scopes.sort()).toEqual(['manage_api_keys', 'view_billing']);
    expect((await call(h.edgeUrl, legacy.key, 'POST', '/v1/keys', {})).status).toBe(201);
    expect((await call(h.edgeUrl, legacy.key, 'GET', '/v1/usage')).status).toBe(200);
    const missing = await call(h.edgeUrl, legacy.key, 'POST', '/v1/projects', { name: 'x' });
    expect(missing.status).toBe(403);
    expect(missing.body.detail).toContain('manage_projects');
  });
});

describe('gateway API keys', () => {
  it('POST /v1/keys is 201 with every field optional, the raw key exactly once, and hash = SHA-256 of the key', async () => {
    const created = await createKey(h, org);
    expect(created.hash).toBe(createHash('sha256').update(created.key).digest('hex'));
    expect(created).toMatchObject({ limit: null, limit_reset: null, usage: 0, usage_daily: 0, usage_weekly: 0, usage_monthly: 0, byok_usage: 0, limit_remaining: null, allowed_models: null, routing_policy_id: null, disabled: false, creator_user_id: null, project_id: null, expires_at: null });
    const read = await call(h.edgeUrl, org.mgmtKey, 'GET', `/v1/keys/${created.hash}`);
    expect(read.status).toBe(200);
    expect(read.body.data.key).toBeUndefined();
    const listed = await call(h.edgeUrl, org.mgmtKey, 'GET', '/v1/keys?offset=0&limit=500');
    expect(JSON.stringify(listed.body)).not.toContain(created.key);
    expect(listed.body.data[0].hash).toBe(created.hash); // newest first
  });

  it('PATCH leaves omitted fields unchanged, null clears, disabled pauses the key on every replica, project_id is 400', async () => {
    const created = await createKey(h, org, { name: 'n', limit: 5, limit_reset: 'daily', allowed_models: ['openai/*'] });
    expect((await chat(created.key)).status).toBe(200);
    const patched = await call(h.edgeUrl, org.mgmtKey, 'PATCH', `/v1/keys/${created.hash}`, { limit: null });
    expect(patched.body.data).toMatchObject({ name: 'n', limit: null, limit_reset: 'daily', allowed_models: ['openai/*'] });
    const cleared = await call(h.edgeUrl, org.mgmtKey, 'PATCH', `/v1/keys/${created.hash}`, { allowed_models: null });
    expect(cleared.body.data.allowed_models).toBeNull();
    const project = await call(h.edgeUrl, org.mgmtKey, 'PATCH', `/v1/keys/${created.hash}`, { project_id: null });
    expect(project.status).toBe(400);
    expect(project.body.detail.code).toBe('project_id_immutable');

    const replica = await h.startReplica();
    expect((await call(replica, created.key, 'POST', '/v1/chat/completions', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
    await call(h.edgeUrl, org.mgmtKey, 'PATCH', `/v1/keys/${created.hash}`, { disabled: true });
    await eventually(async () => { expect((await call(replica, created.key, 'POST', '/v1/chat/completions', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(401); }, 1000);
    expect((await chat(created.key)).status).toBe(401);
  });

  it('DELETE stops the key at once; GET /v1/key describes the calling key', async () => {
    const created = await createKey(h, org, { name: 'self' });
    const self = await call(h.edgeUrl, created.key, 'GET', '/v1/key');
    expect(self.status).toBe(200);
    expect(self.body.data).toMatchObject({ hash: created.hash, name: 'self' });
    expect((await call(h.edgeUrl, org.mgmtKey, 'DELETE', `/v1/keys/${created.hash}`)).status).toBe(200);
    expect((await chat(created.key)).status).toBe(401);
    expect((await call(h.edgeUrl, org.mgmtKey, 'GET', `/v1/keys/${created.hash}`)).status).toBe(404);
  });

  it('an expired key is refused', async () => {
    const created = await createKey(h, org, { expires_at: new Date(Date.now() + 1500).toISOString() });
    expect((await chat(created.key)).status).toBe(200);
    await eventually(async () => { expect((await chat(created.key)).status).toBe(401); }, 5000);
  });

  it('403 payment_method_required when a paid organization has no payment method on file; the free plan needs none', async () => {
    const paid = await createOrg(h, { plan: 'paid', paymentMethod: false });
    const res = await call(h.edgeUrl, paid.mgmtKey, 'POST', '/v1/keys', {});
    expect(res.status).toBe(403);
    expect(res.body.detail.code).toBe('payment_method_required');
    await h.accessKeys.cli(['org', 'update', paid.organizationId, '--payment-method', 'true']);
    await eventually(async () => { expect((await call(h.edgeUrl, paid.mgmtKey, 'POST', '/v1/keys', {})).status).toBe(201); }, 1000);
    const free = await createOrg(h, { plan: 'free', paymentMethod: false });
    expect((await call(h.edgeUrl, free.mgmtKey, 'POST', '/v1/keys', {})).status).toBe(201);
  });

  it('409 org_api_key_limit_reached once the organization holds 1,000 keys', async () => {
    const full = await createOrg(h);
    const first = await createKey(h, full);
    // Fill up to the limit directly in the gateway's table: 999 more rows like the first.
    const { createPrisma } = await import('../src/db');
    const prisma = createPrisma(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/patchbay_test', 2);
    try {
      await prisma.apiKey.createMany({ data: Array.from({ length: 999 }, (_, i) => ({ hash: createHash('sha256').update(`${first.hash}-${i}`).digest('hex'), organizationId: full.organizationId, label: 'filler' })) });
    } finally {
      await prisma.$disconnect();
    }
    const res = await call(h.edgeUrl, full.mgmtKey, 'POST', '/v1/keys', {});
    expect(res.status).toBe(409);
    expect(res.body.detail.code).toBe('org_api_key_limit_reached');
  });

  it('a body field the key object does not have is 400 naming it', async () => {
    const res = await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/keys', { limit: -1, colour: 'red' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('colour');
    expect(res.body.detail).toContain('limit');
  });
});

describe('projects, customers and customer keys', () => {
  it('customer keys are made with a management key or an organization key, never a customer key; requests with them belong to the customer', async () => {
    const customerId = '2b0c7c43-7d7e-4f0a-9d3b-3f0f0e3c0a11';
    expect((await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/customers', { id: customerId, name: 'Acme', budget: 10 })).status).toBe(201);
    const orgKey = await createKey(h, org);
    const viaOrgKey = await call(h.edgeUrl, orgKey.key, 'POST', `/v1/customers/${customerId}/api-keys`, { rate_limit_rpm: 5 });
    expect(viaOrgKey.status).toBe(201);
    expect(viaOrgKey.body).toMatchObject({ customer_id: customerId, rate_limit_rpm: 5 });
    const viaCustomerKey = await call(h.edgeUrl, viaOrgKey.body.key, 'POST', `/v1/customers/${customerId}/api-keys`, {});
    expect(viaCustomerKey.status).toBe(403);
    // A customer key is a gateway API key: it reads the model catalog like any other.
    expect((await call(h.edgeUrl, viaOrgKey.body.key, 'GET', '/v1/models')).status).toBe(200);
    const mismatch = await call(h.edgeUrl, viaOrgKey.body.key, 'POST', '/v1/chat/completions', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, { 'X-Svc-Customer': '5f7ab4c1-0000-4000-8000-000000000000' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.code).toBe('customer_mismatch');
    await call(h.edgeUrl, org.mgmtKey, 'PATCH', `/v1/customers/${customerId}`, { active: false });
    await eventually(async () => { expect((await chat(viaOrgKey.body.key)).status).toBe(403); }, 1000);
  });

  it('projects: create, list, get, update, delete; a project key is fixed to its project', async () => {
    const project = await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/projects', { name: 'Support bot', budget: 25 });
    expect(project.status).toBe(201);
    expect(project.body).toMatchObject({ name: 'Support bot', budget: 25 });
    expect((await call(h.edgeUrl, org.mgmtKey, 'PATCH', `/v1/projects/${project.body.id}`, { budget: null })).body.budget).toBeNull();
    const key = await createKey(h, org, { project_id: project.body.id });
    expect(key.project_id).toBe(project.body.id);
    const other = await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/projects', { name: 'Other' });
    const mismatch = await call(h.edgeUrl, key.key, 'POST', '/v1/chat/completions', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, { 'X-Project-Id': other.body.id });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.code).toBe('project_mismatch');
    expect((await call(h.edgeUrl, org.mgmtKey, 'DELETE', `/v1/projects/${other.body.id}`)).status).toBe(200);
    expect((await call(h.edgeUrl, org.mgmtKey, 'GET', `/v1/projects/${other.body.id}`)).status).toBe(404);
  });
});

describe('OpenAPI', () => {
  it('every gateway route is in the merged document the edge serves at /openapi.json (and /docs)', async () => {
    const doc = await call(h.edgeUrl, null, 'GET', '/openapi.json');
    expect(doc.status).toBe(200);
    for (const path of ['/v1/responses', '/v1/chat/completions', '/v1/openai/chat/completions', '/v1/embeddings', '/v1/messages', '/v1/anthropic/v1/messages/count_tokens', '/v1/models/{model}', '/v1/keys', '/v1/keys/{hash}', '/v1/key', '/v1/projects', '/v1/customers/{customer_id}/api-keys', '/v1/vendor-keys/{vendor}', '/v1/tags', '/v1/blocklist', '/v1/usage']) {
      expect(Object.keys(doc.body.paths)).toContain(path);
    }
    expect((await fetch(`${h.edgeUrl}/docs`)).status).toBe(200);
  });
});
