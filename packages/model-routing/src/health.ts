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
 * Each read is one round trip for all of a request's routes (`snapshot`), each outcome one round
 * trip (`record`). When Redis is unreachable routing goes on with every route closed.
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
 * says the vendor is unwell), latency ms (-1 none), threshold, window ms, cooldown ms, alpha, ttl ms.
 * Returns {open 0|1, failures in window}.
 */
const RECORD = luaScript(`
local now = tonumber(ARGV[1])
if not now then local t = redis.call('TIME'); now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) end
local ok, counts, latency = ARGV[2] == '1', ARGV[3] == '1', tonumber(ARGV[4])
local threshold, window, cooldown, alpha = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local key = KEYS[1]
local h = redis.call('HMGET', key, 'open_until', 'fails', 'window_start', 'ewma')
local open_until = tonumber(h[1]) or 0
local fails = tonumber(h[2]) or 0
local window_start = tonumber(h[3]) or 0
if ok then
  if latency >= 0 then
    local ewma = tonumber(h[4])
    if ewma then ewma = alpha * latency + (1 - alpha) * ewma else ewma = latency end
    redis.call('HSET', key, 'ewma', tostring(ewma))
  end
  -- A success closes an open (probed) route. While closed it does not wipe the failures in the
  -- window: a primary that fails every other request still opens.
  if open_until > 0 then
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
  }

  private key(route: RouteKey): string {
    return `${this.prefix}${route.model}|${route.vendor}`;
  }

  /** Breaker state and latency of each route, in one round trip. */
  async snapshot(routes: RouteKey[]): Promise<RouteHealthSnapshot[]> {
    if (routes.length === 0) return [];
    try {
      const reply = (await runLua(this.redis, SNAPSHOT, routes.map((r) => this.key(r)), [this.now ? this.now() : '', this.probeMs])) as number[];
      return routes.map((_, i) => {
        const state = reply[i * 2];
        const ewma = reply[i * 2 + 1] ?? -1;
        return { state: state === 1 ? 'open' : state === 2 ? 'probe' : 'closed', latencyMs: ewma < 0 ? null : ewma / 1000 };
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
    try {
      const reply = (await runLua(
        this.redis,
        RECORD,
        [this.key(route)],
        [
          this.now ? this.now() : '',
          outcome.ok ? 1 : 0,
          outcome.countsAgainstRoute ? 1 : 0,
          outcome.latencyMs === null ? -1 : Math.max(0, Math.round(outcome.latencyMs)),
          this.threshold,
          this.windowMs,
          this.cooldownMs,
          this.alpha,
          Math.max(this.windowMs, this.cooldownMs) * 4 + 3_600_000,
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
