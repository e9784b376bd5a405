import type { Environment, PeriodWindow, RecordedSpend, SpendLedger } from './types';

/** Runs one parameterised SQL statement ($1, $2, ...) and gives its rows: pg's `pool.query(...).rows`, Prisma's `$queryRawUnsafe`. */
export type SqlQuery = (sql: string, values: unknown[]) => Promise<Array<Record<string, unknown>>>;

/**
 * The SpendLedger over a PostgreSQL usage-record table with the columns the README lists
 * (`organization_id` uuid, `environment`, `key_hash`, `project_id`, `customer_id`, `byok`,
 * `cost_micros` bigint, `spend_epoch`, `counted_at` timestamptz, `counted_model_request`,
 * `counted_in_rate_limit`, `spend_grant` text). Four statements per rebuild, all on the index
 * `(organization_id, spend_epoch)`; rebuilds happen only after Redis lost an organization's counters.
 *
 * `table` is trusted configuration (a schema-qualified name is fine), never user input.
 */
export function sqlSpendLedger(query: SqlQuery, table = 'usage_records'): SpendLedger {
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/.test(table)) throw new RangeError(`table must be a plain (optionally schema-qualified) name, got '${table}'`);
  const mine = `FROM ${table} WHERE organization_id = CAST($1 AS uuid) AND spend_epoch IS DISTINCT FROM $2`;
  const within = (from: number, to: number) => `counted_at >= CAST($${from} AS timestamptz) AND counted_at < CAST($${to} AS timestamptz)`;
  const sum = (filter: string | null) => `COALESCE(SUM(cost_micros)${filter ? ` FILTER (WHERE ${filter})` : ''}, 0)::text`;
  const iso = (w: PeriodWindow) => [new Date(w.startMs).toISOString(), new Date(w.endMs).toISOString()];
  const int = (value: unknown) => {
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`a usage-record sum is not a whole number >= 0: ${String(value)}`);
    return n;
  };

  return {
    async grants({ organizationId, grantIds }) {
      if (grantIds.length === 0) return [];
      const rows = await query(
        `SELECT spend_grant, ${sum(null)} AS cost, COUNT(*) FILTER (WHERE counted_model_request)::text AS requests
         FROM ${table} WHERE organization_id = CAST($1 AS uuid) AND spend_grant = ANY(CAST($2 AS text[])) GROUP BY 1`,
        [organizationId, grantIds],
      );
      return rows.map((r) => ({ grantId: String(r.spend_grant), costMicros: int(r.cost), modelRequests: int(r.requests) }));
    },
    async recorded({ organizationId, excludeEpoch, day, week, month, minute }): Promise<RecordedSpend> {
      const [organization] = await query(
        `SELECT ${sum('NOT byok')} AS credit,
                COUNT(*) FILTER (WHERE counted_model_request AND ${within(3, 4)})::text AS day_requests,
                COUNT(*) FILTER (WHERE counted_in_rate_limit AND ${within(5, 6)})::text AS minute_requests
         ${mine}`,
        [organizationId, excludeEpoch, ...iso(day), ...iso(minute)],
      );
      const keys = await query(
        `SELECT key_hash,
                ${sum(null)} AS total, ${sum('byok')} AS byok_total,
                ${sum(within(3, 4))} AS day, ${sum(`byok AND ${within(3, 4)}`)} AS byok_day,
                ${sum(within(5, 6))} AS week, ${sum(`byok AND ${within(5, 6)}`)} AS byok_week,
                ${sum(within(7, 8))} AS month, ${sum(`byok AND ${within(7, 8)}`)} AS byok_month
         ${mine} GROUP BY key_hash`,
        [organizationId, excludeEpoch, ...iso(day), ...iso(week), ...iso(month)],
      );
      const projects = await query(`SELECT environment::text AS environment, project_id::text AS id, ${sum(null)} AS micros ${mine} AND project_id IS NOT NULL GROUP BY 1, 2`, [organizationId, excludeEpoch]);
      const customers = await query(`SELECT environment::text AS environment, customer_id::text AS id, ${sum(null)} AS micros ${mine} AND customer_id IS NOT NULL GROUP BY 1, 2`, [organizationId, excludeEpoch]);
      return {
        organizationCreditMicros: int(organization?.credit ?? 0),
        modelRequestsInDay: int(organization?.day_requests ?? 0),
        rateLimitedRequestsInMinute: int(organization?.minute_requests ?? 0),
        keys: keys.map((k) => ({
          keyHash: String(k.key_hash),
          total: int(k.total),
          byokTotal: int(k.byok_total),
          day: int(k.day),
          byokDay: int(k.byok_day),
          week: int(k.week),
          byokWeek: int(k.byok_week),
          month: int(k.month),
          byokMonth: int(k.byok_month),
        })),
        projects: projects.map((p) => ({ environment: p.environment as Environment, projectId: String(p.id), micros: int(p.micros) })),
        customers: customers.map((c) => ({ environment: c.environment as Environment, customerId: String(c.id), micros: int(c.micros) })),
      };
    },
  };
}
