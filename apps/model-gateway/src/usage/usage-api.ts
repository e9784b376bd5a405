import type { Db } from '../db';
import { ManagementError } from '../http/errors';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const GROUPS = { key: 'key_hash', model: 'model', project: 'project_id', customer: 'customer_id', tag: 'tag' } as const;
type Group = keyof typeof GROUPS;

function parseDate(name: string, value: unknown, fallback: Date): Date {
  if (value === undefined) return fallback;
  const date = typeof value === 'string' && DATE.test(value) ? new Date(`${value}T00:00:00Z`) : null;
  if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
    throw new ManagementError(400, `${name} must be a date as YYYY-MM-DD, got "${String(value)}".`, 'invalid_date');
  }
  return date;
}

/**
 * GET /v1/usage?start_date=YYYY-MM-DD&end_date=YYYY-MM-DD&group_by=key|model|project|customer|tag
 * Daily totals (UTC days, both ends included; default the last 30 days) of the organization's model
 * requests, by the chosen dimension: requests, failed requests, tokens by kind, web searches and cost in USD.
 */
export async function readUsage(db: Db, organizationId: string, query: Record<string, unknown>): Promise<{ data: unknown[]; start_date: string; end_date: string; group_by: Group }> {
  const today = new Date(new Date().toISOString().slice(0, 10) + 'T00:00:00Z');
  const end = parseDate('end_date', query.end_date, today);
  const start = parseDate('start_date', query.start_date, new Date(end.getTime() - 29 * 86_400_000));
  if (start > end) throw new ManagementError(400, 'start_date must not be after end_date.', 'invalid_date');
  if (end.getTime() - start.getTime() > 366 * 86_400_000) throw new ManagementError(400, 'A usage query spans at most 366 days.', 'invalid_date');
  const groupBy = (query.group_by ?? 'model') as Group;
  if (!(groupBy in GROUPS)) throw new ManagementError(400, `group_by must be one of ${Object.keys(GROUPS).join(', ')}.`);
  const dimension = groupBy === 'tag' ? `(t.value->>'key') || '=' || (t.value->>'value')` : `r.${GROUPS[groupBy]}`;
  const from = groupBy === 'tag' ? `usage_records r CROSS JOIN LATERAL jsonb_array_elements(r.tags) t` : `usage_records r`;
  const rows = await db.$queryRawUnsafe<Array<Record<string, unknown>>>(
    `SELECT to_char(r.day, 'YYYY-MM-DD') AS date, ${dimension} AS value, count(*)::int AS requests,
            count(*) FILTER (WHERE r.outcome <> 'finished')::int AS failed_requests,
            coalesce(sum(r.input_tokens), 0)::bigint AS input_tokens, coalesce(sum(r.cached_input_tokens), 0)::bigint AS cached_input_tokens,
            coalesce(sum(r.output_tokens), 0)::bigint AS output_tokens, coalesce(sum(r.reasoning_tokens), 0)::bigint AS reasoning_tokens,
            coalesce(sum(r.web_search_requests), 0)::bigint AS web_search_requests,
            coalesce(sum(r.cost_micros), 0)::bigint AS cost_micros, coalesce(sum(r.cost_micros) FILTER (WHERE r.byok), 0)::bigint AS byok_cost_micros
       FROM ${from}
      WHERE r.organization_id = $1::uuid AND r.day >= $2::date AND r.day <= $3::date
      GROUP BY 1, 2 ORDER BY 1, 2`,
    organizationId,
    start.toISOString().slice(0, 10),
    end.toISOString().slice(0, 10),
  );
  return {
    start_date: start.toISOString().slice(0, 10),
    end_date: end.toISOString().slice(0, 10),
    group_by: groupBy,
    data: rows.map((r) => ({
      date: r.date,
      [groupBy]: r.value,
      requests: r.requests,
      failed_requests: r.failed_requests,
      input_tokens: Number(r.input_tokens),
      cached_input_tokens: Number(r.cached_input_tokens),
      output_tokens: Number(r.output_tokens),
      reasoning_tokens: Number(r.reasoning_tokens),
      web_search_requests: Number(r.web_search_requests),
      cost_usd: Number(r.cost_micros) / 1e6,
      byok_cost_usd: Number(r.byok_cost_micros) / 1e6,
    })),
  };
}
