import type { FakeHubspotPortal } from '@patchbay/provider-fakes';
import { waitFor, type TestOrganization } from '@patchbay/testing';
import { syncJob } from '../src/sync/scheduler';
import { processSyncJob, type SyncWorkerDeps } from '../src/sync/sync-runner';
import { EVENTBRITE_FAKE_TOKENS, bearer, linkHubspot, request, runSyncJob, startHarness, withAccount, type Harness } from './harness';

let h: Harness;
let org: TestOrganization;

beforeAll(async () => {
  h = await startHarness();
  org = await h.newOrganization();
});
afterAll(async () => h.close());
afterEach(() => h.hubspot.faults.clear());

/** Links a fresh HubSpot portal with `events` events of `per` participants each, without running its initial sync. */
async function linkedPortal(events: number, per: number): Promise<{ portal: FakeHubspotPortal; account: { id: string; account_token: string } }> {
  const portal = h.hubspot.createPortal();
  portal.seed({ events, participantsPerEvent: per });
  const account = await linkHubspot(h, org.master_key, undefined, portal.token);
  return { portal, account };
}

async function accountRow(id: string) {
  return h.db.linkedAccount.findUniqueOrThrow({ where: { id } });
}

const run = (deps: SyncWorkerDeps, account: Awaited<ReturnType<typeof accountRow>>, mode: 'full' | 'incremental' = 'full') => runSyncJob(deps, account, mode);
/** The job that resumes an open run, as the runner queues it after a pause. */
const resume = (deps: SyncWorkerDeps, account: Awaited<ReturnType<typeof accountRow>>) => runSyncJob(deps, account, 'full', 'schedule');

/** How many records the current or last run wrote more than once. */
async function writtenTwice(linkedAccountId: string): Promise<number> {
  const rows = await h.db.$queryRaw<Array<{ n: bigint }>>`
    SELECT (SELECT count(*) FROM events WHERE linked_account_id = ${linkedAccountId}::uuid AND run_writes > 1)
         + (SELECT count(*) FROM contacts WHERE linked_account_id = ${linkedAccountId}::uuid AND run_writes > 1) AS n`;
  return Number(rows[0]?.n ?? 0);
}

describe('sync engine', () => {
  it('a sync killed mid-page resumes from its checkpoint and writes nothing twice', async () => {
    const { portal, account } = await linkedPortal(12, 30);
    const row = await accountRow(account.id);
    // The 6th participations page hangs; the worker is stopped while it waits for it.
    h.hubspot.faults.slow({ path: '/participations/', after: 5, delayMs: 20_000 });
    const stop = new AbortController();
    const first = run({ ...h.workerDeps, shutdown: stop.signal }, row);
    await waitFor(async () => (await h.db.syncRun.findUniqueOrThrow({ where: { linkedAccountId: account.id } })).pagesWritten >= 6, 20_000, 'pages before the hang');
    await new Promise((r) => setTimeout(r, 200));
    stop.abort(new Error('killed'));
    expect(await first).toBe('aborted');
    const midway = await h.db.syncRun.findUniqueOrThrow({ where: { linkedAccountId: account.id } });
    expect(midway.runId).not.toBeNull();
    expect(midway.checkpoint).not.toBeNull();
    const eventsBefore = await h.db.event.count({ where: { linkedAccountId: account.id } });
    expect(eventsBefore).toBe(12);
    h.hubspot.faults.clear();
    expect(await resume(h.workerDeps, row)).toBe('done');
    expect(await writtenTwice(account.id)).toBe(0);
    expect(await h.db.event.count({ where: { linkedAccountId: account.id } })).toBe(12);
    const links = await h.db.eventContact.count({ where: { linkedAccountId: account.id } });
    expect(links).toBe(portal.allEvents().reduce((n, e) => n + portal.allParticipations(e.objectId).length, 0));
    const after = await h.db.syncRun.findUniqueOrThrow({ where: { linkedAccountId: account.id } });
    expect(after.runId).toBeNull();
  });

  it('a 429 storm becomes a delayed job at the platform\'s retry time; other accounts sync meanwhile; the resumed sync writes nothing twice', async () => {
    const { account } = await linkedPortal(8, 20);
    const eb = h.eventbrite.createAccount();
    eb.seed({ events: 5, attendeesPerEvent: 4 });
    h.hubspot.faults.rateLimit({ path: '/participations/', after: 2, count: 1000, policy: 'TEN_SECONDLY_ROLLING' });
    h.results.length = 0;
    h.startWorker();
    try {
      expect(await h.waitForSync(account.id, ['rate_limited'])).toBe('rate_limited');
      const storm = h.hubspot.requests.filter((r) => r.status === 429).length;
      // Rate-limited promptly, not hammering the platform: a handful of 429s, not a retry loop.
      expect(storm).toBeLessThanOrEqual(4);
      const delayed = (await h.queue.getDelayed()).filter((j) => j.data.linked_account_id === account.id && !j.repeatJobKey);
      expect(delayed).toHaveLength(1);
      const status = await request(h.app).get('/api/mktg/v1/sync-status').set(withAccount(org.master_key, account.account_token));
      const next = Date.parse(status.body.results[0].next_sync_start);
      expect(next).toBe((delayed[0]?.timestamp ?? 0) + (delayed[0]?.opts.delay ?? 0));
      expect(status.body.results[0].status).toBe('SYNCING');
      // Another account, linked after the storm began, syncs to the end while the first waits.
      const other = await request(h.app)
        .post('/api/mktg/v1/linked-accounts')
        .set(bearer(org.master_key))
        .send({ platform: 'eventbrite', credentials: { access_token: eb.token }, end_user_origin_id: 'eb-during-storm', end_user_organization_name: 'EB' });
      expect(other.status).toBe(201);
      await h.waitForSync(other.body.id);
      expect(h.results.filter((r) => r.linkedAccountId === account.id).map((r) => r.result)).not.toContain('done');
      expect(await h.db.contact.count({ where: { linkedAccountId: other.body.id } })).toBe(20);
      // The storm passes; the delayed job resumes from the checkpoint.
      h.hubspot.faults.clear();
      await delayed[0]?.promote();
      await h.waitForSync(account.id, ['done']);
      expect(await writtenTwice(account.id)).toBe(0);
      expect(await h.db.eventContact.count({ where: { linkedAccountId: account.id } })).toBe(160);
    } finally {
      await h.stopWorker();
    }
  });

  it('marks a record remote_was_deleted only after a complete, successful full pass', async () => {
    const { portal, account } = await linkedPortal(6, 2);
    const row = await accountRow(account.id);
    expect(await run(h.workerDeps, row)).toBe('done');
    const gone = portal.allEvents()[2]?.objectId as string;
    portal.deleteEvent(gone);
    const deleted = async () => (await h.db.event.findFirstOrThrow({ where: { linkedAccountId: account.id, remoteId: gone } })).remoteWasDeleted;
    // An incremental pass never judges deletions.
    expect(await run(h.workerDeps, row, 'incremental')).toBe('done');
    expect(await deleted()).toBe(false);
    // A full pass that breaks off (the platform keeps failing) does not either.
    h.hubspot.faults.serverErrors({ path: '/participations/', after: 2, count: 1000 });
    expect(await run({ ...h.workerDeps, runSync: undefined }, row)).toBe('transient');
    expect(await deleted()).toBe(false);
    h.hubspot.faults.clear();
    // Its resumption completes the pass: now the event is marked.
    expect(await resume(h.workerDeps, row)).toBe('done');
    expect(await deleted()).toBe(true);
    const auth = withAccount(org.master_key, account.account_token);
    const hidden = await request(h.app).get('/api/mktg/v1/events').set(auth);
    expect(hidden.body.results.map((e: { remote_id: string }) => e.remote_id)).not.toContain(gone);
    const shown = await request(h.app).get('/api/mktg/v1/events?include_deleted_data=true').set(auth);
    expect(shown.body.results.find((e: { remote_id: string }) => e.remote_id === gone)).toMatchObject({ remote_was_deleted: true });
  });

  it('one sync at a time per linked account, whatever the number of workers', async () => {
    const { account } = await linkedPortal(4, 5);
    const row = await accountRow(account.id);
    h.hubspot.faults.slow({ path: '/participations/', after: 1, delayMs: 1500 });
    const a = run(h.workerDeps, row);
    await waitFor(async () => (await h.db.syncRun.findUniqueOrThrow({ where: { linkedAccountId: account.id } })).pagesWritten >= 1, 10_000, 'first page');
    const otherWorker = { ...h.workerDeps, redis: h.redis.duplicate() };
    try {
      expect(await resume(otherWorker, row)).toBe('skipped_busy');
    } finally {
      otherWorker.redis.disconnect();
    }
    expect(await a).toBe('done');
    expect(await writtenTwice(account.id)).toBe(0);
  });

  it('two workers syncing accounts that share a HubSpot token stay within its ten-secondly limit together: no 429, the rest waits for the window', async () => {
    const portal = h.hubspot.createPortal();
    portal.seed({ events: 3, participantsPerEvent: 5 });
    const first = await linkHubspot(h, org.master_key, undefined, portal.token);
    const second = await linkHubspot(h, org.master_key, undefined, portal.token);
    // Each sync needs 7 requests (an events page, then participations and a CRM batch read per event): 14 > 12.
    h.hubspot.limits.set({ tenSecondly: 12 });
    h.hubspot.requests.length = 0;
    const otherWorker = { ...h.workerDeps, redis: h.redis.duplicate() };
    try {
      const results = await Promise.all([run(h.workerDeps, await accountRow(first.id)), run(otherWorker, await accountRow(second.id))]);
      expect(h.hubspot.requests.filter((r) => r.status === 429)).toHaveLength(0);
      expect(h.hubspot.requests.length).toBe(12);
      // The sync that found the window full paused, to resume from its checkpoint when it has room again.
      expect(results).toContain('rate_limited');
      const paused = [first, second].filter((_, i) => results[i] === 'rate_limited');
      for (const account of paused) {
        const delayed = (await h.queue.getDelayed()).filter((j) => j.data.linked_account_id === account.id && !j.repeatJobKey);
        expect(delayed).toHaveLength(1);
        const resumeAt = (delayed[0]?.timestamp ?? 0) + (delayed[0]?.delay ?? 0);
        expect(resumeAt).toBeGreaterThan(Date.now());
        expect(resumeAt).toBeLessThanOrEqual(Date.now() + 10_000);
        await delayed[0]?.remove();
      }
    } finally {
      otherWorker.redis.disconnect();
      h.hubspot.limits.set('unlimited');
    }
  });

  it('deleting a linked account while it syncs stops the sync and leaves none of its records', async () => {
    const { account } = await linkedPortal(6, 20);
    const row = await accountRow(account.id);
    h.hubspot.faults.slow({ path: '/participations/', after: 2, delayMs: 1500 });
    const syncing = run(h.workerDeps, row);
    await waitFor(async () => (await h.db.syncRun.findUniqueOrThrow({ where: { linkedAccountId: account.id } })).pagesWritten >= 2, 20_000, 'pages before the delete');
    expect((await request(h.app).delete(`/api/mktg/v1/linked-accounts/${account.id}`).set(bearer(org.master_key))).status).toBe(204);
    expect(await syncing).toBe('skipped_missing');
    expect(await h.db.event.count({ where: { linkedAccountId: account.id } })).toBe(0);
    expect(await h.db.contact.count({ where: { linkedAccountId: account.id } })).toBe(0);
  });

  it('credentials that stop working put the account in RELINK_NEEDED with PAUSED syncs and an audit event', async () => {
    const { portal, account } = await linkedPortal(3, 1);
    const row = await accountRow(account.id);
    expect(await run(h.workerDeps, row)).toBe('done');
    portal.revokeToken(portal.token);
    expect(await run(h.workerDeps, row)).toBe('credentials_invalid');
    const view = await request(h.app).get(`/api/mktg/v1/linked-accounts/${account.id}`).set(bearer(org.master_key));
    expect(view.body).toMatchObject({ status: 'RELINK_NEEDED' });
    expect(view.body.status_detail).toContain('HubSpot');
    const status = await request(h.app).get('/api/mktg/v1/sync-status').set(withAccount(org.master_key, account.account_token));
    expect(status.body.results.map((s: { status: string; last_sync_result: string }) => [s.status, s.last_sync_result])).toEqual([
      ['PAUSED', 'FAILED'],
      ['PAUSED', 'FAILED'],
    ]);
    await waitFor(async () => (await h.auditEvents(org.master_key)).some((e) => e.event_type === 'linked_account.credentials_invalid' && e.resource_id === account.id), 15_000, 'audit event');
    // Scheduled syncs wait for a relink instead of asking the platform again with dead credentials.
    expect(await processSyncJob(h.workerDeps, syncJob(await accountRow(account.id), 'incremental', 'schedule'))).toBe('skipped_paused');
  });

  it('field mappings are managed through the API and applied by the next sync', async () => {
    const { account } = await linkedPortal(3, 1);
    const row = await accountRow(account.id);
    expect(await run(h.workerDeps, row)).toBe('done');
    const auth = withAccount(org.master_key, account.account_token);
    const bad = await request(h.app).post('/api/mktg/v1/field-mappings').set(auth).send({ model: 'events', target_field_name: 'x', remote_field_path: 'noSuchField' });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('remote_field_path');
    const created = await request(h.app).post('/api/mktg/v1/field-mappings').set(auth).send({ model: 'events', target_field_name: 'event_type', remote_field_path: 'eventType' });
    expect(created.status).toBe(201);
    expect((await request(h.app).get('/api/mktg/v1/field-mappings').set(auth)).body.results).toHaveLength(1);
    expect(await run(h.workerDeps, row, 'incremental')).toBe('done');
    const events = await request(h.app).get('/api/mktg/v1/events').set(auth);
    expect(events.body.results[0].field_mappings.linked_account_defined_targets).toHaveProperty('event_type');
    expect(events.body.results[0].field_mappings.linked_account_defined_targets.event_type).not.toBeNull();
    expect((await request(h.app).delete(`/api/mktg/v1/field-mappings/${created.body.id}`).set(auth)).status).toBe(204);
  });

  it('Eventbrite accounts link with their token and sync events and attendees', async () => {
    const eb = h.eventbrite.createAccount();
    eb.seed({ events: 3, attendeesPerEvent: 2 });
    const linked = await request(h.app)
      .post('/api/mktg/v1/linked-accounts')
      .set(bearer(org.master_key))
      .send({ platform: 'eventbrite', credentials: { access_token: eb.token }, end_user_origin_id: 'eb-1', end_user_organization_name: 'EB' });
    expect(linked.status).toBe(201);
    expect(EVENTBRITE_FAKE_TOKENS.valid).not.toBe(eb.token);
    expect(await run(h.workerDeps, await accountRow(linked.body.id))).toBe('done');
    expect(await h.db.event.count({ where: { linkedAccountId: linked.body.id } })).toBe(3);
    expect(await h.db.contact.count({ where: { linkedAccountId: linked.body.id, isShell: false } })).toBe(6);
  });
});
