import type { MeterDecision } from './meter';
import { RATE_WINDOW_MS } from './meter';

/**
 * The rate-limit headers of a tools/call response, on every answer (200, 402 and 429), so a client
 * can pace itself before it is refused.
 *
 * - `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` follow the IETF httpapi draft:
 *   Reset is relative, in seconds. `RateLimit-Policy` names the window (`30;w=60`).
 * - `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` carry the same figures the way
 *   the model gateway and GitHub send them: Reset is the Unix time in seconds.
 * - `Retry-After` (seconds) only when the call was rate limited: when one more call fits.
 */
export function rateLimitHeaders(decision: MeterDecision): Record<string, string> {
  const { limit, remaining, resetSeconds, resetAt, retryAfterSeconds } = decision.rateLimit;
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(limit),
    'RateLimit-Remaining': String(remaining),
    'RateLimit-Reset': String(resetSeconds),
    'RateLimit-Policy': `${limit};w=${RATE_WINDOW_MS / 1000}`,
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(resetAt),
  };
  if (decision.reason === 'rate_limited' && retryAfterSeconds !== null) headers['Retry-After'] = String(retryAfterSeconds);
  return headers;
}
