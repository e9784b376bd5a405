import { EVENTBRITE_FAKE_TOKENS, startFakeEventbrite } from '@patchbay/provider-fakes';
import { runSync, verifyCredentials } from './index';
import { MemorySink } from './testing/memory-sink';
import type { PlatformConnection, SyncOutcome, SyncTuning } from './types';

type FakeEventbrite = Awaited<ReturnType<typeof startFakeEventbrite>>;
let eb: FakeEventbrite;
const fast: SyncTuning = { baseBackoffMs: 1, maxBackoffMs: 5 };

beforeEach(async () => {
  eb = await startFakeEventbrite();
});
afterEach(async () => {
  await eb.close();
});

const conn = (token: string = EVENTBRITE_FAKE_TOKENS.valid): PlatformConnection => ({ platform: 'eventbrite', credentials: { access_token: token }, baseUrl: eb.baseUrl });
const sync = (sink: MemorySink, extra: Partial<Parameters<typeof runSync>[0]> = {}): Promise<SyncOutcome> =>
  runSync({ conn: conn(), kind: 'full', modifiedSince: null, checkpoint: null, fieldMappings: [], sink, tuning: fast, ...extra });
type Json = Record<string, any>;

describe('Eventbrite events and attendees', () => {
  it('walks every organization\'s events (cancelled ones too) and their attendees with continuation, 200 a page', async () => {
    eb.account.seed({ events: 210, attendeesPerEvent: 3 });
    const second = eb.account.createOrganization('Second Org');
    eb.account.seed({ events: 2, attendeesPerEvent: 450, organizationId: second.id });
    const cancelled = eb.account.allEvents()[5]!;
    eb.account.cancelEvent(cancelled.id);
    const sink = new MemorySink();
    expect((await sync(sink)).kind).toBe('done');
    expect(sink.events.size).toBe(212);
    expect(sink.events.has(cancelled.id)).toBe(true);
    expect(sink.links.size).toBe(210 * 3 + 2 * 450);
    expect(sink.duplicates()).toEqual([]);
    const lists = eb.requests.filter((r) => /\/organizations\/\d+\/events\/$/.test(r.path));
    expect(lists.map((r) => [r.query.get('status'), r.query.get('order_by'), r.query.get('page_size'), r.query.has('continuation')])).toEqual([
      ['all', 'created_asc', '200', false],
      ['all', 'created_asc', '200', true],
      ['all', 'created_asc', '200', false],
    ]);
    expect(eb.requests.filter((r) => r.path.endsWith('/attendees/') && r.query.has('continuation'))).toHaveLength(2 * 2);
  });

  it('maps an event and its attendees field by field', async () => {
    const { firstEventId } = eb.account.seed({ events: 1, attendeesPerEvent: 40 });
    const sink = new MemorySink();
    expect((await sync(sink)).kind).toBe('done');
    const source = eb.account.getEvent(firstEventId)! as Json;
    expect(sink.events.get(firstEventId)!.fields).toEqual({
      name: source.name.text,
      description: source.description.text,
      remote_created_at: new Date(source.created).toISOString(),
      start_time: new Date(source.start.utc).toISOString(),
      end_time: new Date(source.end.utc).toISOString(),
      emails: [],
      messages: [],
    });
    expect(sink.events.get(firstEventId)!.remoteUpdatedAt).toEqual(new Date(source.changed));
    const countries = new Set<string | null>();
    for (const a of eb.account.allAttendees(firstEventId) as Json[]) {
      const home = a.profile.addresses.home;
      countries.add(home.country);
      expect(sink.contacts.get(a.id)!.fields).toEqual({
        first_name: a.profile.first_name,
        last_name: a.profile.last_name,
        email: a.profile.email,
        phone: a.profile.cell_phone,
        state: home.region,
        // Eventbrite sends alpha-2 already, or nothing for a place it does not know.
        country: home.country,
        postal_code: home.postal_code,
        remote_created_at: new Date(a.created).toISOString(),
        remote_updated_at: new Date(a.changed).toISOString(),
      });
      expect(sink.contacts.get(a.id)!.remoteData).toEqual([{ path: `/events/${firstEventId}/attendees/`, data: a }]);
    }
    expect(countries.size).toBeGreaterThan(5);
  });

  it('asks only for attendees changed since the last sync in an incremental one', async () => {
    eb.account.seed({ events: 3, attendeesPerEvent: 20 });
    const full = new MemorySink();
    expect((await sync(full)).kind).toBe('done');
    eb.clock.advance(5_000);
    const since = new Date(eb.clock.now());
    eb.clock.advance(1_000);
    const event = eb.account.allEvents()[1]!;
    const attendee = eb.account.allAttendees(event.id)[4]!;
    eb.account.updateAttendee(event.id, attendee.id, { email: 'moved@example.com' });
    const added = eb.account.addAttendee(event.id, { firstName: 'New', lastName: 'Comer' });

    const incremental = new MemorySink();
    expect(await sync(incremental, { kind: 'incremental', modifiedSince: since })).toMatchObject({ kind: 'done', completeFullPass: false });
    expect(sorted(incremental.contacts.keys())).toEqual(sorted([attendee.id, added.id]));
    expect(incremental.contacts.get(attendee.id)!.fields.email).toBe('moved@example.com');
    expect(incremental.contacts.get(attendee.id)!.hash).not.toBe(full.contacts.get(attendee.id)!.hash);
    const asked = eb.requests.filter((r) => r.path.endsWith('/attendees/')).slice(-3);
    expect(asked.every((r) => r.query.get('changed_since') === `${since.toISOString().slice(0, 19)}Z`)).toBe(true);
    // Events have no such filter: all of them again, unchanged hashes for the unchanged ones.
    expect(incremental.events.size).toBe(3);
    for (const [id, e] of incremental.events) expect(e.hash).toBe(full.events.get(id)!.hash);
  });

  it('resumes a killed incremental sync with the changed_since it started with', async () => {
    eb.account.seed({ events: 4, attendeesPerEvent: 6 });
    eb.clock.advance(5_000);
    const since = new Date(eb.clock.now());
    eb.clock.advance(1_000);
    const changed = eb.account.allEvents().flatMap((e) => eb.account.allAttendees(e.id).slice(0, 3).map((a) => eb.account.updateAttendee(e.id, a.id, { lastName: 'Changed' }).id));
    const tuning = { ...fast, pageSize: 2 };
    const sink = new MemorySink();
    sink.failAt = 5;
    expect((await sync(sink, { kind: 'incremental', modifiedSince: since, tuning })).kind).toBe('failed');
    sink.failAt = null;
    eb.requests.length = 0;
    // The caller's modifiedSince is the pass's: a resume keeps the one in the checkpoint.
    const resumed = await sync(sink, { kind: 'incremental', modifiedSince: new Date(0), checkpoint: sink.lastCheckpoint, tuning });
    expect(resumed).toMatchObject({ kind: 'done', completeFullPass: false });
    const attendeeCalls = eb.requests.filter((r) => r.path.endsWith('/attendees/'));
    expect(attendeeCalls.length).toBeGreaterThan(0);
    expect(attendeeCalls.every((r) => r.query.get('changed_since') === `${since.toISOString().slice(0, 19)}Z`)).toBe(true);
    expect(sorted(sink.contacts.keys())).toEqual(sorted(changed));
    expect(sink.duplicates()).toEqual([]);
  });

  it('restarts a listing whose continuation is refused from the top and skips what was written', async () => {
    eb.account.seed({ events: 3, attendeesPerEvent: 9 });
    const tuning = { ...fast, pageSize: 2 };
    const sink = new MemorySink();
    sink.failAt = 4;
    expect((await sync(sink, { tuning })).kind).toBe('failed');
    const checkpoint = sink.lastCheckpoint as Json;
    expect(checkpoint.contacts.cursor).toEqual(expect.any(String));
    // A continuation the platform no longer takes (Eventbrite: ARGUMENTS_ERROR continuation INVALID).
    const stale = { ...checkpoint, contacts: { ...checkpoint.contacts, cursor: 'c3RhbGU' }, events: { ...checkpoint.events, cursor: 'c3RhbGU' } };
    sink.failAt = null;
    eb.requests.length = 0;
    expect((await sync(sink, { checkpoint: stale, tuning })).kind).toBe('done');
    expect(eb.requests.filter((r) => r.status === 400)).toHaveLength(2);
    expect(sink.links.size).toBe(27);
    expect(sink.events.size).toBe(3);
    expect(sink.duplicates()).toEqual([]);
  });

  it('reads a refused listing again in full when the last item written has gone meanwhile, losing nothing', async () => {
    eb.account.seed({ events: 1, attendeesPerEvent: 9 });
    const tuning = { ...fast, pageSize: 2 };
    const sink = new MemorySink();
    sink.failAt = 3;
    expect((await sync(sink, { tuning })).kind).toBe('failed');
    const checkpoint = sink.lastCheckpoint as Json;
    const [event] = eb.account.allEvents();
    eb.account.deleteAttendee(event!.id, checkpoint.contacts.lastId as string);
    const stale = { ...checkpoint, contacts: { ...checkpoint.contacts, cursor: 'c3RhbGU' } };
    sink.failAt = null;
    expect((await sync(sink, { checkpoint: stale, tuning })).kind).toBe('done');
    // Every attendee still there is written; the ones before the gone one twice (the sink upserts them).
    const expected = eb.account.allAttendees(event!.id).map((a) => `${event!.id}|${a.id}`);
    expect(expected.every((l) => sink.links.has(l))).toBe(true);
    expect(sink.duplicates().length).toBeGreaterThan(0);
  });

  it('backs off on its own after HIT_RATE_LIMIT, which carries no Retry-After: minutes for the hour, an hour for the day', async () => {
    eb.account.seed({ events: 2, attendeesPerEvent: 2 });
    eb.limits.set({ perHour: 2 });
    const sink = new MemorySink();
    const hourly = await sync(sink);
    expect(hourly).toMatchObject({ kind: 'rate_limited', message: expect.stringContaining('HIT_RATE_LIMIT') });
    const wait = (hourly as { retryAt: Date }).retryAt.getTime() - Date.now();
    expect(wait).toBeGreaterThan(4 * 60_000);
    expect(wait).toBeLessThanOrEqual(6 * 60_000 + 1000);
    eb.limits.set('unlimited');
    // Aimed at the first event's attendees: the request the resumed sync starts with (a page fetched
    // ahead by the first sync may still reach the in-process fake after it returned).
    eb.faults.rateLimit({ count: 1, policy: 'daily', path: `/events/${eb.account.allEvents()[0]!.id}/attendees/` });
    const daily = await sync(sink, { checkpoint: (hourly as { checkpoint: unknown }).checkpoint });
    expect(daily).toMatchObject({ kind: 'rate_limited' });
    // The second own backoff in a row, and a daily one: at least two hours.
    expect((daily as { retryAt: Date }).retryAt.getTime() - Date.now()).toBeGreaterThan(2 * 3_600_000 - 60_000);
    expect((await sync(sink, { checkpoint: (daily as { checkpoint: unknown }).checkpoint })).kind).toBe('done');
    expect(sink.links.size).toBe(4);
    expect(sink.duplicates()).toEqual([]);
  });

  it('verifies credentials as the user, and says credentials_invalid for a revoked token', async () => {
    expect(await verifyCredentials(conn())).toEqual({ remoteAccountId: eb.account.userId, name: expect.any(String) });
    eb.account.revokeToken();
    await expect(verifyCredentials(conn())).rejects.toMatchObject({ kind: 'credentials_invalid', message: expect.stringContaining('INVALID_AUTH') });
    expect(await sync(new MemorySink())).toEqual({ kind: 'credentials_invalid', message: expect.stringContaining('INVALID_AUTH') });
  });
});

const sorted = (values: Iterable<string>) => [...values].sort();
