import { HUBSPOT_FAKE_TOKENS, startFakeHubspot, type FakeHubspot } from './hubspot';

type Json = Record<string, any>;

let hs: FakeHubspot;

beforeEach(async () => {
  hs = await startFakeHubspot();
});

afterEach(async () => {
  await hs.close();
});

async function call(method: string, path: string, options: { token?: string | null; body?: unknown } = {}): Promise<{ status: number; body: Json; headers: Headers }> {
  const token = options.token === undefined ? HUBSPOT_FAKE_TOKENS.valid : options.token;
  const res = await fetch(`${hs.baseUrl}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(options.body ? { 'content-type': 'application/json' } : {}) },
    body: options.body ? JSON.stringify(options.body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {}, headers: res.headers };
}
const get = (path: string, token?: string | null) => call('GET', path, { token });

/** Follows paging.next.after to the end, as a sync does. */
async function walk(path: string, token?: string): Promise<{ results: Json[]; pages: Json[] }> {
  const results: Json[] = [];
  const pages: Json[] = [];
  let after: string | undefined;
  for (let guard = 0; guard < 10_000; guard += 1) {
    const sep = path.includes('?') ? '&' : '?';
    const page = await get(`${path}${after ? `${sep}after=${encodeURIComponent(after)}` : ''}`, token);
    expect(page.status).toBe(200);
    pages.push(page.body);
    results.push(...(page.body.results as Json[]));
    after = page.body.paging?.next?.after as string | undefined;
    if (!after) return { results, pages };
  }
  throw new Error('paging did not end');
}

describe('fake HubSpot marketing events', () => {
  it('lists every marketing event once, sorted by objectId, 10 by default and at most 100 a page', async () => {
    hs.portal.seed({ events: 250, participantsPerEvent: 5 });
    const first = await get('/marketing/v3/marketing-events/');
    expect(first.body.results).toHaveLength(10);
    expect(first.body.paging.next).toEqual({ after: expect.any(String), link: expect.stringContaining('/marketing/v3/marketing-events/?limit=10&after=') });

    const { results, pages } = await walk('/marketing/v3/marketing-events/?limit=100');
    expect(pages.map((p) => p.results.length)).toEqual([100, 100, 50]);
    expect(pages[2]!.paging).toBeUndefined();
    const ids = results.map((e) => e.objectId as string);
    expect(new Set(ids).size).toBe(250);
    expect([...ids].sort((a, b) => Number(a) - Number(b))).toEqual(ids);
    expect(results[0]).toEqual({
      objectId: ids[0],
      eventName: expect.any(String),
      eventType: expect.any(String),
      startDateTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      endDateTime: expect.any(String),
      eventOrganizer: 'Marketing Team',
      eventDescription: expect.any(String),
      eventUrl: expect.any(String),
      eventCancelled: false,
      eventCompleted: true,
      externalEventId: expect.any(String),
      appInfo: { id: expect.any(String), name: expect.any(String) },
      registrants: 5,
      attendees: 5,
      cancellations: 0,
      noShows: 0,
      customProperties: [],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await get('/marketing/v3/marketing-events/?limit=101')).body).toMatchObject({ status: 'error', category: 'VALIDATION_ERROR' });
    expect((await get('/marketing/v3/marketing-events/?after=nonsense')).status).toBe(400);
  });

  it('reads one event, answers 404 for an unknown objectId and 400 for an impossible one', async () => {
    const { firstObjectId } = hs.portal.seed({ events: 3, participantsPerEvent: 0 });
    expect((await get(`/marketing/v3/marketing-events/${firstObjectId}`)).body.objectId).toBe(firstObjectId);
    expect(await get('/marketing/v3/marketing-events/99999999999')).toMatchObject({ status: 404, body: { status: 'error', category: 'OBJECT_NOT_FOUND' } });
    expect((await get('/marketing/v3/marketing-events/0')).body.message).toBe("Invalid value: '0' specified in objectId parameter. Should be a positive Long.");
  });

  it('walks an event\'s participations breakdown with contacts, and filters it by state and contact', async () => {
    const { firstObjectId } = hs.portal.seed({ events: 2, participantsPerEvent: 230 });
    const { results, pages } = await walk(`/marketing/v3/marketing-events/participations/${firstObjectId}/breakdown?limit=100`);
    expect(pages.map((p) => p.results.length)).toEqual([100, 100, 30]);
    expect(pages.every((p) => p.total === 230)).toBe(true);
    expect(new Set(results.map((p) => p.id)).size).toBe(230);
    expect(results[0]).toEqual({
      id: expect.any(String),
      createdAt: expect.any(String),
      properties: { occurredAt: expect.any(Number), attendanceState: 'ATTENDED', attendanceDurationSeconds: expect.any(Number), attendancePercentage: expect.any(String) },
      associations: {
        marketingEvent: { marketingEventId: firstObjectId, name: expect.any(String), externalEventId: expect.any(String), externalAccountId: expect.any(String) },
        contact: { contactId: expect.any(String), email: expect.stringContaining('@'), firstname: expect.any(String), lastname: expect.any(String) },
      },
    });
    const cancelled = await walk(`/marketing/v3/marketing-events/participations/${firstObjectId}/breakdown?limit=100&state=CANCELLED`);
    expect(cancelled.results).toHaveLength(23);
    expect(cancelled.results.every((p) => p.properties.attendanceState === 'CANCELLED')).toBe(true);
    const email = results[5]!.associations.contact.email as string;
    const byContact = await get(`/marketing/v3/marketing-events/participations/${firstObjectId}/breakdown?contactIdentifier=${encodeURIComponent(email)}`);
    expect(byContact.body.results.map((p: Json) => p.id)).toEqual([results[5]!.id]);
    expect((await get(`/marketing/v3/marketing-events/participations/${firstObjectId}/breakdown?state=MAYBE`)).status).toBe(400);
    expect((await get(`/marketing/v3/marketing-events/participations/${firstObjectId}/breakdown?after=forged`)).status).toBe(400);
    expect((await get(`/marketing/v3/marketing-events/participations/${firstObjectId}`)).body).toEqual({ attended: 161, registered: 207, cancelled: 23, noShows: 46 });
  });

  it('batch-reads the contacts behind participations with phone and address, 207 with errors for ids it cannot find', async () => {
    const { firstObjectId } = hs.portal.seed({ events: 1, participantsPerEvent: 3 });
    const participations = hs.portal.allParticipations(firstObjectId);
    const ids = participations.map((p) => (p.associations as Json).contact.contactId as string);
    const properties = ['firstname', 'lastname', 'email', 'phone', 'address', 'city', 'state', 'zip', 'country'];
    const read = await call('POST', '/crm/v3/objects/contacts/batch/read', { body: { properties, propertiesWithHistory: [], inputs: ids.map((id) => ({ id })) } });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ status: 'COMPLETE', results: expect.any(Array), startedAt: expect.any(String), completedAt: expect.any(String) });
    expect(read.body.results.map((c: Json) => c.id)).toEqual(ids);
    expect(read.body.results[0]).toEqual({
      id: ids[0],
      properties: expect.objectContaining({ email: expect.any(String), phone: expect.stringMatching(/^\+\d/), zip: expect.any(String), country: expect.any(String), state: expect.any(String), hs_object_id: ids[0] }),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      archived: false,
    });

    hs.portal.archiveContact(ids[1]!);
    const partial = await call('POST', '/crm/v3/objects/contacts/batch/read', { body: { properties, inputs: [{ id: ids[0] }, { id: ids[1] }, { id: '123' }] } });
    expect(partial.status).toBe(207);
    expect(partial.body.results.map((c: Json) => c.id)).toEqual([ids[0]]);
    expect(partial.body.numErrors).toBe(1);
    expect(partial.body.errors[0]).toMatchObject({ status: 'error', category: 'OBJECT_NOT_FOUND', context: { ids: [ids[1], '123'] } });
    const tooMany = await call('POST', '/crm/v3/objects/contacts/batch/read', { body: { inputs: Array.from({ length: 101 }, (_, i) => ({ id: String(i) })) } });
    expect(tooMany.body).toMatchObject({ status: 'error', category: 'VALIDATION_ERROR' });
    // The CRM seed's own contacts read the same way from the starting portal.
    expect((await call('POST', '/crm/v3/objects/contacts/batch/read', { body: { inputs: [{ id: '101' }] } })).body.results[0].properties.email).toBe('person1@globex.com');
    expect((await get(`/crm/v3/objects/contacts/${ids[0]}?properties=phone`)).body.properties.phone).toEqual(read.body.results[0].properties.phone);
  });

  it('moves updatedAt on a change, keeps a cancelled event listed, drops a deleted one, and shows an event added mid-walk once at the end', async () => {
    hs.portal.seed({ events: 30, participantsPerEvent: 2 });
    const [a, b, c] = hs.portal.allEvents();
    hs.clock.advance(1000);
    const updated = hs.portal.updateEvent(a!.objectId, { eventName: 'Renamed' });
    expect(updated.eventName).toBe('Renamed');
    expect(updated.updatedAt > a!.updatedAt).toBe(true);
    expect(updated.createdAt).toBe(a!.createdAt);
    expect(hs.portal.cancelEvent(b!.objectId)).toMatchObject({ eventCancelled: true });
    hs.portal.deleteEvent(c!.objectId);

    const first = await get('/marketing/v3/marketing-events/?limit=10');
    const added = hs.portal.createEvent({ eventName: 'Added mid-walk' });
    const seen: Json[] = [...(first.body.results as Json[])];
    let after = first.body.paging?.next?.after as string | undefined;
    while (after) {
      const page = await get(`/marketing/v3/marketing-events/?limit=10&after=${after}`);
      seen.push(...(page.body.results as Json[]));
      after = page.body.paging?.next?.after as string | undefined;
    }
    expect(seen).toHaveLength(30);
    expect(seen.map((e) => e.objectId)).not.toContain(c!.objectId);
    expect(seen.find((e) => e.objectId === b!.objectId)).toMatchObject({ eventCancelled: true });
    expect(seen[seen.length - 1]!.objectId).toBe(added.objectId);
    expect((await get(`/marketing/v3/marketing-events/${c!.objectId}`)).status).toBe(404);
    expect((await get(`/marketing/v3/marketing-events/participations/${c!.objectId}/breakdown`)).status).toBe(404);

    const participation = hs.portal.allParticipations(a!.objectId)[0]!;
    const contactId = (participation.associations as Json).contact.contactId as string;
    const contactBefore = hs.portal.getContact(contactId)!;
    hs.clock.advance(1000);
    const contactAfter = hs.portal.updateContact(contactId, { phone: '+1 555 0100' });
    expect(contactAfter.updatedAt > contactBefore.updatedAt).toBe(true);
    expect(contactAfter.properties.lastmodifieddate).toBe(contactAfter.updatedAt);
    const added2 = hs.portal.addParticipant(a!.objectId, { contact: { email: 'late@example.com' }, state: 'REGISTERED' });
    expect((await get(`/marketing/v3/marketing-events/${a!.objectId}`)).body.registrants).toBe(3);
    expect((added2.associations as Json).contact.email).toBe('late@example.com');
  });

  it('skips nothing when the event a cursor points at is deleted before the next page', async () => {
    hs.portal.seed({ events: 25, participantsPerEvent: 0 });
    const first = await get('/marketing/v3/marketing-events/?limit=10');
    const after = first.body.paging.next.after as string;
    hs.portal.deleteEvent(after);
    const seen = (first.body.results as Json[]).map((e) => e.objectId as string);
    for (let next: string | undefined = after; next; ) {
      const page = await get(`/marketing/v3/marketing-events/?limit=10&after=${next}`);
      seen.push(...(page.body.results as Json[]).map((e) => e.objectId as string));
      next = page.body.paging?.next?.after as string | undefined;
    }
    expect(seen).toEqual(hs.portal.allEvents().map((e) => e.objectId));
    expect(seen).toHaveLength(24);
  });

  it('takes writes over HTTP: create, patch, cancel by external id, delete', async () => {
    const created = await call('POST', '/marketing/v3/marketing-events/events', { body: { externalAccountId: 'acct', externalEventId: 'ext-1', eventName: 'Launch', eventOrganizer: 'Us' } });
    expect(created.body).toMatchObject({ eventName: 'Launch', externalEventId: 'ext-1', objectId: expect.any(String) });
    const missing = await call('POST', '/marketing/v3/marketing-events/events', { body: { eventName: 'No ids' } });
    expect(missing).toMatchObject({ status: 400, body: { category: 'VALIDATION_ERROR' } });
    const id = created.body.objectId as string;
    expect((await call('PATCH', `/marketing/v3/marketing-events/${id}`, { body: { eventDescription: 'Now with details' } })).body.eventDescription).toBe('Now with details');
    expect((await call('POST', '/marketing/v3/marketing-events/events/ext-1/cancel?externalAccountId=acct')).body.eventCancelled).toBe(true);
    expect((await call('DELETE', `/marketing/v3/marketing-events/${id}`)).status).toBe(204);
    expect((await get(`/marketing/v3/marketing-events/${id}`)).status).toBe(404);
  });

  it('keeps portals apart', async () => {
    expect(hs.account).toBe(hs.portal);
    const other = hs.createAccount();
    const { firstObjectId } = other.seed({ events: 2, participantsPerEvent: 1 });
    expect((await get(`/marketing/v3/marketing-events/${firstObjectId}`)).status).toBe(404);
    expect((await get(`/marketing/v3/marketing-events/${firstObjectId}`, other.token)).status).toBe(200);
    expect((await get('/marketing/v3/marketing-events/', other.token)).body.results).toHaveLength(2);
    expect((await get('/marketing/v3/marketing-events/')).body.results).toHaveLength(0);
  });

  it('counts the ten-second window per token and the day per portal, with X-HubSpot-RateLimit-* headers and HubSpot\'s 429 body', async () => {
    hs.limits.set({ tenSecondly: 3, daily: 5 });
    const remaining: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await get('/marketing/v3/marketing-events/');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-hubspot-ratelimit-max')).toBe('3');
      expect(res.headers.get('x-hubspot-ratelimit-interval-milliseconds')).toBe('10000');
      expect(res.headers.get('x-hubspot-ratelimit-daily')).toBe('5');
      remaining.push(res.headers.get('x-hubspot-ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const limited = await get('/marketing/v3/marketing-events/');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ status: 'error', message: 'You have reached your ten_secondly_rolling limit.', errorType: 'RATE_LIMIT', correlationId: expect.any(String), policyName: 'TEN_SECONDLY_ROLLING', requestId: expect.any(String) });
    expect(limited.headers.get('x-hubspot-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('retry-after')).toBeNull();

    // A second app (token) of the same portal has its own ten seconds but shares the day; an OAuth token gets no daily headers.
    const oauth = hs.portal.createToken('oauth');
    const second = await get('/marketing/v3/marketing-events/', oauth);
    expect(second.status).toBe(200);
    expect(second.headers.get('x-hubspot-ratelimit-daily')).toBeNull();
    expect((await get('/marketing/v3/marketing-events/', oauth)).status).toBe(200);
    const daily = await get('/marketing/v3/marketing-events/', oauth);
    expect(daily.body).toMatchObject({ policyName: 'DAILY', message: 'You have reached your daily limit.' });
    hs.clock.advance(86_400_000);
    expect((await get('/marketing/v3/marketing-events/')).status).toBe(200);
  });

  it('answers a 429 storm, 5xx bursts, cut connections and dead tokens the HubSpot way', async () => {
    hs.portal.seed({ events: 40, participantsPerEvent: 1 });
    hs.faults.rateLimit({ count: 1, policy: 'DAILY' });
    expect((await get('/marketing/v3/marketing-events/')).body).toMatchObject({ errorType: 'RATE_LIMIT', policyName: 'DAILY' });
    hs.faults.serverErrors({ count: 2, status: 502 });
    expect(await get('/marketing/v3/marketing-events/')).toMatchObject({ status: 502, body: { status: 'error' } });
    expect((await get('/marketing/v3/marketing-events/')).status).toBe(502);
    expect((await get('/marketing/v3/marketing-events/')).status).toBe(200);
    hs.faults.cutConnection({ path: '/marketing/' });
    const res = await fetch(`${hs.baseUrl}/marketing/v3/marketing-events/?limit=40`, { headers: { authorization: `Bearer ${HUBSPOT_FAKE_TOKENS.valid}` } });
    await expect(res.json()).rejects.toThrow();

    const other = hs.createPortal();
    other.revokeToken(undefined, { expired: true });
    expect(await get('/marketing/v3/marketing-events/', other.token)).toMatchObject({ status: 401, body: { category: 'EXPIRED_AUTHENTICATION' } });
    hs.portal.revokeToken();
    expect(await get('/marketing/v3/marketing-events/')).toMatchObject({ status: 401, body: { category: 'INVALID_AUTHENTICATION' } });
    expect(hs.requests.filter((r) => r.fault).map((r) => r.fault)).toEqual(['rate-limit', 'server-error', 'server-error', 'cut']);
  });
});
