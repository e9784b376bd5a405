import { createHash } from 'node:crypto';
import { createLogger, createRedis, createRedisSubscriber } from '@patchbay/service-kit';
import { KeyVerifier } from '@patchbay/auth';
import request from 'supertest';
import { createApp } from '../src/app';
import { loadPrincipalByHash } from '../src/domain/access-keys';
import { createServiceAccountKey } from '../src/domain/organizations';
import { TEST_REDIS_URL, TEST_SERVICE_TOKEN } from './env';
import { bearer, createKey, newOrganization, startHarness, uuid, waitFor, type Harness } from './harness';

const SCOPE_MESSAGE = 'Access key may only act on itself or on keys within its scope.';
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('authentication', () => {
  it('requires Authorization: Bearer <key>; the word Bearer is case-sensitive', async () => {
    const org = await newOrganization(h.db);
    expect((await request(h.app).get('/api/v1/access-keys/')).status).toBe(401);
    expect((await request(h.app).get('/api/v1/access-keys/').set('Authorization', `bearer ${org.master_key}`)).status).toBe(401);
    expect((await request(h.app).get('/api/v1/access-keys/').set(bearer(org.master_key!))).status).toBe(200);
  });

  it('the key appears nowhere else: a key in a query parameter or another header is not accepted', async () => {
    const org = await newOrganization(h.db);
    expect((await request(h.app).get(`/api/v1/access-keys/?api_key=${org.master_key}`)).status).toBe(401);
    expect((await request(h.app).get('/api/v1/access-keys/').set('X-Api-Key', org.master_key!)).status).toBe(401);
  });

  it('an unknown key is 401 with the error envelope', async () => {
    const res = await request(h.app).get('/api/v1/access-keys/').set(bearer('pb_live_doesnotexist'));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'The access key is invalid, revoked or expired.', code: 'authentication_failed' });
  });

  it('a key without management:all cannot manage access keys (403)', async () => {
    const org = await newOrganization(h.db);
    const runtimeOnly = await createKey(h.app, org.master_key!, { name: 'runtime', scopes: ['runtime:all'] });
    const res = await request(h.app).get('/api/v1/access-keys/').set(bearer(runtimeOnly.key));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('permission_denied');
  });
});

describe('create', () => {
  it('returns 201 with the secret in key exactly once; afterwards only key_masked is readable', async () => {
    const org = await newOrganization(h.db);
    const created = await createKey(h.app, org.master_key!, { name: 'ci' });
    expect(created.key).toMatch(/^pb_live_/);
    expect(created.key_masked).toBe(`pb_live_********${created.key.slice(-4)}`);
    const fetched = await request(h.app).get(`/api/v1/access-keys/${created.id}/`).set(bearer(org.master_key!));
    expect(fetched.status).toBe(200);
    expect(fetched.body.key).toBeUndefined();
    expect(fetched.body.key_masked).toBe(created.key_masked);
    const listed = await request(h.app).get('/api/v1/access-keys/').set(bearer(org.master_key!));
    expect(JSON.stringify(listed.body)).not.toContain(created.key);
  });

  it('stores keys only as SHA-256 hashes', async () => {
    const org = await newOrganization(h.db);
    const created = await createKey(h.app, org.master_key!, { name: 'hashed' });
    const row = await h.db.accessKey.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.keyHash).toBe(createHash('sha256').update(created.key).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(created.key);
  });

  it('expires 90 days after creation when both expiry fields are omitted', async () => {
    const org = await newOrganization(h.db);
    const before = Date.now();
    const created = await createKey(h.app, org.master_key!, { name: 'default expiry' });
    const expires = Date.parse(created.expires_at as string);
    expect(expires).toBeGreaterThanOrEqual(before + 90 * 86_400_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 90 * 86_400_000);
  });

  it('accepts expires_in in seconds (an hour is 3600) and expires_at null for a key that never expires', async () => {
    const org = await newOrganization(h.db);
    const hour = await createKey(h.app, org.master_key!, { name: 'hour', expires_in: 3600 });
    const delta = Date.parse(hour.expires_at as string) - Date.parse(hour.created_at as string);
    expect(delta).toBe(3_600_000);
    const never = await createKey(h.app, org.master_key!, { name: 'never', expires_at: null });
    expect(never.expires_at).toBeNull();
  });

  it('rejects both expiry fields, a past expires_at and an unknown field with a 400 naming the field', async () => {
    const org = await newOrganization(h.db);
    const both = await request(h.app).post('/api/v1/access-keys/').set(bearer(org.master_key!)).send({ name: 'x', expires_in: 60, expires_at: '2099-01-01T00:00:00Z' });
    expect(both.status).toBe(400);
    expect(both.body.errors).toEqual([{ field: 'body.expires_in', message: 'send either expires_at or expires_in, not both' }]);
    const past = await request(h.app).post('/api/v1/access-keys/').set(bearer(org.master_key!)).send({ name: 'x', expires_at: '2001-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body.errors[0].field).toBe('body.expires_at');
    const extra = await request(h.app).post('/api/v1/access-keys/').set(bearer(org.master_key!)).send({ name: 'x', colour: 'red' });
    expect(extra.status).toBe(400);
    expect(extra.body.errors[0].field).toBe('body.colour');
    const badScope = await request(h.app).post('/api/v1/access-keys/').set(bearer(org.master_key!)).send({ name: 'x', scopes: ['admin:all'] });
    expect(badScope.status).toBe(400);
    expect(badScope.body.errors[0].field).toBe('body.scopes');
    const noName = await request(h.app).post('/api/v1/access-keys/').set(bearer(org.master_key!)).send({});
    expect(noName.status).toBe(400);
    expect(await h.db.accessKey.count({ where: { organizationId: org.organization_id } })).toBe(2);
  });

  it('accepts null tool_pack_ids and registered_user_ids only if the calling key is itself unrestricted there', async () => {
    const org = await newOrganization(h.db);
    const restricted = await createKey(h.app, org.master_key!, { name: 'restricted', tool_pack_ids: [uuid(1), uuid(2)], registered_user_ids: [uuid(10)] });
    const nullPacks = await request(h.app).post('/api/v1/access-keys/').set(bearer(restricted.key)).send({ name: 'x', tool_pack_ids: null });
    expect(nullPacks.status).toBe(403);
    const nullUsers = await request(h.app).post('/api/v1/access-keys/').set(bearer(restricted.key)).send({ name: 'x', registered_user_ids: null });
    expect(nullUsers.status).toBe(403);
  });

  it('a new key must be narrower than or equal to the calling key on every dimension', async () => {
    const org = await newOrganization(h.db);
    const caller = await createKey(h.app, org.master_key!, { name: 'caller', scopes: ['management:all'], tool_pack_ids: [uuid(1), uuid(2)], registered_user_ids: [uuid(10)], expires_in: 86_400 });
    const wider = async (body: Record<string, unknown>) => request(h.app).post('/api/v1/access-keys/').set(bearer(caller.key)).send({ name: 'x', ...body });
    expect((await wider({ scopes: ['runtime:all'] })).status).toBe(403);
    expect((await wider({ tool_pack_ids: [uuid(3)] })).status).toBe(403);
    expect((await wider({ registered_user_ids: [uuid(11)] })).status).toBe(403);
    expect((await wider({ expires_in: 2 * 86_400 })).status).toBe(403);
    expect((await wider({ expires_at: null })).status).toBe(403);
    const narrower = await wider({ tool_pack_ids: [uuid(2)] });
    expect(narrower.status).toBe(201);
    expect(narrower.body).toMatchObject({ scopes: ['management:all'], tool_pack_ids: [uuid(2)], registered_user_ids: [uuid(10)] });
    // The 90-day default never outlives the caller.
    expect(Date.parse(narrower.body.expires_at)).toBeLessThanOrEqual(Date.parse(caller.expires_at as string));
  });
});

describe('list and get', () => {
  it('lists active keys only, newest first, paginated with absolute links', async () => {
    const org = await newOrganization(h.db);
    const a = await createKey(h.app, org.master_key!, { name: 'a' });
    const b = await createKey(h.app, org.master_key!, { name: 'b' });
    const expired = await createKey(h.app, org.master_key!, { name: 'expired' });
    await h.db.accessKey.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await request(h.app).post(`/api/v1/access-keys/${a.id}/revoke/`).set(bearer(org.master_key!)).expect(204);
    const page1 = await request(h.app).get('/api/v1/access-keys/?page_size=1').set(bearer(org.master_key!)).set('X-Forwarded-Proto', 'https').set('X-Forwarded-Host', 'api.patchbay.test');
    expect(page1.status).toBe(200);
    expect(page1.body.count).toBe(2);
    expect(page1.body.results.map((k: { id: string }) => k.id)).toEqual([b.id]);
    expect(page1.body.next).toBe('https://api.patchbay.test/api/v1/access-keys/?page_size=1&page=2');
    expect(page1.body.previous).toBeNull();
    const page2 = await request(h.app).get('/api/v1/access-keys/?page_size=1&page=2').set(bearer(org.master_key!));
    expect(page2.body.results.map((k: { id: string }) => k.id)).toEqual([org.master_key_id]);
  });

  it('rejects a page_size above 100 with a 400 naming page_size', async () => {
    const org = await newOrganization(h.db);
    const res = await request(h.app).get('/api/v1/access-keys/?page_size=101').set(bearer(org.master_key!));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'query.page_size', message: 'must be an integer from 1 to 100' }]);
  });

  it('production and test keys never see each other\'s resources (404)', async () => {
    const org = await newOrganization(h.db);
    expect((await request(h.app).get(`/api/v1/access-keys/${org.master_key_id}/`).set(bearer(org.test_key))).status).toBe(404);
    expect((await request(h.app).get(`/api/v1/access-keys/${org.test_key_id}/`).set(bearer(org.master_key!))).status).toBe(404);
    const testList = await request(h.app).get('/api/v1/access-keys/').set(bearer(org.test_key));
    expect(testList.body.results.map((k: { id: string }) => k.id)).toEqual([org.test_key_id]);
  });

  it('never shows another organization\'s keys', async () => {
    const mine = await newOrganization(h.db);
    const theirs = await newOrganization(h.db);
    expect((await request(h.app).get(`/api/v1/access-keys/${theirs.master_key_id}/`).set(bearer(mine.master_key!))).status).toBe(404);
    expect((await request(h.app).post(`/api/v1/access-keys/${theirs.master_key_id}/revoke/`).set(bearer(mine.master_key!))).status).toBe(404);
  });

  it('answers 404 for a key id that is not a UUID', async () => {
    const org = await newOrganization(h.db);
    expect((await request(h.app).get('/api/v1/access-keys/not-a-uuid/').set(bearer(org.master_key!))).status).toBe(404);
  });
});

describe('regenerate', () => {
  it('keeps scope and expiry, returns a new secret, and the old secret is invalid at once', async () => {
    const org = await newOrganization(h.db);
    const key = await createKey(h.app, org.master_key!, { name: 'rotating', scopes: ['management:all'], tool_pack_ids: [uuid(5)], expires_in: 7200 });
    expect((await request(h.app).get('/api/v1/access-keys/').set(bearer(key.key))).status).toBe(200);
    const res = await request(h.app).post(`/api/v1/access-keys/${key.id}/regenerate/`).set(bearer(org.master_key!));
    expect(res.status).toBe(200);
    expect(res.body.key).not.toBe(key.key);
    expect(res.body).toMatchObject({ id: key.id, scopes: ['management:all'], tool_pack_ids: [uuid(5)], expires_at: key.expires_at });
    expect((await request(h.app).get('/api/v1/access-keys/').set(bearer(key.key))).status).toBe(401);
    expect((await request(h.app).get('/api/v1/access-keys/').set(bearer(res.body.key))).status).toBe(200);
  });

  it('a key may regenerate itself', async () => {
    const org = await newOrganization(h.db);
    const res = await request(h.app).post(`/api/v1/access-keys/${org.master_key_id}/regenerate/`).set(bearer(org.master_key!));
    expect(res.status).toBe(200);
    expect(res.body.is_master).toBe(true);
    expect((await request(h.app).get('/api/v1/access-keys/').set(bearer(org.master_key!))).status).toBe(401);
  });

  it('returns 400 for a key linked to a service account', async () => {
    const org = await newOrganization(h.db);
    const linked = await createServiceAccountKey(h.db, { organizationId: org.organization_id, serviceAccount: 'deploy-bot' });
    const res = await request(h.app).post(`/api/v1/access-keys/${linked.id}/regenerate/`).set(bearer(org.master_key!));
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('service account');
  });

  it('test keys have no regenerate (400)', async () => {
    const org = await newOrganization(h.db);
    const res = await request(h.app).post(`/api/v1/access-keys/${org.test_key_id}/regenerate/`).set(bearer(org.test_key));
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('Test keys cannot be regenerated');
  });
});

describe('revoke', () => {
  it('returns 204 and is permanent: the key stops working and cannot be revoked again', async () => {
    const org = await newOrganization(h.db);
    const key = await createKey(h.app, org.master_key!, { name: 'doomed' });
    const res = await request(h.app).post(`/api/v1/access-keys/${key.id}/revoke/`).set(bearer(org.master_key!));
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await request(h.app).get('/api/v1/access-keys/').set(bearer(key.key))).status).toBe(401);
    expect((await request(h.app).post(`/api/v1/access-keys/${key.id}/revoke/`).set(bearer(org.master_key!))).status).toBe(404);
    expect((await request(h.app).post(`/api/v1/access-keys/${key.id}/regenerate/`).set(bearer(org.master_key!))).status).toBe(404);
  });

  it('returns 400 for the organization\'s last unrestricted production key', async () => {
    const org = await newOrganization(h.db, { withMasterKey: false });
    const res = await request(h.app).post(`/api/v1/access-keys/${org.initial_key_id}/revoke/`).set(bearer(org.initial_key!));
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('last unrestricted production key');
    const second = await createKey(h.app, org.initial_key!, { name: 'second unrestricted', expires_at: null });
    expect((await request(h.app).post(`/api/v1/access-keys/${org.initial_key_id}/revoke/`).set(bearer(second.key))).status).toBe(204);
    expect((await request(h.app).post(`/api/v1/access-keys/${second.id}/revoke/`).set(bearer(second.key))).status).toBe(400);
  });

  it('never leaves an organization without an unrestricted production key under concurrent revokes', async () => {
    const org = await newOrganization(h.db, { withMasterKey: false });
    const second = await createKey(h.app, org.initial_key!, { name: 'second', expires_at: null });
    const results = await Promise.all([
      request(h.app).post(`/api/v1/access-keys/${org.initial_key_id}/revoke/`).set(bearer(org.initial_key!)),
      request(h.app).post(`/api/v1/access-keys/${second.id}/revoke/`).set(bearer(second.key)),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([204, 400]);
  });

  it('the master key cannot be revoked (400)', async () => {
    const org = await newOrganization(h.db);
    const res = await request(h.app).post(`/api/v1/access-keys/${org.master_key_id}/revoke/`).set(bearer(org.master_key!));
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('The master key cannot be revoked; regenerate it instead.');
  });

  it('a restricted key may revoke itself', async () => {
    const org = await newOrganization(h.db);
    const narrow = await createKey(h.app, org.master_key!, { name: 'narrow', scopes: ['management:all'], tool_pack_ids: [uuid(1)] });
    expect((await request(h.app).post(`/api/v1/access-keys/${narrow.id}/revoke/`).set(bearer(narrow.key))).status).toBe(204);
  });

  it('test keys are revoked like production keys', async () => {
    const org = await newOrganization(h.db);
    const testKey = await createKey(h.app, org.test_key, { name: 'temp test' });
    expect((await request(h.app).post(`/api/v1/access-keys/${testKey.id}/revoke/`).set(bearer(org.test_key))).status).toBe(204);
  });
});

describe('regenerate and revoke return 403 when the calling key does not cover the target, without naming the dimension', () => {
  // Caller and target differ on exactly one dimension each time; everything else is covered.
  const callerBody = { name: 'caller', scopes: ['management:all'], tool_pack_ids: [uuid(1), uuid(2)], registered_user_ids: [uuid(10), uuid(11)], expires_in: 86_400 };
  const coveredBody = { name: 'target', scopes: ['management:all'], tool_pack_ids: [uuid(1)], registered_user_ids: [uuid(10)], expires_in: 3600 };
  const cases: Array<[string, Record<string, unknown>]> = [
    ['scopes: the target\'s scopes are not a subset of the caller\'s', { scopes: ['management:all', 'runtime:all'] }],
    ['expiry: the target expires later than the caller', { expires_in: 2 * 86_400 }],
    ['expiry: the target never expires', { expires_at: null, expires_in: undefined }],
    ['tool packs: the target\'s set is not a subset of the caller\'s', { tool_pack_ids: [uuid(3)] }],
    ['tool packs: the target is unrestricted', { tool_pack_ids: null }],
    ['registered users: the target\'s set is not a subset of the caller\'s', { registered_user_ids: [uuid(12)] }],
    ['registered users: the target is unrestricted', { registered_user_ids: null }],
  ];

  it.each(cases)('%s', async (_dimension, change) => {
    const org = await newOrganization(h.db);
    const caller = await createKey(h.app, org.master_key!, callerBody);
    const target = await createKey(h.app, org.master_key!, { ...coveredBody, ...change });
    for (const action of ['regenerate', 'revoke']) {
      const res = await request(h.app).post(`/api/v1/access-keys/${target.id}/${action}/`).set(bearer(caller.key));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: SCOPE_MESSAGE, code: 'key_scope_violation' });
    }
    // Nothing changed: the target still works.
    expect((await request(h.app).get(`/api/v1/access-keys/${target.id}/`).set(bearer(target.key))).status).toBe(200);
  });

  it('environment: a test key acting on a production key', async () => {
    const org = await newOrganization(h.db);
    const target = await createKey(h.app, org.master_key!, coveredBody);
    for (const action of ['regenerate', 'revoke']) {
      const res = await request(h.app).post(`/api/v1/access-keys/${target.id}/${action}/`).set(bearer(org.test_key));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: SCOPE_MESSAGE, code: 'key_scope_violation' });
    }
  });

  it('a target covered on every dimension is regenerated and revoked', async () => {
    const org = await newOrganization(h.db);
    const caller = await createKey(h.app, org.master_key!, callerBody);
    const target = await createKey(h.app, org.master_key!, coveredBody);
    expect((await request(h.app).post(`/api/v1/access-keys/${target.id}/regenerate/`).set(bearer(caller.key))).status).toBe(200);
    expect((await request(h.app).post(`/api/v1/access-keys/${target.id}/revoke/`).set(bearer(caller.key))).status).toBe(204);
  });
});

describe('expired keys stop working', () => {
  it('a key is refused the moment its expires_at passes, even when cached', async () => {
    const org = await newOrganization(h.db);
    const key = await createKey(h.app, org.master_key!, { name: 'short', expires_in: 60 });
    expect((await request(h.app).get('/api/v1/access-keys/').set(bearer(key.key))).status).toBe(200);
    h.clock.advance(61_000);
    try {
      const res = await request(h.app).get('/api/v1/access-keys/').set(bearer(key.key));
      expect(res.status).toBe(401);
    } finally {
      h.clock.advance(-61_000);
    }
  });
});

describe('a revoked or regenerated key stops working in every service', () => {
  it('another process that cached the key refuses it as soon as the revocation is published', async () => {
    const org = await newOrganization(h.db);
    const key = await createKey(h.app, org.master_key!, { name: 'shared' });
    // A second replica with its own cache, listening on Redis like every service does.
    const subscriber = createRedisSubscriber(TEST_REDIS_URL);
    const redis = createRedis(TEST_REDIS_URL);
    const otherVerifier = new KeyVerifier({ loader: (hash) => loadPrincipalByHash(h.db, hash) });
    await otherVerifier.subscribe(subscriber);
    const other = createApp({ db: h.db, redis, logger: createLogger('other', 'silent'), serviceToken: TEST_SERVICE_TOKEN, verifier: otherVerifier }).app;
    try {
      expect((await request(other).get('/api/v1/access-keys/').set(bearer(key.key))).status).toBe(200);
      expect(otherVerifier.size).toBeGreaterThan(0);
      await request(h.app).post(`/api/v1/access-keys/${key.id}/revoke/`).set(bearer(org.master_key!)).expect(204);
      await waitFor(() => otherVerifier.size === 0);
      expect((await request(other).get('/api/v1/access-keys/').set(bearer(key.key))).status).toBe(401);
    } finally {
      await otherVerifier.close();
      redis.disconnect();
    }
  });
});
