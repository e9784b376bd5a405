import { hashAccessKey } from '@patchbay/auth';
import request from 'supertest';
import { TEST_SERVICE_TOKEN } from './env';
import { bearer, createKey, newOrganization, startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const verify = (keyHash: unknown, token: string | null = TEST_SERVICE_TOKEN) => {
  const req = request(h.app).post('/internal/v1/access-keys/verify');
  if (token) req.set('X-Service-Token', token);
  return req.send({ key_hash: keyHash });
};

describe('internal verification route', () => {
  it('requires the service token', async () => {
    const org = await newOrganization(h.db);
    expect((await verify(hashAccessKey(org.master_key!), null)).status).toBe(401);
    expect((await verify(hashAccessKey(org.master_key!), 'wrong-token-wrong-token')).status).toBe(401);
  });

  it('returns the principal of an active key from its hash, with the organization settings services act on', async () => {
    const org = await newOrganization(h.db, { plan: 'paid', monthlyCredits: 5000 });
    const key = await createKey(h.app, org.master_key!, { name: 'runtime', scopes: ['runtime:all'], tool_pack_ids: ['00000000-0000-4000-8000-000000000001'] });
    const res = await verify(hashAccessKey(key.key));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      keyId: key.id,
      organizationId: org.organization_id,
      environment: 'production',
      scopes: ['runtime:all'],
      toolPackIds: ['00000000-0000-4000-8000-000000000001'],
      registeredUserIds: null,
      isMaster: false,
      organization: { plan: 'paid', monthlyCredits: 5000, mcpRateLimitPerMinute: 30 },
    });
  });

  it('answers 404 for an unknown, revoked or expired key', async () => {
    const org = await newOrganization(h.db);
    expect((await verify('0'.repeat(64))).status).toBe(404);
    const key = await createKey(h.app, org.master_key!, { name: 'soon revoked' });
    await request(h.app).post(`/api/v1/access-keys/${key.id}/revoke/`).set(bearer(org.master_key!)).expect(204);
    expect((await verify(hashAccessKey(key.key))).status).toBe(404);
    const expired = await createKey(h.app, org.master_key!, { name: 'expired' });
    await h.db.accessKey.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1) } });
    expect((await verify(hashAccessKey(expired.key))).status).toBe(404);
  });

  it('rejects a body that is not a SHA-256 hex digest with a 400', async () => {
    const res = await verify('pb_live_rawkey');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('body.key_hash');
  });
});

describe('internal organization retention route', () => {
  it('lists the organizations with their own audit/tool-call retention, for the service token only', async () => {
    const own = await newOrganization(h.db);
    const plain = await newOrganization(h.db);
    await h.db.organization.update({ where: { id: own.organization_id }, data: { auditRetentionDays: 30 } });
    expect((await request(h.app).get('/internal/v1/organizations/retention')).status).toBe(401);
    const res = await request(h.app).get('/internal/v1/organizations/retention').set('X-Service-Token', TEST_SERVICE_TOKEN);
    expect(res.status).toBe(200);
    expect(res.body.organizations).toContainEqual({ organization_id: own.organization_id, retention_days: 30 });
    expect(res.body.organizations.some((o: { organization_id: string }) => o.organization_id === plain.organization_id)).toBe(false);
  });
});

describe('service endpoints', () => {
  it('serves /healthz with the state of PostgreSQL and Redis', async () => {
    const res = await request(h.app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', service: 'access-keys-and-audit', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('serves its OpenAPI document without internal routes', async () => {
    const res = await request(h.app).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/api/v1/access-keys', '/api/v1/access-keys/{key_id}/revoke', '/api/v1/audit-log']));
    expect(Object.keys(res.body.paths).some((p) => p.startsWith('/internal'))).toBe(false);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await request(h.app).get('/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  it('answers malformed JSON with a 400, not a 500', async () => {
    const org = await newOrganization(h.db);
    const res = await request(h.app).post('/api/v1/access-keys/').set(bearer(org.master_key!)).set('Content-Type', 'application/json').send('{"name": ');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
  });
});
