import { createGoogleClient } from '../google-common/google-api';

/** Google Calendar API v3 (https://www.googleapis.com/calendar/v3). */
export const calendarRequest = createGoogleClient('Google Calendar');
