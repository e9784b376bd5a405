import { HUBSPOT_FAKE_TOKENS, startFakeHubspot, type FakeHubspot } from '@patchbay/provider-fakes';
import { PlatformError, runSync, verifyCredentials } from './index';
import { COUNTRY_TEXTS } from './testing/countries-sent';
import { MemorySink } from './testing/memory-sink';
import type { FieldMapping, PlatformConnection, SyncOutcome, SyncTuning } from './types';

let hs: FakeHubspot;
const fast: SyncTuning = { baseBackoffMs: 1, maxBackoffMs: 5 };

beforeEach(async () => {
  hs = await startFakeHubspot();
});
afterEach(async () => {
  await hs.close();
});

const conn = (token: string = HUBSPOT_FAKE_TOKENS.valid): PlatformConnection => ({ platform: 'hubspot', credentials: { access_token: token }, baseUrl: hs.baseUrl });
const sync = (sink: MemorySink, extra: Partial<Parameters<typeof runSync>[0]> = {}): Promise<SyncOutcome> =>
  runSync({ conn: conn(), kind: 'full', modifiedSince: null, checkpoint: null, fieldMappings: [], sink, tuning: fast, ...extra });
type Json = Record<string, any>;

describe('HubSpot marketing events', () => {
  it('pages every event and every participation to the end, 100 a page, with the CRM contact behind each', async () => {
    hs.portal.seed({ events: 250, participantsPerEvent: 101 });
    const sink = new MemorySink();
    expect(await sync(sink)).toEqual({ kind: 'done', completeFullPass: true, passId: expect.any(String) });
    expect(sink.events.size).toBe(250);
    expect(sink.links.size).toBe(250 * 101);
    expect(sink.duplicates()).toEqual([]);
    const lists = hs.requests.filter((r) => /marketing-events\/?$/.test(r.path));
    expect(lists.map((r) => r.query.get('limit'))).toEqual(['100', '100', '100']);
    const breakdowns = hs.requests.filter((r) => r.path.endsWith('/breakdown'));
    expect(breakdowns).toHaveLength(250 * 2);
    expect(breakdowns.every((r) => r.query.get('limit') === '100' && r.headers.authorization === `Bearer ${HUBSPOT_FAKE_TOKENS.valid}`)).toBe(true);
  });

  it('maps every Event and Contact field, countries to ISO alpha-2, and keeps the original payloads as remote_data', async () => {
    hs.portal.seed({ events: 3, participantsPerEvent: 60 });
    const sink = new MemorySink();
    expect((await sync(sink)).kind).toBe('done');
    const source = hs.portal.allEvents()[1]!;
    const event = sink.events.get(source.objectId)!;
    expect(event.fields).toEqual({
      name: source.eventName,
      description: source.eventDescription,
      remote_created_at: source.createdAt,
      start_time: source.startDateTime,
      end_time: source.endDateTime,
      emails: [],
      messages: [],
    });
    expect(event.remoteCreatedAt).toEqual(new Date(source.createdAt as string));
    expect(event.remoteUpdatedAt).toEqual(new Date(source.updatedAt));
    expect(event.remoteData).toEqual([{ path: '/marketing/v3/marketing-events/', data: source }]);

    const seenCountries = new Set<string>();
    for (const p of hs.portal.allParticipations(source.objectId)) {
      const id = (p.associations as Json).contact.contactId as string;
      const crm = hs.portal.getContact(id)!;
      const contact = sink.contacts.get(id)!;
      seenCountries.add(crm.properties.country!);
      expect(contact.fields).toEqual({
        first_name: crm.properties.firstname,
        last_name: crm.properties.lastname,
        email: crm.properties.email,
        phone: crm.properties.phone,
        state: crm.properties.state,
        country: COUNTRY_TEXTS[crm.properties.country!],
        postal_code: crm.properties.zip,
        remote_created_at: crm.createdAt,
        remote_updated_at: crm.updatedAt,
      });
      expect(contact.remoteData).toEqual([{ path: '/crm/v3/objects/contacts/batch/read', data: expect.objectContaining({ id, properties: expect.objectContaining({ email: crm.properties.email }) }) }]);
    }
    // Names and the variants people type both occur in the seed, and the place no standard knows.
    expect(seenCountries.size).toBeGreaterThan(8);
    expect([...seenCountries].every((c) => c in COUNTRY_TEXTS)).toBe(true);
  });

  it('falls back to what the participation says for a contact archived since it registered', async () => {
    const { firstObjectId } = hs.portal.seed({ events: 1, participantsPerEvent: 3 });
    const p = hs.portal.allParticipations(firstObjectId)[1]!;
    const assoc = (p.associations as Json).contact;
    hs.portal.archiveContact(assoc.contactId);
    const sink = new MemorySink();
    expect((await sync(sink)).kind).toBe('done');
    expect(sink.contacts.size).toBe(3);
    expect(sink.contacts.get(assoc.contactId)!.fields).toEqual({
      first_name: assoc.firstname,
      last_name: assoc.lastname,
      email: assoc.email,
      phone: null,
      state: null,
      country: null,
      postal_code: null,
      remote_created_at: null,
      remote_updated_at: null,
    });
  });

  it('fills field_mappings from custom properties and CRM properties asked for by the mapping', async () => {
    const { firstObjectId } = hs.portal.seed({ events: 1, participantsPerEvent: 1 });
    hs.portal.updateEvent(firstObjectId, { customProperties: [{ name: 'region', value: 'EMEA' }] });
    const mappings: FieldMapping[] = [
      { model: 'events', target: 'sales_region', remotePath: 'customProperties.region', scope: 'organization' },
      { model: 'events', target: 'kind', remotePath: 'eventType' },
      { model: 'contacts', target: 'title', remotePath: 'properties.jobtitle' },
      { model: 'contacts', target: 'missing', remotePath: 'properties.nothing_here' },
    ];
    const sink = new MemorySink();
    expect((await sync(sink, { fieldMappings: mappings })).kind).toBe('done');
    const source = hs.portal.getEvent(firstObjectId)!;
    expect(sink.events.get(firstObjectId)!.fieldMappings).toEqual({
      organization_defined_targets: { sales_region: 'EMEA' },
      linked_account_defined_targets: { kind: source.eventType },
    });
    const contactId = (hs.portal.allParticipations(firstObjectId)[0]!.associations as Json).contact.contactId as string;
    expect(sink.contacts.get(contactId)!.fieldMappings).toEqual({
      organization_defined_targets: {},
      linked_account_defined_targets: { title: hs.portal.getContact(contactId)!.properties.jobtitle, missing: null },
    });
    const read = hs.requests.find((r) => r.path === '/crm/v3/objects/contacts/batch/read')!;
    expect((read.json as Json).properties).toEqual(expect.arrayContaining(['jobtitle', 'nothing_here', 'phone', 'zip', 'country', 'state']));
  });

  it('gives the same hash to a record fetched again unchanged, and another one only to the record that changed', async () => {
    hs.portal.seed({ events: 4, participantsPerEvent: 2 });
    const first = new MemorySink();
    expect((await sync(first)).kind).toBe('done');
    const [a, b] = hs.portal.allEvents();
    hs.portal.updateEvent(b!.objectId, { eventName: 'Renamed' });
    const second = new MemorySink();
    expect(await sync(second, { kind: 'incremental', modifiedSince: new Date(Date.now() - 60_000) })).toMatchObject({ kind: 'done', completeFullPass: false });
    expect(second.events.get(a!.objectId)!.hash).toBe(first.events.get(a!.objectId)!.hash);
    expect(second.events.get(b!.objectId)!.hash).not.toBe(first.events.get(b!.objectId)!.hash);
    for (const [id, c] of second.contacts) expect(c.hash).toBe(first.contacts.get(id)!.hash);
  });

  it('backs off on its own on a ten-secondly 429 without Retry-After, doubling while it keeps happening', async () => {
    hs.portal.seed({ events: 5, participantsPerEvent: 2 });
    hs.limits.set({ tenSecondly: 3 });
    const sink = new MemorySink();
    const before = Date.now();
    const first = await sync(sink, { tuning: { ...fast, pageSize: 2 } });
    expect(first).toMatchObject({ kind: 'rate_limited', message: expect.stringContaining('ten_secondly_rolling') });
    const firstWait = (first as { retryAt: Date }).retryAt.getTime() - before;
    // The window the X-HubSpot-RateLimit-Interval-Milliseconds header names (10 s), plus at most 20% jitter.
    expect(firstWait).toBeGreaterThanOrEqual(10_000);
    expect(firstWait).toBeLessThanOrEqual(12_100);
    expect(hs.requests.at(-1)!.headers['retry-after']).toBeUndefined();

    // Still limited when it comes back: the next wait doubles (the streak travels in the checkpoint).
    const again = await sync(sink, { checkpoint: (first as { checkpoint: unknown }).checkpoint, tuning: { ...fast, pageSize: 2 } });
    expect(again.kind).toBe('rate_limited');
    expect((again as { retryAt: Date }).retryAt.getTime() - Date.now()).toBeGreaterThanOrEqual(19_000);

    hs.limits.set('unlimited');
    const done = await sync(sink, { checkpoint: (again as { checkpoint: unknown }).checkpoint, tuning: { ...fast, pageSize: 2 } });
    expect(done.kind).toBe('done');
    expect(sink.events.size).toBe(5);
    expect(sink.duplicates()).toEqual([]);
  });

  it('waits at least an hour after the daily limit, which resets at a midnight HubSpot does not name', async () => {
    hs.portal.seed({ events: 2, participantsPerEvent: 1 });
    hs.faults.rateLimit({ count: 1, policy: 'DAILY' });
    const outcome = await sync(new MemorySink());
    expect(outcome).toMatchObject({ kind: 'rate_limited', message: expect.stringContaining('daily') });
    expect((outcome as { retryAt: Date }).retryAt.getTime() - Date.now()).toBeGreaterThan(3_590_000);
  });

  it('says credentials_invalid for an expired OAuth token and a revoked private-app token', async () => {
    const oauth = hs.portal.createToken('oauth');
    hs.portal.revokeToken(oauth, { expired: true });
    expect(await sync(new MemorySink(), { conn: conn(oauth) })).toEqual({ kind: 'credentials_invalid', message: expect.stringContaining('EXPIRED_AUTHENTICATION') });
    hs.portal.revokeToken();
    expect(await sync(new MemorySink())).toEqual({ kind: 'credentials_invalid', message: expect.stringContaining('INVALID_AUTHENTICATION') });
  });

  it('verifies credentials with one call, and throws credentials_invalid for a dead token', async () => {
    expect(await verifyCredentials(conn())).toEqual({ remoteAccountId: null, name: null });
    await expect(verifyCredentials(conn('pat-na1-nonsense'))).rejects.toMatchObject({ kind: 'credentials_invalid' });
    await expect(verifyCredentials(conn('pat-na1-nonsense'))).rejects.toBeInstanceOf(PlatformError);
  });

  it('skips an event deleted between its listing and its participations, and writes nothing twice', async () => {
    hs.portal.seed({ events: 4, participantsPerEvent: 3 });
    const [, doomed] = hs.portal.allEvents();
    const sink = new MemorySink();
    const original = sink.writePage.bind(sink);
    sink.writePage = async (page) => {
      await original(page);
      if (page.model === 'events') hs.portal.deleteEvent(doomed!.objectId);
    };
    expect((await sync(sink)).kind).toBe('done');
    expect([...sink.links].filter((l) => l.startsWith(doomed!.objectId))).toEqual([]);
    expect(sink.links.size).toBe(9);
    expect(sink.duplicates()).toEqual([]);
  });
});
