import type { TestOrganization } from '@patchbay/testing';
import { storeCredential, type StoreCredentialInput } from '../src/domain/store-credential';
import { bearer, expectAuditEvent, request, startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h.close();
});

const SECRET = 'never-show-this-secret';

async function createUser(key: string, originUserId: string, company = 'acme'): Promise<{ id: string }> {
  const res = await request(h.app)
    .post('/api/v1/registered-users/')
    .set(bearer(key))
    .send({ origin_user_id: originUserId, origin_user_name: originUserId, shared_credential_group: { origin_company_id: company, origin_company_name: company } });
  expect(res.status).toBe(201);
  return res.body;
}

async function store(org: TestOrganization, input: Partial<StoreCredentialInput> & Pick<StoreCredentialInput, 'connectorSlug' | 'authScope'>): Promise<string> {
  const { connection } = await h.db.$transaction((tx) =>
    storeCredential(tx, h.services.box, {
      organizationId: org.organization_id,
      environment: 'production',
      authType: 'oauth2',
      secret: { values: {}, access_token: SECRET, refresh_token: `${SECRET}-refresh`, expires_in: 3600 },
      ...input,
    }),
  );
  return connection.id;
}

const list = async (key: string, query = '') => request(h.app).get(`/api/v1/connections/?page_size=100${query}`).set(bearer(key));
const ids = async (key: string, query = ''): Promise<string[]> => {
  const res = await list(key, query);
  expect(res.status).toBe(200);
  return res.body.results.map((c: { id: string }) => c.id).sort();
};
const sorted = (...values: string[]) => [...values].sort();

describe('connections list', () => {
  let org: TestOrganization;
  let alice: { id: string };
  let bob: { id: string };
  const c: Record<string, string> = {};

  beforeAll(async () => {
    org = await h.newOrganization();
    alice = await createUser(org.master_key, 'alice');
    bob = await createUser(org.master_key, 'bob', 'globex');
    c.aliceGithub = await store(org, { connectorSlug: 'github', authScope: 'INDIVIDUAL', registeredUserId: alice.id });
    c.bobGithub = await store(org, { connectorSlug: 'github', authScope: 'INDIVIDUAL', registeredUserId: bob.id });
    c.acmeLinear = await store(org, { connectorSlug: 'linear', authScope: 'SHARED', companyId: 'acme' });
    c.globexLinear = await store(org, { connectorSlug: 'linear', authScope: 'SHARED', companyId: 'globex' });
    c.orgJira = await store(org, { connectorSlug: 'jira', authScope: 'ORGANIZATION', authType: 'api_key', secret: { values: { api_token: SECRET } } });
    await h.db.connection.update({ where: { id: c.bobGithub }, data: { status: 'ERROR', statusReason: 'The provider refused the refresh token (invalid_grant).' } });
    // Spread creation times so the date filters have something to cut.
    const times: Array<[string, string]> = [
      [c.aliceGithub, '2026-01-01T00:00:00Z'],
      [c.bobGithub, '2026-02-01T00:00:00Z'],
      [c.acmeLinear, '2026-03-01T00:00:00Z'],
      [c.globexLinear, '2026-04-01T00:00:00Z'],
      [c.orgJira, '2026-05-01T00:00:00Z'],
    ];
    for (const [id, at] of times) await h.db.connection.update({ where: { id }, data: { createdAt: new Date(at) } });
  });

  it('lists every connection of the environment, newest first, without any credential value', async () => {
    const res = await list(org.master_key);
    expect(res.body.count).toBe(5);
    expect(res.body.results.map((r: { id: string }) => r.id)).toEqual([c.orgJira, c.globexLinear, c.acmeLinear, c.bobGithub, c.aliceGithub]);
    const bob = res.body.results.find((r: { id: string }) => r.id === c.bobGithub);
    expect(bob).toEqual({
      id: c.bobGithub,
      connector: 'github',
      auth_scope: 'INDIVIDUAL',
      registered_user_id: expect.any(String),
      company_id: null,
      status: 'ERROR',
      status_reason: 'The provider refused the refresh token (invalid_grant).',
      auth_type: 'oauth2',
      application_credential_id: null,
      created_at: '2026-02-01T00:00:00.000Z',
      updated_at: expect.any(String),
      last_refreshed_at: null,
      access_token_expires_at: expect.any(String),
    });
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
    expect(JSON.stringify(res.body)).not.toContain('v1.');
    const shared = res.body.results.find((r: { id: string }) => r.id === c.acmeLinear);
    expect(shared).toMatchObject({ auth_scope: 'SHARED', company_id: 'acme', registered_user_id: null });
  });

  it('filters by auth_scope, one or a comma-separated list', async () => {
    expect(await ids(org.master_key, '&auth_scope=SHARED')).toEqual(sorted(c.acmeLinear!, c.globexLinear!));
    expect(await ids(org.master_key, '&auth_scope=INDIVIDUAL,ORGANIZATION')).toEqual(sorted(c.aliceGithub!, c.bobGithub!, c.orgJira!));
  });

  it('company filters shared connections by company origin id', async () => {
    expect(await ids(org.master_key, '&company=acme')).toEqual([c.acmeLinear]);
    expect(await ids(org.master_key, '&company=globex&auth_scope=SHARED')).toEqual([c.globexLinear]);
    expect(await ids(org.master_key, '&company=acme&auth_scope=INDIVIDUAL')).toEqual([]);
  });

  it('filters by connector slug and by status ACTIVE or ERROR (comma-separated allowed)', async () => {
    expect(await ids(org.master_key, '&connector=github')).toEqual(sorted(c.aliceGithub!, c.bobGithub!));
    expect(await ids(org.master_key, '&status=ERROR')).toEqual([c.bobGithub]);
    expect(await ids(org.master_key, '&status=ACTIVE')).toHaveLength(4);
    expect(await ids(org.master_key, '&status=ACTIVE,ERROR')).toHaveLength(5);
    expect(await ids(org.master_key, '&connector=github&status=ACTIVE')).toEqual([c.aliceGithub]);
  });

  it("registered_user_id keeps that user's own (INDIVIDUAL) connections, ACTIVE and ERROR; a value that is not an id is a 400 naming it", async () => {
    expect(await ids(org.master_key, `&registered_user_id=${bob.id}`)).toEqual([c.bobGithub]);
    expect(await ids(org.master_key, `&registered_user_id=${alice.id}&status=ERROR`)).toEqual([]);
    expect(await ids(org.master_key, `&registered_user_id=${alice.id}&auth_scope=SHARED`)).toEqual([]);
    const bad = await list(org.master_key, '&registered_user_id=alice');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('query.registered_user_id');
  });

  it('created_at_after and created_at_before are inclusive date-time bounds', async () => {
    expect(await ids(org.master_key, '&created_at_after=2026-03-01T00:00:00Z')).toEqual(sorted(c.acmeLinear!, c.globexLinear!, c.orgJira!));
    expect(await ids(org.master_key, '&created_at_before=2026-02-01T00:00:00Z')).toEqual(sorted(c.aliceGithub!, c.bobGithub!));
    expect(await ids(org.master_key, '&created_at_after=2026-02-01T00:00:00Z&created_at_before=2026-03-15')).toEqual(sorted(c.bobGithub!, c.acmeLinear!));
    // An offset works percent-encoded and also when its '+' arrived as a space.
    expect(await ids(org.master_key, '&created_at_after=2026-03-01T02:00:00%2B02:00&created_at_before=2026-03-01T02:00:00+02:00')).toEqual([c.acmeLinear]);
  });

  it('invalid values are 400 naming the field', async () => {
    const cases: Array<[string, string]> = [
      ['auth_scope=PERSONAL', 'query.auth_scope'],
      ['auth_scope=SHARED,', 'query.auth_scope'],
      ['status=BROKEN', 'query.status'],
      ['created_at_after=yesterday', 'query.created_at_after'],
      ['created_at_before=2026-01-01T00:00:00', 'query.created_at_before'],
      ['created_at_after=2026-02-01&created_at_before=2026-01-01', 'query.created_at_after'],
      ['page=0', 'query.page'],
      ['page_size=1000', 'query.page_size'],
    ];
    for (const [query, field] of cases) {
      const res = await request(h.app).get(`/api/v1/connections/?${query}`).set(bearer(org.master_key));
      expect([query, res.status, res.body.errors?.[0]?.field]).toEqual([query, 400, field]);
    }
  });

  it('paginates with count, next and previous', async () => {
    const first = await request(h.app).get('/api/v1/connections/?page_size=2').set(bearer(org.master_key));
    expect(first.body).toMatchObject({ count: 5, next: expect.stringContaining('page=2'), previous: null });
    const page = await request(h.app).get('/api/v1/connections/?page_size=2&page=2').set(bearer(org.master_key));
    expect(page.body).toMatchObject({ count: 5, next: expect.stringContaining('page=3'), previous: expect.stringContaining('page=1') });
    expect(page.body.results.map((r: { id: string }) => r.id)).toEqual([c.acmeLinear, c.bobGithub]);
  });

  it('a key restricted to registered users sees only the INDIVIDUAL connections of its users', async () => {
    const restricted = await h.accessKeys.createKey(org.master_key, { name: 'alice only', registered_user_ids: [alice.id] });
    expect(await ids(restricted.key)).toEqual([c.aliceGithub]);
    expect(await ids(restricted.key, '&auth_scope=SHARED')).toEqual([]);
  });

  it('the other environment and other organizations see none of them', async () => {
    expect(await ids(org.test_key)).toEqual([]);
    const other = await h.newOrganization();
    expect(await ids(other.master_key)).toEqual([]);
  });
});

describe('credentials: DELETE /api/v1/credentials/registered-users/{id}/connectors/{slug}/', () => {
  const url = (userId: string, slug: string) => `/api/v1/credentials/registered-users/${userId}/connectors/${slug}/`;

  it('removes the stored credential (204); the registered user, its other credentials and shared ones stay', async () => {
    const org = await h.newOrganization();
    const user = await createUser(org.master_key, 'carol');
    const github = await store(org, { connectorSlug: 'github', authScope: 'INDIVIDUAL', registeredUserId: user.id });
    const linear = await store(org, { connectorSlug: 'linear', authScope: 'INDIVIDUAL', registeredUserId: user.id });
    const shared = await store(org, { connectorSlug: 'github', authScope: 'SHARED', companyId: 'acme' });

    const res = await request(h.app).delete(url(user.id, 'github')).set(bearer(org.master_key));
    expect(res.status).toBe(204);
    expect(await h.db.connection.count({ where: { id: github } })).toBe(0);
    expect(await h.db.connection.count({ where: { id: { in: [linear, shared] } } })).toBe(2);
    const after = await request(h.app).get(`/api/v1/registered-users/${user.id}/`).set(bearer(org.master_key));
    expect(after.status).toBe(200);
    // github is still listed through the company's shared credential; linear is the user's own.
    expect(after.body.authenticated_connectors).toEqual(['github', 'linear']);
    const event = await expectAuditEvent(h, org.master_key, (e) => e.event_type === 'credential.deleted' && e.resource_id === github);
    expect(event).toMatchObject({ user_id: user.id, details: { connector: 'github', auth_scope: 'INDIVIDUAL' } });

    // Deleted already: nothing left for that connector.
    const again = await request(h.app).delete(url(user.id, 'github')).set(bearer(org.master_key));
    expect(again.status).toBe(404);
  });

  it('is 404 for an unknown user, a user of another environment, or a connector without a credential', async () => {
    const org = await h.newOrganization();
    const user = await createUser(org.master_key, 'dave');
    await store(org, { connectorSlug: 'github', authScope: 'INDIVIDUAL', registeredUserId: user.id });
    expect((await request(h.app).delete(url('6b0c7a86-2a3b-4c3e-9d53-0d7f9c1a2b3c', 'github')).set(bearer(org.master_key))).status).toBe(404);
    expect((await request(h.app).delete(url(user.id, 'slack')).set(bearer(org.master_key))).status).toBe(404);
    expect((await request(h.app).delete(url(user.id, 'github')).set(bearer(org.test_key))).status).toBe(404);
    const other = await h.newOrganization();
    expect((await request(h.app).delete(url(user.id, 'github')).set(bearer(other.master_key))).status).toBe(404);
    expect(await h.db.connection.count({ where: { registeredUserId: user.id } })).toBe(1);
  });

  it('a user outside a restricted key is 404 Resource not in API key scope.', async () => {
    const org = await h.newOrganization();
    const mine = await createUser(org.master_key, 'mine');
    const theirs = await createUser(org.master_key, 'theirs');
    await store(org, { connectorSlug: 'github', authScope: 'INDIVIDUAL', registeredUserId: theirs.id });
    const restricted = await h.accessKeys.createKey(org.master_key, { name: 'mine', registered_user_ids: [mine.id] });
    const res = await request(h.app).delete(url(theirs.id, 'github')).set(bearer(restricted.key));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Resource not in API key scope.', code: 'not_in_scope' });
    expect(await h.db.connection.count({ where: { registeredUserId: theirs.id } })).toBe(1);
  });
});
