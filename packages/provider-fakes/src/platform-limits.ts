import { nextUtcMidnight } from './platform-clock';

/**
 * One rate limit of a platform: `limit` requests per window, counted per key (a token, an account).
 * `rolling` windows (HubSpot's TEN_SECONDLY_ROLLING) count the requests of the last `windowMs`;
 * fixed windows (a second, an hour) start over at each multiple of `windowMs`; `utc-day` windows start
 * over at UTC midnight of the fake clock.
 */
export interface RateBucketSpec {
  /** The platform's own name for it (policyName, X-RateLimit-Type, …), handed back when it trips. */
  name: string;
  limit: number;
  window: { rolling: number } | { fixed: number } | 'utc-day';
}

export interface BucketState {
  spec: RateBucketSpec;
  /** Requests still allowed in the current window after this one. */
  remaining: number;
  /** When the current window ends (epoch ms on the fake clock): a Retry-After to give. */
  resetAt: number;
}

export type TakeResult = { allowed: true; buckets: BucketState[] } | { allowed: false; tripped: BucketState; buckets: BucketState[] };

interface Counter {
  windowStart: number;
  count: number;
  /** Rolling windows only: the times of the requests in the window, oldest first. */
  times: number[];
}

/**
 * Counts requests against a set of buckets. A request is allowed only if every bucket has room, and
 * then counts in all of them; a refused request counts in none (the platform answered 429 without
 * doing the work), so a client that waits out the window gets through.
 */
export class RateLimiter {
  private readonly counters = new Map<string, Counter>();

  constructor(private buckets: RateBucketSpec[]) {}

  /** Replaces the limits, keeping nothing of the old counts. */
  configure(buckets: RateBucketSpec[]): void {
    this.buckets = buckets;
    this.counters.clear();
  }

  get specs(): readonly RateBucketSpec[] {
    return this.buckets;
  }

  /**
   * Counts one request. `key` says whose allowance it uses: one key for every bucket, or a key per
   * bucket (HubSpot counts ten-second windows per app and days per account).
   */
  take(key: string | ((spec: RateBucketSpec) => string), now: number): TakeResult {
    const states: BucketState[] = [];
    let tripped: BucketState | undefined;
    const counters: Counter[] = [];
    for (const spec of this.buckets) {
      const counter = this.counter(`${spec.name}\u0000${typeof key === 'string' ? key : key(spec)}`, spec, now);
      counters.push(counter);
      const used = isRolling(spec.window) ? counter.times.length : counter.count;
      const resetAt = this.resetAt(spec, counter, now);
      const state: BucketState = { spec, remaining: Math.max(0, spec.limit - used - 1), resetAt };
      if (used >= spec.limit && !tripped) tripped = { ...state, remaining: 0 };
      states.push(state);
    }
    if (tripped) return { allowed: false, tripped, buckets: states };
    this.buckets.forEach((spec, i) => {
      const counter = counters[i]!;
      if (isRolling(spec.window)) counter.times.push(now);
      else counter.count += 1;
    });
    return { allowed: true, buckets: states };
  }

  private counter(id: string, spec: RateBucketSpec, now: number): Counter {
    let counter = this.counters.get(id);
    if (!counter) {
      counter = { windowStart: this.windowStart(spec, now), count: 0, times: [] };
      this.counters.set(id, counter);
    }
    if (isRolling(spec.window)) {
      const from = now - spec.window.rolling;
      let drop = 0;
      while (drop < counter.times.length && counter.times[drop]! <= from) drop += 1;
      if (drop > 0) counter.times.splice(0, drop);
    } else {
      const start = this.windowStart(spec, now);
      if (start !== counter.windowStart) {
        counter.windowStart = start;
        counter.count = 0;
      }
    }
    return counter;
  }

  private windowStart(spec: RateBucketSpec, now: number): number {
    if (spec.window === 'utc-day') return nextUtcMidnight(now) - 86_400_000;
    if (isFixed(spec.window)) return now - (now % spec.window.fixed);
    return 0;
  }

  private resetAt(spec: RateBucketSpec, counter: Counter, now: number): number {
    if (spec.window === 'utc-day') return nextUtcMidnight(now);
    if (isFixed(spec.window)) return counter.windowStart + spec.window.fixed;
    // A rolling window has room again when its oldest request leaves it.
    return (counter.times[0] ?? now) + spec.window.rolling;
  }
}

function isRolling(window: RateBucketSpec['window']): window is { rolling: number } {
  return typeof window === 'object' && 'rolling' in window;
}

function isFixed(window: RateBucketSpec['window']): window is { fixed: number } {
  return typeof window === 'object' && 'fixed' in window;
}
