import { memberSession, type TestOrganization } from '@patchbay/testing';
import { bearer, linkHubspot, request, runSyncJob, startHarness, withAccount, type Harness } from './harness';

/**
 * A member's console session reads a linked account's synced data by naming the account
 * (`?linked_account_id=`) instead of sending its token: the id is checked against the session's
 * organization and environment, and the route's permission against the member's roles. Keys keep
 * needing X-Account-Token.
 */
const PUBLIC_URL = 'http://patchbay.test';
// Members are made through the real access-keys-and-audit (argon2 at each sign-in): slow on a loaded machine.
jest.setTimeout(240_000);
let h: Harness;
let org: TestOrganization;
let other: TestOrganization;
beforeAll(async () => {
  h = await startHarness();
  org = await h.accessKeys.createOrganization();
  other = await h.accessKeys.createOrganization();
}, 300_000);
afterAll(async () => {
  await h.close();
});

/** A HubSpot portal with `events` events of `per` participants, linked and synced once. */
async function syncedAccount(key: string, events = 3, per = 2) {
  const portal = h.hubspot.createPortal();
  portal.seed({ events, participantsPerEvent: per });
  const account = await linkHubspot(h, key, undefined, portal.token);
  expect(await runSyncJob(h.workerDeps, await h.db.linkedAccount.findUniqueOrThrow({ where: { id: account.id } }))).toBe('done');
  return account;
}

describe('a console session naming the linked account by id', () => {
  it('reads events, an event with its remote data, its contacts, the sync status and field mappings with view_linked_accounts', async () => {
    const account = await syncedAccount(org.master_key);
    const viewer = await memberSession(h.accessKeys, org.organization_id, { permissions: ['view_linked_accounts'] });
    const q = `linked_account_id=${account.id}`;
    const events = await request(h.app).get(`/api/mktg/v1/events?${q}&page_size=2`).set({ cookie: viewer.cookie });
    expect(events.status).toBe(200);
    expect(events.body.results).toHaveLength(2);
    // The cursor pages as it does for a key, bound to the same account.
    const second = await request(h.app).get(`/api/mktg/v1/events?${q}&page_size=2&cursor=${encodeURIComponent(events.body.next)}`).set({ cookie: viewer.cookie });
    expect(second.status).toBe(200);
    expect(second.body.results).toHaveLength(1);
    const byKey = await request(h.app).get('/api/mktg/v1/events').set(withAccount(org.master_key, account.account_token));
    expect(byKey.body.results.map((e: { id: string }) => e.id)).toEqual([...events.body.results, ...second.body.results].map((e: { id: string }) => e.id));
    const eventId = events.body.results[0].id as string;
    const one = await request(h.app).get(`/api/mktg/v1/events/${eventId}?${q}&include_remote_data=true`).set({ cookie: viewer.cookie });
    expect(one.status).toBe(200);
    expect(one.body.remote_data[0].path).toMatch(/marketing-events/);
    const contacts = await request(h.app).get(`/api/mktg/v1/events/${eventId}/contacts?${q}`).set({ cookie: viewer.cookie });
    expect(contacts.status).toBe(200);
    expect(contacts.body.results).toHaveLength(2);
    const status = await request(h.app).get(`/api/mktg/v1/sync-status?${q}`).set({ cookie: viewer.cookie });
    expect(status.body.results.map((s: { model_name: string; status: string }) => [s.model_name, s.status])).toEqual([
      ['Event', 'DONE'],
      ['Contact', 'DONE'],
    ]);
    expect((await request(h.app).get(`/api/mktg/v1/field-mappings?${q}`).set({ cookie: viewer.cookie })).status).toBe(200);
  });

  it("another organization's account id, another environment's, or an unknown one is a 404", async () => {
    const theirs = await syncedAccount(other.master_key, 1, 1);
    const ours = await syncedAccount(org.master_key, 1, 1);
    const viewer = await memberSession(h.accessKeys, org.organization_id, { permissions: ['view_linked_accounts'] });
    const res = await request(h.app).get(`/api/mktg/v1/events?linked_account_id=${theirs.id}`).set({ cookie: viewer.cookie });
    expect(res.status).toBe(404);
    expect(res.body.detail).toBe(`No linked account ${theirs.id} in this organization and environment.`);
    const resync = await request(h.app).post(`/api/mktg/v1/sync-status/resync?linked_account_id=${theirs.id}`).set(
      (await memberSession(h.accessKeys, org.organization_id, { permissions: ['force_resync'] })).headers('POST', `${PUBLIC_URL}/`),
    );
    expect(resync.status).toBe(404);
    const testViewer = await memberSession(h.accessKeys, org.organization_id, { permissions: ['view_linked_accounts'], environment: 'test' });
    expect((await request(h.app).get(`/api/mktg/v1/events?linked_account_id=${ours.id}`).set({ cookie: testViewer.cookie })).status).toBe(404);
    expect((await request(h.app).get('/api/mktg/v1/events?linked_account_id=not-a-uuid').set({ cookie: viewer.cookie })).status).toBe(404);
    expect((await request(h.app).get('/api/mktg/v1/events?linked_account_id=00000000-0000-4000-8000-000000000000').set({ cookie: viewer.cookie })).status).toBe(404);
  });

  it('without the route\'s permission the session gets 403 naming it: reads need view_linked_accounts, a resync force_resync, a mapping manage_linked_accounts', async () => {
    const account = await syncedAccount(org.master_key, 1, 1);
    const q = `linked_account_id=${account.id}`;
    const none = await memberSession(h.accessKeys, org.organization_id, { permissions: ['view_tool_packs'] });
    const read = await request(h.app).get(`/api/mktg/v1/events?${q}`).set({ cookie: none.cookie });
    expect(read.status).toBe(403);
    expect(read.body.detail).toContain('view_linked_accounts');
    const manager = await memberSession(h.accessKeys, org.organization_id, { permissions: ['manage_linked_accounts'] });
    const resync = await request(h.app).post(`/api/mktg/v1/sync-status/resync?${q}`).set(manager.headers('POST', `${PUBLIC_URL}/`));
    expect(resync.status).toBe(403);
    expect(resync.body.detail).toContain('Force a resync on linked accounts');
    const viewer = await memberSession(h.accessKeys, org.organization_id, { permissions: ['view_linked_accounts'] });
    const mapping = await request(h.app)
      .post(`/api/mktg/v1/field-mappings?${q}`)
      .set(viewer.headers('POST', `${PUBLIC_URL}/`))
      .send({ model: 'events', target_field_name: 'kind', remote_field_path: 'eventType' });
    expect(mapping.status).toBe(403);
    expect(mapping.body.detail).toContain('manage_linked_accounts');
    const resyncer = await memberSession(h.accessKeys, org.organization_id, { permissions: ['force_resync'] });
    const allowed = await request(h.app).post(`/api/mktg/v1/sync-status/resync?${q}`).set(resyncer.headers('POST', `${PUBLIC_URL}/`));
    expect(allowed.status).toBe(200);
    expect(allowed.body.map((s: { status: string }) => s.status)).toEqual(['SYNCING', 'SYNCING']);
  });

  it('a key naming the account by id is a 400 that points at X-Account-Token; a session sending both is a 400 too', async () => {
    const account = await syncedAccount(org.master_key, 1, 1);
    const res = await request(h.app).get(`/api/mktg/v1/events?linked_account_id=${account.id}`).set(bearer(org.master_key));
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toEqual({ field: 'query.linked_account_id', message: expect.stringContaining('X-Account-Token') });
    // With its token as well, a key still may not name accounts by id.
    expect((await request(h.app).get(`/api/mktg/v1/events?linked_account_id=${account.id}`).set(withAccount(org.master_key, account.account_token))).status).toBe(400);
    const viewer = await memberSession(h.accessKeys, org.organization_id, { permissions: ['view_linked_accounts'] });
    const both = await request(h.app).get(`/api/mktg/v1/events?linked_account_id=${account.id}`).set({ cookie: viewer.cookie, 'X-Account-Token': account.account_token });
    expect(both.status).toBe(400);
    const neither = await request(h.app).get('/api/mktg/v1/events').set({ cookie: viewer.cookie });
    expect(neither.status).toBe(401);
    expect(neither.body.detail).toContain('linked_account_id');
  });
});

describe('sync history and the linked accounts overview', () => {
  it('each finished run is a row of GET /linked-accounts/{id}/sync-runs, newest first and paged; a failure carries its error', async () => {
    const portal = h.hubspot.createPortal();
    portal.seed({ events: 2, participantsPerEvent: 1 });
    const account = await linkHubspot(h, org.master_key, undefined, portal.token);
    const row = () => h.db.linkedAccount.findUniqueOrThrow({ where: { id: account.id } });
    expect(await runSyncJob(h.workerDeps, await row())).toBe('done');
    h.hubspot.faults.serverErrors({ path: '/marketing/v3/marketing-events', count: 1, status: 400 });
    try {
      expect(await runSyncJob(h.workerDeps, await row(), 'incremental', 'schedule')).toBe('failed');
    } finally {
      h.hubspot.faults.clear();
    }
    const viewer = await memberSession(h.accessKeys, org.organization_id, { permissions: ['view_linked_accounts'] });
    const first = await request(h.app).get(`/api/mktg/v1/linked-accounts/${account.id}/sync-runs?page_size=1`).set({ cookie: viewer.cookie });
    expect(first.status).toBe(200);
    expect(first.body.results).toEqual([expect.objectContaining({ linked_account_id: account.id, result: 'FAILED', error: expect.any(String) })]);
    expect(first.body.previous).toBeNull();
    const second = await request(h.app).get(`/api/mktg/v1/linked-accounts/${account.id}/sync-runs?page_size=1&cursor=${encodeURIComponent(first.body.next)}`).set(bearer(org.master_key));
    expect(second.body.results).toEqual([expect.objectContaining({ kind: 'full', result: 'DONE', error: null, pages_written: expect.any(Number) })]);
    expect(second.body.results[0].pages_written).toBeGreaterThan(0);
    expect(second.body.next).toBeNull();
    const back = await request(h.app).get(`/api/mktg/v1/linked-accounts/${account.id}/sync-runs?page_size=1&cursor=${encodeURIComponent(second.body.previous)}`).set(bearer(org.master_key));
    expect(back.body.results[0].id).toBe(first.body.results[0].id);

    const theirs = await request(h.app).get(`/api/mktg/v1/linked-accounts/${account.id}/sync-runs`).set(bearer(other.master_key));
    expect(theirs.status).toBe(404);
    const none = await memberSession(h.accessKeys, org.organization_id, { permissions: ['view_tool_packs'] });
    expect((await request(h.app).get(`/api/mktg/v1/linked-accounts/${account.id}/sync-runs`).set({ cookie: none.cookie })).status).toBe(403);

    const summary = await request(h.app).get(`/api/mktg/v1/linked-accounts/${account.id}?include_sync_summary=true`).set({ cookie: viewer.cookie });
    expect(summary.body.sync_summary).toEqual({
      statuses: [expect.objectContaining({ model_name: 'Event', status: 'FAILED' }), expect.objectContaining({ model_name: 'Contact', status: 'FAILED' })],
      last_error: { at: first.body.results[0].finished_at, message: first.body.results[0].error },
      event_count: 2,
      contact_count: 2,
    });
    const plain = await request(h.app).get(`/api/mktg/v1/linked-accounts/${account.id}`).set(bearer(org.master_key));
    expect(plain.body.sync_summary).toBeUndefined();
    const list = await request(h.app).get('/api/mktg/v1/linked-accounts?include_sync_summary=true').set(bearer(org.master_key));
    expect(list.body.results.find((a: { id: string }) => a.id === account.id).sync_summary.event_count).toBe(2);
    expect((await request(h.app).get('/api/mktg/v1/linked-accounts?include_sync_summary=maybe').set(bearer(org.master_key))).status).toBe(400);
  });
});

describe('the linked accounts list for a console: filters, search and order on the server', () => {
  it('status, platform and search narrow the list; order=-created_at walks it newest first with its own cursors', async () => {
    const owner = await h.accessKeys.createOrganization();
    const tag = `filter-${Date.now()}`;
    const a = await linkHubspot(h, owner.master_key, `${tag}-alpha`);
    const b = await linkHubspot(h, owner.master_key, `${tag}-beta`);
    const c = await linkHubspot(h, owner.master_key, `${tag}-gamma`);
    await h.db.linkedAccount.update({ where: { id: b.id }, data: { status: 'RELINK_NEEDED' } });
    const list = async (query: string) => request(h.app).get(`/api/mktg/v1/linked-accounts?${query}`).set(bearer(owner.master_key));
    const ids = (res: { body: { results: Array<{ id: string }> } }) => res.body.results.map((r) => r.id);
    expect(ids(await list('status=RELINK_NEEDED'))).toEqual([b.id]);
    expect(ids(await list('platform=hubspot'))).toEqual([a.id, b.id, c.id]);
    expect(ids(await list('platform=zoom'))).toEqual([]);
    expect(ids(await list(`search=${tag.toUpperCase()}-GAM`))).toEqual([c.id]);
    expect(ids(await list('search=acme'))).toEqual([a.id, b.id, c.id]);

    const newest = await list('order=-created_at&page_size=2');
    expect(ids(newest)).toEqual([c.id, b.id]);
    const rest = await list(`order=-created_at&page_size=2&cursor=${encodeURIComponent(newest.body.next)}`);
    expect(ids(rest)).toEqual([a.id]);
    expect(rest.body.next).toBeNull();
    const back = await list(`order=-created_at&page_size=2&cursor=${encodeURIComponent(rest.body.previous)}`);
    expect(ids(back)).toEqual([c.id, b.id]);
    const mixed = await list(`page_size=2&cursor=${encodeURIComponent(newest.body.next)}`);
    expect(mixed.status).toBe(400);
    expect(mixed.body.errors[0].message).toMatch(/other order/);

    const bad = await list('status=DONE&platform=myspace&order=name');
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['query.status', 'query.platform', 'query.order']);
  });
});
