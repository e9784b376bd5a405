import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { billingCycle, isBillingCycle, previousBillingCycle } from './billing-cycle';
import { CHECK_SCRIPT, USAGE_SCRIPT } from './lua';
import { RebuildableCounters, type CounterRebuild, type CountersLogger, type RebuildContext } from './rebuildable-counters';

/** The rate limit is per minute, over a rolling window (not calendar minutes). */
export const RATE_WINDOW_MS = 60_000;
/** One second past the window: an idle user's window key disappears once no entry in it can count. */
const RATE_KEY_TTL_MS = RATE_WINDOW_MS + 1_000;
/**
 * Refreshed on every counted call. The last call of a cycle happens inside it, so its counters live
 * at least 40 days after it: past the longest month plus time for month-end billing to read them.
 */
const CREDITS_TTL_MS = 40 * 24 * 60 * 60 * 1000;
/** The organization's fence outlives its credit counters. */
const SCOPE_TTL_MS = CREDITS_TTL_MS + 24 * 60 * 60 * 1000;
/**
 * A rebuilt window takes the records of a little more than the window, for clocks that disagree
 * (records carry the runtime's time, the meter the Redis server's); entries past the window are
 * dropped by the next check anyway.
 */
const REBUILD_CLOCK_MARGIN_MS = 5_000;
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
  /**
   * The meter's epoch for the organization when the call was counted: store it on the call's
   * durable record (`MeterLedger` leaves it out when rebuilding this epoch).
   */
  epoch: string;
}

export interface CycleUsage {
  cycle: string;
  used: number;
  overage: number;
}

/** What the durable tool-call records hold for one organization, leaving out one meter epoch. */
export interface RecordedUsage {
  /** Credits per billing cycle asked for (cycles without records may be left out). */
  credits: Array<{ cycle: string; used: number; overage: number }>;
  /** Each counted call since `callsSinceMs`: the record's id, its registered user and its time in ms. */
  calls: Array<{ id: string; registeredUserId: string; atMs: number }>;
}

/**
 * The durable copy of the meter: the tool-call records, each stamped with the `epoch` of its
 * decision. After Redis lost an organization's counts the meter reads them back from here.
 */
export interface MeterLedger {
  /**
   * The records of `organizationId` whose epoch is not `excludeEpoch` (records without an epoch
   * count): credits by cycle for `cycles`, and the calls made since `callsSinceMs`.
   */
  recorded(query: { organizationId: string; excludeEpoch: string; cycles: string[]; callsSinceMs: number }): Promise<RecordedUsage>;
}

export interface MeterOptions {
  /** Where the meter rebuilds an organization's counts from after Redis lost them. */
  ledger: MeterLedger;
  /** Prepended to every key; must not contain '{' or '}' (the organization's hash tag follows it). */
  keyPrefix?: string;
  /** See RebuildableCountersOptions.settleDelaysMs. */
  settleDelaysMs?: number[];
  logger?: CountersLogger;
}

const REASONS: Record<number, MeterRefusal | null> = { 0: null, 1: 'rate_limited', 2: 'billing_limit_reached' };

type CheckReply = [number, number, number, number, number, number, number, number, string];

/**
 * The rate limit and credit meter mcp-runtime consults on every tools/call.
 *
 * `check` makes exactly one Redis round trip (one EVALSHA; EVAL once if the server lost its script
 * cache) and decides atomically, so the counts are exact across any number of replicas. The counts
 * are RebuildableCounters: when Redis lost an organization's state, it is rebuilt from the ledger
 * before anything is counted again.
 */
export class Meter {
  private readonly counters: RebuildableCounters;
  private readonly ledger: MeterLedger;
  /** Window entries must be unique even for two calls in the same millisecond from different replicas. */
  private readonly memberTag = randomBytes(8).toString('base64url');
  private sequence = 0;

  constructor(redis: Redis | Cluster, options: MeterOptions) {
    this.ledger = options.ledger;
    this.counters = new RebuildableCounters(redis, {
      // A brace in the prefix would become the hash tag and put every organization in one cluster slot.
      keyPrefix: options.keyPrefix ?? DEFAULT_KEY_PREFIX,
      scopeTtlMs: SCOPE_TTL_MS,
      rebuild: (context) => this.rebuild(context),
      settleDelaysMs: options.settleDelaysMs,
      logger: options.logger,
    });
  }

  async check(req: MeterRequest): Promise<MeterDecision> {
    const scope = scopeOf(req.organizationId);
    if (!req.registeredUserId) throw new RangeError('registeredUserId is required');
    if (req.plan !== 'free' && req.plan !== 'paid') throw new RangeError(`plan must be 'free' or 'paid', got '${String(req.plan)}'`);
    requireInteger('monthlyCredits', req.monthlyCredits, 0);
    requireInteger('rateLimitPerMinute', req.rateLimitPerMinute, 1);
    if (req.now !== undefined) requireInteger('now', req.now, 0);

    this.sequence = (this.sequence + 1) % Number.MAX_SAFE_INTEGER;
    const { epoch, reply } = await this.counters.run<CheckReply>(
      CHECK_SCRIPT,
      scope,
      [`rate:${req.registeredUserId}`, 'credits'],
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
      req.now === undefined ? {} : { nowMs: req.now },
    );
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
      epoch,
    };
  }

  /** What an organization has used in a billing cycle (default: the current one by the Redis server's clock). */
  async usage(organizationId: string, cycle?: string): Promise<CycleUsage> {
    if (cycle !== undefined && !isBillingCycle(cycle)) throw new RangeError(`a billing cycle is 'YYYY-MM', got '${cycle}'`);
    const { reply } = await this.counters.run<[string, number, number]>(USAGE_SCRIPT, scopeOf(organizationId), ['credits'], [cycle ?? '']);
    const [readCycle, used, overage] = reply;
    return { cycle: readCycle, used, overage };
  }

  /**
   * Call after tool-call records committed, with their organization and epochs: a record of an
   * epoch Redis has lost since is added to the rebuilt counts (see RebuildableCounters.noteDurable).
   */
  noteRecorded(organizationId: string, epochs: Iterable<string | null | undefined>): Promise<void> {
    return this.counters.noteDurable(scopeOf(organizationId), epochs);
  }

  /** Stops the timers that settle rebuilt counts. The Redis connection stays the caller's. */
  close(): void {
    this.counters.close();
  }

  /**
   * An organization's counts from the ledger: this cycle's and the previous one's credits, and the
   * last minute's calls of each registered user as entries of their rolling windows.
   */
  private async rebuild({ scope, epoch, nowMs }: RebuildContext): Promise<CounterRebuild> {
    const organizationId = scope.slice(ORG_SCOPE.length);
    const cycle = billingCycle(nowMs);
    const recorded = await this.ledger.recorded({
      organizationId,
      excludeEpoch: epoch,
      cycles: [previousBillingCycle(cycle), cycle],
      callsSinceMs: nowMs - RATE_WINDOW_MS - REBUILD_CLOCK_MARGIN_MS,
    });
    return {
      counters: recorded.credits.flatMap((c) => [
        { name: 'credits', field: `${c.cycle}:used`, value: c.used, ttlMs: CREDITS_TTL_MS },
        { name: 'credits', field: `${c.cycle}:overage`, value: c.overage, ttlMs: CREDITS_TTL_MS },
      ]),
      entries: recorded.calls.map((call) => ({ name: `rate:${call.registeredUserId}`, member: `record:${call.id}`, score: call.atMs, ttlMs: RATE_KEY_TTL_MS })),
    };
  }
}

const ORG_SCOPE = 'org:';

/** Every key of one organization carries its hash tag `{org:<id>}`, so its scripts are valid on Redis Cluster. */
function scopeOf(organizationId: string): string {
  if (!organizationId) throw new RangeError('organizationId is required');
  return `${ORG_SCOPE}${organizationId}`;
}

function requireInteger(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) throw new RangeError(`${name} must be a whole number >= ${min}, got ${value}`);
}

