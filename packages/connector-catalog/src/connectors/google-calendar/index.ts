import type { ConnectorDefinition } from '../../core/types';
import { googleAuthOptions } from '../google-common/google-api';
import { listCalendars } from './calendars';
import { createEvent, deleteEvent, getEvent, listEvents, updateEvent } from './events';

export const googleCalendar: ConnectorDefinition = {
  slug: 'google-calendar',
  name: 'Google Calendar',
  description: 'Calendars and events in Google Calendar: find free time and upcoming meetings, create, reschedule and cancel events, invite attendees.',
  logo_url: 'https://ssl.gstatic.com/calendar/images/dynamiclogo_2020q4/calendar_31_2x.png',
  categories: ['calendar', 'productivity'],
  source: 'builtin',
  source_url: 'https://developers.google.com/workspace/calendar/api/v3/reference',
  default_base_url: 'https://www.googleapis.com/calendar/v3',
  auth_options: googleAuthOptions(['https://www.googleapis.com/auth/calendar']),
  tools: [listCalendars, listEvents, getEvent, createEvent, updateEvent, deleteEvent],
};
