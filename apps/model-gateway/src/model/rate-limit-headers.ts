import { FREE_PLAN_DAILY_REQUESTS, type RateLimitCounts } from '@patchbay/gateway-spend';
import type { Caller } from '../keys/callers';

const RATE_LIMIT_HEADER = 'X-RateLimit-Limit';
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

interface Seen {
  remaining: number;
  resetSeconds: number;
}

/** Reads the shared counts admission writes (SpendControl.rateLimitCounts of @patchbay/gateway-spend). */
export type RateLimitCountsReader = (organizationId: string) => Promise<RateLimitCounts>;

/**
 * X-RateLimit-Limit, -Remaining and -Reset for answers decided before admission (an unknown model, a
 * malformed body, a 403, a stored response read): admission sets them from Redis on every admitted
 * request, and a refusal before it must carry them too (spec, Limits). The limit and reset follow
 * from the key and the clock (the customer key's rate_limit_rpm over the fixed minute, else the free
 * plan's daily cap over the UTC day, else 0).
 *
 * Remaining is exact across replicas: it is read from the counters every replica's admissions write
 * (one read-only Redis round trip, only for keys that have a limit: those are admitted per request
 * anyway, never on a lease, so no request of an unlimited key pays it). When Redis does not answer,
 * it is what this replica's last admission of the key said in the same window, or the whole limit
 * when it has seen none: then another replica's admissions since are missing, so it can only
 * overstate what is left, by at most their count (the refusal itself counts nothing).
 */
export class RateLimitHeaders {
  private readonly seen = new Map<string, Seen>();

  constructor(
    private readonly read: RateLimitCountsReader | null = null,
    private readonly now: () => number = Date.now,
  ) {}

  /** Notes what an admission answered (its headers): the fallback while Redis does not answer. */
  note(keyHash: string, headers: Record<string, string>): void {
    const reset = Number(headers['X-RateLimit-Reset']);
    const remaining = Number(headers['X-RateLimit-Remaining']);
    if (!(reset > 0) || !Number.isFinite(remaining)) return;
    // Bounded: a key not seen in the current window is dropped by the next note of any key past 10,000.
    if (this.seen.size >= 10_000) this.seen.clear();
    this.seen.set(keyHash, { remaining, resetSeconds: reset });
  }

  /** `headers` unchanged when admission already set the rate-limit headers, else with them added. */
  async complete(caller: Caller | null, headers: Record<string, string>): Promise<Record<string, string>> {
    if (!caller || headers[RATE_LIMIT_HEADER] !== undefined) return headers;
    return { ...headers, ...(await this.of(caller)) };
  }

  async of(caller: Caller): Promise<Record<string, string>> {
    const { key, org } = caller;
    const now = this.now();
    let limit = 0;
    let resetMs = 0;
    const rpm = key.customerId !== null && key.rateLimitRpm !== null;
    if (rpm) {
      limit = key.rateLimitRpm!;
      resetMs = (Math.floor(now / MINUTE_MS) + 1) * MINUTE_MS;
    } else if (org.settings.plan === 'free') {
      limit = FREE_PLAN_DAILY_REQUESTS;
      resetMs = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
    }
    if (limit === 0) return { 'X-RateLimit-Limit': '0', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '0' };
    const resetSeconds = resetMs / 1000;
    let remaining: number;
    try {
      if (!this.read) throw new Error('no shared counts');
      const counts = await this.read(key.organizationId);
      remaining = limit - (rpm ? counts.rateWindowCount : counts.requestsToday);
    } catch {
      const seen = this.seen.get(key.hash);
      remaining = seen && seen.resetSeconds === resetSeconds ? seen.remaining : limit;
    }
    return { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': String(Math.min(limit, Math.max(0, remaining))), 'X-RateLimit-Reset': String(resetSeconds) };
  }
}
