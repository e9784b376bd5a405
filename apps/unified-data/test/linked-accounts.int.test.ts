import { randomBytes } from 'node:crypto';
import { hashAccessKey } from '@patchbay/auth';
import { waitFor, type TestOrganization } from '@patchbay/testing';
import { schedulerId } from '../src/sync/scheduler';
import { HUBSPOT_FAKE_TOKENS, bearer, linkHubspot, request, startHarness, withAccount, type Harness } from './harness';

let h: Harness;
let org: TestOrganization;
let other: TestOrganization;

beforeAll(async () => {
  h = await startHarness();
  h.hubspot.portal.seed({ events: 30, participantsPerEvent: 3 });
  h.startWorker();
  org = await h.newOrganization();
  other = await h.newOrganization();
});
afterAll(async () => h.close());

describe('POST /api/mktg/v1/linked-accounts', () => {
  it('links an account: 201 with id, platform, status and the account token shown once; credentials sealed, token hashed', async () => {
    const res = await request(h.app)
      .post('/api/mktg/v1/linked-accounts')
      .set(bearer(org.master_key))
      .send({ platform: 'hubspot', credentials: { access_token: HUBSPOT_FAKE_TOKENS.valid }, end_user_origin_id: 'acme-1', end_user_organization_name: 'Acme' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ platform: 'hubspot', status: 'INCOMPLETE', end_user_origin_id: 'acme-1', is_test_account: false });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.account_token).toMatch(/^pbat_/);
    expect(JSON.stringify(res.body)).not.toContain(HUBSPOT_FAKE_TOKENS.valid);
    const row = await h.db.linkedAccount.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row.accountTokenHash).toBe(hashAccessKey(res.body.account_token));
    expect(row.credentialsSealed).not.toContain(HUBSPOT_FAKE_TOKENS.valid);
    const got = await request(h.app).get(`/api/mktg/v1/linked-accounts/${res.body.id}`).set(bearer(org.master_key));
    expect(got.status).toBe(200);
    expect(got.body.account_token).toBeUndefined();
  });

  it('starts the initial full sync at once, and the events are readable with the account token', async () => {
    const linked = await linkHubspot(h, org.master_key);
    await h.waitForSync(linked.id);
    const res = await request(h.app).get('/api/mktg/v1/events?page_size=100').set(withAccount(org.master_key, linked.account_token));
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(30);
    const status = await request(h.app).get('/api/mktg/v1/sync-status').set(withAccount(org.master_key, linked.account_token));
    expect(status.body.results.map((s: { model_name: string; status: string; is_initial_sync: boolean }) => [s.model_name, s.status, s.is_initial_sync])).toEqual([
      ['Event', 'DONE', false],
      ['Contact', 'DONE', false],
    ]);
    const account = await request(h.app).get(`/api/mktg/v1/linked-accounts/${linked.id}`).set(bearer(org.master_key));
    expect(account.body.status).toBe('COMPLETE');
  });

  it('answers 400 naming the field for an unknown platform, missing credentials or missing end-user fields', async () => {
    const res = await request(h.app).post('/api/mktg/v1/linked-accounts').set(bearer(org.master_key)).send({ platform: 'mailchimp', credentials: {}, end_user_origin_id: 'x', end_user_organization_name: 'X' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('platform');
    const noToken = await request(h.app).post('/api/mktg/v1/linked-accounts').set(bearer(org.master_key)).send({ platform: 'hubspot', credentials: {}, end_user_origin_id: 'x', end_user_organization_name: 'X' });
    expect(noToken.status).toBe(400);
    expect(noToken.body.detail).toContain('access_token');
    const noOrigin = await request(h.app).post('/api/mktg/v1/linked-accounts').set(bearer(org.master_key)).send({ platform: 'hubspot', credentials: { access_token: 'x' }, end_user_organization_name: 'X' });
    expect(noOrigin.status).toBe(400);
    expect(noOrigin.body.detail).toContain('end_user_origin_id');
  });

  it('answers 400 when the platform refuses the credentials, and stores nothing', async () => {
    const res = await request(h.app)
      .post('/api/mktg/v1/linked-accounts')
      .set(bearer(org.master_key))
      .send({ platform: 'hubspot', credentials: { access_token: 'pat-na1-not-a-token' }, end_user_origin_id: 'refused', end_user_organization_name: 'X' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/credentials.*refused by HubSpot/);
    expect(await h.db.linkedAccount.count({ where: { organizationId: org.organization_id, endUserOriginId: 'refused' } })).toBe(0);
  });

  it('answers 409 for a second account of the same end_user_origin_id', async () => {
    await linkHubspot(h, org.master_key, 'dup-origin');
    const again = await request(h.app)
      .post('/api/mktg/v1/linked-accounts')
      .set(bearer(org.master_key))
      .send({ platform: 'hubspot', credentials: { access_token: HUBSPOT_FAKE_TOKENS.valid }, end_user_origin_id: 'dup-origin', end_user_organization_name: 'X' });
    expect(again.status).toBe(409);
  });
});

describe('account tokens', () => {
  it('gives the same 401 for a missing, wrong, regenerated-away or other organization\'s account token', async () => {
    const mine = await linkHubspot(h, org.master_key);
    const theirs = await linkHubspot(h, other.master_key);
    const missing = await request(h.app).get('/api/mktg/v1/events').set(bearer(org.master_key));
    const wrong = await request(h.app).get('/api/mktg/v1/events').set(withAccount(org.master_key, 'pbat_wrong'));
    const foreign = await request(h.app).get('/api/mktg/v1/events').set(withAccount(org.master_key, theirs.account_token));
    const regen = await request(h.app).post('/api/mktg/v1/account-token/regenerate').set(withAccount(org.master_key, mine.account_token));
    expect(regen.status).toBe(200);
    expect(regen.body).toMatchObject({ linked_account_id: mine.id });
    const old = await request(h.app).get('/api/mktg/v1/events').set(withAccount(org.master_key, mine.account_token));
    for (const res of [missing, wrong, foreign, old]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual(missing.body);
      expect(res.body.detail).toContain('X-Account-Token');
    }
    const fresh = await request(h.app).get('/api/mktg/v1/events').set(withAccount(org.master_key, regen.body.account_token));
    expect(fresh.status).toBe(200);
  });

  it('account tokens are cached per replica, and a regenerated or deleted account\'s old token stops working on every replica at once', async () => {
    const replica = await h.startReplica();
    try {
      const events = (app: typeof h.app, token: string) => request(app).get('/api/mktg/v1/events').set(withAccount(org.master_key, token));
      const regenerated = await linkHubspot(h, org.master_key);
      const deleted = await linkHubspot(h, org.master_key);
      const changedBehind = await linkHubspot(h, org.master_key);
      // The replica has seen (and cached) all three tokens.
      for (const account of [regenerated, deleted, changedBehind]) expect((await events(replica.app, account.account_token)).status).toBe(200);

      // Cached: a hash changed in the database behind the API's back is not noticed until the entry expires.
      await h.db.linkedAccount.update({ where: { id: changedBehind.id }, data: { accountTokenHash: randomBytes(32).toString('hex') } });
      expect((await events(replica.app, changedBehind.account_token)).status).toBe(200);

      // Through the API, the change is published: the replica refuses the old token without waiting for the entry to expire.
      const regen = await request(h.app).post(`/api/mktg/v1/linked-accounts/${regenerated.id}/regenerate-account-token`).set(bearer(org.master_key)).expect(200);
      await request(h.app).delete(`/api/mktg/v1/linked-accounts/${deleted.id}`).set(bearer(org.master_key)).expect(204);
      for (const token of [regenerated.account_token, deleted.account_token]) {
        await waitFor(async () => (await events(replica.app, token)).status === 401, 1_000, 'the replica refusing the old token');
      }
      expect((await events(replica.app, regen.body.account_token)).status).toBe(200);
    } finally {
      await replica.close();
    }
  });

  it('test keys see only test linked accounts, production keys only production ones', async () => {
    const prod = await linkHubspot(h, org.master_key);
    const test = await linkHubspot(h, org.test_key);
    expect(test.status).toBe('INCOMPLETE');
    const testList = await request(h.app).get('/api/mktg/v1/linked-accounts').set(bearer(org.test_key));
    const ids = testList.body.results.map((a: { id: string }) => a.id);
    expect(ids).toContain(test.id);
    expect(ids).not.toContain(prod.id);
    expect(testList.body.results.every((a: { is_test_account: boolean }) => a.is_test_account)).toBe(true);
    expect((await request(h.app).get(`/api/mktg/v1/linked-accounts/${prod.id}`).set(bearer(org.test_key))).status).toBe(404);
    expect((await request(h.app).get('/api/mktg/v1/events').set(withAccount(org.test_key, prod.account_token))).status).toBe(401);
    expect((await request(h.app).get('/api/mktg/v1/events').set(withAccount(org.master_key, test.account_token))).status).toBe(401);
  });

  it('another organization cannot read, delete or regenerate a linked account', async () => {
    const mine = await linkHubspot(h, org.master_key);
    expect((await request(h.app).get(`/api/mktg/v1/linked-accounts/${mine.id}`).set(bearer(other.master_key))).status).toBe(404);
    expect((await request(h.app).delete(`/api/mktg/v1/linked-accounts/${mine.id}`).set(bearer(other.master_key))).status).toBe(404);
    expect((await request(h.app).post(`/api/mktg/v1/linked-accounts/${mine.id}/regenerate-account-token`).set(bearer(other.master_key))).status).toBe(404);
    expect((await request(h.app).get('/api/mktg/v1/linked-accounts').set(bearer(other.master_key))).body.results.map((a: { id: string }) => a.id)).not.toContain(mine.id);
  });
});

describe('DELETE /api/mktg/v1/linked-accounts/{id}', () => {
  it('deletes the account, its records and its schedule; the token stops working; linking, regeneration and deletion are audited', async () => {
    const linked = await linkHubspot(h, org.master_key);
    await h.waitForSync(linked.id);
    expect(await h.db.event.count({ where: { linkedAccountId: linked.id } })).toBe(30);
    expect(await h.queue.getJobScheduler(schedulerId(linked.id))).toBeDefined();
    await request(h.app).post(`/api/mktg/v1/linked-accounts/${linked.id}/regenerate-account-token`).set(bearer(org.master_key)).expect(200);
    const del = await request(h.app).delete(`/api/mktg/v1/linked-accounts/${linked.id}`).set(bearer(org.master_key));
    expect(del.status).toBe(204);
    expect(await h.db.event.count({ where: { linkedAccountId: linked.id } })).toBe(0);
    expect(await h.db.contact.count({ where: { linkedAccountId: linked.id } })).toBe(0);
    expect(await h.queue.getJobScheduler(schedulerId(linked.id))).toBeUndefined();
    expect((await request(h.app).get(`/api/mktg/v1/linked-accounts/${linked.id}`).set(bearer(org.master_key))).status).toBe(404);
    let types: string[] = [];
    await waitFor(async () => {
      types = (await h.auditEvents(org.master_key)).filter((e) => e.resource_id === linked.id).map((e) => e.event_type as string);
      return types.includes('linked_account.deleted');
    }, 15_000, 'audit events');
    expect(types).toEqual(expect.arrayContaining(['linked_account.created', 'linked_account.account_token_regenerated', 'linked_account.deleted']));
  });

  it('a deletion that deadlocks with a sync finishing its full pass is run again, not answered 503', async () => {
    const linked = await linkHubspot(h, org.master_key);
    await h.waitForSync(linked.id);
    // A full pass ending marks what it did not see as deleted, events first, then contacts
    // (markMissingAsDeleted), while a deletion takes contacts before events: held here in that
    // order, PostgreSQL finds the deadlock and aborts the deletion, which waited first.
    let deletion: Promise<{ status: number; body: unknown }> | null = null;
    await h.db.$transaction(
      async (tx) => {
        await tx.$executeRaw`UPDATE events SET remote_was_deleted = true WHERE linked_account_id = ${linked.id}::uuid`;
        deletion = request(h.app).delete(`/api/mktg/v1/linked-accounts/${linked.id}`).set(bearer(org.master_key)).then((res) => ({ status: res.status, body: res.body }));
        await waitFor(async () => {
          const [row] = await h.db.$queryRaw<Array<{ waiting: bigint }>>`
            SELECT count(*) AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM events%'`;
          return Number(row?.waiting ?? 0) > 0;
        }, 10_000, 'the deletion waiting on the events this transaction holds');
        await tx.$executeRaw`UPDATE contacts SET remote_was_deleted = true WHERE linked_account_id = ${linked.id}::uuid`;
      },
      { timeout: 20_000 },
    );
    const del = await deletion!;
    expect(del).toEqual({ status: 204, body: {} });
    expect(await h.db.linkedAccount.findUnique({ where: { id: linked.id } })).toBeNull();
    expect(await h.db.event.count({ where: { linkedAccountId: linked.id } })).toBe(0);
    expect(await h.db.contact.count({ where: { linkedAccountId: linked.id } })).toBe(0);
  });
});

describe('GET /api/mktg/v1/linked-accounts pages with cursors', () => {
  it('gives {next, previous, results} oldest first, page_size 1 to 100, previous walks back, and a bad cursor or page size is a 400', async () => {
    const pager = await h.newOrganization();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await linkHubspot(h, pager.master_key, `pager-${i}`)).id);
    const get = (query: string) => request(h.app).get(`/api/mktg/v1/linked-accounts${query}`).set(bearer(pager.master_key));

    const first = await get('?page_size=2');
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['next', 'previous', 'results']);
    expect(first.body.previous).toBeNull();
    expect(first.body.results.map((a: { id: string }) => a.id)).toEqual(ids.slice(0, 2));
    const second = await get(`?page_size=2&cursor=${encodeURIComponent(first.body.next)}`);
    expect(second.body.results.map((a: { id: string }) => a.id)).toEqual(ids.slice(2, 4));
    const third = await get(`?page_size=2&cursor=${encodeURIComponent(second.body.next)}`);
    expect(third.body.results.map((a: { id: string }) => a.id)).toEqual(ids.slice(4));
    expect(third.body.next).toBeNull();
    const back = await get(`?page_size=2&cursor=${encodeURIComponent(third.body.previous)}`);
    expect(back.body.results.map((a: { id: string }) => a.id)).toEqual(ids.slice(2, 4));
    expect((await get('')).body.results).toHaveLength(5);

    for (const size of ['0', '101', 'ten']) {
      const bad = await get(`?page_size=${size}`);
      expect(bad.status).toBe(400);
      expect(bad.body.detail).toContain('page_size');
    }
    const forged = await get('?cursor=not-a-cursor');
    expect(forged.status).toBe(400);
    expect(forged.body.detail).toContain('cursor');
    // A well-formed cursor of another list (events carry a third key part) is refused too.
    const foreign = Buffer.from(JSON.stringify({ k: ['2026-01-01T00:00:00.000Z', ids[0], 'x'], d: 'n' })).toString('base64url');
    expect((await get(`?cursor=${foreign}`)).status).toBe(400);
    // A cursor is a position only: sent by another organization it pages that organization's list.
    const elsewhere = await request(h.app).get(`/api/mktg/v1/linked-accounts?cursor=${encodeURIComponent(first.body.next)}`).set(bearer(other.master_key));
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.results.some((a: { id: string }) => ids.includes(a.id))).toBe(false);
  });
});
