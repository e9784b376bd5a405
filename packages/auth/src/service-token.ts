import { createHash, timingSafeEqual } from 'node:crypto';
import { AuthenticationError } from '@patchbay/errors';
import type { RequestHandler } from 'express';

export const SERVICE_TOKEN_HEADER = 'x-service-token';

/** Guards /internal/v1 routes: only services holding the shared token may call them. */
export function requireServiceToken(token: string): RequestHandler {
  const expected = createHash('sha256').update(token).digest();
  return (req, _res, next) => {
    const given = req.headers[SERVICE_TOKEN_HEADER];
    const digest = createHash('sha256').update(typeof given === 'string' ? given : '').digest();
    if (typeof given !== 'string' || !timingSafeEqual(digest, expected)) {
      next(new AuthenticationError('This internal route requires a valid service token.'));
      return;
    }
    next();
  };
}
