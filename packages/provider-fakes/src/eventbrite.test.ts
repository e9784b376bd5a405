import { EVENTBRITE_FAKE_TOKENS, startFakeEventbrite, type FakeEventbrite } from './eventbrite';

type Json = Record<string, any>;

let eb: FakeEventbrite;

beforeEach(async () => {
  eb = await startFakeEventbrite();
});

afterEach(async () => {
  await eb.close();
});

async function get(path: string, token: string | null = EVENTBRITE_FAKE_TOKENS.valid): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fetch(`${eb.baseUrl}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
}

/** Follows `continuation` until `has_more_items` is false, as a sync does. */
async function walk(path: string, key: string, token?: string): Promise<Json[]> {
  const out: Json[] = [];
  let continuation: string | undefined;
  for (let guard = 0; guard < 10_000; guard += 1) {
    const sep = path.includes('?') ? '&' : '?';
    const page = await get(`${path}${continuation ? `${sep}continuation=${encodeURIComponent(continuation)}` : ''}`, token);
    expect(page.status).toBe(200);
    out.push(...(page.body[key] as Json[]));
    if (!page.body.pagination.has_more_items) return out;
    continuation = page.body.pagination.continuation as string;
  }
  throw new Error('pagination did not end');
}

describe('fake Eventbrite', () => {
  it('answers a missing token 401 NO_AUTH, a wrong one 401 INVALID_AUTH and a malformed header 400, in Eventbrite error bodies', async () => {
    expect(await get('/users/me/organizations/', null)).toMatchObject({ status: 401, body: { error: 'NO_AUTH', status_code: 401 } });
    const wrong = await get('/users/me/organizations/', 'NOPE');
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ status_code: 401, error: 'INVALID_AUTH', error_description: 'The OAuth token you provided was invalid.' });
    const malformed = await fetch(`${eb.baseUrl}/users/me/organizations/`, { headers: { authorization: 'Basic abc' } });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as Json).error).toBe('INVALID_AUTH_HEADER');
    const byQuery = await fetch(`${eb.baseUrl}/users/me/organizations/?token=${EVENTBRITE_FAKE_TOKENS.valid}`);
    expect(byQuery.status).toBe(200);
  });

  it('lists the user and its organizations with Eventbrite pagination', async () => {
    const me = await get('/users/me/');
    expect(me.body).toMatchObject({ id: eb.account.userId, emails: [{ email: 'organizer@example.com', primary: true }] });
    eb.account.createOrganization('Second Org');
    const orgs = await get('/users/me/organizations/');
    expect(orgs.body.organizations).toHaveLength(2);
    expect(orgs.body.organizations[1]).toMatchObject({ _type: 'organization', name: 'Second Org', id: expect.stringMatching(/^\d+$/) });
    expect(orgs.body.pagination).toEqual({ object_count: 2, page_number: 1, page_size: 50, page_count: 1, has_more_items: false });
  });

  it('walks every event of an organization once, in start order by default and in created order, about 50 a page', async () => {
    const { organizationId } = eb.account.seed({ events: 230, attendeesPerEvent: 3 });
    const first = await get(`/organizations/${organizationId}/events/`);
    expect(first.body.events).toHaveLength(50);
    expect(first.body.pagination).toMatchObject({ object_count: 230, page_number: 1, page_size: 50, page_count: 5, has_more_items: true, continuation: expect.any(String) });

    const byStart = await walk(`/organizations/${organizationId}/events/`, 'events');
    expect(byStart).toHaveLength(230);
    expect(new Set(byStart.map((e) => e.id)).size).toBe(230);
    const starts = byStart.map((e) => e.start.utc as string);
    expect([...starts].sort()).toEqual(starts);

    const byCreated = await walk(`/organizations/${organizationId}/events/?order_by=created_asc&page_size=100`, 'events');
    expect(byCreated.map((e) => e.id)).toEqual(eb.account.allEvents().map((e) => e.id));
    const event = byCreated[0]!;
    expect(event).toMatchObject({
      name: { text: expect.any(String), html: expect.any(String) },
      start: { timezone: 'UTC', utc: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) },
      organization_id: organizationId,
      created: expect.stringMatching(/Z$/),
      changed: expect.stringMatching(/Z$/),
      status: expect.stringMatching(/^(live|ended|draft)$/),
    });
  });

  it('continues a start-ordered walk after the last event sent, even when events move in time meanwhile', async () => {
    const { organizationId } = eb.account.seed({ events: 100, attendeesPerEvent: 0 });
    const path = `/organizations/${organizationId}/events/?status=all`;
    const first = await get(path);
    const sent = first.body.events as Json[];
    const byStart = eb.account.allEvents();
    // One event not yet sent moves before the cursor (the walk will not see it again), one sent moves after it.
    const movedBack = byStart[80]!;
    eb.account.updateEvent(movedBack.id, { start: Date.parse(sent[0]!.start.utc as string) - 60_000 });
    eb.account.updateEvent(sent[1]!.id as string, { start: Date.parse((byStart[99]!.start as Json).utc as string) + 60_000 });
    const rest: Json[] = [];
    let continuation = first.body.pagination.continuation as string | undefined;
    while (continuation) {
      const page = await get(`${path}&continuation=${encodeURIComponent(continuation)}`);
      rest.push(...(page.body.events as Json[]));
      continuation = page.body.pagination.has_more_items ? (page.body.pagination.continuation as string) : undefined;
    }
    const restIds = rest.map((e) => e.id as string);
    expect(restIds).not.toContain(movedBack.id);
    expect(restIds[restIds.length - 1]).toBe(sent[1]!.id);
    expect(rest).toHaveLength(50);
    const desc = await walk(`/organizations/${organizationId}/events/?status=all&order_by=start_desc&page_size=30`, 'events');
    const asc = await walk(`/organizations/${organizationId}/events/?status=all&order_by=start_asc&page_size=30`, 'events');
    expect(desc.map((e) => e.id)).toEqual(asc.map((e) => e.id).reverse());
    const byName = await walk(`/organizations/${organizationId}/events/?status=all&order_by=name_asc`, 'events');
    const names = byName.map((e) => (e.name.text as string).toLowerCase());
    expect(names).toEqual([...names].sort());
  });

  it('keeps a canceled event with status canceled, out of the default list but in status=all; a deleted one is gone and 404s', async () => {
    const { organizationId } = eb.account.seed({ events: 10, attendeesPerEvent: 2 });
    const [a, b] = eb.account.allEvents();
    const canceled = eb.account.cancelEvent(a!.id);
    expect(canceled.status).toBe('canceled');
    expect(canceled.changed >= a!.changed).toBe(true);
    eb.account.deleteEvent(b!.id);

    const listed = await walk(`/organizations/${organizationId}/events/`, 'events');
    expect(listed.map((e) => e.id)).not.toContain(a!.id);
    expect(listed).toHaveLength(8);
    const all = await walk(`/organizations/${organizationId}/events/?status=all`, 'events');
    expect(all.find((e) => e.id === a!.id)).toMatchObject({ status: 'canceled' });
    expect(all.map((e) => e.id)).not.toContain(b!.id);
    expect(all).toHaveLength(9);
    expect((await get(`/events/${b!.id}/`)).body).toMatchObject({ error: 'NOT_FOUND', status_code: 404 });
    expect((await get(`/events/${b!.id}/attendees/`)).status).toBe(404);
    expect((await get(`/events/${a!.id}/`)).body).toMatchObject({ id: a!.id, status: 'canceled' });
  });

  it('rejects bad list arguments with ARGUMENTS_ERROR naming each argument', async () => {
    const { organizationId } = eb.account.seed({ events: 3, attendeesPerEvent: 0 });
    const bad = await get(`/organizations/${organizationId}/events/?status=bogus&order_by=sideways`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'ARGUMENTS_ERROR', error_detail: { ARGUMENTS_ERROR: { status: ['INVALID'], order_by: ['INVALID'] } } });
    expect((await get(`/organizations/${organizationId}/events/?page=0`)).body.error).toBe('BAD_PAGE');
  });

  it('refuses a continuation made for other filters, and a made-up one', async () => {
    const { organizationId } = eb.account.seed({ events: 120, attendeesPerEvent: 0 });
    const first = await get(`/organizations/${organizationId}/events/?status=all`);
    const token = first.body.pagination.continuation as string;
    const other = await get(`/organizations/${organizationId}/events/?status=live&continuation=${encodeURIComponent(token)}`);
    expect(other.status).toBe(400);
    expect(other.body.error_detail.ARGUMENTS_ERROR.continuation).toEqual(['INVALID']);
    expect((await get(`/organizations/${organizationId}/events/?continuation=abc`)).status).toBe(400);
  });

  it('shows an event added between pages at the end of the created order, seen exactly once', async () => {
    const { organizationId } = eb.account.seed({ events: 120, attendeesPerEvent: 0 });
    const path = `/organizations/${organizationId}/events/?order_by=created_asc`;
    const first = await get(path);
    const added = eb.account.createEvent({ name: 'Added mid-walk' });
    const seen = [...(first.body.events as Json[])];
    let continuation = first.body.pagination.continuation as string | undefined;
    while (continuation) {
      const page = await get(`${path}&continuation=${encodeURIComponent(continuation)}`);
      seen.push(...(page.body.events as Json[]));
      continuation = page.body.pagination.has_more_items ? (page.body.pagination.continuation as string) : undefined;
    }
    expect(seen).toHaveLength(121);
    expect(seen[seen.length - 1]!.id).toBe(added.id);
    expect(new Set(seen.map((e) => e.id)).size).toBe(121);
  });

  it('walks an event\'s attendees, and changed_since returns only the ones changed from then on', async () => {
    eb.account.seed({ events: 2, attendeesPerEvent: 130 });
    const event = eb.account.allEvents()[0]!;
    const attendees = await walk(`/events/${event.id}/attendees/`, 'attendees');
    expect(attendees).toHaveLength(130);
    expect(attendees.map((a) => a.id)).toEqual(eb.account.allAttendees(event.id).map((a) => a.id));
    expect(attendees[0]).toMatchObject({
      event_id: event.id,
      cancelled: false,
      refunded: false,
      status: expect.any(String),
      profile: { email: expect.stringContaining('@'), first_name: expect.any(String), last_name: expect.any(String), addresses: { home: { country: expect.anything() } } },
    });

    eb.clock.advance(5_000);
    const since = new Date(eb.clock.now()).toISOString().slice(0, 19) + 'Z';
    eb.clock.advance(1_000);
    const changed = eb.account.updateAttendee(event.id, attendees[7]!.id as string, { email: 'moved@example.com' });
    const cancelled = eb.account.cancelAttendee(event.id, attendees[9]!.id as string);
    const added = eb.account.addAttendee(event.id, { firstName: 'New', lastName: 'Comer' });
    expect(changed.changed > (attendees[7]!.changed as string)).toBe(true);

    const recent = await walk(`/events/${event.id}/attendees/?changed_since=${since}`, 'attendees');
    expect(recent.map((a) => a.id)).toEqual([changed.id, cancelled.id, added.id]);
    expect(recent[0]!.profile.email).toBe('moved@example.com');
    expect(recent[1]).toMatchObject({ cancelled: true, status: 'Not Attending' });
    const attending = await walk(`/events/${event.id}/attendees/?status=attending`, 'attendees');
    expect(attending).toHaveLength(130);
    expect((await get(`/events/${event.id}/attendees/?changed_since=yesterday`)).body.error_detail.ARGUMENTS_ERROR.changed_since).toEqual(['INVALID']);
  });

  it('keeps accounts apart: one token cannot read another account\'s organizations or events', async () => {
    const other = eb.createAccount({ name: 'Other' });
    const { organizationId } = other.seed({ events: 2, attendeesPerEvent: 1 });
    expect((await get(`/organizations/${organizationId}/events/`)).status).toBe(403);
    const otherEvent = other.allEvents()[0]!;
    expect((await get(`/events/${otherEvent.id}/attendees/`)).body.error).toBe('NOT_AUTHORIZED');
    expect((await get(`/organizations/${organizationId}/events/`, other.token)).status).toBe(200);
  });

  it('answers HIT_RATE_LIMIT once the hourly limit is spent, until the hour turns', async () => {
    eb.limits.set({ perHour: 3 });
    for (let i = 0; i < 3; i += 1) expect((await get('/users/me/')).status).toBe(200);
    const limited = await get('/users/me/');
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ status_code: 429, error: 'HIT_RATE_LIMIT', error_description: expect.stringContaining('3 calls per hour') });
    // Another account has its own allowance.
    const other = eb.createAccount();
    expect((await get('/users/me/', other.token)).status).toBe(200);
    eb.clock.advance(3_600_000);
    expect((await get('/users/me/')).status).toBe(200);
  });

  it('answers a queued 429 storm, a burst of 5xx and a token that stops working in Eventbrite bodies', async () => {
    eb.faults.rateLimit({ count: 2 });
    expect((await get('/users/me/')).body.error).toBe('HIT_RATE_LIMIT');
    expect((await get('/users/me/')).status).toBe(429);
    eb.faults.serverErrors({ count: 2, path: '/organizations/' });
    expect((await get('/users/me/')).status).toBe(200);
    const orgs = `/users/me/organizations/`;
    expect(await get(orgs)).toMatchObject({ status: 503, body: { error: 'SERVICE_UNAVAILABLE', status_code: 503 } });
    expect((await get(orgs)).status).toBe(503);
    expect((await get(orgs)).status).toBe(200);
    eb.account.revokeToken();
    expect(await get(orgs)).toMatchObject({ status: 401, body: { error: 'INVALID_AUTH' } });
    expect(eb.requests.map((r) => [r.status, r.fault ?? null])).toEqual([
      [429, 'rate-limit'],
      [429, 'rate-limit'],
      [200, null],
      [503, 'server-error'],
      [503, 'server-error'],
      [200, null],
      [401, null],
    ]);
  });

  it('cuts a connection mid-page after sending the status line, the headers and part of the body', async () => {
    const { organizationId } = eb.account.seed({ events: 60, attendeesPerEvent: 0 });
    eb.faults.cutConnection({ path: '/events/', after: 1 });
    expect((await get(`/organizations/${organizationId}/events/`)).status).toBe(200);
    const res = await fetch(`${eb.baseUrl}/organizations/${organizationId}/events/`, { headers: { authorization: `Bearer ${EVENTBRITE_FAKE_TOKENS.valid}` } });
    expect(res.status).toBe(200);
    const length = Number(res.headers.get('content-length'));
    expect(length).toBeGreaterThan(1000);
    await expect(res.text()).rejects.toThrow();
    expect((await get(`/organizations/${organizationId}/events/`)).body.events).toHaveLength(50);
  });

  it('holds a slow page until its delay has passed', async () => {
    eb.faults.slow({ delayMs: 400 });
    let answered = false;
    const pending = get('/users/me/').then((r) => {
      answered = true;
      return r;
    });
    for (let turn = 0; turn < 20; turn += 1) await new Promise(setImmediate);
    expect(answered).toBe(false);
    expect((await pending).status).toBe(200);
    expect(eb.requests[0]!.fault).toBe('slow');
  });

  it('seeds 100,000 attendees on demand and serves any page of them', async () => {
    eb.account.seed({ events: 1000, attendeesPerEvent: 100 });
    const events = eb.account.allEvents();
    expect(events).toHaveLength(1000);
    const last = events[events.length - 1]!;
    const page = await get(`/events/${last.id}/attendees/?page=2`);
    expect(page.body.attendees).toHaveLength(50);
    expect(page.body.pagination).toMatchObject({ object_count: 100, page_number: 2, has_more_items: false });
  });
});
