import { runSync } from '@patchbay/marketing-platforms';
import type { FakeHubspotPortal } from '@patchbay/provider-fakes';
import { waitFor, type TestOrganization } from '@patchbay/testing';
import { leaseKey, processSyncJob } from '../src/sync/sync-runner';
import { QUEUE_PREFIX, linkHubspot, request, startHarness, withAccount, type Harness } from './harness';

// A resync, a field-mapping change or a model turned back on while a sync run is open (here: paused by
// a HubSpot 429, as a long initial sync is) must be followed by a complete pass that starts after it,
// whichever job finishes the open run. Each test runs the real worker on the real queue.

let h: Harness;
let org: TestOrganization;

type EventView = {
  id: string;
  remote_id: string;
  name: string | null;
  remote_was_deleted: boolean;
  field_mappings: { linked_account_defined_targets: Record<string, unknown> } | null;
};

beforeAll(async () => {
  h = await startHarness();
  org = await h.newOrganization();
  // Small pages, so a run spans several requests and is still open after the first 429.
  h.workerDeps.tuning = { ...h.workerDeps.tuning, pageSize: 2 };
});
afterAll(async () => h.close());
afterEach(async () => {
  await h.stopWorker();
  h.hubspot.faults.clear();
});

/** A fresh HubSpot portal linked server-side; its initial sync waits in the queue until the worker starts. */
async function linked(events: number, per: number): Promise<{ portal: FakeHubspotPortal; id: string; auth: Record<string, string> }> {
  const portal = h.hubspot.createPortal();
  portal.seed({ events, participantsPerEvent: per });
  const account = await linkHubspot(h, org.master_key, undefined, portal.token);
  return { portal, id: account.id, auth: withAccount(org.master_key, account.account_token) };
}

/** Starts the worker and waits until the account's initial run has paused on a 429: the run is open, its resume job delayed. */
async function openRunPausedByRateLimit(id: string, path: string): Promise<void> {
  h.hubspot.faults.rateLimit({ path, after: 2, count: 1 });
  h.results.length = 0;
  h.startWorker();
  await h.waitForSync(id, ['rate_limited'], 20_000);
  expect((await h.db.syncRun.findUniqueOrThrow({ where: { linkedAccountId: id } })).runId).not.toBeNull();
  h.hubspot.faults.clear();
}

/** The delayed job that resumes the paused run at the platform's retry time. */
async function resumeJob(id: string) {
  const delayed = (await h.queue.getDelayed()).filter((j) => j.data.linked_account_id === id && j.data.trigger === 'schedule' && !j.repeatJobKey);
  expect(delayed).toHaveLength(1);
  return delayed[0]!;
}

/**
 * While another job holds the account's lease (continuing the open run), the resume job comes due and
 * finds it busy: it is spent without doing anything, as it would be in production.
 */
async function spendResumeJobWhileBusy(id: string): Promise<void> {
  const resume = await resumeJob(id);
  await waitFor(async () => (await h.redis.exists(leaseKey(QUEUE_PREFIX, id))) === 1, 10_000, 'a job holding the lease');
  await resume.promote();
  await waitFor(() => h.results.some((r) => r.linkedAccountId === id && r.result === 'skipped_busy'), 10_000, 'the resume job skipped as busy');
}

async function events(auth: Record<string, string>, query = ''): Promise<EventView[]> {
  const res = await request(h.app).get(`/api/mktg/v1/events?page_size=100${query}`).set(auth);
  expect(res.status).toBe(200);
  return res.body.results as EventView[];
}

async function statuses(auth: Record<string, string>): Promise<string[]> {
  const res = await request(h.app).get('/api/mktg/v1/sync-status').set(auth);
  return res.body.results.map((s: { status: string }) => s.status);
}

const doneRuns = (id: string) => h.results.filter((r) => r.linkedAccountId === id && r.result === 'done').length;

describe('requests for a full pass made while a run is open', () => {
  it('a resync asked for while a run is open is followed by a pass that sees a rename, a deletion and an addition made meanwhile', async () => {
    const { portal, id, auth } = await linked(6, 2);
    await openRunPausedByRateLimit(id, '/participations/');
    const [renamed, gone] = portal.allEvents().map((e) => e.objectId);
    // Both were stored by the open run before it paused.
    expect((await events(auth)).map((e) => e.remote_id)).toEqual(expect.arrayContaining([renamed, gone]));

    const asked = new Date();
    portal.updateEvent(renamed!, { eventName: 'Renamed while syncing' });
    portal.deleteEvent(gone!);
    const added = portal.createEvent({ eventName: 'Added while syncing' }).objectId;
    // The resync's own job continues the open run; its participations answer slowly, so the run's resume
    // job comes due meanwhile and finds the account busy.
    h.hubspot.faults.slow({ path: '/participations/', delayMs: 1000, count: 2 });
    await request(h.app).post('/api/mktg/v1/sync-status/resync').set(auth).expect(200);
    await spendResumeJobWhileBusy(id);

    await waitFor(
      async () => {
        const all = await events(auth, '&include_deleted_data=true');
        const byRemote = new Map(all.map((e) => [e.remote_id, e]));
        return byRemote.get(renamed!)?.name === 'Renamed while syncing' && byRemote.get(gone!)?.remote_was_deleted === true && byRemote.has(added);
      },
      30_000,
      'the rename, the deletion and the addition after the resync',
    );
    const visible = await events(auth);
    expect(visible.map((e) => e.remote_id)).not.toContain(gone);
    expect(visible.find((e) => e.remote_id === added)?.name).toBe('Added while syncing');
    // modified_after finds all three changes.
    const changed = await events(auth, `&include_deleted_data=true&modified_after=${encodeURIComponent(asked.toISOString())}`);
    expect(changed.map((e) => e.remote_id)).toEqual(expect.arrayContaining([renamed, gone, added]));
    await waitFor(async () => (await statuses(auth)).every((s) => s === 'DONE'), 10_000, 'DONE statuses');
    const run = await h.db.syncRun.findUniqueOrThrow({ where: { linkedAccountId: id } });
    expect(run.runId).toBeNull();
  });

  it('several resyncs asked for during one run are served by one further pass', async () => {
    const { id, auth } = await linked(4, 2);
    await openRunPausedByRateLimit(id, '/participations/');
    h.hubspot.faults.slow({ path: '/participations/', delayMs: 1000, count: 2 });
    for (let i = 0; i < 3; i += 1) await request(h.app).post('/api/mktg/v1/sync-status/resync').set(auth).expect(200);
    await spendResumeJobWhileBusy(id);
    // The open run ends, one full pass follows; the resync jobs that found the account busy come back and find their request served.
    await waitFor(() => doneRuns(id) >= 2, 30_000, 'the open run and one further pass');
    await waitFor(async () => (await h.queue.getJobs(['waiting', 'delayed', 'active', 'prioritized'])).every((j) => j.data.linked_account_id !== id || Boolean(j.repeatJobKey)), 20_000, 'no job of the account left');
    expect(doneRuns(id)).toBe(2);
    const run = await h.db.syncRun.findUniqueOrThrow({ where: { linkedAccountId: id } });
    expect(run.fullResyncRequests).toBe(run.fullResyncRequestsServed);
    expect(await statuses(auth)).toEqual(['DONE', 'DONE']);
  });

  it('a field mapping added while a run is open reaches every record: a full pass follows the open run', async () => {
    const { id, auth } = await linked(6, 1);
    await openRunPausedByRateLimit(id, '/participations/');
    const created = await request(h.app).post('/api/mktg/v1/field-mappings').set(auth).send({ model: 'events', target_field_name: 'event_type', remote_field_path: 'eventType' });
    expect(created.status).toBe(201);
    // The open run resumes and ends; the events it had stored before the mapping must get it too.
    await (await resumeJob(id)).promote();
    await waitFor(
      async () => {
        const all = await events(auth);
        return all.length === 6 && all.every((e) => e.field_mappings?.linked_account_defined_targets.event_type != null);
      },
      30_000,
      'the mapped field on every event',
    );
    await waitFor(async () => (await statuses(auth)).every((s) => s === 'DONE'), 10_000, 'DONE statuses');
  });

  it('contacts turned back on while a run is open are fetched for every event', async () => {
    const portal = h.hubspot.createPortal();
    portal.seed({ events: 6, participantsPerEvent: 2 });
    const account = await linkHubspot(h, org.master_key, undefined, portal.token);
    const auth = withAccount(org.master_key, account.account_token);
    await request(h.app).post('/api/mktg/v1/sync-status/mktg.Contact/disable').set(auth).expect(200);
    // With contacts off the run only lists events: the 429 meets its third events page.
    await openRunPausedByRateLimit(account.id, '/marketing/v3/marketing-events/');
    h.hubspot.faults.slow({ path: '/marketing/v3/marketing-events/', delayMs: 1000, count: 1 });
    await request(h.app).post('/api/mktg/v1/sync-status/mktg.Contact/enable').set(auth).expect(200);
    await spendResumeJobWhileBusy(account.id);
    await waitFor(
      async () => {
        const all = await events(auth);
        if (all.length !== 6) return false;
        for (const e of all) {
          const contacts = await request(h.app).get(`/api/mktg/v1/events/${e.id}/contacts`).set(auth);
          if (contacts.body.results?.length !== 2) return false;
        }
        return true;
      },
      30_000,
      'the contacts of every event',
    );
    await waitFor(async () => (await statuses(auth)).every((s) => s === 'DONE'), 10_000, 'DONE statuses');
  });

  it('a resync asked for mid-run survives the worker stopping: the run another worker resumes is followed by the full pass', async () => {
    const { id, auth } = await linked(4, 2);
    // The first worker takes the initial sync job and starts the run; the resync comes while it runs, then the worker is stopped.
    let initial: Awaited<ReturnType<typeof h.queue.getWaiting>>[number] | undefined;
    await waitFor(async () => {
      initial = (await h.queue.getWaiting()).find((j) => j.data.linked_account_id === id);
      return initial !== undefined;
    }, 10_000, 'the initial sync job');
    await initial!.remove();
    const stop = new AbortController();
    let asked = new Date(0);
    const stopped = await processSyncJob(
      {
        ...h.workerDeps,
        shutdown: stop.signal,
        runSync: async (opts) => {
          asked = new Date();
          await request(h.app).post('/api/mktg/v1/sync-status/resync').set(auth).expect(200);
          stop.abort(new Error('worker stopped'));
          return runSync(opts);
        },
      },
      initial!.data,
    );
    expect(stopped).toBe('aborted');
    expect((await h.db.syncRun.findUniqueOrThrow({ where: { linkedAccountId: id } })).runId).not.toBeNull();
    // Another worker takes the queued jobs: the open run ends, then one full pass that started after the request.
    h.results.length = 0;
    h.startWorker();
    await waitFor(() => doneRuns(id) >= 2, 30_000, 'the resumed run and the full pass after it');
    await waitFor(async () => (await statuses(auth)).every((s) => s === 'DONE'), 10_000, 'DONE statuses');
    const status = await request(h.app).get('/api/mktg/v1/sync-status').set(auth);
    expect(Date.parse(status.body.results[0].last_sync_start)).toBeGreaterThan(asked.getTime());
    const run = await h.db.syncRun.findUniqueOrThrow({ where: { linkedAccountId: id } });
    expect(run.fullResyncRequestsServed).toBe(run.fullResyncRequests);
  });
});
