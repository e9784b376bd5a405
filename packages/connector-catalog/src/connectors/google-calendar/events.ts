import { randomUUID } from 'node:crypto';
import { encodePath } from '../../core/provider-http';
import { DESTRUCTIVE, IDEMPOTENT_WRITE, READ_ONLY, WRITE, arr, bool, inputSchema, objectSchema, str } from '../../core/schema';
import { ToolError } from '../../core/tool-error';
import type { JsonSchema, ToolDefinition } from '../../core/types';
import { calendarRequest } from './client';

interface EventTime {
  dateTime?: string;
  date?: string;
  timeZone?: string;
}

interface GoogleEvent {
  id: string;
  status?: string;
  htmlLink?: string;
  summary?: string;
  description?: string;
  location?: string;
  start?: EventTime;
  end?: EventTime;
  attendees?: Array<{ email: string; displayName?: string; responseStatus?: string; organizer?: boolean; optional?: boolean }>;
  organizer?: { email?: string };
  creator?: { email?: string };
  recurringEventId?: string;
  hangoutLink?: string;
  conferenceData?: { entryPoints?: Array<{ entryPointType?: string; uri?: string }> };
  created?: string;
  updated?: string;
}

const nullable = (description: string): JsonSchema => ({ type: ['string', 'null'], description });

const eventSchema = objectSchema(
  {
    id: str('Event ID'),
    status: nullable('confirmed, tentative or cancelled'),
    summary: nullable('Title'),
    description: nullable('Description'),
    location: nullable('Location'),
    start: nullable('Start: RFC 3339 date-time, or YYYY-MM-DD for all-day events'),
    end: nullable('End (exclusive): RFC 3339 date-time, or YYYY-MM-DD for all-day events'),
    time_zone: nullable('IANA time zone of the start, when set'),
    all_day: { type: 'boolean' },
    attendees: arr(
      objectSchema({ email: str('Email'), name: nullable('Display name'), response_status: nullable('needsAction, declined, tentative or accepted'), organizer: { type: 'boolean' }, optional: { type: 'boolean' } }, ['email']),
      'Attendees',
    ),
    organizer: nullable('Organizer email'),
    creator: nullable('Creator email'),
    recurring_event_id: nullable('For an occurrence of a recurring event, the recurring event\'s ID'),
    meet_link: nullable('Google Meet link'),
    url: nullable('Link to the event in Google Calendar'),
    created: nullable('ISO 8601'),
    updated: nullable('ISO 8601'),
  },
  ['id', 'all_day', 'attendees'],
);

function toEvent(e: GoogleEvent) {
  const video = e.conferenceData?.entryPoints?.find((p) => p.entryPointType === 'video')?.uri;
  return {
    id: e.id,
    status: e.status ?? null,
    summary: e.summary ?? null,
    description: e.description ?? null,
    location: e.location ?? null,
    start: e.start?.dateTime ?? e.start?.date ?? null,
    end: e.end?.dateTime ?? e.end?.date ?? null,
    time_zone: e.start?.timeZone ?? null,
    all_day: e.start?.date !== undefined && e.start.dateTime === undefined,
    attendees: (e.attendees ?? []).map((a) => ({ email: a.email, name: a.displayName ?? null, response_status: a.responseStatus ?? null, organizer: a.organizer === true, optional: a.optional === true })),
    organizer: e.organizer?.email ?? null,
    creator: e.creator?.email ?? null,
    recurring_event_id: e.recurringEventId ?? null,
    meet_link: video ?? e.hangoutLink ?? null,
    url: e.htmlLink ?? null,
    created: e.created ?? null,
    updated: e.updated ?? null,
  };
}

const calendarId = str('Calendar ID from list_calendars, or "primary" for the user\'s main calendar', { minLength: 1, default: 'primary' });
const eventId = str('Event ID', { minLength: 1 });
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const when = (description: string) =>
  str(`${description}: an RFC 3339 date-time (2026-03-02T10:00:00+01:00, or without offset together with time_zone), or YYYY-MM-DD for an all-day event`, {
    pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})?)?$',
  });
const timeZone = str('IANA time zone for start and end, e.g. Europe/Paris (needed when they have no offset)', { minLength: 1 });
const attendees = arr(str('Email address', { format: 'email' }), 'Attendee email addresses');
const sendUpdates = str('Who gets email about the change: all, externalOnly or none (default none)', { enum: ['all', 'externalOnly', 'none'] });

/** Google wants seconds in a date-time; models often leave them out. */
function toEventTime(value: string, zone: string | undefined): EventTime {
  if (DATE.test(value)) return { date: value };
  const withSeconds = /T\d{2}:\d{2}(?!:)/.test(value) ? value.replace(/(T\d{2}:\d{2})/, '$1:00') : value;
  return zone ? { dateTime: withSeconds, timeZone: zone } : { dateTime: withSeconds };
}

function checkSameKind(start: string | undefined, end: string | undefined): void {
  if (start !== undefined && end !== undefined && DATE.test(start) !== DATE.test(end)) {
    throw new ToolError('invalid_input', 'start and end must both be dates (all-day event) or both be date-times.');
  }
}

interface EventFields {
  summary?: string;
  description?: string;
  location?: string;
  start?: string;
  end?: string;
  time_zone?: string;
  attendees?: string[];
}

function eventBody(input: EventFields): Record<string, unknown> {
  checkSameKind(input.start, input.end);
  const body: Record<string, unknown> = {};
  if (input.summary !== undefined) body.summary = input.summary;
  if (input.description !== undefined) body.description = input.description;
  if (input.location !== undefined) body.location = input.location;
  if (input.start !== undefined) body.start = toEventTime(input.start, input.time_zone);
  if (input.end !== undefined) body.end = toEventTime(input.end, input.time_zone);
  if (input.attendees !== undefined) body.attendees = input.attendees.map((email) => ({ email }));
  return body;
}

export const listEvents: ToolDefinition<{
  calendar_id?: string;
  time_min?: string;
  time_max?: string;
  query?: string;
  single_events?: boolean;
  order_by?: 'startTime' | 'updated';
  time_zone?: string;
  max_results?: number;
  page_token?: string;
}> = {
  name: 'list_events',
  description:
    'List events of a Google Calendar between time_min and time_max (RFC 3339 with offset), optionally matching a free-text query. Recurring events are expanded into occurrences and sorted by start time unless single_events is false. Page through with next_page_token.',
  input_schema: inputSchema({
    calendar_id: calendarId,
    time_min: str('Only events ending after this time (RFC 3339 with offset, e.g. 2026-03-01T00:00:00Z)', { format: 'date-time' }),
    time_max: str('Only events starting before this time (RFC 3339 with offset)', { format: 'date-time' }),
    query: str('Free text matched against summary, description, location and attendees', { minLength: 1 }),
    single_events: bool('Expand recurring events into single occurrences (default true)', { default: true }),
    order_by: str('startTime (needs single_events) or updated; default startTime when single_events', { enum: ['startTime', 'updated'] }),
    time_zone: timeZone,
    max_results: { type: 'integer', minimum: 1, maximum: 250, default: 50, description: 'How many events to return (1 to 250, default 50).' },
    page_token: str('next_page_token from an earlier call with the same filters', { minLength: 1 }),
  }),
  output_schema: objectSchema({ events: arr(eventSchema, 'Events'), time_zone: nullable('The calendar\'s time zone'), next_page_token: nullable('Pass to get the next page; null on the last page') }, ['events', 'next_page_token']),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const single = input.single_events ?? true;
    const res = await calendarRequest<{ items?: GoogleEvent[]; nextPageToken?: string; timeZone?: string }>(ctx, {
      path: encodePath('/calendars/{calendar_id}/events', { calendar_id: input.calendar_id ?? 'primary' }),
      query: {
        timeMin: input.time_min,
        timeMax: input.time_max,
        q: input.query,
        singleEvents: single,
        orderBy: input.order_by ?? (single ? 'startTime' : undefined),
        timeZone: input.time_zone,
        maxResults: input.max_results ?? 50,
        pageToken: input.page_token,
      },
    });
    return { events: (res.data.items ?? []).map(toEvent), time_zone: res.data.timeZone ?? null, next_page_token: res.data.nextPageToken ?? null };
  },
};

export const getEvent: ToolDefinition<{ calendar_id?: string; event_id: string }> = {
  name: 'get_event',
  description: 'Get one Google Calendar event by ID with its time, attendees and their responses, location, description and Meet link.',
  input_schema: inputSchema({ calendar_id: calendarId, event_id: eventId }, ['event_id']),
  output_schema: eventSchema,
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await calendarRequest<GoogleEvent>(ctx, { path: encodePath('/calendars/{calendar_id}/events/{event_id}', { calendar_id: input.calendar_id ?? 'primary', event_id: input.event_id }) });
    return toEvent(res.data);
  },
};

export const createEvent: ToolDefinition<EventFields & { calendar_id?: string; summary: string; start: string; end: string; add_meet_link?: boolean; send_updates?: string }> = {
  name: 'create_event',
  description:
    'Create a Google Calendar event with a title, start and end (date-times with offset or time_zone, or dates for an all-day event), optional description, location, attendees (emails) and Google Meet link. Attendees get invitations only with send_updates=all.',
  input_schema: inputSchema(
    {
      calendar_id: calendarId,
      summary: str('Title', { minLength: 1 }),
      start: when('Start'),
      end: when('End (exclusive; for all-day events the day after the last day)'),
      time_zone: timeZone,
      description: str('Description'),
      location: str('Location'),
      attendees,
      add_meet_link: bool('Attach a new Google Meet video link'),
      send_updates: sendUpdates,
    },
    ['summary', 'start', 'end'],
  ),
  output_schema: eventSchema,
  annotations: WRITE,
  async execute(ctx, input) {
    const body = eventBody(input);
    if (input.add_meet_link) body.conferenceData = { createRequest: { requestId: randomUUID(), conferenceSolutionKey: { type: 'hangoutsMeet' } } };
    const res = await calendarRequest<GoogleEvent>(ctx, {
      method: 'POST',
      path: encodePath('/calendars/{calendar_id}/events', { calendar_id: input.calendar_id ?? 'primary' }),
      query: { sendUpdates: input.send_updates, conferenceDataVersion: input.add_meet_link ? 1 : undefined },
      json: body,
    });
    return toEvent(res.data);
  },
};

export const updateEvent: ToolDefinition<EventFields & { calendar_id?: string; event_id: string; send_updates?: string }> = {
  name: 'update_event',
  description:
    'Change a Google Calendar event: title, time, description, location or attendees (the list given replaces the current one). Fields left out keep their values. Attendees are told only with send_updates=all.',
  input_schema: inputSchema(
    {
      calendar_id: calendarId,
      event_id: eventId,
      summary: str('New title', { minLength: 1 }),
      start: when('New start'),
      end: when('New end'),
      time_zone: timeZone,
      description: str('New description'),
      location: str('New location'),
      attendees,
      send_updates: sendUpdates,
    },
    ['event_id'],
  ),
  output_schema: eventSchema,
  annotations: IDEMPOTENT_WRITE,
  async execute(ctx, input) {
    const body = eventBody(input);
    if (Object.keys(body).length === 0) throw new ToolError('invalid_input', 'Nothing to update: give at least one of summary, start, end, description, location, attendees.');
    const res = await calendarRequest<GoogleEvent>(ctx, {
      method: 'PATCH',
      path: encodePath('/calendars/{calendar_id}/events/{event_id}', { calendar_id: input.calendar_id ?? 'primary', event_id: input.event_id }),
      query: { sendUpdates: input.send_updates },
      json: body,
    });
    return toEvent(res.data);
  },
};

export const deleteEvent: ToolDefinition<{ calendar_id?: string; event_id: string; send_updates?: string }> = {
  name: 'delete_event',
  description: 'Delete (cancel) a Google Calendar event. For a recurring event\'s ID this cancels every occurrence. Attendees are told only with send_updates=all.',
  input_schema: inputSchema({ calendar_id: calendarId, event_id: eventId, send_updates: sendUpdates }, ['event_id']),
  output_schema: objectSchema({ deleted: { type: 'boolean' }, event_id: str('Event ID') }, ['deleted', 'event_id']),
  annotations: DESTRUCTIVE,
  async execute(ctx, input) {
    try {
      await calendarRequest(ctx, {
        method: 'DELETE',
        path: encodePath('/calendars/{calendar_id}/events/{event_id}', { calendar_id: input.calendar_id ?? 'primary', event_id: input.event_id }),
        query: { sendUpdates: input.send_updates },
      });
    } catch (err) {
      // Google answers 410 Gone for an event that was already deleted.
      if (err instanceof ToolError && err.status === 410) throw new ToolError('not_found', `Google Calendar: event ${input.event_id} was already deleted (HTTP 410).`, { status: 410 });
      throw err;
    }
    return { deleted: true, event_id: input.event_id };
  },
};
