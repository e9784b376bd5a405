import { createGoogleClient } from '../google-common/google-api';

/** Gmail API v1 (https://gmail.googleapis.com/gmail/v1); every call is on the connected user, `users/me`. */
export const gmailRequest = createGoogleClient('Gmail');
