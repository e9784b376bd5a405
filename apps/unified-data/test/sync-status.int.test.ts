import { waitFor, type TestOrganization } from '@patchbay/testing';
import { syncJob } from '../src/sync/scheduler';
import { processSyncJob } from '../src/sync/sync-runner';
import { linkHubspot, request, runSyncJob, startHarness, withAccount, type Harness } from './harness';

let h: Harness;
let org: TestOrganization;

beforeAll(async () => {
  h = await startHarness();
  org = await h.newOrganization();
});
afterAll(async () => h.close());
afterEach(() => h.hubspot.faults.clear());

/** A fresh HubSpot portal linked server-side (its initial sync job waits in the queue: no worker runs here). */
async function linked(events: number, per: number) {
  const portal = h.hubspot.createPortal();
  portal.seed({ events, participantsPerEvent: per });
  const account = await linkHubspot(h, org.master_key, undefined, portal.token);
  return { portal, account, auth: withAccount(org.master_key, account.account_token) };
}

const sync = async (id: string, mode: 'full' | 'incremental' = 'full') => runSyncJob(h.workerDeps, await h.db.linkedAccount.findUniqueOrThrow({ where: { id } }), mode);

async function statuses(auth: Record<string, string>): Promise<Array<[string, string, string | null]>> {
  const res = await request(h.app).get('/api/mktg/v1/sync-status').set(auth);
  expect(res.status).toBe(200);
  return res.body.results.map((s: { model_name: string; status: string; last_sync_result: string | null }) => [s.model_name, s.status, s.last_sync_result]);
}

describe('sync status values', () => {
  it('SYNCING from linking or a resync until the sync ends, then DONE', async () => {
    const { account, auth } = await linked(2, 1);
    expect(await statuses(auth)).toEqual([
      ['Event', 'SYNCING', null],
      ['Contact', 'SYNCING', null],
    ]);
    expect(await sync(account.id)).toBe('done');
    expect(await statuses(auth)).toEqual([
      ['Event', 'DONE', 'DONE'],
      ['Contact', 'DONE', 'DONE'],
    ]);
    const resync = await request(h.app).post('/api/mktg/v1/sync-status/resync').set(auth);
    expect(resync.body.map((s: { status: string; last_sync_result: string }) => [s.status, s.last_sync_result])).toEqual([
      ['SYNCING', 'DONE'],
      ['SYNCING', 'DONE'],
    ]);
  });

  it('FAILED when the platform answers the events listing with an unexpected error', async () => {
    const { account, auth } = await linked(2, 1);
    h.hubspot.faults.serverErrors({ path: '/marketing/v3/marketing-events', count: 1, status: 400 });
    expect(await sync(account.id)).toBe('failed');
    expect(await statuses(auth)).toEqual([
      ['Event', 'FAILED', 'FAILED'],
      ['Contact', 'FAILED', 'FAILED'],
    ]);
  });

  it('PAUSED when syncs have failed for more than two weeks: scheduled syncs stop until a resync', async () => {
    const { account, auth } = await linked(2, 1);
    expect(await sync(account.id)).toBe('done');
    // The last successful sync started fifteen days ago; every one since has failed.
    await h.db.syncRun.update({ where: { linkedAccountId: account.id }, data: { lastSuccessStartedAt: new Date(Date.now() - 15 * 86_400_000) } });
    h.hubspot.faults.serverErrors({ path: '/marketing/v3/marketing-events', count: 1, status: 400 });
    expect(await sync(account.id)).toBe('failed');
    expect(await statuses(auth)).toEqual([
      ['Event', 'PAUSED', 'FAILED'],
      ['Contact', 'PAUSED', 'FAILED'],
    ]);
    const row = await h.db.linkedAccount.findUniqueOrThrow({ where: { id: account.id } });
    expect(await processSyncJob(h.workerDeps, syncJob(row, 'incremental', 'schedule'))).toBe('skipped_paused');
    await request(h.app).post('/api/mktg/v1/sync-status/resync').set(auth).expect(200);
    expect(await sync(account.id)).toBe('done');
    expect((await statuses(auth)).map((s) => s[1])).toEqual(['DONE', 'DONE']);
  });

  it('PAUSED when no request came with the account token for two weeks, as Merge pauses idle accounts; the next request resumes the syncs', async () => {
    const days = (n: number) => new Date(Date.now() - n * 86_400_000);
    const idle = await linked(2, 1);
    const active = await linked(2, 1);
    for (const { account } of [idle, active]) expect(await sync(account.id)).toBe('done');
    // Set behind the API (a request through it is itself activity): both linked 16 days ago, one last used 15 days ago, one 13.
    await h.db.linkedAccount.update({ where: { id: idle.account.id }, data: { createdAt: days(16), lastApiRequestAt: days(15) } });
    await h.db.linkedAccount.update({ where: { id: active.account.id }, data: { createdAt: days(16), lastApiRequestAt: days(13) } });
    const scheduled = async (id: string) => processSyncJob(h.workerDeps, syncJob(await h.db.linkedAccount.findUniqueOrThrow({ where: { id } }), 'incremental', 'schedule'));
    const stored = async (id: string) => (await h.db.syncStatus.findMany({ where: { linkedAccountId: id }, orderBy: { model: 'desc' } })).map((s) => s.status);

    expect(await scheduled(active.account.id)).toBe('done');
    expect(await scheduled(idle.account.id)).toBe('skipped_paused');
    expect(await stored(idle.account.id)).toEqual(['PAUSED', 'PAUSED']);
    expect(await scheduled(idle.account.id)).toBe('skipped_paused');

    // The next request with the token: its own answer shows the syncs resumed, and an incremental sync is queued now.
    expect((await statuses(idle.auth)).map((s) => s[1])).toEqual(['SYNCING', 'SYNCING']);
    const queued = (await h.queue.getJobs(['waiting', 'delayed', 'prioritized'])).filter(
      (j) => j.data.linked_account_id === idle.account.id && j.data.mode === 'incremental' && j.data.trigger === 'manual',
    );
    expect(queued).toHaveLength(1);
    const row = await h.db.linkedAccount.findUniqueOrThrow({ where: { id: idle.account.id } });
    expect(row.idlePausedAt).toBeNull();
    expect(Date.now() - row.lastApiRequestAt!.getTime()).toBeLessThan(60_000);
    expect(await scheduled(idle.account.id)).toBe('done');
    expect((await statuses(idle.auth)).map((s) => s[1])).toEqual(['DONE', 'DONE']);
  });

  it('PARTIALLY_SYNCED when one event\'s contacts were refused and skipped: the other events\' contacts are there, no deletion is judged', async () => {
    const { portal, account, auth } = await linked(4, 3);
    expect(await sync(account.id)).toBe('done');
    const gone = portal.allEvents()[3]!;
    portal.deleteEvent(gone.objectId);
    // The second event's participations answer 400 (not a rate limit, outage or credential problem).
    h.hubspot.faults.serverErrors({ path: '/participations/', after: 1, count: 1, status: 400 });
    expect(await sync(account.id)).toBe('partially_synced');
    expect(await statuses(auth)).toEqual([
      ['Event', 'DONE', 'DONE'],
      ['Contact', 'PARTIALLY_SYNCED', 'PARTIALLY_SYNCED'],
    ]);
    // A pass with a hole is not complete: the deleted event is not marked yet.
    expect((await h.db.event.findFirstOrThrow({ where: { linkedAccountId: account.id, remoteId: gone.objectId } })).remoteWasDeleted).toBe(false);
    expect(await sync(account.id)).toBe('done');
    expect((await h.db.event.findFirstOrThrow({ where: { linkedAccountId: account.id, remoteId: gone.objectId } })).remoteWasDeleted).toBe(true);
    expect((await statuses(auth))[1]).toEqual(['Contact', 'DONE', 'DONE']);
  });

  it('DISABLED for a model turned off for the account: the sync leaves it alone until it is enabled again', async () => {
    const { account, auth } = await linked(3, 2);
    expect(await sync(account.id)).toBe('done');
    const off = await request(h.app).post('/api/mktg/v1/sync-status/mktg.Contact/disable').set(auth);
    expect(off.status).toBe(200);
    expect(off.body.map((s: { model_id: string; status: string }) => [s.model_id, s.status])).toEqual([
      ['mktg.Event', 'DONE'],
      ['mktg.Contact', 'DISABLED'],
    ]);
    h.hubspot.requests.length = 0;
    expect(await sync(account.id)).toBe('done');
    expect(h.hubspot.requests.filter((r) => r.path.includes('/participations/'))).toHaveLength(0);
    expect(await statuses(auth)).toEqual([
      ['Event', 'DONE', 'DONE'],
      ['Contact', 'DISABLED', 'DONE'],
    ]);
    // Contacts not walked are not judged deleted.
    expect(await h.db.contact.count({ where: { linkedAccountId: account.id, remoteWasDeleted: true } })).toBe(0);

    // Event off turns Contact off too; no sync runs at all.
    await request(h.app).post('/api/mktg/v1/sync-status/Event/disable').set(auth).expect(200);
    expect(await sync(account.id)).toBe('skipped_disabled');
    expect((await statuses(auth)).map((s) => s[1])).toEqual(['DISABLED', 'DISABLED']);

    // Contact on turns Event on too, and a full sync is queued at once.
    const on = await request(h.app).post('/api/mktg/v1/sync-status/mktg.Contact/enable').set(auth);
    expect(on.body.map((s: { status: string }) => s.status)).toEqual(['SYNCING', 'SYNCING']);
    const queued = (await h.queue.getWaiting()).filter((j) => j.data.linked_account_id === account.id && j.data.mode === 'full' && j.data.trigger === 'manual');
    expect(queued.length).toBeGreaterThanOrEqual(1);
    expect(await sync(account.id)).toBe('done');
    expect((await statuses(auth)).map((s) => s[1])).toEqual(['DONE', 'DONE']);

    // Each switch is an audit event naming the models it turned off or on.
    let changes: Array<[unknown, unknown]> = [];
    await waitFor(async () => {
      changes = (await h.auditEvents(org.master_key)).filter((e) => e.resource_id === account.id && String(e.event_type).startsWith('linked_account.model_sync_')).map((e) => [e.event_type, (e.details as { models: unknown }).models]);
      return changes.length === 3;
    }, 15_000, 'model sync audit events');
    expect(changes).toEqual(expect.arrayContaining([
      ['linked_account.model_sync_disabled', ['contacts']],
      ['linked_account.model_sync_disabled', ['events', 'contacts']],
      ['linked_account.model_sync_enabled', ['events', 'contacts']],
    ]));

    const bad = await request(h.app).post('/api/mktg/v1/sync-status/mktg.Deal/disable').set(auth);
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('mktg.Event or mktg.Contact');
  });
});
