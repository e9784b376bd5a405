import { READ_ONLY, arr, bool, inputSchema, objectSchema, str } from '../../core/schema';
import type { ToolDefinition } from '../../core/types';
import { calendarRequest } from './client';

interface CalendarListEntry {
  id: string;
  summary: string;
  summaryOverride?: string;
  description?: string;
  timeZone?: string;
  primary?: boolean;
  accessRole: string;
}

const calendarSchema = objectSchema(
  {
    id: str('Calendar ID, used by the event tools'),
    name: str('Name as the user sees it'),
    description: { type: ['string', 'null'] },
    time_zone: { type: ['string', 'null'], description: 'IANA time zone' },
    primary: { type: 'boolean', description: 'The user\'s main calendar (also reachable as "primary")' },
    access_role: str('owner, writer, reader or freeBusyReader'),
  },
  ['id', 'name', 'primary', 'access_role'],
);

export const listCalendars: ToolDefinition<{ max_results?: number; page_token?: string; writable_only?: boolean }> = {
  name: 'list_calendars',
  description: 'List the calendars in the user\'s Google Calendar list (their own, shared and subscribed ones) with IDs, time zones and the user\'s access role. Page through with next_page_token.',
  input_schema: inputSchema({
    max_results: { type: 'integer', minimum: 1, maximum: 250, default: 100, description: 'How many calendars to return (1 to 250, default 100).' },
    page_token: str('next_page_token from an earlier call', { minLength: 1 }),
    writable_only: bool('Only calendars the user can add events to'),
  }),
  output_schema: objectSchema({ calendars: arr(calendarSchema, 'Calendars'), next_page_token: { type: ['string', 'null'] } }, ['calendars', 'next_page_token']),
  annotations: READ_ONLY,
  async execute(ctx, input) {
    const res = await calendarRequest<{ items?: CalendarListEntry[]; nextPageToken?: string }>(ctx, {
      path: '/users/me/calendarList',
      query: { maxResults: input.max_results ?? 100, pageToken: input.page_token, minAccessRole: input.writable_only ? 'writer' : undefined },
    });
    return {
      calendars: (res.data.items ?? []).map((c) => ({
        id: c.id,
        name: c.summaryOverride ?? c.summary,
        description: c.description ?? null,
        time_zone: c.timeZone ?? null,
        primary: c.primary === true,
        access_role: c.accessRole,
      })),
      next_page_token: res.data.nextPageToken ?? null,
    };
  },
};
