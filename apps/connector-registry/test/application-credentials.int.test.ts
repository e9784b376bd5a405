import { randomUUID } from 'node:crypto';
import { clientSecretContext } from '../src/domain/application-credentials';
import { bearer, expectAuditEvent, request, startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h.close();
});

const base = '/api/v1/application-credentials/';
const create = (key: string, body: Record<string, unknown>) => request(h.app).post(base).set(bearer(key)).send(body);

describe('application credentials', () => {
  it('create returns 201; client_secret is encrypted at rest and never returned', async () => {
    const org = await h.newOrganization();
    const res = await create(org.master_key, { connector: 'github', client_id: 'Iv1.abc', client_secret: 'super-secret-value', scopes: ['repo'] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), connector: 'github', external_id: null, client_id: 'Iv1.abc', has_client_secret: true, scopes: ['repo'], created_at: expect.any(String), updated_at: expect.any(String) });
    expect(JSON.stringify(res.body)).not.toContain('super-secret-value');
    const row = await h.db.applicationCredential.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row.clientSecretSealed).not.toContain('super-secret-value');
    expect(h.services.box.open(row.clientSecretSealed!, clientSecretContext(row.id))).toBe('super-secret-value');
    const audit = await expectAuditEvent(h, org.master_key, (e) => e.event_type === 'application_credential.created' && e.resource_id === res.body.id);
    expect(JSON.stringify(audit)).not.toContain('super-secret-value');
  });

  it('lists with the external_id and slug filters', async () => {
    const org = await h.newOrganization();
    await create(org.master_key, { connector: 'github', client_id: 'a', external_id: 'tenant-1' });
    await create(org.master_key, { connector: 'github', client_id: 'b', external_id: 'tenant-2' });
    await create(org.master_key, { connector: 'github', client_id: 'c' });
    const all = await request(h.app).get(base).set(bearer(org.master_key));
    expect(all.body.count).toBe(3);
    const byExternal = await request(h.app).get(`${base}?external_id=tenant-2`).set(bearer(org.master_key));
    expect(byExternal.body.results.map((r: { client_id: string }) => r.client_id)).toEqual(['b']);
    const bySlug = await request(h.app).get(`${base}?slug=slack`).set(bearer(org.master_key));
    expect(bySlug.body.count).toBe(0);
  });

  it('PATCH leaves omitted fields unchanged; null clears client_secret or external_id', async () => {
    const org = await h.newOrganization();
    const created = (await create(org.master_key, { connector: 'github', client_id: 'id-1', client_secret: 's1', external_id: 'tenant' })).body;
    const renamed = await request(h.app).patch(`${base}${created.id}/`).set(bearer(org.master_key)).send({ client_id: 'id-2' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ client_id: 'id-2', has_client_secret: true, external_id: 'tenant' });
    const cleared = await request(h.app).patch(`${base}${created.id}/`).set(bearer(org.master_key)).send({ client_secret: null, external_id: null });
    expect(cleared.body).toMatchObject({ client_id: 'id-2', has_client_secret: false, external_id: null });
  });

  it('DELETE returns 204 and also deletes every user credential obtained through it', async () => {
    const org = await h.newOrganization();
    const app = (await create(org.master_key, { connector: 'github', client_id: 'x', client_secret: 'y' })).body;
    const other = (await create(org.master_key, { connector: 'github', client_id: 'z', external_id: 'second' })).body;
    const conn = (id: string, appId: string) => ({
      id,
      organizationId: org.organization_id,
      environment: 'production' as const,
      connectorSlug: 'github',
      authScope: 'INDIVIDUAL' as const,
      registeredUserId: id,
      subjectKey: id,
      authType: 'oauth2',
      credentialSealed: h.services.box.sealJson({ access_token: 't' }, `connection:${id}`),
      applicationCredentialId: appId,
    });
    await h.db.connection.createMany({ data: [conn(randomUUID(), app.id), conn(randomUUID(), app.id), conn(randomUUID(), other.id)] });
    expect((await request(h.app).delete(`${base}${app.id}/`).set(bearer(org.master_key))).status).toBe(204);
    expect(await h.db.connection.count({ where: { organizationId: org.organization_id } })).toBe(1);
    expect((await request(h.app).get(`${base}${app.id}/`).set(bearer(org.master_key))).status).toBe(404);
  });

  it('rejects a non-OAuth or unknown connector and a missing client_id with a 400 naming the field', async () => {
    const org = await h.newOrganization();
    const unknown = await create(org.master_key, { connector: 'nope', client_id: 'x' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].field).toBe('body.connector');
    const missing = await create(org.master_key, { connector: 'github' });
    expect(missing.body.errors.map((e: { field: string }) => e.field)).toContain('body.client_id');
  });

  it('answers 409 for a second credential with the same connector and external_id', async () => {
    const org = await h.newOrganization();
    expect((await create(org.master_key, { connector: 'github', client_id: 'a' })).status).toBe(201);
    const dup = await create(org.master_key, { connector: 'github', client_id: 'b' });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('conflict');
  });

  it('production and test keys never see each other\'s application credentials', async () => {
    const org = await h.newOrganization();
    const prod = (await create(org.master_key, { connector: 'github', client_id: 'a' })).body;
    expect((await request(h.app).get(`${base}${prod.id}/`).set(bearer(org.test_key))).status).toBe(404);
    expect((await request(h.app).get(base).set(bearer(org.test_key))).body.count).toBe(0);
  });
});
