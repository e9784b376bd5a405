import type { Db } from '../db';
import { ManagementError } from '../http/errors';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
/** The most days one query covers: a year and a day (a leap year's range, both ends included). */
export const USAGE_DAILY_MAX_DAYS = 366;
/** Named groups at most; the rest are summed into one "other" group, so a chart stays readable at 100,000 keys. */
export const USAGE_DAILY_MAX_GROUPS = 25;
const DEFAULT_GROUPS = 8;

/** The dimension a chart stacks by, and the column (text) it reads. */
const DIMENSIONS = {
  key: 'r.key_hash',
  model: 'r.model',
  project: 'r.project_id::text',
  customer: 'r.customer_id::text',
  tag: `(t.value->>'key') || '=' || (t.value->>'value')`,
} as const;
export type UsageDimension = keyof typeof DIMENSIONS;
export const USAGE_DIMENSIONS = Object.keys(DIMENSIONS) as UsageDimension[];

/** What one day, one group or the whole range adds up to. */
export interface UsageFigures {
  requests: number;
  failed_requests: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

export interface UsageGroup extends UsageFigures {
  /** Stable id of the series: the value, `none` (requests without one: no project, no tag) or `other`. */
  id: string;
  /** The key hash, model, project id, customer id or `key=value` tag; null for `none` and `other`. */
  value: string | null;
  /** What a person reads: the key's name, the project's or customer's name, else the value. */
  label: string;
}

export interface UsageDay extends UsageFigures {
  date: string;
  /** This day's figures per group (groups with nothing that day are left out). */
  groups: Array<{ id: string } & UsageFigures>;
}

export interface UsageDaily {
  object: 'usage.daily';
  time_zone: 'UTC';
  from: string;
  to: string;
  group_by: UsageDimension;
  /** Distinct values of the dimension in the range (before the top `limit` were kept). */
  group_count: number;
  groups: UsageGroup[];
  /** Every day of the range, oldest first, days without requests included as zeros. */
  days: UsageDay[];
  /** The range's totals; each request once, also when grouped by tag (a request with two tags is in two groups). */
  totals: UsageFigures;
}

function parseDay(name: string, value: unknown, fallback: Date): Date {
  if (value === undefined || value === '') return fallback;
  const date = typeof value === 'string' && DATE.test(value) ? new Date(`${value}T00:00:00Z`) : null;
  if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
    throw new ManagementError(400, `${name} must be a UTC day as YYYY-MM-DD, got "${String(value).slice(0, 40)}".`, 'invalid_date');
  }
  return date;
}

/** The query's range, dimension and group limit, or a 400 naming what to change. */
export function parseUsageDailyQuery(query: Record<string, unknown>, now = new Date()): { from: Date; to: Date; groupBy: UsageDimension; limit: number } {
  const today = new Date(now.toISOString().slice(0, 10) + 'T00:00:00Z');
  const to = parseDay('to', query.to, today);
  const from = parseDay('from', query.from, new Date(to.getTime() - 29 * DAY_MS));
  if (from > to) throw new ManagementError(400, 'from must not be after to.', 'invalid_date');
  if ((to.getTime() - from.getTime()) / DAY_MS + 1 > USAGE_DAILY_MAX_DAYS) throw new ManagementError(400, `A usage query spans at most ${USAGE_DAILY_MAX_DAYS} days; narrow from and to.`, 'invalid_date');
  const groupBy = (query.group_by ?? 'model') as UsageDimension;
  if (typeof groupBy !== 'string' || !(groupBy in DIMENSIONS)) throw new ManagementError(400, `group_by must be one of ${USAGE_DIMENSIONS.join(', ')}.`, 'invalid_group_by');
  let limit = DEFAULT_GROUPS;
  if (query.limit !== undefined) {
    limit = Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > USAGE_DAILY_MAX_GROUPS) throw new ManagementError(400, `limit must be a whole number from 1 to ${USAGE_DAILY_MAX_GROUPS} (the groups named before the rest become "other").`, 'invalid_limit');
  }
  return { from, to, groupBy, limit };
}

/** Counts and sums as PostgreSQL's bigint (a BigInt through Prisma, a number inside json_build_object). */
interface FigureRow {
  requests: bigint | number;
  failed: bigint | number;
  input_tokens: bigint | number;
  output_tokens: bigint | number;
  cost_micros: bigint | number;
}

const FIGURES = `count(*) AS requests, count(*) FILTER (WHERE r.outcome <> 'finished') AS failed,
  coalesce(sum(r.input_tokens), 0) AS input_tokens, coalesce(sum(r.output_tokens), 0) AS output_tokens, coalesce(sum(r.cost_micros), 0) AS cost_micros`;
/**
 * Dimensions the daily rollup `usage_daily` carries (kept by triggers on usage_records, '' for no project or
 * customer): by these the query sums days × groups rows, not every record of the range (a month of 1,000,000
 * records took 0.7 s; see the README). Keys and tags are too many or several per record: those read the records.
 */
const ROLLUP_DIMENSIONS: Partial<Record<UsageDimension, string>> = { model: 'r.model', project: `nullif(r.project_id, '')`, customer: `nullif(r.customer_id, '')` };
const ROLLUP_FIGURES = `sum(r.requests)::bigint AS requests, sum(r.failed_requests)::bigint AS failed,
  sum(r.input_tokens)::bigint AS input_tokens, sum(r.output_tokens)::bigint AS output_tokens, sum(r.cost_micros)::bigint AS cost_micros`;
const ROLLUP_DAY_FIGURES = `sum(r.requests)::bigint AS d_requests, sum(r.failed_requests)::bigint AS d_failed,
  sum(r.input_tokens)::bigint AS d_input_tokens, sum(r.output_tokens)::bigint AS d_output_tokens, sum(r.cost_micros)::bigint AS d_cost_micros`;
const SUMS = `sum(p.requests)::bigint AS requests, sum(p.failed)::bigint AS failed, sum(p.input_tokens)::bigint AS input_tokens, sum(p.output_tokens)::bigint AS output_tokens, sum(p.cost_micros)::bigint AS cost_micros`;

/** Sums in micro-USD (exact integers), rendered once as USD. */
class Tally {
  requests = 0n;
  failed = 0n;
  input = 0n;
  output = 0n;
  micros = 0n;
  add(row: FigureRow | Tally): this {
    if (row instanceof Tally) {
      this.requests += row.requests;
      this.failed += row.failed;
      this.input += row.input;
      this.output += row.output;
      this.micros += row.micros;
      return this;
    }
    this.requests += BigInt(row.requests);
    this.failed += BigInt(row.failed);
    this.input += BigInt(row.input_tokens);
    this.output += BigInt(row.output_tokens);
    this.micros += BigInt(row.cost_micros);
    return this;
  }
  figures(): UsageFigures {
    return { requests: Number(this.requests), failed_requests: Number(this.failed), input_tokens: Number(this.input), output_tokens: Number(this.output), cost_usd: Number(this.micros) / 1e6 };
  }
}

const NONE = 'none';
const OTHER = 'other';

/**
 * GET /v1/usage/daily: spend and requests per UTC day over [from, to], stacked by one dimension, with
 * every total computed here (per day, per group, the range) so a chart never sums pages in a browser.
 * One statement (on usage_daily's key by model, project or customer; on the records' (organization_id, environment, day) index by key or tag): per (day, value), the groups ranked
 * by spend (the top `limit` named, the rest one "other" group), and each day's totals (each request once).
 */
export async function readUsageDaily(db: Db, organizationId: string, query: Record<string, unknown>, now = new Date()): Promise<UsageDaily> {
  const { from, to, groupBy, limit } = parseUsageDailyQuery(query, now);
  const fromDay = from.toISOString().slice(0, 10);
  const toDay = to.toISOString().slice(0, 10);
  // A request with several tags joins once per tag; its first (or no) tag counts it in the day's totals, so totals hold each request once.
  const rollup = ROLLUP_DIMENSIONS[groupBy];
  const source = rollup ? `usage_daily r` : groupBy === 'tag' ? `usage_records r LEFT JOIN LATERAL jsonb_array_elements(r.tags) WITH ORDINALITY t(value, n) ON true` : `usage_records r`;
  const once = groupBy === 'tag' ? `coalesce(t.n, 1) = 1` : `true`;
  const dayFigures = rollup
    ? ROLLUP_DAY_FIGURES
    : `count(*) FILTER (WHERE ${once}) AS d_requests, count(*) FILTER (WHERE ${once} AND r.outcome <> 'finished') AS d_failed,
                coalesce(sum(r.input_tokens) FILTER (WHERE ${once}), 0) AS d_input_tokens, coalesce(sum(r.output_tokens) FILTER (WHERE ${once}), 0) AS d_output_tokens,
                coalesce(sum(r.cost_micros) FILTER (WHERE ${once}), 0) AS d_cost_micros`;
  // Both environments named, so the index's second column is used and the day range is an index condition.
  const where = `r.organization_id = $1::uuid AND r.environment IN ('production', 'test') AND r.day >= $2::date AND r.day <= $3::date`;
  // One scan: per (day, value), ranked by the range's spend; JIT off, as its compile time is most of a query this size.
  const [, grouped] = await db.$transaction([
    db.$executeRawUnsafe(`SET LOCAL jit = off`),
    db.$queryRawUnsafe<Array<FigureRow & { date: string; value: string; other: boolean; group_count: number; day: FigureRow }>>(
      `WITH per AS (
         SELECT r.day, coalesce(${rollup ?? DIMENSIONS[groupBy]}, '') AS value, ${rollup ? ROLLUP_FIGURES : FIGURES}, ${dayFigures}
           FROM ${source} WHERE ${where} GROUP BY 1, 2
       ), ranked AS (
         SELECT value, row_number() OVER (ORDER BY sum(cost_micros) DESC, sum(requests) DESC, value) AS rank, count(*) OVER () AS group_count
           FROM per GROUP BY value
       )
       SELECT to_char(p.day, 'YYYY-MM-DD') AS date, CASE WHEN k.rank <= $4 THEN p.value END AS value, k.rank > $4 AS other,
              max(k.group_count)::int AS group_count, ${SUMS},
              json_build_object('requests', sum(p.d_requests), 'failed', sum(p.d_failed), 'input_tokens', sum(p.d_input_tokens), 'output_tokens', sum(p.d_output_tokens), 'cost_micros', sum(p.d_cost_micros)) AS day
         FROM per p JOIN ranked k ON k.value = p.value
        GROUP BY 1, 2, 3`,
      organizationId,
      fromDay,
      toDay,
      limit,
    ),
  ]);

  const idOf = (row: { value: string | null; other: boolean }) => (row.other ? OTHER : row.value === '' || row.value === null ? NONE : row.value);
  const groupTallies = new Map<string, Tally>();
  const dayGroups = new Map<string, Array<{ id: string } & UsageFigures>>();
  for (const row of grouped) {
    const id = idOf(row);
    groupTallies.set(id, (groupTallies.get(id) ?? new Tally()).add(row));
    const list = dayGroups.get(row.date) ?? [];
    list.push({ id, ...new Tally().add(row).figures() });
    dayGroups.set(row.date, list);
  }
  const labels = await groupLabels(db, organizationId, groupBy, [...groupTallies.keys()].filter((id) => id !== NONE && id !== OTHER));
  const groups: UsageGroup[] = [...groupTallies.entries()]
    .map(([id, tally]) => ({ id, value: id === NONE || id === OTHER ? null : id, label: id === OTHER ? 'Other' : id === NONE ? noneLabel(groupBy) : (labels.get(id) ?? id), ...tally.figures() }))
    // Largest spend first (requests break ties); "other" always last, after the named groups.
    .sort((a, b) => Number(a.id === OTHER) - Number(b.id === OTHER) || b.cost_usd - a.cost_usd || b.requests - a.requests || a.id.localeCompare(b.id));
  const order = new Map(groups.map((g, i) => [g.id, i]));

  const dayTotals = new Map<string, Tally>();
  for (const row of grouped) dayTotals.set(row.date, (dayTotals.get(row.date) ?? new Tally()).add(row.day));
  const total = new Tally();
  const days: UsageDay[] = [];
  for (let t = from.getTime(); t <= to.getTime(); t += DAY_MS) {
    const date = new Date(t).toISOString().slice(0, 10);
    const tally = dayTotals.get(date) ?? new Tally();
    total.add(tally);
    days.push({ date, ...tally.figures(), groups: (dayGroups.get(date) ?? []).sort((a, b) => order.get(a.id)! - order.get(b.id)!) });
  }
  return { object: 'usage.daily', time_zone: 'UTC', from: fromDay, to: toDay, group_by: groupBy, group_count: grouped[0]?.group_count ?? 0, groups, days, totals: total.figures() };
}

function noneLabel(groupBy: UsageDimension): string {
  return groupBy === 'project' ? 'No project' : groupBy === 'customer' ? 'No customer' : groupBy === 'tag' ? 'No tag' : 'None';
}

/** Names for the named groups (at most USAGE_DAILY_MAX_GROUPS ids): key names, project and customer names. */
async function groupLabels(db: Db, organizationId: string, groupBy: UsageDimension, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  if (groupBy === 'key') {
    const rows = await db.apiKey.findMany({ where: { organizationId, hash: { in: ids } }, select: { hash: true, name: true, label: true } });
    return new Map(rows.map((k) => [k.hash, k.name ? `${k.name} (${k.label})` : k.label]));
  }
  const uuids = ids.filter((id) => /^[0-9a-f-]{36}$/i.test(id));
  if (groupBy === 'project') {
    const rows = await db.project.findMany({ where: { organizationId, id: { in: uuids } }, select: { id: true, name: true } });
    return new Map(rows.map((p) => [p.id, p.name]));
  }
  if (groupBy === 'customer') {
    const rows = await db.customer.findMany({ where: { organizationId, id: { in: uuids } }, select: { id: true, name: true } });
    return new Map(rows.flatMap((c) => (c.name ? [[c.id, c.name] as [string, string]] : [])));
  }
  return new Map();
}
