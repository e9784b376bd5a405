import { luaScript, runLua } from '@patchbay/metering';
import type { Cluster, Redis } from 'ioredis';

/**
 * Route health shared by every replica through Redis: a circuit breaker per (model, vendor) route
 * and the route's latency (time to first token, or to the answer for non-streaming calls) as an
 * exponentially weighted moving average, for the lowest_latency strategy.
 *
 * Breaker: a route that fails `threshold` times (failures that say the vendor is unwell: 429, 5xx,
 * timeouts, resets, cut streams; never the client's own mistakes) within `windowMs` opens for
 * `cooldownMs`: routing skips it. Successes in between do not reset the count, so a flapping
 * route (every other request failing) opens too. After the cooldown one request, on one replica only, probes it
 * (half-open); success closes it, failure opens it for another cooldown. Losing this state (Redis
 * restart) only means routes start closed again: nothing to rebuild.
 *
 * Each read is one round trip for all of a request's routes (`snapshot`), each failure one round
 * trip (`record`). Successes of a route that was closed when last seen are gathered for
 * `successFlushMs` and written as one update carrying their count (the moving average applies n
 * samples at once), so a healthy route costs one round trip per flush instead of one per request;
 * a success on a route seen open or probing is written at once, since it closes the route. When
 * Redis is unreachable routing goes on with every route closed.
 */
export interface HealthOptions {
  keyPrefix?: string;
  /** Failures within the window that open the breaker (default 3). */
  threshold?: number;
  windowMs?: number;
  cooldownMs?: number;
  /** How long one replica's half-open probe holds the route before another may probe (default 10 s). */
  probeMs?: number;
  /** Weight of the newest latency sample (default 0.3). */
  alpha?: number;
  /**
   * How long successes on a closed route are gathered before one write (default 0: each is written
   * at once). Only the moving latency and closing a probed route depend on successes; failures are
   * always written at once.
   */
  successFlushMs?: number;
  /** Server clock by default; tests pass their own. */
  now?: () => number;
  onError?: (err: unknown) => void;
}

export type BreakerState = 'closed' | 'open' | 'probe';

export interface RouteHealthSnapshot {
  state: BreakerState;
  /** EWMA of the route's latency in ms, null before its first success. */
  latencyMs: number | null;
}

export interface RouteKey {
  model: string;
  vendor: string;
}

/**
 * KEYS: one hash per route. ARGV[1] now ms ('' = Redis TIME), ARGV[2] probe ms.
 * Returns {state, ewma ×1000 or -1} per key; state 0 closed, 1 open, 2 this caller probes.
 */
const SNAPSHOT = luaScript(`
local now = tonumber(ARGV[1])
if not now then local t = redis.call('TIME'); now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) end
local probe = tonumber(ARGV[2])
local out = {}
for i, key in ipairs(KEYS) do
  local h = redis.call('HMGET', key, 'open_until', 'probe_until', 'ewma')
  local open_until = tonumber(h[1]) or 0
  local probe_until = tonumber(h[2]) or 0
  local state = 0
  if open_until > now then state = 1
  elseif open_until > 0 then
    if probe_until <= now then
      redis.call('HSET', key, 'probe_until', now + probe)
      state = 2
    else state = 1 end
  end
  out[#out + 1] = state
  local ewma = tonumber(h[3])
  out[#out + 1] = ewma and math.floor(ewma * 1000) or -1
end
return out
`);

/**
 * KEYS[1] the route's hash. ARGV: now ms ('' = Redis TIME), ok 1|0, counts 1|0 (a failure that
 * says the vendor is unwell), latency ms (-1 none; for n successes, their mean), threshold, window
 * ms, cooldown ms, alpha, ttl ms, n successes (default 1: the average moves as n samples of the mean
 * would move it, by 1 - (1 - alpha)^n), closes 1|0 (default 1: a success closes an open route;
 * gathered successes do not, as they may predate the failures that opened it).
 * Returns {open 0|1, failures in window}.
 */
const RECORD = luaScript(`
local now = tonumber(ARGV[1])
if not now then local t = redis.call('TIME'); now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) end
local ok, counts, latency = ARGV[2] == '1', ARGV[3] == '1', tonumber(ARGV[4])
local threshold, window, cooldown, alpha = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local n = tonumber(ARGV[10]) or 1
local closes = ARGV[11] ~= '0'
local key = KEYS[1]
local h = redis.call('HMGET', key, 'open_until', 'fails', 'window_start', 'ewma')
local open_until = tonumber(h[1]) or 0
local fails = tonumber(h[2]) or 0
local window_start = tonumber(h[3]) or 0
if ok then
  if latency >= 0 then
    local ewma = tonumber(h[4])
    if ewma then
      local weight = 1 - (1 - alpha) ^ n
      ewma = weight * latency + (1 - weight) * ewma
    else ewma = latency end
    redis.call('HSET', key, 'ewma', tostring(ewma))
  end
  -- A success closes an open (probed) route. While closed it does not wipe the failures in the
  -- window: a primary that fails every other request still opens.
  if open_until > 0 and closes then
    redis.call('HSET', key, 'open_until', 0, 'probe_until', 0, 'fails', 0)
    open_until = 0
    fails = 0
  end
elseif counts then
  if open_until > 0 and open_until <= now then
    open_until = now + cooldown
    fails = 0
    redis.call('HSET', key, 'open_until', open_until, 'probe_until', 0, 'fails', 0)
  elseif open_until <= now then
    if now - window_start > window then window_start = now; fails = 0 end
    fails = fails + 1
    if fails >= threshold then open_until = now + cooldown; fails = 0 end
    redis.call('HSET', key, 'open_until', open_until, 'fails', fails, 'window_start', window_start, 'probe_until', 0)
  end
end
redis.call('PEXPIRE', key, tonumber(ARGV[9]))
if open_until > now then return {1, fails} end
return {0, fails}
`);

export class RouteHealth {
  private readonly prefix: string;
  private readonly threshold: number;
  private readonly windowMs: number;
  private readonly cooldownMs: number;
  private readonly probeMs: number;
  private readonly alpha: number;
  private readonly now: (() => number) | undefined;
  private readonly onError: (err: unknown) => void;
  private readonly successFlushMs: number;
  /** Successes waiting for the next flush, by route key: how many, and their latencies. */
  private readonly pendingSuccesses = new Map<string, { n: number; latencySum: number; latencyN: number }>();
  private flushTimer: NodeJS.Timeout | null = null;
  /** Routes the last snapshot saw open or probing: their next success is written at once. */
  private readonly unwell = new Set<string>();

  constructor(
    private readonly redis: Redis | Cluster,
    options: HealthOptions = {},
  ) {
    // One hash tag: every route's key lives in one cluster slot, so one script reads them all.
    this.prefix = `${options.keyPrefix ?? 'patchbay:routing:'}{health}:`;
    this.threshold = options.threshold ?? 3;
    this.windowMs = options.windowMs ?? 30_000;
    this.cooldownMs = options.cooldownMs ?? 30_000;
    this.probeMs = options.probeMs ?? 10_000;
    this.alpha = options.alpha ?? 0.3;
    this.now = options.now;
    this.onError = options.onError ?? (() => undefined);
    this.successFlushMs = options.successFlushMs ?? 0;
  }

  private key(route: RouteKey): string {
    return `${this.prefix}${route.model}|${route.vendor}`;
  }

  /** Breaker state and latency of each route, in one round trip. */
  async snapshot(routes: RouteKey[]): Promise<RouteHealthSnapshot[]> {
    if (routes.length === 0) return [];
    try {
      const keys = routes.map((r) => this.key(r));
      const reply = (await runLua(this.redis, SNAPSHOT, keys, [this.now ? this.now() : '', this.probeMs])) as number[];
      return routes.map((_, i) => {
        const state = reply[i * 2];
        if (state === 0) this.unwell.delete(keys[i]!);
        else if (this.unwell.size < 10_000) this.unwell.add(keys[i]!);
        const ewma = reply[i * 2 + 1] ?? -1;
        return { state: state === 1 ? 'open' : state === 2 ? 'probe' : 'closed', latencyMs: ewma < 0 ? null : ewma / 1000 };
      });
    } catch (err) {
      this.onError(err);
      return routes.map(() => ({ state: 'closed', latencyMs: null }));
    }
  }

  /**
   * The same picture as `snapshot` without taking anything: a route whose cooldown has passed reads
   * as `probe` (the next real request would probe it) but no probe slot is claimed, so a dry run
   * never steals the probe a real request needs. One round trip (a pipeline of HMGETs).
   */
  async peek(routes: RouteKey[]): Promise<RouteHealthSnapshot[]> {
    if (routes.length === 0) return [];
    try {
      const pipeline = this.redis.pipeline();
      for (const route of routes) pipeline.hmget(this.key(route), 'open_until', 'ewma');
      const replies = (await pipeline.exec()) ?? [];
      const now = this.now ? this.now() : Date.now();
      return routes.map((_, i) => {
        const [err, values] = replies[i] ?? [null, null];
        if (err || !Array.isArray(values)) return { state: 'closed', latencyMs: null };
        const openUntil = Number(values[0] ?? 0) || 0;
        const ewma = values[1] === null || values[1] === undefined ? null : Number(values[1]);
        const state: BreakerState = openUntil > now ? 'open' : openUntil > 0 ? 'probe' : 'closed';
        return { state, latencyMs: ewma !== null && Number.isFinite(ewma) ? ewma : null };
      });
    } catch (err) {
      this.onError(err);
      return routes.map(() => ({ state: 'closed', latencyMs: null }));
    }
  }

  /**
   * One attempt's outcome: a success (with its latency) closes the route; a failure that says the
   * vendor is unwell counts toward opening it. Returns whether the route is open now.
   */
  async record(route: RouteKey, outcome: { ok: boolean; countsAgainstRoute: boolean; latencyMs: number | null }): Promise<boolean> {
    const key = this.key(route);
    const latency = outcome.latencyMs === null ? -1 : Math.max(0, Math.round(outcome.latencyMs));
    if (outcome.ok && this.successFlushMs > 0 && !this.unwell.has(key)) {
      const pending = this.pendingSuccesses.get(key) ?? { n: 0, latencySum: 0, latencyN: 0 };
      pending.n += 1;
      if (latency >= 0) {
        pending.latencySum += latency;
        pending.latencyN += 1;
      }
      this.pendingSuccesses.set(key, pending);
      if (!this.flushTimer) {
        this.flushTimer = setTimeout(() => void this.flush(), this.successFlushMs);
        this.flushTimer.unref();
      }
      return false;
    }
    if (outcome.ok) this.unwell.delete(key);
    else void this.writePending(key);
    return this.write(key, outcome.ok, outcome.countsAgainstRoute, latency, 1, true);
  }

  /** Writes the gathered successes now (shutdown, tests). */
  async flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    await Promise.all([...this.pendingSuccesses.keys()].map((key) => this.writePending(key)));
  }

  /** A route's gathered successes, written before anything newer about it (one connection keeps the order). */
  private writePending(key: string): Promise<boolean> {
    const p = this.pendingSuccesses.get(key);
    if (!p) return Promise.resolve(false);
    this.pendingSuccesses.delete(key);
    return this.write(key, true, false, p.latencyN > 0 ? Math.round(p.latencySum / p.latencyN) : -1, p.latencyN > 0 ? p.latencyN : 1, false);
  }

  private async write(key: string, ok: boolean, counts: boolean, latency: number, n: number, closes: boolean): Promise<boolean> {
    try {
      const reply = (await runLua(
        this.redis,
        RECORD,
        [key],
        [
          this.now ? this.now() : '',
          ok ? 1 : 0,
          counts ? 1 : 0,
          latency,
          this.threshold,
          this.windowMs,
          this.cooldownMs,
          this.alpha,
          Math.max(this.windowMs, this.cooldownMs) * 4 + 3_600_000,
          n,
          closes ? 1 : 0,
        ],
      )) as [number, number];
      return reply[0] === 1;
    } catch (err) {
      this.onError(err);
      return false;
    }
  }

  /** Forgets a route's state (tests, and an operator who knows the vendor is back). */
  async reset(route: RouteKey): Promise<void> {
    await this.redis.del(this.key(route));
  }
}
