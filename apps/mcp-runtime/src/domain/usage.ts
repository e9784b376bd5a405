import type { KeyPrincipal } from '@patchbay/auth';
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
