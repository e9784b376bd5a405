import { QUEUE_NAMES, type RegisteredUserDeletedJob } from '@patchbay/queues';
import { createRedis, type RedisClient } from '@patchbay/service-kit';
import { TEST_REDIS_URL, waitFor, type TestOrganization } from '@patchbay/testing';
import { Queue } from 'bullmq';
import { storeCredential, type StoreCredentialInput } from '../src/domain/store-credential';
import { bearer, expectAuditEvent, request, startHarness, type Harness } from './harness';

let h: Harness;
let queueConnection: RedisClient;
let deletions: Queue;
beforeAll(async () => {
  h = await startHarness();
  queueConnection = createRedis(TEST_REDIS_URL, { forQueue: true });
  deletions = new Queue(QUEUE_NAMES.registeredUserDeletions, { connection: queueConnection, prefix: process.env.QUEUE_PREFIX });
}, 60_000);
afterAll(async () => {
  await deletions.close();
  queueConnection.disconnect();
  await h.close();
});

const base = '/api/v1/registered-users/';

function userBody(originUserId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    origin_user_id: originUserId,
    origin_user_name: `Name of ${originUserId}`,
    shared_credential_group: { origin_company_id: 'acme', origin_company_name: 'Acme Inc.', custom_groupings: { team: 'platform' } },
    ...overrides,
  };
}

async function createUser(key: string, originUserId: string, overrides: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await request(h.app).post(base).set(bearer(key)).send(userBody(originUserId, overrides));
  expect(res.status).toBe(201);
  return res.body;
}

async function store(org: TestOrganization, input: Partial<StoreCredentialInput> & Pick<StoreCredentialInput, 'connectorSlug' | 'authScope'>): Promise<string> {
  const { connection } = await h.db.$transaction((tx) =>
    storeCredential(tx, h.services.box, {
      organizationId: org.organization_id,
      environment: 'production',
      authType: 'bearer_token',
      secret: { values: { token: 'secret-token-value' } },
      ...input,
    }),
  );
  return connection.id;
}

const listIds = async (key: string, query = ''): Promise<string[]> => {
  const res = await request(h.app).get(`${base}?page_size=100${query}`).set(bearer(key));
  expect(res.status).toBe(200);
  return res.body.results.map((u: { origin_user_id: string }) => u.origin_user_id).sort();
};

describe('registered users: create', () => {
  it('creates a registered user (201) with is_test following the key environment, with or without the trailing slash', async () => {
    const org = await h.newOrganization();
    const res = await request(h.app).post('/api/v1/registered-users').set(bearer(org.master_key)).send(userBody('u-1'));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      origin_user_id: 'u-1',
      origin_user_name: 'Name of u-1',
      shared_credential_group: { origin_company_id: 'acme', origin_company_name: 'Acme Inc.', custom_groupings: { team: 'platform' } },
      user_type: 'HUMAN',
      authenticated_connectors: [],
      is_test: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const testUser = await request(h.app).post(base).set(bearer(org.test_key)).send(userBody('u-1'));
    expect(testUser.status).toBe(201);
    expect(testUser.body.is_test).toBe(true);
    expect(testUser.body.id).not.toBe(res.body.id);
    const event = await expectAuditEvent(h, org.master_key, (e) => e.event_type === 'registered_user.created' && e.resource_id === res.body.id);
    expect(event.user_id).toBe(res.body.id);
  });

  it('user_type is HUMAN by default and for null; SYSTEM when asked', async () => {
    const org = await h.newOrganization();
    expect((await createUser(org.master_key, 'null-type', { user_type: null })).user_type).toBe('HUMAN');
    expect((await createUser(org.master_key, 'system', { user_type: 'SYSTEM' })).user_type).toBe('SYSTEM');
  });

  it('create is idempotent on origin_user_id: 200 with the existing record unchanged, even if other fields differ', async () => {
    const org = await h.newOrganization();
    const first = await createUser(org.master_key, 'same');
    const again = await request(h.app)
      .post(base)
      .set(bearer(org.master_key))
      .send(userBody('same', { origin_user_name: 'Another name', user_type: 'SYSTEM', shared_credential_group: { origin_company_id: 'other', origin_company_name: 'Other' } }));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first);
    expect(await h.db.registeredUser.count({ where: { organizationId: org.organization_id } })).toBe(1);
  });

  it('concurrent creates of one origin_user_id make one user: one 201, the others 200 with the same record', async () => {
    const org = await h.newOrganization();
    const responses = await Promise.all(Array.from({ length: 8 }, () => request(h.app).post(base).set(bearer(org.master_key)).send(userBody('racer'))));
    expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
    expect(await h.db.registeredUser.count({ where: { organizationId: org.organization_id } })).toBe(1);
  });

  it('bad input is a 400 naming the field and writes nothing', async () => {
    const org = await h.newOrganization();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ origin_user_name: 'x', shared_credential_group: { origin_company_id: 'a', origin_company_name: 'b' } }, 'body.origin_user_id'],
      [userBody('u', { origin_user_id: '   ' }), 'body.origin_user_id'],
      [userBody('u', { origin_user_name: 'x'.repeat(256) }), 'body.origin_user_name'],
      [userBody('u', { user_type: 'ROBOT' }), 'body.user_type'],
      [userBody('u', { shared_credential_group: undefined }), 'body.shared_credential_group'],
      [userBody('u', { shared_credential_group: { origin_company_id: 'a', origin_company_name: 'b', custom_groupings: { team: 3 } } }), 'body.shared_credential_group.custom_groupings'],
      [userBody('u', { shared_credential_group: { origin_company_name: 'b' } }), 'body.shared_credential_group.origin_company_id'],
      [userBody('u', { surprise: true }), 'body.surprise'],
    ];
    for (const [body, field] of cases) {
      const res = await request(h.app).post(base).set(bearer(org.master_key)).send(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_error');
      expect(res.body.errors.map((e: { field: string }) => e.field).join(' ')).toContain(field);
    }
    expect(await h.db.registeredUser.count({ where: { organizationId: org.organization_id } })).toBe(0);
  });
});

describe('registered users: list', () => {
  it('listing default: only production users; is_test and include_test_users never reach the other environment', async () => {
    const org = await h.newOrganization();
    await createUser(org.master_key, 'prod-1');
    await createUser(org.master_key, 'prod-2');
    await createUser(org.test_key, 'test-1');

    // Production key: production users whatever the filters; asking only for test users gives none.
    expect(await listIds(org.master_key)).toEqual(['prod-1', 'prod-2']);
    expect(await listIds(org.master_key, '&include_test_users=true')).toEqual(['prod-1', 'prod-2']);
    expect(await listIds(org.master_key, '&is_test=false')).toEqual(['prod-1', 'prod-2']);
    expect(await listIds(org.master_key, '&is_test=true')).toEqual([]);

    // Test key without environment matching: the default (production users) is outside its environment.
    expect(await listIds(org.test_key)).toEqual([]);
    expect(await listIds(org.test_key, '&is_test=true')).toEqual(['test-1']);
    expect(await listIds(org.test_key, '&include_test_users=true')).toEqual(['test-1']);
    // is_test wins over include_test_users.
    expect(await listIds(org.test_key, '&include_test_users=true&is_test=false')).toEqual([]);
    expect(await listIds(org.master_key, '&include_test_users=true&is_test=true')).toEqual([]);
  });

  it('with environment matching enabled a test access key returns only test users by default', async () => {
    const org = await h.newOrganization();
    await h.accessKeys.updateOrganization(org.organization_id, ['--environment-matching', 'true']);
    await createUser(org.master_key, 'prod-1');
    await createUser(org.test_key, 'test-1');
    await createUser(org.test_key, 'test-2');
    // The verifier learns of the setting over pub/sub; wait for it rather than for a fixed time.
    await waitFor(async () => (await listIds(org.test_key)).length === 2, 10_000, 'environment matching applied');
    expect(await listIds(org.test_key)).toEqual(['test-1', 'test-2']);
    expect(await listIds(org.test_key, '&is_test=false')).toEqual([]);
    expect(await listIds(org.master_key)).toEqual(['prod-1']);
  });

  it('filters by origin_user_id, paginates, and answers 400 naming the field for a bad boolean', async () => {
    const org = await h.newOrganization();
    for (const id of ['a', 'b', 'c']) await createUser(org.master_key, id);
    expect(await listIds(org.master_key, '&origin_user_id=b')).toEqual(['b']);
    const page = await request(h.app).get(`${base}?page_size=2`).set(bearer(org.master_key));
    expect(page.body.count).toBe(3);
    expect(page.body.results.map((u: { origin_user_id: string }) => u.origin_user_id)).toEqual(['c', 'b']);
    expect(page.body.next).toContain('page=2');
    for (const query of ['is_test=maybe', 'include_test_users=yes-please']) {
      const bad = await request(h.app).get(`${base}?${query}`).set(bearer(org.master_key));
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].field).toBe(`query.${query.split('=')[0]}`);
    }
  });
});

describe('registered users: search', () => {
  it('search matches the start of origin_user_id or any part of the name, in either case, with paging and the other filters', async () => {
    const org = await h.newOrganization();
    await createUser(org.master_key, 'cust-100', { origin_user_name: 'Ada Lovelace' });
    await createUser(org.master_key, 'cust-101', { origin_user_name: 'Grace Hopper' });
    await createUser(org.master_key, 'emp-7', { origin_user_name: 'Customer Success' });
    expect(await listIds(org.master_key, '&search=CUST-10')).toEqual(['cust-100', 'cust-101']);
    expect(await listIds(org.master_key, '&search=hopper')).toEqual(['cust-101']);
    expect(await listIds(org.master_key, '&search=cust')).toEqual(['cust-100', 'cust-101', 'emp-7']);
    expect(await listIds(org.master_key, '&search=100')).toEqual([]);
    expect(await listIds(org.master_key, '&search=cust&origin_user_id=emp-7')).toEqual(['emp-7']);
    const page = await request(h.app).get(`${base}?search=cust&page_size=1&page=2`).set(bearer(org.master_key));
    expect(page.body).toMatchObject({ count: 3, results: [{ origin_user_id: 'cust-101' }] });
    const tooLong = await request(h.app).get(`${base}?search=${'x'.repeat(256)}`).set(bearer(org.master_key));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors[0].field).toBe('query.search');
  });
});

describe('registered users: scope', () => {
  it('a key restricted to registered users sees only its users, in lists too; others are 404 Resource not in API key scope.', async () => {
    const org = await h.newOrganization();
    const mine = await createUser(org.master_key, 'mine');
    const theirs = await createUser(org.master_key, 'theirs');
    const restricted = await h.accessKeys.createKey(org.master_key, { name: 'one user', registered_user_ids: [mine.id] });
    expect(await listIds(restricted.key)).toEqual(['mine']);
    expect((await request(h.app).get(`${base}${mine.id}/`).set(bearer(restricted.key))).status).toBe(200);
    for (const req of [
      request(h.app).get(`${base}${theirs.id}/`),
      request(h.app).patch(`${base}${theirs.id}/`).send({ origin_user_name: 'x' }),
      request(h.app).delete(`${base}${theirs.id}/`),
    ]) {
      const res = await req.set(bearer(restricted.key));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Resource not in API key scope.', code: 'not_in_scope' });
    }
    // Creating: its own user again is the idempotent 200; anyone else (existing or new) is out of scope.
    expect((await request(h.app).post(base).set(bearer(restricted.key)).send(userBody('mine'))).status).toBe(200);
    const existingOther = await request(h.app).post(base).set(bearer(restricted.key)).send(userBody('theirs'));
    const brandNew = await request(h.app).post(base).set(bearer(restricted.key)).send(userBody('brand-new'));
    expect([existingOther.status, existingOther.body.code]).toEqual([404, 'not_in_scope']);
    expect(brandNew.body).toEqual(existingOther.body);
  });

  it('the other environment and other organizations are 404', async () => {
    const org = await h.newOrganization();
    const other = await h.newOrganization();
    const user = await createUser(org.master_key, 'u');
    expect((await request(h.app).get(`${base}${user.id}/`).set(bearer(org.test_key))).status).toBe(404);
    expect((await request(h.app).get(`${base}${user.id}/`).set(bearer(other.master_key))).status).toBe(404);
    expect((await request(h.app).delete(`${base}${user.id}/`).set(bearer(other.master_key))).status).toBe(404);
    expect((await request(h.app).get(`${base}not-a-uuid/`).set(bearer(org.master_key))).status).toBe(404);
    expect(await h.db.registeredUser.count({ where: { id: user.id } })).toBe(1);
  });

  it('needs management:all', async () => {
    const org = await h.newOrganization();
    const runtimeOnly = await h.accessKeys.createKey(org.master_key, { name: 'runtime', scopes: ['runtime:all'] });
    expect((await request(h.app).get(base).set(bearer(runtimeOnly.key))).status).toBe(403);
    expect((await request(h.app).post(base).send(userBody('x'))).status).toBe(401);
  });
});

describe('registered users: get, patch, delete', () => {
  it('authenticated_connectors lists ACTIVE credentials of the user, its company and the organization', async () => {
    const org = await h.newOrganization();
    const user = await createUser(org.master_key, 'with-creds');
    const colleague = await createUser(org.master_key, 'colleague');
    const elsewhere = await createUser(org.master_key, 'elsewhere', { shared_credential_group: { origin_company_id: 'globex', origin_company_name: 'Globex' } });
    await store(org, { connectorSlug: 'github', authScope: 'INDIVIDUAL', registeredUserId: user.id });
    await store(org, { connectorSlug: 'linear', authScope: 'SHARED', companyId: 'acme' });
    await store(org, { connectorSlug: 'jira', authScope: 'ORGANIZATION' });
    const broken = await store(org, { connectorSlug: 'slack', authScope: 'INDIVIDUAL', registeredUserId: user.id });
    await h.db.connection.update({ where: { id: broken }, data: { status: 'ERROR', statusReason: 'revoked' } });
    await store(org, { connectorSlug: 'notion', authScope: 'SHARED', companyId: 'globex' });

    expect((await request(h.app).get(`${base}${user.id}/`).set(bearer(org.master_key))).body.authenticated_connectors).toEqual(['github', 'jira', 'linear']);
    const list = await request(h.app).get(base).set(bearer(org.master_key));
    const bySlug = Object.fromEntries(list.body.results.map((u: { id: string; authenticated_connectors: string[] }) => [u.id, u.authenticated_connectors]));
    expect(bySlug[user.id]).toEqual(['github', 'jira', 'linear']);
    expect(bySlug[colleague.id]).toEqual(['jira', 'linear']);
    expect(bySlug[elsewhere.id]).toEqual(['jira', 'notion']);
  });

  it('PATCH changes only the given fields; shared_credential_group is replaced; user_type null resets to HUMAN', async () => {
    const org = await h.newOrganization();
    const user = await createUser(org.master_key, 'p', { user_type: 'SYSTEM' });
    const url = `${base}${user.id}/`;
    const renamed = await request(h.app).patch(url).set(bearer(org.master_key)).send({ origin_user_name: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ origin_user_id: 'p', origin_user_name: 'Renamed', user_type: 'SYSTEM', shared_credential_group: user.shared_credential_group });
    const regrouped = await request(h.app).patch(url).set(bearer(org.master_key)).send({ shared_credential_group: { origin_company_id: 'new-co', origin_company_name: 'New Co' }, user_type: null });
    expect(regrouped.body).toMatchObject({ user_type: 'HUMAN', shared_credential_group: { origin_company_id: 'new-co', origin_company_name: 'New Co', custom_groupings: {} } });
    expect((await request(h.app).get(url).set(bearer(org.master_key))).body).toEqual(regrouped.body);
    const bad = await request(h.app).patch(url).set(bearer(org.master_key)).send({ user_type: 'ROBOT' });
    expect([bad.status, bad.body.errors[0].field]).toEqual([400, 'body.user_type']);
    await expectAuditEvent(h, org.master_key, (e) => e.event_type === 'registered_user.updated' && e.user_id === user.id);
  });

  it('PATCH may change origin_user_id only to one no other user has (409 otherwise)', async () => {
    const org = await h.newOrganization();
    const user = await createUser(org.master_key, 'first');
    await createUser(org.master_key, 'taken');
    const conflict = await request(h.app).patch(`${base}${user.id}/`).set(bearer(org.master_key)).send({ origin_user_id: 'taken' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('conflict');
    const moved = await request(h.app).patch(`${base}${user.id}/`).set(bearer(org.master_key)).send({ origin_user_id: 'free' });
    expect([moved.status, moved.body.origin_user_id]).toEqual([200, 'free']);
    // The same origin_user_id in the test environment is another user and does not conflict.
    await createUser(org.test_key, 'other-env');
    expect((await request(h.app).patch(`${base}${user.id}/`).set(bearer(org.master_key)).send({ origin_user_id: 'other-env' })).status).toBe(200);
  });

  it('DELETE returns 204 and irreversibly deletes credentials, link tokens and profile, and tells mcp-runtime to delete tool-call records', async () => {
    const org = await h.newOrganization();
    const user = await createUser(org.master_key, 'leaving');
    const own = await store(org, { connectorSlug: 'github', authScope: 'INDIVIDUAL', registeredUserId: user.id });
    const shared = await store(org, { connectorSlug: 'linear', authScope: 'SHARED', companyId: 'acme' });
    await h.db.linkToken.create({
      data: { organizationId: org.organization_id, environment: 'production', tokenHash: `hash-${user.id}`, registeredUserId: user.id, connectorSlug: 'github', expiresAt: new Date(Date.now() + 3_600_000) },
    });

    const res = await request(h.app).delete(`${base}${user.id}/`).set(bearer(org.master_key));
    expect(res.status).toBe(204);
    expect(await h.db.registeredUser.count({ where: { id: user.id } })).toBe(0);
    expect(await h.db.connection.count({ where: { id: own } })).toBe(0);
    expect(await h.db.linkToken.count({ where: { registeredUserId: user.id } })).toBe(0);
    // A company's shared credential is not the user's: it stays for the colleagues.
    expect(await h.db.connection.count({ where: { id: shared } })).toBe(1);
    expect((await request(h.app).get(`${base}${user.id}/`).set(bearer(org.master_key))).status).toBe(404);

    let job: RegisteredUserDeletedJob | undefined;
    await waitFor(async () => {
      const jobs = await deletions.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']);
      const found = jobs.find((j) => (j.data as RegisteredUserDeletedJob).registered_user_id === user.id);
      if (found) {
        job = found.data as RegisteredUserDeletedJob;
        await found.remove();
      }
      return found !== undefined;
    }, 15_000, 'registered-user deletion job');
    expect(job).toMatchObject({ organization_id: org.organization_id, environment: 'production', registered_user_id: user.id, deleted_at: expect.any(String) });

    const event = await expectAuditEvent(h, org.master_key, (e) => e.event_type === 'registered_user.deleted' && e.resource_id === user.id);
    expect(event.user_id).toBe(user.id);
    // The origin_user_id is free again: a new create is a new user.
    expect((await request(h.app).post(base).set(bearer(org.master_key)).send(userBody('leaving'))).status).toBe(201);
  });
});
