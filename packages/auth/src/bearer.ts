import { AuthenticationError } from '@patchbay/errors';

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]+)$/;

/**
 * Reads the key from `Authorization: Bearer <key>`, the only place a key may appear.
 * The word Bearer is case-sensitive (spec, Authentication 1).
 */
export function parseBearer(header: string | string[] | undefined): string {
  if (header === undefined || header === '') {
    throw new AuthenticationError('Authentication credentials were not provided. Send the header "Authorization: Bearer <API_KEY>".');
  }
  const value = Array.isArray(header) ? header[0] ?? '' : header;
  const match = BEARER.exec(value.trim());
  if (!match || !match[1]) {
    throw new AuthenticationError('The Authorization header must be "Bearer <API_KEY>"; the word Bearer is case-sensitive.');
  }
  return match[1];
}
