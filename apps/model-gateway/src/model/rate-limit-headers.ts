import { FREE_PLAN_DAILY_REQUESTS } from '@patchbay/gateway-spend';
import type { Caller } from './model-request';

const RATE_LIMIT_HEADER = 'X-RateLimit-Limit';
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

interface Seen {
  remaining: number;
  resetSeconds: number;
}

/**
 * X-RateLimit-Limit, -Remaining and -Reset for answers decided before admission (an unknown model, a
 * malformed body, a 403): admission sets them from Redis on every admitted request, and a refusal
 * before it must carry them too (spec, Limits). The limit and reset follow from the key and the
 * clock (the customer key's rate_limit_rpm over the fixed minute, else the free plan's daily cap
 * over the UTC day, else 0). Remaining is what this replica's last admission of the key said in
 * the same window (a refusal before admission counts nothing), or the whole limit when it has seen
 * none: no Redis round trip is spent on a request that is refused anyway.
 */
export class RateLimitHeaders {
  private readonly seen = new Map<string, Seen>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Notes what an admission answered (its headers), so a later refusal of the same key can say it. */
  note(keyHash: string, headers: Record<string, string>): void {
    const reset = Number(headers['X-RateLimit-Reset']);
    const remaining = Number(headers['X-RateLimit-Remaining']);
    if (!(reset > 0) || !Number.isFinite(remaining)) return;
    // Bounded: a key not seen in the current window is dropped by the next note of any key past 10,000.
    if (this.seen.size >= 10_000) this.seen.clear();
    this.seen.set(keyHash, { remaining, resetSeconds: reset });
  }

  /** `headers` unchanged when admission already set the rate-limit headers, else with them added. */
  complete(caller: Caller | null, headers: Record<string, string>): Record<string, string> {
    if (!caller || headers[RATE_LIMIT_HEADER] !== undefined) return headers;
    return { ...headers, ...this.of(caller) };
  }

  of(caller: Caller): Record<string, string> {
    const { key, org } = caller;
    const now = this.now();
    let limit = 0;
    let resetMs = 0;
    if (key.customerId !== null && key.rateLimitRpm !== null) {
      limit = key.rateLimitRpm;
      resetMs = (Math.floor(now / MINUTE_MS) + 1) * MINUTE_MS;
    } else if (org.settings.plan === 'free') {
      limit = FREE_PLAN_DAILY_REQUESTS;
      resetMs = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
    }
    if (limit === 0) return { 'X-RateLimit-Limit': '0', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '0' };
    const resetSeconds = resetMs / 1000;
    const seen = this.seen.get(key.hash);
    const remaining = seen && seen.resetSeconds === resetSeconds ? seen.remaining : limit;
    return { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': String(Math.min(limit, Math.max(0, remaining))), 'X-RateLimit-Reset': String(resetSeconds) };
  }
}
