import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { RebuildableCounters, type CounterRebuild, type CountersLogger, type RebuildContext, type RebuiltCounter } from '@patchbay/metering';
import { formatUsd, warningOf } from './headers';
import { ADMIT_SCRIPT, KEY_USAGE_SCRIPT, RATE_LIMIT_COUNTS_SCRIPT, SETTLE_SCRIPT, TOTALS_SCRIPT } from './lua';
import { periodsAt, type Periods } from './periods';
import { reservationOf, type AdmitRequest, type BudgetOwner, type Admission, type Environment, type KeyUsage, type RateLimitCounts, type Refusal, type Reservation, type SpendControl, type SpendLedger, type SpendSubject } from './types';


/** The free plan's cap: model requests per organization per UTC day. */
export const FREE_PLAN_DAILY_REQUESTS = 15;

const DAY_MS = 86_400_000;
/** Period counters outlive their period by this much, for late settles and for reading yesterday. */
const DAY_GRACE_MS = 2 * DAY_MS;
const WEEK_GRACE_MS = 8 * DAY_MS;
const MONTH_GRACE_MS = 32 * DAY_MS;
const MINUTE_GRACE_MS = 60_000;
/** Longer than any counter's TTL (a month of 31 days plus its grace). */
const SCOPE_TTL_MS = 64 * DAY_MS;
const DEFAULT_KEY_PREFIX = 'patchbay:gateway-spend:';
/** Longer than the longest request (model-wire's total stream timeout) with room to spare. */
const DEFAULT_LEASE_MS = 30 * 60_000;
const DEFAULT_WARNING_RATIO = 0.1;

export interface RedisSpendControlOptions {
  /** Where the counters are rebuilt from after Redis lost them. */
  ledger: SpendLedger;
  /** Prepended to every key; no braces. */
  keyPrefix?: string;
  /** How long a reservation holds without settle or release before an admit releases it. Default 30 min. */
  leaseMs?: number;
  /** Warning headers when what is left is at most this share of the limit. Default 0.1. */
  warningRatio?: number;
  /** See RebuildableCountersOptions.settleDelaysMs. */
  settleDelaysMs?: number[];
  /** The clock (ms); default Date.now. The periods follow it, so replicas need synchronised clocks. */
  clock?: () => number;
  logger?: CountersLogger;
  /**
   * How long settles (and releases) are gathered before one script applies them, per organization.
   * Default 2 ms. A settle is the second Redis call of every model request: one call for the
   * settles of a few milliseconds costs the gateway and Redis a fraction of one call each. Only
   * settles within their reservation wait (meanwhile every admit is judged stricter, on any replica);
   * one that cost more is sent at once, and the organization's next admit on this replica waits for
   * its answer. An admit of the organization carries the gathered settles in its own call, and its
   * script applies them before judging it.
   */
  settleBatchMs?: number;
}

/** Settles one script applies at most: its run stays short for Redis. */
const SETTLE_BATCH_MAX = 100;

interface PendingSettle {
  member: string;
  actualMicros: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

type AdmitReply = [number, number, number, number, number, number, number];

const ORG_SCOPE = 'org:';

/**
 * The model gateway's budgets, spend limits and request limits, shared by every replica through
 * Redis: see the package README. `admit` is one EVALSHA; the counters are RebuildableCounters in
 * one scope per organization, rebuilt from the SpendLedger when Redis lost them.
 */
export class RedisSpendControl implements SpendControl {
  /** @internal The counters, for the leased admission (leases.ts) in this package. */
  readonly counters: RebuildableCounters;
  private readonly ledger: SpendLedger;
  /** @internal */
  readonly leaseMs: number;
  private readonly warningRatio: number;
  private readonly clock: () => number;
  private readonly settleBatchMs: number;
  /** Settles waiting for the next flush, by scope (organization). */
  private pendingSettles = new Map<string, PendingSettle[]>();
  private settleTimer: NodeJS.Timeout | null = null;
  /**
   * Settles sent on their own (one cost more than its reservation) and not yet answered, by scope:
   * an admit of the scope waits for them. Sending first is not enough: a script Redis no longer
   * knows (NOSCRIPT after a restart) is sent again after the answer, behind a later admit.
   */
  private sendingSettles = new Map<string, Promise<void>>();

  constructor(redis: Redis | Cluster, options: RedisSpendControlOptions) {
    this.ledger = options.ledger;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.warningRatio = options.warningRatio ?? DEFAULT_WARNING_RATIO;
    this.clock = options.clock ?? Date.now;
    this.settleBatchMs = options.settleBatchMs ?? 2;
    requireInteger('leaseMs', this.leaseMs, 1);
    requireInteger('settleBatchMs', this.settleBatchMs, 0);
    this.counters = new RebuildableCounters(redis, {
      keyPrefix: options.keyPrefix ?? DEFAULT_KEY_PREFIX,
      scopeTtlMs: SCOPE_TTL_MS,
      rebuild: (context) => this.rebuild(context),
      settleDelaysMs: options.settleDelaysMs,
      logger: options.logger,
    });
  }

  async admit(req: AdmitRequest): Promise<Admission> {
    const { subject } = req;
    validateSubject(subject);
    requireInteger('reserveMicros', req.reserveMicros, 0);
    const now = req.now ?? this.clock();
    requireInteger('now', now, 0);
    const periods = periodsAt(now);
    const projectField = subject.project ? budgetField('project', subject.environment, subject.project.id) : '-';
    const customerField = subject.customer ? budgetField('customer', subject.environment, subject.customer.id) : '-';
    const id = randomUUID();
    const leaseUntilMs = now + this.leaseMs;
    const scope = scopeOf(subject.organizationId);
    const rpm = subject.customer?.rateLimitRpm ?? null;

    // The member's epoch is the fence's, which the script writes in: see ADMIT_SCRIPT.
    const rest = [req.reserveMicros, subject.key.byok ? 1 : 0, subject.key.hash, projectField, customerField, periods.day.label, periods.week.label, periods.month.label].join('|');

    // Settles of this organization still gathered ride on this admit, and the script applies them
    // first: a client's next request is judged on what its last one cost, in one call instead of two.
    const sending = this.sendingSettles.get(scope);
    if (sending) await sending;
    const riding = this.takePendingSettles(scope);
    const args: Array<string | number> = [
      now,
      req.reserveMicros,
      subject.key.byok ? '1' : '0',
      subject.key.hash,
      subject.key.limitMicros ?? '',
      windowOf(subject.key.limitReset, subject.key.limitMicros),
      String(subject.creditMicros),
      subject.plan,
      projectField,
      subject.project?.budgetMicros ?? '',
      customerField,
      subject.customer?.budgetMicros ?? '',
      rpm ?? '',
      req.countsAsModelRequest ? '1' : '0',
      FREE_PLAN_DAILY_REQUESTS,
      id,
      leaseUntilMs,
      periods.day.endMs + DAY_GRACE_MS - now,
      periods.week.endMs + WEEK_GRACE_MS - now,
      periods.month.endMs + MONTH_GRACE_MS - now,
      periods.minute.endMs + MINUTE_GRACE_MS - now,
      this.leaseMs * 2,
      rest,
    ];
    if (riding) for (const settle of riding) args.push(settle.member, settle.actualMicros);
    let ran: { epoch: string; reply: AdmitReply };
    try {
      ran = await this.counters.run<AdmitReply>(ADMIT_SCRIPT, scope, names(periods), args, req.now === undefined ? {} : { nowMs: req.now });
    } catch (err) {
      if (riding) for (const settle of riding) settle.reject(err);
      throw err;
    }
    if (riding) for (const settle of riding) settle.resolve();
    const { epoch, reply } = ran;
    const [refusal, requestsToday, rateWindowCount, creditDrawn, projectSpent, customerSpent, keySpent] = reply;
    const headers = this.headersOf(subject, periods, { requestsToday, rateWindowCount, creditDrawn, projectSpent, keySpent }, req.countsAsModelRequest);
    if (refusal !== 0) return this.refusalOf(refusal, subject, periods, now, headers, { creditDrawn, projectSpent, customerSpent, keySpent });
    const counted = req.countsAsModelRequest;
    const reservation = reservationOf(id, subject, req.reserveMicros, {
      atMs: now,
      leaseUntilMs,
      record: { epoch, countedAtMs: now, countedModelRequest: counted, countedInRateLimit: counted && rpm !== null, grant: null },
      member: `${id}|${epoch}|${rest}`,
    });
    return { ok: true, reservation, headers };
  }

  /**
   * Budget headers for the limits that exist (none of the organization's or project's on customer
   * keys), warnings near a limit, and X-RateLimit-* (the customer key's rpm, else the free plan's
   * daily cap, else 0).
   */
  /** @internal Also the leased admission's (leases.ts), from a grant's counts. */
  headersOf(
    subject: SpendSubject,
    periods: Periods,
    counts: { requestsToday: number; rateWindowCount: number; creditDrawn: number; projectSpent: number; keySpent: number },
    countsAsModelRequest: boolean,
  ): Record<string, string> {
    const headers: Record<string, string> = {};
    const warn = (name: string, limit: number, used: number) => {
      const warning = warningOf({ limit, used }, this.warningRatio);
      if (warning !== null) headers[name] = warning;
    };
    if (!subject.customer) {
      const credit = Number(subject.creditMicros);
      headers['X-Credit-Balance-USD'] = formatUsd(Math.max(0, credit - counts.creditDrawn));
      headers['X-Budget-Limit-USD'] = formatUsd(credit);
      warn('X-Budget-Warning', credit, counts.creditDrawn);
      const budget = subject.project?.budgetMicros;
      if (budget != null) {
        headers['X-Project-Budget-Remaining-USD'] = formatUsd(Math.max(0, budget - counts.projectSpent));
        headers['X-Project-Budget-Limit-USD'] = formatUsd(budget);
        warn('X-Project-Budget-Warning', budget, counts.projectSpent);
      }
    }
    const keyLimit = subject.key.limitMicros;
    if (keyLimit !== null) {
      headers['X-Key-Limit-Remaining-USD'] = formatUsd(Math.max(0, keyLimit - counts.keySpent));
      headers['X-Key-Limit-USD'] = formatUsd(keyLimit);
      warn('X-Key-Limit-Warning', keyLimit, counts.keySpent);
    }
    const rpm = subject.customer?.rateLimitRpm ?? null;
    if (rpm !== null && countsAsModelRequest) {
      headers['X-RateLimit-Limit'] = String(rpm);
      headers['X-RateLimit-Remaining'] = String(Math.max(0, rpm - counts.rateWindowCount));
      headers['X-RateLimit-Reset'] = String(periods.minute.endMs / 1000);
    } else if (subject.plan === 'free' && countsAsModelRequest) {
      headers['X-RateLimit-Limit'] = String(FREE_PLAN_DAILY_REQUESTS);
      headers['X-RateLimit-Remaining'] = String(Math.max(0, FREE_PLAN_DAILY_REQUESTS - counts.requestsToday));
      headers['X-RateLimit-Reset'] = String(periods.day.endMs / 1000);
    } else {
      headers['X-RateLimit-Limit'] = '0';
      headers['X-RateLimit-Remaining'] = '0';
      headers['X-RateLimit-Reset'] = '0';
    }
    return headers;
  }

  private refusalOf(
    refusal: number,
    subject: SpendSubject,
    periods: Periods,
    now: number,
    headers: Record<string, string>,
    spent: { creditDrawn: number; projectSpent: number; customerSpent: number; keySpent: number },
  ): Refusal {
    const retryAfter = (endMs: number) => Math.max(1, Math.ceil((endMs - now) / 1000));
    switch (refusal) {
      case 1: {
        const seconds = retryAfter(periods.day.endMs);
        return {
          ok: false, status: 429, code: 'free_tier_daily_limit', type: 'rate_limit_error', limit: 'free_tier', retryAfterSeconds: seconds,
          message: `The free plan allows ${FREE_PLAN_DAILY_REQUESTS} model requests per organization per UTC day and this organization has made them; the count resets at 00:00 UTC, in ${seconds} seconds. Do not retry before then, or upgrade to a paid plan.`,
          headers: { ...headers, 'Retry-After': String(seconds) },
        };
      }
      case 2: {
        const seconds = retryAfter(periods.minute.endMs);
        return {
          ok: false, status: 429, code: null, type: 'rate_limit_error', limit: 'customer_rate_limit', retryAfterSeconds: seconds,
          message: `This customer key allows ${subject.customer?.rateLimitRpm ?? 0} requests per minute and the organization's customer keys have made that many in this minute; retry after the time in Retry-After.`,
          headers: { ...headers, 'Retry-After': String(seconds) },
        };
      }
      case 3:
        if (subject.plan === 'paid' && !subject.paymentMethodOnFile) {
          return {
            ok: false, status: 402, code: 'payment_failed', type: 'payment_failed', limit: 'organization_credit', headers,
            message: `The organization's gateway credit of ${formatUsd(Number(subject.creditMicros))} USD is used up and it has no payment method on file; add a payment method or credit to go on.`,
          };
        }
        return {
          ok: false, status: 402, code: 'budget_exceeded', type: 'budget_exceeded', limit: 'organization_credit', headers,
          message: `The organization's gateway credit of ${formatUsd(Number(subject.creditMicros))} USD is used up (${formatUsd(spent.creditDrawn)} USD spent or reserved); add credit to go on.`,
        };
      case 4:
        return {
          ok: false, status: 402, code: 'budget_exceeded', type: 'budget_exceeded', limit: 'project_budget', headers,
          message: `The budget of project '${subject.project?.id ?? ''}' (${formatUsd(subject.project?.budgetMicros ?? 0)} USD) is used up (${formatUsd(spent.projectSpent)} USD spent or reserved); raise the project's budget to go on.`,
        };
      case 5: {
        const reset = subject.key.limitReset;
        const when = reset === 'daily' ? 'at 00:00 UTC' : reset === 'weekly' ? 'on Monday at 00:00 UTC' : reset === 'monthly' ? 'on the 1st at 00:00 UTC' : 'never (the limit has no reset window)';
        return {
          ok: false, status: 402, code: 'api_key_limit_exceeded', type: 'budget_exceeded', limit: 'key_limit', headers,
          message: `This key's ${reset ?? 'all-time'} spend limit of ${formatUsd(subject.key.limitMicros ?? 0)} USD is reached (${formatUsd(spent.keySpent)} USD spent or reserved); it resets ${when}, or raise the key's limit.`,
        };
      }
      default:
        return {
          ok: false, status: 402, code: 'budget_exceeded', type: 'budget_exceeded', limit: 'customer_budget', headers,
          message: `The budget of customer '${subject.customer?.id ?? ''}' (${formatUsd(subject.customer?.budgetMicros ?? 0)} USD) is used up; raise the customer's budget to go on.`,
        };
    }
  }

  /** Resolves once the settle is in Redis, with the others of its batch (settleBatchMs). */
  async settle(reservation: Reservation, actualMicros: number, _recordId?: string): Promise<void> {
    requireInteger('actualMicros', actualMicros, 0);
    const scope = scopeOf(reservation.organizationId);
    await new Promise<void>((resolve, reject) => {
      let batch = this.pendingSettles.get(scope);
      if (!batch) {
        batch = [];
        this.pendingSettles.set(scope, batch);
      }
      batch.push({ member: reservation.member, actualMicros, resolve, reject });
      // Gathering is safe while the reservation holds at least the real cost: every admit, on any
      // replica, is judged stricter meanwhile. One that cost more goes now, with the others.
      if (batch.length >= SETTLE_BATCH_MAX || actualMicros > reservation.reservedMicros) {
        this.sendPendingSettles(scope);
      } else {
        this.settleTimer ??= setTimeout(() => void this.flushSettles(), this.settleBatchMs);
      }
    });
  }

  /** Sends the scope's gathered settles now, on their own; the scope's next admit waits for their answer. */
  private sendPendingSettles(scope: string): void {
    const batch = this.takePendingSettles(scope);
    if (!batch) return;
    const before = this.sendingSettles.get(scope);
    const sent = this.sendSettles(scope, batch).then(() => before);
    this.sendingSettles.set(scope, sent);
    void sent.then(() => {
      if (this.sendingSettles.get(scope) === sent) this.sendingSettles.delete(scope);
    });
  }

  /** Takes the scope's gathered settles off the batch (to send them now); the timer stops when none are left. */
  private takePendingSettles(scope: string): PendingSettle[] | undefined {
    const batch = this.pendingSettles.get(scope);
    if (!batch) return undefined;
    this.pendingSettles.delete(scope);
    if (this.pendingSettles.size === 0 && this.settleTimer) {
      clearTimeout(this.settleTimer);
      this.settleTimer = null;
    }
    return batch;
  }

  /** Sends every settle still waiting for its batch now (shutdown, tests); resolves when they are in Redis. */
  async flushSettles(): Promise<void> {
    if (this.settleTimer) clearTimeout(this.settleTimer);
    this.settleTimer = null;
    const pending = this.pendingSettles;
    this.pendingSettles = new Map();
    await Promise.all([...pending].map(([scope, batch]) => this.sendSettles(scope, batch)));
  }

  private async sendSettles(scope: string, batch: PendingSettle[]): Promise<void> {
    const args: Array<string | number> = [];
    for (const s of batch) args.push(s.member, s.actualMicros);
    try {
      await this.counters.run<number[]>(SETTLE_SCRIPT, scope, ['t', 'f', 'l'], args);
    } catch (err) {
      for (const s of batch) s.reject(err);
      return;
    }
    for (const s of batch) s.resolve();
  }

  release(reservation: Reservation): Promise<void> {
    return this.settle(reservation, 0);
  }

  async keyUsage(organizationId: string, keyHash: string, now?: number): Promise<KeyUsage> {
    const at = now ?? this.clock();
    const periods = periodsAt(at);
    const { reply } = await this.counters.run<number[]>(
      KEY_USAGE_SCRIPT,
      scopeOf(organizationId),
      ['t', `d:${periods.day.label}`, `w:${periods.week.label}`, `m:${periods.month.label}`],
      [keyHash],
      now === undefined ? {} : { nowMs: now },
    );
    const [total = 0, daily = 0, weekly = 0, monthly = 0, byokTotal = 0, byokDaily = 0, byokWeekly = 0, byokMonthly = 0] = reply;
    return { total, daily, weekly, monthly, byok: { total: byokTotal, daily: byokDaily, weekly: byokWeekly, monthly: byokMonthly } };
  }

  async rateLimitCounts(organizationId: string, now?: number): Promise<RateLimitCounts> {
    const periods = periodsAt(now ?? this.clock());
    const { reply } = await this.counters.run<number[]>(RATE_LIMIT_COUNTS_SCRIPT, scopeOf(organizationId), [`d:${periods.day.label}`, `r:${periods.minute.label}`], [], now === undefined ? {} : { nowMs: now });
    const [requestsToday = 0, rateWindowCount = 0] = reply;
    return { requestsToday, rateWindowCount };
  }

  async budgetSpend(organizationId: string, budgets: readonly BudgetOwner[]): Promise<number[]> {
    if (budgets.length === 0) return [];
    const fields = budgets.map((b) => budgetField(b.kind, b.environment, b.id));
    const { reply } = await this.counters.run<number[]>(TOTALS_SCRIPT, scopeOf(organizationId), ['t'], fields);
    return budgets.map((_, i) => reply[i] ?? 0);
  }

  noteRecorded(organizationId: string, epochs: Iterable<string | null | undefined>): Promise<void> {
    return this.counters.noteDurable(scopeOf(organizationId), epochs);
  }

  /**
   * Stops the timers that settle rebuilt counters and sends the settles still waiting for their
   * batch. The Redis connection stays the caller's: await flushSettles() before closing it.
   */
  close(): void {
    this.counters.close();
    void this.flushSettles();
  }

  private async rebuild({ scope, epoch, nowMs }: RebuildContext): Promise<CounterRebuild> {
    const organizationId = scope.slice(ORG_SCOPE.length);
    const periods = periodsAt(nowMs);
    const windowOf = (p: { startMs: number; endMs: number }) => ({ startMs: p.startMs, endMs: p.endMs });
    const recorded = await this.ledger.recorded({
      organizationId,
      excludeEpoch: epoch,
      day: windowOf(periods.day),
      week: windowOf(periods.week),
      month: windowOf(periods.month),
      minute: windowOf(periods.minute),
    });
    const day = `d:${periods.day.label}`;
    const week = `w:${periods.week.label}`;
    const month = `m:${periods.month.label}`;
    const ttl = {
      day: periods.day.endMs + DAY_GRACE_MS - nowMs,
      week: periods.week.endMs + WEEK_GRACE_MS - nowMs,
      month: periods.month.endMs + MONTH_GRACE_MS - nowMs,
      minute: periods.minute.endMs + MINUTE_GRACE_MS - nowMs,
    };
    const counters: RebuiltCounter[] = [
      { name: 't', field: 'o', value: recorded.organizationCreditMicros },
      { name: day, field: 'n', value: recorded.modelRequestsInDay, ttlMs: ttl.day },
      { name: `r:${periods.minute.label}`, value: recorded.rateLimitedRequestsInMinute, ttlMs: ttl.minute },
    ];
    for (const p of recorded.projects) counters.push({ name: 't', field: budgetField('project', p.environment, p.projectId), value: p.micros });
    for (const c of recorded.customers) counters.push({ name: 't', field: budgetField('customer', c.environment, c.customerId), value: c.micros });
    for (const k of recorded.keys) {
      const kf = `k:${k.keyHash}`;
      const kbf = `kb:${k.keyHash}`;
      counters.push(
        { name: 't', field: kf, value: k.total },
        { name: 't', field: kbf, value: k.byokTotal },
        { name: day, field: kf, value: k.day, ttlMs: ttl.day },
        { name: day, field: kbf, value: k.byokDay, ttlMs: ttl.day },
        { name: week, field: kf, value: k.week, ttlMs: ttl.week },
        { name: week, field: kbf, value: k.byokWeek, ttlMs: ttl.week },
        { name: month, field: kf, value: k.month, ttlMs: ttl.month },
        { name: month, field: kbf, value: k.byokMonth, ttlMs: ttl.month },
      );
    }
    return { counters };
  }
}

function names(periods: Periods): string[] {
  return ['t', `d:${periods.day.label}`, `w:${periods.week.label}`, `m:${periods.month.label}`, `r:${periods.minute.label}`, 'f', 'l'];
}

/** @internal */
export function windowOf(reset: SpendSubject['key']['limitReset'], limit: number | null): 'd' | 'w' | 'm' | 't' {
  if (limit === null) return 't';
  return reset === 'daily' ? 'd' : reset === 'weekly' ? 'w' : reset === 'monthly' ? 'm' : 't';
}

/**
 * @internal The `t` hash field of a project's or a customer's all-time budget counter (lua.ts):
 * admissions, grants, rebuilds and reads all name it here, so a read can never look at another field
 * than the admissions count in.
 */
export function budgetField(kind: BudgetOwner['kind'], environment: Environment, id: string): string {
  return `${kind === 'project' ? 'p' : 'c'}:${environment}:${encodeURIComponent(id)}`;
}

/** @internal */
export function scopeOf(organizationId: string): string {
  if (!organizationId) throw new RangeError('organizationId is required');
  return `${ORG_SCOPE}${organizationId}`;
}

/** @internal */
export function requireInteger(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) throw new RangeError(`${name} must be a whole number >= ${min}, got ${value}`);
}

/** @internal */
export function validateSubject(s: SpendSubject): void {
  if (s.environment !== 'production' && s.environment !== 'test') throw new RangeError(`environment must be 'production' or 'test', got '${String(s.environment)}'`);
  if (s.plan !== 'free' && s.plan !== 'paid') throw new RangeError(`plan must be 'free' or 'paid', got '${String(s.plan)}'`);
  if (!/^[0-9a-f]{64}$/.test(s.key.hash)) throw new RangeError('key.hash must be the SHA-256 of the key in 64 lowercase hex characters');
  const credit = typeof s.creditMicros === 'bigint' ? s.creditMicros : BigInt(Number.isSafeInteger(s.creditMicros) ? s.creditMicros : NaN);
  if (credit > BigInt(Number.MAX_SAFE_INTEGER) || credit < -BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('creditMicros must fit in a safe integer');
  if (s.key.limitMicros !== null) requireInteger('key.limitMicros', s.key.limitMicros, 0);
  if (s.project?.budgetMicros != null) requireInteger('project.budgetMicros', s.project.budgetMicros, 0);
  if (s.customer?.budgetMicros != null) requireInteger('customer.budgetMicros', s.customer.budgetMicros, 0);
  if (s.customer?.rateLimitRpm != null) requireInteger('customer.rateLimitRpm', s.customer.rateLimitRpm, 1);
}

/** The key object's `usage` (and byok_usage) for its limit_reset window: all time when it has none. */
export function usageInWindow(usage: KeyUsage, limitReset: SpendSubject['key']['limitReset']): { usage: number; byokUsage: number } {
  switch (limitReset) {
    case 'daily':
      return { usage: usage.daily, byokUsage: usage.byok.daily };
    case 'weekly':
      return { usage: usage.weekly, byokUsage: usage.byok.weekly };
    case 'monthly':
      return { usage: usage.monthly, byokUsage: usage.byok.monthly };
    default:
      return { usage: usage.total, byokUsage: usage.byok.total };
  }
}

/**
 * The key object's usage fields (micro-USD; the app turns them into USD): `usage` and `byok_usage`
 * in the limit_reset window, the others regardless of it.
 */
export function keyUsageFields(usage: KeyUsage, limitReset: SpendSubject['key']['limitReset']) {
  const inWindow = usageInWindow(usage, limitReset);
  return {
    usage: inWindow.usage,
    usage_daily: usage.daily,
    usage_weekly: usage.weekly,
    usage_monthly: usage.monthly,
    byok_usage: inWindow.byokUsage,
    byok_usage_daily: usage.byok.daily,
    byok_usage_weekly: usage.byok.weekly,
    byok_usage_monthly: usage.byok.monthly,
  };
}
