import { GOOGLE_CALENDAR_FAKE_TOKENS, GOOGLE_CALENDAR_FAKE_USER, startFakeGoogleCalendar } from '@patchbay/provider-fakes';
import { expectOutputMatchesSchema } from './output-schema';
import { expectToolError, runTool } from './run-tool';

let fake: Awaited<ReturnType<typeof startFakeGoogleCalendar>>;
const T = GOOGLE_CALENDAR_FAKE_TOKENS;
const oauth = (token: string) => ({ auth_type: 'oauth2' as const, values: {}, access_token: token });
const run = async (tool: string, input: unknown, credential: Parameters<typeof runTool>[3]['credential'] = oauth(T.valid)) => {
  const output = await runTool('google-calendar', tool, { input }, { credential, baseUrl: `${fake.url}/calendar/v3` });
  expectOutputMatchesSchema('google-calendar', tool, output);
  return output;
};
const last = () => fake.requests.at(-1)!;

type Event = { id: string; summary: string | null; start: string | null; end: string | null; all_day: boolean; recurring_event_id: string | null };

beforeAll(async () => {
  fake = await startFakeGoogleCalendar({ extraCalendars: 3 });
});
afterAll(async () => {
  await fake.close();
});

describe('google-calendar connector', () => {
  it('list_calendars reads the calendar list with the OAuth bearer token and pages with pageToken', async () => {
    const first = (await run('list_calendars', { max_results: 4 })) as { calendars: Array<{ id: string }>; next_page_token: string | null };
    expect(first.calendars).toHaveLength(4);
    expect(first.calendars[0]).toEqual({ id: GOOGLE_CALENDAR_FAKE_USER, name: GOOGLE_CALENDAR_FAKE_USER, description: null, time_zone: 'Europe/Paris', primary: true, access_role: 'owner' });
    expect(first.next_page_token).toEqual(expect.any(String));
    expect(last()).toMatchObject({ method: 'GET', path: '/calendar/v3/users/me/calendarList' });
    expect(last().headers.authorization).toBe(`Bearer ${T.valid}`);
    expect(last().query.get('maxResults')).toBe('4');

    const second = (await run('list_calendars', { max_results: 4, page_token: first.next_page_token })) as { calendars: Array<{ id: string }>; next_page_token: string | null };
    expect(second.calendars.map((c) => c.id)).toEqual(['extra2@group.calendar.google.com', 'extra3@group.calendar.google.com']);
    expect(second.next_page_token).toBeNull();
    expect(last().query.get('pageToken')).toBe(first.next_page_token);
  });

  it('list_calendars with writable_only asks for minAccessRole=writer', async () => {
    const res = (await run('list_calendars', { writable_only: true })) as { calendars: Array<{ access_role: string }> };
    expect(res.calendars.map((c) => c.access_role)).toEqual(['owner', 'writer']);
    expect(last().query.get('minAccessRole')).toBe('writer');
  });

  it('list_events expands recurring events between time_min and time_max, ordered by start time', async () => {
    const res = (await run('list_events', { time_min: '2026-03-01T00:00:00Z', time_max: '2026-03-11T00:00:00Z' })) as { events: Event[]; time_zone: string; next_page_token: string | null };
    expect(res.events.map((e) => e.summary)).toEqual(['Design review', 'Weekly sync', 'Dentist', 'Offsite', 'Weekly sync']);
    expect(res.events[1]).toMatchObject({ start: '2026-03-03T09:00:00Z', recurring_event_id: expect.any(String), all_day: false });
    expect(res.events[3]).toMatchObject({ summary: 'Offsite', start: '2026-03-05', end: '2026-03-07', all_day: true });
    expect(res.events[0]).toMatchObject({ location: 'Room 4', attendees: [{ email: GOOGLE_CALENDAR_FAKE_USER, organizer: true, response_status: 'accepted' }, { email: 'ana@example.com', name: 'Ana Lima', response_status: 'needsAction' }] });
    expect(res.time_zone).toBe('Europe/Paris');
    const sent = last();
    expect(sent.path).toBe('/calendar/v3/calendars/primary/events');
    expect(Object.fromEntries(sent.query)).toMatchObject({ timeMin: '2026-03-01T00:00:00Z', timeMax: '2026-03-11T00:00:00Z', singleEvents: 'true', orderBy: 'startTime', maxResults: '50' });
  });

  it('list_events pages through with next_page_token and filters by free text', async () => {
    const first = (await run('list_events', { time_min: '2026-03-01T00:00:00Z', max_results: 2 })) as { events: Event[]; next_page_token: string | null };
    expect(first.events).toHaveLength(2);
    const second = (await run('list_events', { time_min: '2026-03-01T00:00:00Z', max_results: 2, page_token: first.next_page_token })) as { events: Event[]; next_page_token: string | null };
    const third = (await run('list_events', { time_min: '2026-03-01T00:00:00Z', max_results: 2, page_token: second.next_page_token })) as { events: Event[]; next_page_token: string | null };
    expect([...first.events, ...second.events, ...third.events].map((e) => e.summary)).toEqual(['Design review', 'Weekly sync', 'Dentist', 'Offsite', 'Weekly sync', 'Weekly sync']);
    expect(third.next_page_token).toBeNull();
    const found = (await run('list_events', { query: 'onboarding' })) as { events: Event[] };
    expect(found.events.map((e) => e.summary)).toEqual(['Design review']);
    expect(last().query.get('q')).toBe('onboarding');
  });

  it('list_events on a calendar ID with special characters encodes it in the path', async () => {
    const res = (await run('list_events', { calendar_id: 'en.usa#holiday@group.v.calendar.google.com' })) as { events: Event[] };
    expect(res.events).toEqual([]);
    expect(last().path).toBe('/calendar/v3/calendars/en.usa%23holiday%40group.v.calendar.google.com/events');
  });

  it('get_event returns one event', async () => {
    const id = fake.calendars[0]!.events[3]!.id;
    const event = await run('get_event', { event_id: id });
    expect(event).toMatchObject({ id, summary: 'Dentist', start: '2026-03-04T16:00:00Z', status: 'confirmed', url: expect.stringContaining('https://www.google.com/calendar/event?eid=') });
    expect(last()).toMatchObject({ method: 'GET', path: `/calendar/v3/calendars/primary/events/${id}` });
  });

  it('create_event posts start and end with the time zone, attendees and a Meet request', async () => {
    const event = (await run('create_event', {
      summary: 'Kickoff',
      start: '2026-03-10T14:00',
      end: '2026-03-10T15:00:00',
      time_zone: 'Europe/Paris',
      description: 'Agenda inside',
      attendees: ['ana@example.com'],
      add_meet_link: true,
      send_updates: 'all',
    })) as Event & { meet_link: string; attendees: unknown[] };
    expect(event).toMatchObject({ summary: 'Kickoff', start: '2026-03-10T14:00:00', time_zone: 'Europe/Paris', meet_link: expect.stringMatching(/^https:\/\/meet\.google\.com\//), attendees: [{ email: 'ana@example.com', response_status: 'needsAction' }] });
    const sent = last();
    expect(sent).toMatchObject({ method: 'POST', path: '/calendar/v3/calendars/primary/events' });
    expect(sent.query.get('sendUpdates')).toBe('all');
    expect(sent.query.get('conferenceDataVersion')).toBe('1');
    expect(sent.json).toMatchObject({
      summary: 'Kickoff',
      description: 'Agenda inside',
      start: { dateTime: '2026-03-10T14:00:00', timeZone: 'Europe/Paris' },
      end: { dateTime: '2026-03-10T15:00:00', timeZone: 'Europe/Paris' },
      attendees: [{ email: 'ana@example.com' }],
      conferenceData: { createRequest: { requestId: expect.any(String), conferenceSolutionKey: { type: 'hangoutsMeet' } } },
    });
  });

  it('create_event makes an all-day event from dates', async () => {
    const event = await run('create_event', { summary: 'Holiday', start: '2026-04-01', end: '2026-04-02' });
    expect(event).toMatchObject({ all_day: true, start: '2026-04-01', end: '2026-04-02' });
    expect(last().json).toEqual({ summary: 'Holiday', start: { date: '2026-04-01' }, end: { date: '2026-04-02' } });
  });

  it('create_event maps Google\'s 400 (no time zone for a local time, empty range) to invalid input', async () => {
    const zone = await expectToolError(run('create_event', { summary: 'x', start: '2026-03-10T14:00:00', end: '2026-03-10T15:00:00' }), 'invalid_input');
    expect(zone.message).toContain('Missing time zone definition for start time.');
    const range = await expectToolError(run('create_event', { summary: 'x', start: '2026-03-10T15:00:00Z', end: '2026-03-10T14:00:00Z' }), 'invalid_input');
    expect(range.message).toContain('The specified time range is empty.');
  });

  it('create_event on a read-only calendar maps Google\'s 403 to forbidden', async () => {
    const err = await expectToolError(run('create_event', { calendar_id: 'en.usa#holiday@group.v.calendar.google.com', summary: 'x', start: '2026-04-01', end: '2026-04-02' }), 'forbidden');
    expect(err.message).toContain('You need to have writer access to this calendar.');
  });

  it('update_event PATCHes only the given fields', async () => {
    const id = fake.calendars[0]!.events[3]!.id;
    const event = await run('update_event', { event_id: id, start: '2026-03-04T17:00:00Z', end: '2026-03-04T18:00:00Z', location: 'Clinic', send_updates: 'none' });
    expect(event).toMatchObject({ id, summary: 'Dentist', start: '2026-03-04T17:00:00Z', location: 'Clinic' });
    expect(last()).toMatchObject({ method: 'PATCH', path: `/calendar/v3/calendars/primary/events/${id}` });
    expect(last().json).toEqual({ location: 'Clinic', start: { dateTime: '2026-03-04T17:00:00Z' }, end: { dateTime: '2026-03-04T18:00:00Z' } });
    expect(last().query.get('sendUpdates')).toBe('none');
  });

  it('delete_event deletes, and a second delete (410 Gone) reports not found', async () => {
    const id = fake.calendars[0]!.events[1]!.id;
    expect(await run('delete_event', { event_id: id, send_updates: 'all' })).toEqual({ deleted: true, event_id: id });
    expect(last()).toMatchObject({ method: 'DELETE', path: `/calendar/v3/calendars/primary/events/${id}` });
    expect(last().query.get('sendUpdates')).toBe('all');
    const again = await expectToolError(run('delete_event', { event_id: id }), 'not_found');
    expect(again.message).toContain('already deleted');
  });

  it('refuses arguments that fail the input schema before calling Google', async () => {
    const before = fake.requests.length;
    const err = await expectToolError(run('create_event', { summary: 'x', start: 'tomorrow 3pm', attendees: ['not-an-email'] }), 'invalid_input');
    expect(err.message).toContain('input.end is required');
    expect(err.message).toContain('input.start must match pattern');
    expect(err.message).toContain('input.attendees.0 must match format "email"');
    await expectToolError(run('create_event', { summary: 'x', start: '2026-04-01', end: '2026-04-01T10:00:00Z' }), 'invalid_input');
    await expectToolError(run('update_event', { event_id: 'abc' }), 'invalid_input');
    expect(fake.requests.length).toBe(before);
  });

  it('works with a pasted access token (bearer_token option) too', async () => {
    const res = await run('list_calendars', {}, { auth_type: 'bearer_token', values: { access_token: T.valid } });
    expect(res).toMatchObject({ calendars: expect.any(Array) });
    expect(last().headers.authorization).toBe(`Bearer ${T.valid}`);
  });

  it('maps 401 to a rejected credential, without echoing the token', async () => {
    const err = await expectToolError(run('list_calendars', {}, oauth('ya29.revoked-token')), 'credential_rejected');
    expect(err.message).toContain('Request had invalid authentication credentials');
    expect(err.message).toContain('reconnect Google Calendar');
    expect(err.message).not.toContain('ya29.revoked-token');
  });

  it('maps 404 to not found', async () => {
    const err = await expectToolError(run('get_event', { event_id: 'doesnotexist' }), 'not_found');
    expect(err.status).toBe(404);
    await expectToolError(run('list_events', { calendar_id: 'nobody@example.com' }), 'not_found');
  });

  it('maps both of Google\'s rate-limit answers (403 rateLimitExceeded and 429 with Retry-After) to rate_limited', async () => {
    const forbidden = await expectToolError(run('list_calendars', {}, oauth(T.rateLimited403)), 'rate_limited');
    expect(forbidden.status).toBe(403);
    expect(forbidden.retryAfterSeconds).toBeUndefined();
    const tooMany = await expectToolError(run('list_calendars', {}, oauth(T.rateLimited429)), 'rate_limited');
    expect(tooMany.retryAfterSeconds).toBe(42);
  });

  it('maps 5xx to a provider error and a silent Google to a timeout', async () => {
    const err = await expectToolError(run('list_calendars', {}, oauth(T.failing)), 'provider_error');
    expect(err.message).toContain('The service is currently unavailable.');
    const { createServer } = await import('node:http');
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      await expectToolError(runTool('google-calendar', 'list_calendars', { input: {} }, { credential: oauth(T.valid), baseUrl: `http://127.0.0.1:${port}`, limits: { timeoutMs: 200 } }), 'timeout');
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
