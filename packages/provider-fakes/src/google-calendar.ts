import { FakeRoutes, startFakeServer, type FakeReply, type FakeRequest, type FakeServer } from './fake-server';
import { googleBadRequest, googleBefore, googleError, googleNotFound, pageToken, type GoogleFakeTokens } from './google-common';

export const GOOGLE_CALENDAR_FAKE_TOKENS: GoogleFakeTokens = {
  valid: 'ya29.fake-calendar-valid',
  rateLimited403: 'ya29.fake-calendar-rate-limited-403',
  rateLimited429: 'ya29.fake-calendar-rate-limited-429',
  failing: 'ya29.fake-calendar-failing',
};

/** The connected user; their primary calendar has this ID. */
export const GOOGLE_CALENDAR_FAKE_USER = 'me@example.com';

interface EventTime {
  dateTime?: string;
  date?: string;
  timeZone?: string;
}

export interface FakeCalendarEvent {
  kind: 'calendar#event';
  id: string;
  status: 'confirmed' | 'tentative' | 'cancelled';
  htmlLink: string;
  created: string;
  updated: string;
  summary?: string;
  description?: string;
  location?: string;
  creator: { email: string; self?: boolean };
  organizer: { email: string; self?: boolean };
  start: EventTime;
  end: EventTime;
  recurrence?: string[];
  recurringEventId?: string;
  attendees?: Array<{ email: string; responseStatus: string; organizer?: boolean; self?: boolean; displayName?: string }>;
  hangoutLink?: string;
  conferenceData?: unknown;
}

interface FakeCalendar {
  id: string;
  summary: string;
  timeZone: string;
  accessRole: 'owner' | 'writer' | 'reader';
  primary?: boolean;
  events: FakeCalendarEvent[];
}

const ROLE_RANK = { freeBusyReader: 0, reader: 1, writer: 2, owner: 3 } as const;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/;

/** The instant an event time stands for; a date-time without offset is read as UTC (the fake has no time-zone database). */
function instant(t: EventTime): number {
  if (t.date) return Date.parse(`${t.date}T00:00:00Z`);
  const dt = t.dateTime ?? '';
  return Date.parse(LOCAL_DATE_TIME.test(dt) ? `${dt}Z` : dt);
}

function checkTime(t: unknown, which: 'start' | 'end'): FakeReply | undefined {
  const time = t as EventTime | undefined;
  if (!time || (!time.date && !time.dateTime)) return googleBadRequest(`Missing ${which} time.`, 'required');
  if (time.date && !/^\d{4}-\d{2}-\d{2}$/.test(time.date)) return googleBadRequest(`Invalid ${which} date.`, 'invalid');
  if (time.dateTime) {
    if (!RFC3339.test(time.dateTime) && !LOCAL_DATE_TIME.test(time.dateTime)) return googleBadRequest(`Invalid ${which} time.`, 'invalid');
    if (LOCAL_DATE_TIME.test(time.dateTime) && !time.timeZone) return googleBadRequest(`Missing time zone definition for ${which} time.`, 'required');
  }
  return undefined;
}

/**
 * A fake of the Google Calendar API v3 under /calendar/v3: calendarList and events (list with
 * timeMin/timeMax/q/singleEvents/orderBy and page tokens, get, insert, patch, delete with 410 for
 * an event already deleted), Google's error bodies, access roles, and Google's rate-limit answers.
 */
export async function startFakeGoogleCalendar(seed: { extraCalendars: number } = { extraCalendars: 0 }): Promise<FakeServer & { calendars: FakeCalendar[] }> {
  let nextId = 1;
  let clock = Date.UTC(2026, 1, 1);
  const stamp = () => new Date((clock += 1000)).toISOString();
  const newId = () => `ev${String(nextId++).padStart(6, '0')}`;
  const link = (calendarId: string, eventId: string) => `https://www.google.com/calendar/event?eid=${Buffer.from(`${eventId} ${calendarId}`).toString('base64url')}`;

  const makeEvent = (calendar: FakeCalendar, fields: Partial<FakeCalendarEvent> & { start: EventTime; end: EventTime }): FakeCalendarEvent => {
    const id = fields.id ?? newId();
    const created = stamp();
    return {
      kind: 'calendar#event',
      status: 'confirmed',
      created,
      updated: created,
      creator: { email: GOOGLE_CALENDAR_FAKE_USER, self: true },
      organizer: { email: calendar.id, self: calendar.id === GOOGLE_CALENDAR_FAKE_USER },
      ...fields,
      id,
      htmlLink: link(calendar.id, id),
    };
  };

  const primary: FakeCalendar = { id: GOOGLE_CALENDAR_FAKE_USER, summary: GOOGLE_CALENDAR_FAKE_USER, timeZone: 'Europe/Paris', accessRole: 'owner', primary: true, events: [] };
  const calendars: FakeCalendar[] = [
    primary,
    { id: 'team@group.calendar.google.com', summary: 'Team', timeZone: 'Europe/Paris', accessRole: 'writer', events: [] },
    { id: 'en.usa#holiday@group.v.calendar.google.com', summary: 'Holidays in United States', timeZone: 'America/New_York', accessRole: 'reader', events: [] },
    ...Array.from({ length: seed.extraCalendars }, (_, i): FakeCalendar => ({ id: `extra${i + 1}@group.calendar.google.com`, summary: `Extra ${i + 1}`, timeZone: 'UTC', accessRole: 'reader', events: [] })),
  ];
  primary.events.push(
    makeEvent(primary, { summary: 'Design review', location: 'Room 4', description: 'Review the onboarding flow', start: { dateTime: '2026-03-02T10:00:00+01:00', timeZone: 'Europe/Paris' }, end: { dateTime: '2026-03-02T11:00:00+01:00', timeZone: 'Europe/Paris' }, attendees: [{ email: GOOGLE_CALENDAR_FAKE_USER, responseStatus: 'accepted', organizer: true, self: true }, { email: 'ana@example.com', displayName: 'Ana Lima', responseStatus: 'needsAction' }] }),
    makeEvent(primary, { summary: 'Offsite', start: { date: '2026-03-05' }, end: { date: '2026-03-07' } }),
    makeEvent(primary, { summary: 'Weekly sync', start: { dateTime: '2026-03-03T09:00:00Z', timeZone: 'UTC' }, end: { dateTime: '2026-03-03T09:30:00Z', timeZone: 'UTC' }, recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] }),
    makeEvent(primary, { summary: 'Dentist', start: { dateTime: '2026-03-04T16:00:00Z' }, end: { dateTime: '2026-03-04T17:00:00Z' } }),
  );

  const findCalendar = (id: string) => calendars.find((c) => c.id === (id === 'primary' ? GOOGLE_CALENDAR_FAKE_USER : id));

  /** Occurrences of a weekly recurring event (the only rule the fake knows), as Google names them. */
  const expand = (e: FakeCalendarEvent): FakeCalendarEvent[] => {
    const rule = /^RRULE:FREQ=WEEKLY;COUNT=(\d+)$/.exec(e.recurrence?.[0] ?? '');
    if (!rule) return [e];
    const week = 7 * 24 * 3600 * 1000;
    const shift = (t: EventTime, n: number): EventTime => (t.date ? { date: new Date(instant(t) + n * week).toISOString().slice(0, 10) } : { ...t, dateTime: new Date(instant(t) + n * week).toISOString().replace('.000Z', 'Z') });
    return Array.from({ length: Number(rule[1]) }, (_, n) => {
      const start = shift(e.start, n);
      const suffix = (start.dateTime ?? start.date ?? '').replace(/[-:]/g, '');
      const { recurrence: _r, ...rest } = e;
      return { ...rest, id: `${e.id}_${suffix}`, recurringEventId: e.id, start, end: shift(e.end, n) };
    });
  };
  const findEvent = (calendar: FakeCalendar, id: string) => calendar.events.flatMap((e) => [e, ...(e.recurrence ? expand(e) : [])]).find((e) => e.id === id);

  const canWrite = (calendar: FakeCalendar) => ROLE_RANK[calendar.accessRole] >= ROLE_RANK.writer;
  const readOnly = () => googleError(403, 'PERMISSION_DENIED', 'You need to have writer access to this calendar.', 'requiredAccessLevel');

  const applyConference = (req: FakeRequest, event: FakeCalendarEvent, body: { conferenceData?: { createRequest?: { requestId?: string } } }) => {
    // Google ignores conferenceData unless the client declares conferenceDataVersion=1.
    if (req.query.get('conferenceDataVersion') !== '1' || !body.conferenceData?.createRequest?.requestId) return;
    const code = `abc-${event.id.slice(-4)}-xyz`;
    event.hangoutLink = `https://meet.google.com/${code}`;
    event.conferenceData = { createRequest: { ...body.conferenceData.createRequest, status: { statusCode: 'success' } }, entryPoints: [{ entryPointType: 'video', uri: event.hangoutLink, label: `meet.google.com/${code}` }], conferenceSolution: { key: { type: 'hangoutsMeet' }, name: 'Google Meet' }, conferenceId: code };
  };

  const writableFields = (body: Record<string, unknown>, event: FakeCalendarEvent) => {
    for (const key of ['summary', 'description', 'location', 'start', 'end'] as const) if (key in body) (event as unknown as Record<string, unknown>)[key] = body[key];
    if ('attendees' in body) {
      event.attendees = ((body.attendees as Array<{ email?: string }> | undefined) ?? []).map((a) => {
        const before = event.attendees?.find((x) => x.email === a.email);
        return before ?? { email: String(a.email), responseStatus: 'needsAction', ...(a.email === GOOGLE_CALENDAR_FAKE_USER ? { self: true, organizer: true } : {}) };
      });
    }
  };

  const checkEvent = (event: FakeCalendarEvent, body: Record<string, unknown>): FakeReply | undefined => {
    const problem = checkTime(event.start, 'start') ?? checkTime(event.end, 'end');
    if (problem) return problem;
    if (Boolean(event.start.date) !== Boolean(event.end.date)) return googleBadRequest('Start and end times must either both be date or both be dateTime.', 'invalid');
    if (instant(event.end) <= instant(event.start)) return googleBadRequest('The specified time range is empty.', 'timeRangeEmpty');
    const bad = ((body.attendees as Array<{ email?: unknown }> | undefined) ?? []).find((a) => typeof a.email !== 'string' || !a.email.includes('@'));
    if (bad) return googleBadRequest('Invalid attendee email.', 'invalid');
    return undefined;
  };

  const routes = new FakeRoutes()
    .route('GET', '/calendar/v3/users/me/calendarList', (req) => {
      const max = Math.min(Number(req.query.get('maxResults') ?? 100), 250);
      const offset = pageToken.decode(req.query.get('pageToken'));
      if (offset === undefined) return googleBadRequest('Invalid page token value.', 'invalid');
      const minRole = req.query.get('minAccessRole') as keyof typeof ROLE_RANK | null;
      const matching = calendars.filter((c) => !minRole || ROLE_RANK[c.accessRole] >= ROLE_RANK[minRole]);
      const items = matching.slice(offset, offset + max).map((c) => ({ kind: 'calendar#calendarListEntry', etag: `"${c.id.length}"`, id: c.id, summary: c.summary, timeZone: c.timeZone, accessRole: c.accessRole, selected: true, ...(c.primary ? { primary: true } : {}) }));
      const body: Record<string, unknown> = { kind: 'calendar#calendarList', etag: '"p33c9dbm"', items };
      if (offset + max < matching.length) body.nextPageToken = pageToken.encode(offset + max);
      else body.nextSyncToken = 'CPDAlvWDx70CEPDAlvWDx70CGAU=';
      return { body };
    })
    .route('GET', '/calendar/v3/calendars/:calendarId/events', (req) => {
      const calendar = findCalendar(req.params.calendarId!);
      if (!calendar) return googleNotFound();
      const single = req.query.get('singleEvents') === 'true';
      const orderBy = req.query.get('orderBy');
      if (orderBy && !['startTime', 'updated'].includes(orderBy)) return googleBadRequest(`Invalid value for orderBy: ${orderBy}`, 'invalidParameter');
      if (orderBy === 'startTime' && !single) return googleBadRequest('The requested ordering is not available for the particular query.');
      const timeMin = req.query.get('timeMin');
      const timeMax = req.query.get('timeMax');
      for (const t of [timeMin, timeMax]) if (t !== null && !RFC3339.test(t)) return googleBadRequest('Bad Request');
      if (timeMin && timeMax && Date.parse(timeMax) <= Date.parse(timeMin)) return googleBadRequest('The specified time range is empty.', 'timeRangeEmpty');
      const max = Math.min(Number(req.query.get('maxResults') ?? 250), 2500);
      const offset = pageToken.decode(req.query.get('pageToken'));
      if (offset === undefined) return googleBadRequest('Invalid page token value.', 'invalid');
      const q = (req.query.get('q') ?? '').toLowerCase();
      let events = calendar.events.filter((e) => e.status !== 'cancelled' || req.query.get('showDeleted') === 'true');
      if (single) events = events.flatMap(expand);
      events = events
        .filter((e) => !timeMin || instant(e.end) > Date.parse(timeMin))
        .filter((e) => !timeMax || instant(e.start) < Date.parse(timeMax))
        .filter((e) => !q || [e.summary, e.description, e.location, ...(e.attendees ?? []).map((a) => a.email)].some((v) => v?.toLowerCase().includes(q)));
      if (orderBy === 'startTime') events.sort((a, b) => instant(a.start) - instant(b.start));
      else if (orderBy === 'updated') events.sort((a, b) => a.updated.localeCompare(b.updated));
      const body: Record<string, unknown> = { kind: 'calendar#events', etag: '"p32g9nb7"', summary: calendar.summary, timeZone: calendar.timeZone, accessRole: calendar.accessRole, updated: new Date(clock).toISOString(), items: events.slice(offset, offset + max) };
      if (offset + max < events.length) body.nextPageToken = pageToken.encode(offset + max);
      else body.nextSyncToken = 'CKCbk_mDx70CEKCbk_mDx70CGAU=';
      return { body };
    })
    .route('GET', '/calendar/v3/calendars/:calendarId/events/:eventId', (req) => {
      const calendar = findCalendar(req.params.calendarId!);
      const event = calendar && findEvent(calendar, req.params.eventId!);
      return event ? { body: event } : googleNotFound();
    })
    .route('POST', '/calendar/v3/calendars/:calendarId/events', (req) => {
      const calendar = findCalendar(req.params.calendarId!);
      if (!calendar) return googleNotFound();
      if (!canWrite(calendar)) return readOnly();
      const body = (req.json ?? {}) as Record<string, unknown>;
      const problem = checkTime(body.start, 'start') ?? checkTime(body.end, 'end');
      if (problem) return problem;
      const event = makeEvent(calendar, { start: body.start as EventTime, end: body.end as EventTime });
      writableFields(body, event);
      const invalid = checkEvent(event, body);
      if (invalid) return invalid;
      applyConference(req, event, body);
      calendar.events.push(event);
      return { body: event };
    })
    .route('PATCH', '/calendar/v3/calendars/:calendarId/events/:eventId', (req) => {
      const calendar = findCalendar(req.params.calendarId!);
      const event = calendar?.events.find((e) => e.id === req.params.eventId);
      if (!calendar || !event) return googleNotFound();
      if (!canWrite(calendar)) return readOnly();
      const body = (req.json ?? {}) as Record<string, unknown>;
      const draft: FakeCalendarEvent = structuredClone(event);
      writableFields(body, draft);
      const invalid = checkEvent(draft, body);
      if (invalid) return invalid;
      Object.assign(event, draft, { updated: stamp() });
      return { body: event };
    })
    .route('DELETE', '/calendar/v3/calendars/:calendarId/events/:eventId', (req) => {
      const calendar = findCalendar(req.params.calendarId!);
      const event = calendar?.events.find((e) => e.id === req.params.eventId);
      if (!calendar || !event) return googleNotFound();
      if (!canWrite(calendar)) return readOnly();
      if (event.status === 'cancelled') return googleError(410, 'GONE', 'Resource has been deleted', 'deleted');
      event.status = 'cancelled';
      event.updated = stamp();
      return { status: 204 };
    });

  const server = await startFakeServer({ routes, before: googleBefore(GOOGLE_CALENDAR_FAKE_TOKENS), notFound: googleNotFound() });
  return Object.assign(server, { calendars });
}
