import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { isBillingCycle } from './billing-cycle';
import { CHECK_SCRIPT, SEED_SCRIPT, USAGE_SCRIPT, type LuaScript } from './lua';

/** The rate limit is per minute, over a rolling window (not calendar minutes). */
export const RATE_WINDOW_MS = 60_000;
/** One second past the window: an idle user's window key disappears once no entry in it can count. */
const RATE_KEY_TTL_MS = RATE_WINDOW_MS + 1_000;
/**
 * Refreshed on every counted call. The last call of a cycle happens inside it, so its counters live
 * at least 40 days after it: past the longest month plus time for month-end billing to read them.
 */
const CREDITS_TTL_MS = 40 * 24 * 60 * 60 * 1000;
const DEFAULT_KEY_PREFIX = 'patchbay:metering:';

export type Plan = 'free' | 'paid';

export interface MeterRequest {
  organizationId: string;
  registeredUserId: string;
  plan: Plan;
  /** The organization's credit allotment per billing cycle. */
  monthlyCredits: number;
  /** tools/call per registered user in any 60-second window; set per organization by the admin CLI. */
  rateLimitPerMinute: number;
  /** Milliseconds since the epoch, for tests; production leaves it out and the Redis server's clock decides. */
  now?: number;
}

export type MeterRefusal = 'rate_limited' | 'billing_limit_reached';

export interface MeterDecision {
  allowed: boolean;
  reason: MeterRefusal | null;
  rateLimit: {
    limit: number;
    /** Calls this registered user may still make now, after this one when it was allowed. */
    remaining: number;
    /** Seconds until every call now in the window has left it, so the whole limit is available again (0 when the window is empty). */
    resetSeconds: number;
    /** The same moment as resetSeconds, as Unix seconds. */
    resetAt: number;
    /** When rate limited: seconds until one more call fits in the window. Otherwise null. */
    retryAfterSeconds: number | null;
  };
  credits: {
    /** Calls counted this billing cycle, including this call when allowed. */
    used: number;
    allotment: number;
    /** Calls counted beyond the allotment this cycle (paid plans), including this call when it was one. */
    overage: number;
    /** 'YYYY-MM', UTC: see billingCycle. */
    cycle: string;
  };
}

export interface CycleUsage {
  cycle: string;
  used: number;
  overage: number;
}

export interface MeterOptions {
  /** Prepended to every key; must not contain '{' or '}' (the organization's hash tag follows it). */
  keyPrefix?: string;
}

const REASONS: Record<number, MeterRefusal | null> = { 0: null, 1: 'rate_limited', 2: 'billing_limit_reached' };

type CheckReply = [number, number, number, number, number, number, number, number, string];

/**
 * The rate limit and credit meter mcp-runtime consults on every tools/call.
 *
 * `check` makes exactly one Redis round trip (one EVALSHA; EVAL once if the server lost its script
 * cache) and decides atomically, so the counts are exact across any number of replicas.
 */
export class Meter {
  private readonly keyPrefix: string;
  /** Window entries must be unique even for two calls in the same millisecond from different replicas. */
  private readonly memberTag = randomBytes(8).toString('base64url');
  private sequence = 0;

  constructor(
    private readonly redis: Redis | Cluster,
    options: MeterOptions = {},
  ) {
    const keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    // A brace in the prefix would become the hash tag and put every organization in one cluster slot.
    if (/[{}]/.test(keyPrefix)) throw new RangeError(`keyPrefix must not contain '{' or '}', got '${keyPrefix}'`);
    this.keyPrefix = keyPrefix;
  }

  async check(req: MeterRequest): Promise<MeterDecision> {
    const orgTag = this.orgTag(req.organizationId);
    if (!req.registeredUserId) throw new RangeError('registeredUserId is required');
    if (req.plan !== 'free' && req.plan !== 'paid') throw new RangeError(`plan must be 'free' or 'paid', got '${String(req.plan)}'`);
    requireInteger('monthlyCredits', req.monthlyCredits, 0);
    requireInteger('rateLimitPerMinute', req.rateLimitPerMinute, 1);
    if (req.now !== undefined) requireInteger('now', req.now, 0);

    this.sequence = (this.sequence + 1) % Number.MAX_SAFE_INTEGER;
    const reply = (await this.run(
      CHECK_SCRIPT,
      [`${orgTag}:rate:${req.registeredUserId}`, `${orgTag}:credits`],
      [
        req.now === undefined ? '' : String(req.now),
        req.rateLimitPerMinute,
        RATE_WINDOW_MS,
        RATE_KEY_TTL_MS,
        `${this.memberTag}:${this.sequence}`,
        req.plan,
        req.monthlyCredits,
        CREDITS_TTL_MS,
      ],
    )) as CheckReply;
    const [allowed, reason, remaining, resetMs, retryMs, used, overage, nowMs, cycle] = reply;
    return {
      allowed: allowed === 1,
      reason: REASONS[reason] ?? null,
      rateLimit: {
        limit: req.rateLimitPerMinute,
        remaining,
        resetSeconds: Math.ceil(resetMs / 1000),
        resetAt: Math.ceil((nowMs + resetMs) / 1000),
        retryAfterSeconds: retryMs < 0 ? null : Math.max(1, Math.ceil(retryMs / 1000)),
      },
      credits: { used, allotment: req.monthlyCredits, overage, cycle },
    };
  }

  /** What an organization has used in a billing cycle (default: the current one by the Redis server's clock). */
  async usage(organizationId: string, cycle?: string): Promise<CycleUsage> {
    if (cycle !== undefined && !isBillingCycle(cycle)) throw new RangeError(`a billing cycle is 'YYYY-MM', got '${cycle}'`);
    const [readCycle, used, overage] = (await this.run(USAGE_SCRIPT, [`${this.orgTag(organizationId)}:credits`], [cycle ?? ''])) as [
      string,
      number,
      number,
    ];
    return { cycle: readCycle, used, overage };
  }

  /**
   * Restores a cycle's counter rebuilt from the durable tool-call records after Redis lost its data.
   * Sets it only when the meter holds no counter for that cycle, and resolves to whether it did: a
   * counter already there has counted calls the records may not hold yet, so it is never overwritten.
   */
  async seedCycle(organizationId: string, cycle: string, used: number, overage = 0): Promise<boolean> {
    const credits = `${this.orgTag(organizationId)}:credits`;
    if (!isBillingCycle(cycle)) throw new RangeError(`a billing cycle is 'YYYY-MM', got '${cycle}'`);
    requireInteger('used', used, 0);
    requireInteger('overage', overage, 0);
    if (overage > used) throw new RangeError(`overage (${overage}) cannot exceed used (${used})`);
    const set = await this.run(SEED_SCRIPT, [credits], [cycle, used, overage, CREDITS_TTL_MS]);
    return set === 1;
  }

  /** Both keys of one call carry the same hash tag, so the script is valid on Redis Cluster. */
  private orgTag(organizationId: string): string {
    if (!organizationId) throw new RangeError('organizationId is required');
    return `${this.keyPrefix}{org:${organizationId}}`;
  }

  private async run(lua: LuaScript, keys: string[], args: (string | number)[]): Promise<unknown> {
    try {
      return await this.redis.evalsha(lua.sha1, keys.length, ...keys, ...args);
    } catch (err) {
      // After a restart or SCRIPT FLUSH the server forgets the script: send it once; EVAL caches it again.
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return await this.redis.eval(lua.source, keys.length, ...keys, ...args);
    }
  }
}

function requireInteger(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) throw new RangeError(`${name} must be a whole number >= ${min}, got ${value}`);
}

