import type { RecordedSpend, SpendLedger } from '@patchbay/gateway-spend';
import type { Db } from '../db';

type Window = { startMs: number; endMs: number };

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The spend counters' durable side: sums of the usage records of one organization, leaving out the
 * records of the epoch being rebuilt (see packages/gateway-spend, "After Redis loses its data"). A
 * record counts in a window by `counted_at`, the time the counters counted it.
 */
export function usageRecordsLedger(db: Db): SpendLedger {
  return {
    async recorded({ organizationId, excludeEpoch, day, week, month, minute }): Promise<RecordedSpend> {
      const inWindow = (_w: Window, n: number) => `coalesce(counted_at, created_at) >= $${n}::timestamptz AND coalesce(counted_at, created_at) < $${n + 1}::timestamptz`;
      const scope = `organization_id = $1::uuid AND (spend_epoch IS NULL OR spend_epoch <> $2)`;
      const args = [organizationId, excludeEpoch, iso(day.startMs), iso(day.endMs), iso(week.startMs), iso(week.endMs), iso(month.startMs), iso(month.endMs)];
      const [keys, groups, totals] = await Promise.all([
        db.$queryRawUnsafe<Array<Record<string, bigint | string>>>(
          `SELECT key_hash,
                  coalesce(sum(cost_micros), 0)::bigint AS total,
                  coalesce(sum(cost_micros) FILTER (WHERE byok), 0)::bigint AS byok_total,
                  coalesce(sum(cost_micros) FILTER (WHERE ${inWindow(day, 3)}), 0)::bigint AS day,
                  coalesce(sum(cost_micros) FILTER (WHERE byok AND ${inWindow(day, 3)}), 0)::bigint AS byok_day,
                  coalesce(sum(cost_micros) FILTER (WHERE ${inWindow(week, 5)}), 0)::bigint AS week,
                  coalesce(sum(cost_micros) FILTER (WHERE byok AND ${inWindow(week, 5)}), 0)::bigint AS byok_week,
                  coalesce(sum(cost_micros) FILTER (WHERE ${inWindow(month, 7)}), 0)::bigint AS month,
                  coalesce(sum(cost_micros) FILTER (WHERE byok AND ${inWindow(month, 7)}), 0)::bigint AS byok_month
             FROM usage_records WHERE ${scope} AND cost_micros > 0 GROUP BY key_hash`,
          ...args.slice(0, 8),
        ),
        db.$queryRawUnsafe<Array<{ kind: string; environment: string; id: string; micros: bigint }>>(
          `SELECT 'project' AS kind, environment::text AS environment, project_id::text AS id, sum(cost_micros)::bigint AS micros
             FROM usage_records WHERE ${scope} AND project_id IS NOT NULL GROUP BY environment, project_id
           UNION ALL
           SELECT 'customer', environment::text, customer_id::text, sum(cost_micros)::bigint
             FROM usage_records WHERE ${scope} AND customer_id IS NOT NULL GROUP BY environment, customer_id`,
          organizationId,
          excludeEpoch,
        ),
        db.$queryRawUnsafe<Array<{ credit: bigint; model_requests: number; rate_limited: number }>>(
          `SELECT coalesce(sum(cost_micros) FILTER (WHERE NOT byok), 0)::bigint AS credit,
                  count(*) FILTER (WHERE counted_model_request AND ${inWindow(day, 3)})::int AS model_requests,
                  count(*) FILTER (WHERE counted_in_rate_limit AND ${inWindow(minute, 5)})::int AS rate_limited
             FROM usage_records WHERE ${scope}`,
          ...args.slice(0, 4),
          iso(minute.startMs),
          iso(minute.endMs),
        ),
      ]);
      const n = (v: bigint | string | number | undefined) => Number(v ?? 0);
      return {
        organizationCreditMicros: n(totals[0]?.credit),
        projects: groups.filter((g) => g.kind === 'project').map((g) => ({ environment: g.environment as 'production' | 'test', projectId: g.id, micros: n(g.micros) })),
        customers: groups.filter((g) => g.kind === 'customer').map((g) => ({ environment: g.environment as 'production' | 'test', customerId: g.id, micros: n(g.micros) })),
        keys: keys.map((k) => ({
          keyHash: String(k.key_hash),
          total: n(k.total),
          byokTotal: n(k.byok_total),
          day: n(k.day),
          byokDay: n(k.byok_day),
          week: n(k.week),
          byokWeek: n(k.byok_week),
          month: n(k.month),
          byokMonth: n(k.byok_month),
        })),
        modelRequestsInDay: totals[0]?.model_requests ?? 0,
        rateLimitedRequestsInMinute: totals[0]?.rate_limited ?? 0,
      };
    },
  };
}
