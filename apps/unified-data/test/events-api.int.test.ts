import type { FakeHubspotPortal } from '@patchbay/provider-fakes';
import type { TestOrganization } from '@patchbay/testing';
import { PostgresSyncSink } from '../src/sync/sync-sink';
import { linkHubspot, request, startHarness, withAccount, type Harness } from './harness';

let h: Harness;
let org: TestOrganization;
let portal: FakeHubspotPortal;
let account: { id: string; account_token: string };
let auth: Record<string, string>;

type EventRow = { id: string; remote_id: string; created_at: string; modified_at: string; name: string | null; remote_data: unknown; remote_was_deleted: boolean };
type Page = { next: string | null; previous: string | null; results: EventRow[] };

async function get(path: string, headers = auth): Promise<{ status: number; body: Page & { detail?: string } }> {
  const res = await request(h.app).get(path).set(headers);
  return { status: res.status, body: res.body };
}

/** Every event, following `next` from the first page. */
async function walk(query: string, pageSize: number): Promise<{ pages: Page[]; ids: string[] }> {
  const pages: Page[] = [];
  let cursor: string | null = null;
  do {
    const res = await get(`/api/mktg/v1/events?page_size=${pageSize}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status).toBe(200);
    pages.push(res.body);
    cursor = res.body.next;
  } while (cursor);
  return { pages, ids: pages.flatMap((p) => p.results.map((r) => r.id)) };
}

async function fullSync(): Promise<void> {
  h.results.length = 0;
  await request(h.app).post('/api/mktg/v1/sync-status/resync').set(auth).expect(200);
  await h.waitForSync(account.id);
}

beforeAll(async () => {
  h = await startHarness();
  portal = h.hubspot.createPortal();
  portal.seed({ events: 250, participantsPerEvent: 2 });
  h.startWorker();
  org = await h.newOrganization();
  account = await linkHubspot(h, org.master_key, 'events-api', portal.token);
  auth = withAccount(org.master_key, account.account_token);
  await h.waitForSync(account.id);
});
afterAll(async () => h.close());

describe('GET /api/mktg/v1/events', () => {
  it('pages every event once with Merge\'s {next, previous, results}, ordered by created_at ascending then id', async () => {
    const { pages, ids } = await walk('', 100);
    expect(pages.map((p) => p.results.length)).toEqual([100, 100, 50]);
    expect(new Set(ids).size).toBe(250);
    expect(pages[0]?.previous).toBeNull();
    expect(pages[2]?.next).toBeNull();
    const all = pages.flatMap((p) => p.results);
    const sorted = [...all].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    expect(all.map((e) => e.id)).toEqual(sorted.map((e) => e.id));
    expect(Object.keys(all[0] as object).sort()).toEqual(
      ['created_at', 'description', 'emails', 'end_time', 'field_mappings', 'id', 'messages', 'modified_at', 'name', 'remote_created_at', 'remote_data', 'remote_id', 'remote_was_deleted', 'start_time'].sort(),
    );
    expect(all.every((e) => e.remote_data === null)).toBe(true);
  });

  it('previous returns exactly the page before', async () => {
    const { pages } = await walk('', 100);
    const back = await get(`/api/mktg/v1/events?page_size=100&cursor=${encodeURIComponent(pages[2]?.previous as string)}`);
    expect(back.status).toBe(200);
    expect(back.body.results.map((r) => r.id)).toEqual(pages[1]?.results.map((r) => r.id));
    const first = await get(`/api/mktg/v1/events?page_size=100&cursor=${encodeURIComponent(back.body.previous as string)}`);
    expect(first.body.results.map((r) => r.id)).toEqual(pages[0]?.results.map((r) => r.id));
    expect(first.body.previous).toBeNull();
  });

  it('include_remote_data returns the original payloads as {path, data}', async () => {
    const res = await get('/api/mktg/v1/events?page_size=2&include_remote_data=true');
    const remote = res.body.results[0]?.remote_data as Array<{ path: string; data: { objectId: string } }>;
    expect(remote[0]?.path).toContain('/marketing/v3/marketing-events');
    expect(remote[0]?.data.objectId).toBe(res.body.results[0]?.remote_id);
  });

  it('remote_id finds one event', async () => {
    const target = portal.allEvents()[7]?.objectId as string;
    const res = await get(`/api/mktg/v1/events?remote_id=${target}`);
    expect(res.body.results.map((r) => r.remote_id)).toEqual([target]);
  });

  it('answers 400 naming the parameter for a date that is not ISO 8601, a page_size outside 1..100 or a flag that is not a boolean', async () => {
    for (const [query, param] of [
      ['created_after=yesterday', 'created_after'],
      ['modified_before=2026-13-45', 'modified_before'],
      ['page_size=0', 'page_size'],
      ['page_size=101', 'page_size'],
      ['include_remote_data=maybe', 'include_remote_data'],
    ] as const) {
      const res = await get(`/api/mktg/v1/events?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.detail).toContain(param);
    }
  });

  it('answers 400 for a cursor sent with other filters than it was made for, and for a cursor it never made', async () => {
    const first = await get('/api/mktg/v1/events?page_size=10&created_after=2020-01-01T00:00:00Z');
    const reused = await get(`/api/mktg/v1/events?page_size=10&cursor=${encodeURIComponent(first.body.next as string)}`);
    expect(reused.status).toBe(400);
    expect(reused.body.detail).toMatch(/cursor.*other filters/);
    const flags = await get(`/api/mktg/v1/events?page_size=10&created_after=2020-01-01T00:00:00Z&include_deleted_data=true&cursor=${encodeURIComponent(first.body.next as string)}`);
    expect(flags.status).toBe(400);
    const changedSize = await get(`/api/mktg/v1/events?page_size=20&created_after=2020-01-01T00:00:00Z&cursor=${encodeURIComponent(first.body.next as string)}`);
    expect(changedSize.status).toBe(200);
    const garbage = await get('/api/mktg/v1/events?cursor=not-a-cursor');
    expect(garbage.status).toBe(400);
    expect(garbage.body.detail).toContain('cursor');
  });

  it('GET /events/{id} returns one event of this account and 404 for another account\'s id', async () => {
    const page = await get('/api/mktg/v1/events?page_size=1');
    const id = page.body.results[0]?.id as string;
    const one = await request(h.app).get(`/api/mktg/v1/events/${id}?include_remote_data=true`).set(auth);
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(id);
    expect(one.body.remote_data).toHaveLength(1);
    const otherOrg = await h.newOrganization();
    const theirs = await linkHubspot(h, otherOrg.master_key, 'other', h.hubspot.createPortal().token);
    const foreign = await request(h.app).get(`/api/mktg/v1/events/${id}`).set(withAccount(otherOrg.master_key, theirs.account_token));
    expect(foreign.status).toBe(404);
    expect((await request(h.app).get('/api/mktg/v1/events/not-a-uuid').set(auth)).status).toBe(404);
  });

  it('GET /events/{parent_id}/contacts pages the event\'s contacts with Merge\'s Contact fields', async () => {
    const page = await get('/api/mktg/v1/events?page_size=1');
    const id = page.body.results[0]?.id as string;
    const res = await request(h.app).get(`/api/mktg/v1/events/${id}/contacts?page_size=1`).set(auth);
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(1);
    expect(Object.keys(res.body.results[0]).sort()).toEqual(
      ['country', 'created_at', 'email', 'field_mappings', 'first_name', 'id', 'last_name', 'modified_at', 'phone', 'postal_code', 'remote_created_at', 'remote_data', 'remote_id', 'remote_updated_at', 'remote_was_deleted', 'state'].sort(),
    );
    const second = await request(h.app).get(`/api/mktg/v1/events/${id}/contacts?page_size=1&cursor=${encodeURIComponent(res.body.next)}`).set(auth);
    expect(second.body.results).toHaveLength(1);
    expect(second.body.results[0].id).not.toBe(res.body.results[0].id);
    expect(second.body.next).toBeNull();
  });

  it('modified_at moves only for records whose content changed, and modified_after finds just those', async () => {
    const before = new Map((await walk('', 100)).pages.flatMap((p) => p.results).map((e) => [e.remote_id, e.modified_at]));
    const changed = portal.allEvents()[3]?.objectId as string;
    portal.updateEvent(changed, { eventName: 'Renamed webinar' });
    const mark = new Date().toISOString();
    await fullSync();
    const after = (await walk('', 100)).pages.flatMap((p) => p.results);
    const moved = after.filter((e) => e.modified_at !== before.get(e.remote_id)).map((e) => e.remote_id);
    expect(moved).toEqual([changed]);
    expect(after.find((e) => e.remote_id === changed)?.name).toBe('Renamed webinar');
    const since = await get(`/api/mktg/v1/events?modified_after=${encodeURIComponent(mark)}`);
    expect(since.body.results.map((e) => e.remote_id)).toEqual([changed]);
  });

  it('paging while a sync adds and changes records skips nothing and repeats nothing; new records come at the end', async () => {
    const first = await get('/api/mktg/v1/events?page_size=100');
    const seen = first.body.results.map((r) => r.id);
    // The platform changes under the pager: one event seen already and one not yet are updated, two are added.
    const events = portal.allEvents();
    portal.updateEvent(events[1]?.objectId as string, { eventName: 'Changed early' });
    portal.updateEvent(events[200]?.objectId as string, { eventName: 'Changed late' });
    const added = [portal.createEvent({ eventName: 'Added A' }), portal.createEvent({ eventName: 'Added B' })].map((e) => e.objectId);
    await fullSync();
    let cursor: string | null = first.body.next;
    while (cursor) {
      const res = await get(`/api/mktg/v1/events?page_size=100&cursor=${encodeURIComponent(cursor)}`);
      seen.push(...res.body.results.map((r) => r.id));
      cursor = res.body.next;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(252);
    const addedIds = await Promise.all(added.map(async (rid) => (await get(`/api/mktg/v1/events?remote_id=${rid}`)).body.results[0]?.id));
    expect([...seen.slice(-2)].sort()).toEqual([...addedIds].sort());
  });
});

describe('shell records', () => {
  it('a contact referenced before it is fetched is a shell (id and remote_id only), hidden unless include_shell_data, and filled in by its page', async () => {
    const run = await h.db.syncRun.update({ where: { linkedAccountId: account.id }, data: { runId: '00000000-0000-4000-8000-000000000001' } });
    const sink = new PostgresSyncSink(h.db, { linkedAccountId: account.id, runId: run.runId as string });
    const eventRemoteId = portal.allEvents()[0]?.objectId as string;
    await sink.writePage({ model: 'contacts', events: [], contacts: [], links: [{ eventRemoteId, contactRemoteId: 'not-fetched-yet' }], checkpoint: { step: 1 }, passId: 'p1' });
    await sink.flush();
    const event = (await get(`/api/mktg/v1/events?remote_id=${eventRemoteId}`)).body.results[0] as EventRow;
    const hidden = await request(h.app).get(`/api/mktg/v1/events/${event.id}/contacts`).set(auth);
    expect(hidden.body.results.map((c: { remote_id: string }) => c.remote_id)).not.toContain('not-fetched-yet');
    const shown = await request(h.app).get(`/api/mktg/v1/events/${event.id}/contacts?include_shell_data=true`).set(auth);
    const shell = shown.body.results.find((c: { remote_id: string }) => c.remote_id === 'not-fetched-yet');
    expect(shell).toMatchObject({ remote_id: 'not-fetched-yet', first_name: null, email: null, country: null });
    expect(shell.id).toMatch(/^[0-9a-f-]{36}$/);
    const fields = { first_name: 'Ada', last_name: 'L', email: 'ada@example.com', phone: null, state: null, country: 'GB', postal_code: null, remote_created_at: null, remote_updated_at: null };
    await sink.writePage({ model: 'contacts', events: [], contacts: [{ remoteId: 'not-fetched-yet', fields, remoteData: [], fieldMappings: {}, hash: 'h1' }], links: [{ eventRemoteId, contactRemoteId: 'not-fetched-yet' }], checkpoint: { step: 2 }, passId: 'p1' });
    await sink.flush();
    const filled = await request(h.app).get(`/api/mktg/v1/events/${event.id}/contacts`).set(auth);
    expect(filled.body.results.find((c: { remote_id: string }) => c.remote_id === 'not-fetched-yet')).toMatchObject({ id: shell.id, first_name: 'Ada', country: 'GB' });
    await h.db.syncRun.update({ where: { linkedAccountId: account.id }, data: { runId: null } });
  });
});
