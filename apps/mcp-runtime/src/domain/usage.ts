import { registeredUserIdFilter, toolPackIdFilter, type KeyPrincipal } from '@patchbay/auth';
import { ValidationError } from '@patchbay/errors';
import { billingCycleBounds, isBillingCycle, type Meter, type MeterLedger, type RecordedUsage } from '@patchbay/metering';
import type { Db } from '../db';
import { Prisma } from '../generated/prisma/client';

/** An organization's credit usage in one billing cycle (calendar month, UTC). */
export interface UsageView {
  /** 'YYYY-MM' */
  cycle: string;
  period_start: string;
  /** The first instant of the next cycle, when a free plan's credits are available again. */
  period_end: string;
  plan: 'free' | 'paid';
  /** Credits included in the plan per cycle. */
  monthly_credits: number;
  /** tools/call counted this cycle, production and test keys together, including overage. */
  credits_used: number;
  /** Included credits left (0 once used up). */
  credits_remaining: number;
  /** Credits beyond the allotment (paid plans), billed at month end. */
  overage_credits: number;
  /** A free plan that used its allotment: tools/call answers 402 billing_limit_reached until period_end. */
  billing_limit_reached: boolean;
  /** tools/call per registered user per rolling minute (set by the Patchbay admin CLI). */
  rate_limit_per_minute: number;
}

/** What the tool-call records hold for a cycle, by organization (the durable copy of the meter). */
export async function recordedUsage(db: Db, cycle: string, organizationId?: string): Promise<Array<{ organizationId: string; used: number; overage: number }>> {
  const onlyOrganization = organizationId ? Prisma.sql`AND organization_id = ${organizationId}::uuid` : Prisma.empty;
  const rows = await db.$queryRaw<Array<{ organization_id: string; used: bigint; overage: bigint }>>`
    SELECT organization_id, SUM(credits)::bigint AS used, SUM(CASE WHEN overage THEN credits ELSE 0 END)::bigint AS overage
    FROM "tool_call_records" WHERE billing_cycle = ${cycle} ${onlyOrganization} GROUP BY organization_id`;
  return rows.map((r) => ({ organizationId: r.organization_id, used: Number(r.used), overage: Number(r.overage) }));
}

/**
 * Reads the meter (exact, Redis). A meter with no count for the cycle either saw no call or lost its
 * data (a Redis restart without persistence, a cycle older than its 40-day keys): then the durable
 * records answer, which only costs a scan of the organization's records when it matters.
 */
export async function readUsage(db: Db, meter: Meter, principal: KeyPrincipal, cycle?: string): Promise<UsageView> {
  if (cycle !== undefined && cycle !== '' && !isBillingCycle(cycle)) throw ValidationError.forField('query.cycle', "must be a billing cycle 'YYYY-MM', e.g. 2026-11");
  const metered = await meter.usage(principal.organizationId, cycle || undefined);
  const [recorded] = metered.used > 0 ? [] : await recordedUsage(db, metered.cycle, principal.organizationId);
  const used = Math.max(metered.used, recorded?.used ?? 0);
  const overage = Math.max(metered.overage, recorded?.overage ?? 0);
  const { plan, monthlyCredits, mcpRateLimitPerMinute } = principal.organization;
  const bounds = billingCycleBounds(metered.cycle);
  return {
    cycle: metered.cycle,
    period_start: new Date(bounds.start).toISOString(),
    period_end: new Date(bounds.end).toISOString(),
    plan,
    monthly_credits: monthlyCredits,
    credits_used: used,
    credits_remaining: Math.max(0, monthlyCredits - (used - overage)),
    overage_credits: overage,
    billing_limit_reached: plan === 'free' && used >= monthlyCredits,
    rate_limit_per_minute: mcpRateLimitPerMinute,
  };
}

/**
 * The meter's durable copy: the tool-call records, each stamped with the meter epoch its credit was
 * counted in. After Redis lost an organization's counts the meter rebuilds them from the records
 * of every other epoch (those without one too): credits of the cycles asked for, and the calls of
 * the last minute for the rolling windows. Two indexed queries per rebuild, never on the hot path.
 */
export function toolCallLedger(db: Db): MeterLedger {
  return {
    async recorded({ organizationId, excludeEpoch, cycles, callsSinceMs }): Promise<RecordedUsage> {
      const credits = await db.$queryRaw<Array<{ billing_cycle: string; used: bigint; overage: bigint }>>`
        SELECT billing_cycle, SUM(credits)::bigint AS used, SUM(CASE WHEN overage THEN credits ELSE 0 END)::bigint AS overage
        FROM "tool_call_records"
        WHERE organization_id = ${organizationId}::uuid AND billing_cycle = ANY(${cycles}::text[]) AND meter_epoch IS DISTINCT FROM ${excludeEpoch}::uuid
        GROUP BY billing_cycle`;
      const calls = await db.$queryRaw<Array<{ id: string; registered_user_id: string; occurred_at: Date }>>`
        SELECT id::text, registered_user_id::text, occurred_at
        FROM "tool_call_records"
        WHERE organization_id = ${organizationId}::uuid AND occurred_at >= ${new Date(callsSinceMs)} AND meter_epoch IS DISTINCT FROM ${excludeEpoch}::uuid`;
      return {
        credits: credits.map((r) => ({ cycle: r.billing_cycle, used: Number(r.used), overage: Number(r.overage) })),
        calls: calls.map((r) => ({ id: r.id, registeredUserId: r.registered_user_id, atMs: r.occurred_at.getTime() })),
      };
    },
  };
}

/** After records committed: tells the meter, which adds those of an epoch Redis lost since to its rebuilt counts. */
export function noteRecordsStored(meter: Pick<Meter, 'noteRecorded'>, records: Array<{ organization_id: string; meter_epoch?: string | null }>): void {
  const epochsByOrganization = new Map<string, Set<string>>();
  for (const record of records) {
    if (!record.meter_epoch) continue;
    let epochs = epochsByOrganization.get(record.organization_id);
    if (!epochs) epochsByOrganization.set(record.organization_id, (epochs = new Set()));
    epochs.add(record.meter_epoch);
  }
  for (const [organizationId, epochs] of epochsByOrganization) void meter.noteRecorded(organizationId, epochs);
}

/** Tool calls and credits of a day or of a range (GET /api/v1/usage/daily). */
export interface DailyUsageTotals {
  /** tools/call of the caller's environment (every one cost a credit). */
  tool_calls: number;
  /** Of those, the ones that did not succeed: status error or blocked. */
  failures: number;
  /** Of the failures, the ones a security rule blocked. */
  blocked: number;
  /** Credits of the caller's environment's calls. */
  credits: number;
  /** Credits of production and test together: what the plan's monthly allotment counts. */
  credits_all_environments: number;
}

/** One UTC day of tool calls and credits. */
export interface DailyUsageRow extends DailyUsageTotals {
  /** 'YYYY-MM-DD', a UTC day. */
  date: string;
}

/** Tool calls and credits per UTC day over a range, computed by the service (every day of the range, zeros included). */
export interface DailyUsageView {
  /** Days are UTC days. */
  time_zone: 'UTC';
  environment: 'production' | 'test';
  /** First day of the range, 'YYYY-MM-DD' (inclusive). */
  start: string;
  /** Last day of the range, 'YYYY-MM-DD' (inclusive). */
  end: string;
  /** The billing cycle when the range is one ('YYYY-MM'), else null. */
  cycle: string | null;
  /** Sums over the range, computed by the service (not the sum of a page). */
  totals: DailyUsageTotals;
  days: DailyUsageRow[];
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** A range of at most this many days: the records are kept 90 days, a quarter fits. */
export const DAILY_USAGE_MAX_DAYS = 92;
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

function parseDay(field: string, value: string): number {
  const at = DATE_PATTERN.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== value) throw ValidationError.forField(`query.${field}`, "must be a UTC date 'YYYY-MM-DD', e.g. 2026-11-01");
  return at;
}

/** The days asked for: start and end (inclusive, both or neither), else a billing cycle (default the current one). */
export function dailyUsageRange(query: { cycle?: string; start?: string; end?: string }, now = Date.now()): { startMs: number; endMs: number; cycle: string | null } {
  const { cycle, start, end } = query;
  if (start || end) {
    if (cycle) throw ValidationError.forField('query.cycle', 'give either cycle or start and end, not both');
    if (!start || !end) throw ValidationError.forField(start ? 'query.end' : 'query.start', 'start and end go together: give both days (inclusive), or neither for a billing cycle');
    const startMs = parseDay('start', start);
    const endMs = parseDay('end', end) + DAY_MS;
    if (endMs <= startMs) throw ValidationError.forField('query.end', 'must not be earlier than start');
    if ((endMs - startMs) / DAY_MS > DAILY_USAGE_MAX_DAYS) throw ValidationError.forField('query.end', `the range may span at most ${DAILY_USAGE_MAX_DAYS} days`);
    return { startMs, endMs, cycle: null };
  }
  if (cycle !== undefined && cycle !== '' && !isBillingCycle(cycle)) throw ValidationError.forField('query.cycle', "must be a billing cycle 'YYYY-MM', e.g. 2026-11");
  const chosen = cycle || new Date(now).toISOString().slice(0, 7);
  const bounds = billingCycleBounds(chosen);
  return { startMs: bounds.start, endMs: bounds.end, cycle: chosen };
}

type DayRow = { day: string; tool_calls: bigint | number; failures: bigint | number; blocked: bigint | number; credits: bigint | number; credits_all: bigint | number };

/**
 * Tool calls, failures and credits per UTC day, summed by PostgreSQL: from tool_call_daily_usage,
 * which a trigger keeps as records are inserted (a few rows per day, however many calls: a cycle of
 * 1,000,000 records reads 62 rows). A key restricted to tool packs or registered users counts only
 * theirs, from the records themselves (the daily rows do not split by pack or user).
 */
export async function readDailyUsage(db: Db, principal: KeyPrincipal, query: { cycle?: string; start?: string; end?: string }, now = Date.now()): Promise<DailyUsageView> {
  const { startMs, endMs, cycle } = dailyUsageRange(query, now);
  const packs = toolPackIdFilter(principal);
  const users = registeredUserIdFilter(principal);
  const environment = principal.environment;
  const from = new Date(startMs);
  const until = new Date(endMs);
  let rows: DayRow[];
  if (packs === null && users === null) {
    rows = await db.$queryRaw<DayRow[]>`
      SELECT to_char(day, 'YYYY-MM-DD') AS day,
        COALESCE(SUM(tool_calls) FILTER (WHERE environment = ${environment}::"Environment"), 0)::bigint AS tool_calls,
        COALESCE(SUM(failures) FILTER (WHERE environment = ${environment}::"Environment"), 0)::bigint AS failures,
        COALESCE(SUM(blocked) FILTER (WHERE environment = ${environment}::"Environment"), 0)::bigint AS blocked,
        COALESCE(SUM(credits) FILTER (WHERE environment = ${environment}::"Environment"), 0)::bigint AS credits,
        COALESCE(SUM(credits), 0)::bigint AS credits_all
      FROM "tool_call_daily_usage"
      WHERE organization_id = ${principal.organizationId}::uuid AND day >= ${from.toISOString().slice(0, 10)}::date AND day < ${until.toISOString().slice(0, 10)}::date
      GROUP BY day`;
  } else {
    const onlyPacks = packs === null ? Prisma.empty : Prisma.sql`AND tool_pack_id = ANY(${packs}::uuid[])`;
    const onlyUsers = users === null ? Prisma.empty : Prisma.sql`AND registered_user_id = ANY(${users}::uuid[])`;
    rows = await db.$queryRaw<DayRow[]>`
      SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
        COUNT(*) FILTER (WHERE environment = ${environment}::"Environment") AS tool_calls,
        COUNT(*) FILTER (WHERE environment = ${environment}::"Environment" AND status <> 'success') AS failures,
        COUNT(*) FILTER (WHERE environment = ${environment}::"Environment" AND status = 'blocked') AS blocked,
        COALESCE(SUM(credits) FILTER (WHERE environment = ${environment}::"Environment"), 0)::bigint AS credits,
        COALESCE(SUM(credits), 0)::bigint AS credits_all
      FROM "tool_call_records"
      WHERE organization_id = ${principal.organizationId}::uuid AND occurred_at >= ${from} AND occurred_at < ${until} ${onlyPacks} ${onlyUsers}
      GROUP BY 1`;
  }
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const days: DailyUsageRow[] = [];
  const totals = { tool_calls: 0, failures: 0, blocked: 0, credits: 0, credits_all_environments: 0 };
  for (let at = startMs; at < endMs; at += DAY_MS) {
    const date = new Date(at).toISOString().slice(0, 10);
    const r = byDay.get(date);
    const day: DailyUsageRow = {
      date,
      tool_calls: Number(r?.tool_calls ?? 0),
      failures: Number(r?.failures ?? 0),
      blocked: Number(r?.blocked ?? 0),
      credits: Number(r?.credits ?? 0),
      credits_all_environments: Number(r?.credits_all ?? 0),
    };
    days.push(day);
    totals.tool_calls += day.tool_calls;
    totals.failures += day.failures;
    totals.blocked += day.blocked;
    totals.credits += day.credits;
    totals.credits_all_environments += day.credits_all_environments;
  }
  return {
    time_zone: 'UTC',
    environment,
    start: new Date(startMs).toISOString().slice(0, 10),
    end: new Date(endMs - DAY_MS).toISOString().slice(0, 10),
    cycle,
    totals,
    days,
  };
}
