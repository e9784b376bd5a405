import { useQuery } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { useId } from 'react';
import { api, unwrap, type GatewaySchemas } from '../../api/api';
import { ErrorText } from '../../components/error-text';

type UsageDaily = GatewaySchemas['UsageDaily'];
type Dimension = UsageDaily['group_by'];
type Metric = 'cost_usd' | 'requests';

const DIMENSIONS: Array<[Dimension, string]> = [
  ['model', 'Model'],
  ['key', 'Gateway key'],
  ['project', 'Project'],
  ['customer', 'Customer'],
  ['tag', 'Tag'],
];
const METRICS: Array<[Metric, string]> = [
  ['cost_usd', 'Spend (USD)'],
  ['requests', 'Requests'],
];
/** Nine series colours (eight named groups and "other"), distinguishable and dark enough on white. */
const COLOURS = ['#1f5fa8', '#c2410c', '#15803d', '#7e22ce', '#b91c1c', '#0e7490', '#a16207', '#be185d', '#6b7280'];
const DAY_MS = 86_400_000;

/** The page's address holds its range, dimension and metric (`/usage?from=…&to=…&group_by=tag&show=requests`), so a view can be shared or linked to. */
export interface UsageSearch {
  from?: string;
  to?: string;
  group_by?: Dimension;
  show?: Metric;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
export function validateUsageSearch(search: Record<string, unknown>): UsageSearch {
  const out: UsageSearch = {};
  if (typeof search.from === 'string' && DAY.test(search.from)) out.from = search.from;
  if (typeof search.to === 'string' && DAY.test(search.to)) out.to = search.to;
  if (DIMENSIONS.some(([d]) => d === search.group_by)) out.group_by = search.group_by as Dimension;
  if (search.show === 'requests' || search.show === 'cost_usd') out.show = search.show;
  return out;
}

function utcDay(offsetDays: number): string {
  return new Date(Date.now() + offsetDays * DAY_MS).toISOString().slice(0, 10);
}

function formatMetric(metric: Metric, value: number): string {
  return metric === 'cost_usd' ? `$${value.toFixed(value !== 0 && value < 0.01 ? 6 : 2)}` : value.toLocaleString('en-US');
}

/** The chart's numbers as the server gave them: one row a day, one column a group, and each day's total. */
function chartRows(data: UsageDaily, metric: Metric) {
  return data.days.map((day) => {
    const byGroup = new Map(day.groups.map((g) => [g.id, g[metric]]));
    return { date: day.date, values: data.groups.map((g) => byGroup.get(g.id) ?? 0), total: day[metric] };
  });
}

/** CSV of exactly what the chart shows: the metric per UTC day and group, the day's total, and the range's totals. */
export function usageCsv(data: UsageDaily, metric: Metric): string {
  const cell = (text: string) => (/[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  const number = (value: number) => (metric === 'cost_usd' ? value.toFixed(6) : String(value));
  const lines = [['date (UTC)', ...data.groups.map((g) => g.label), 'total'].map(cell).join(',')];
  for (const row of chartRows(data, metric)) lines.push([row.date, ...row.values.map(number), number(row.total)].join(','));
  lines.push(['total', ...data.groups.map((g) => number(g[metric])), number(data.totals[metric])].map(cell).join(','));
  return lines.join('\r\n') + '\r\n';
}

/** A stacked bar a day, a colour a group; the table below carries the same numbers for whoever cannot see it. */
function StackedChart({ data, metric }: { data: UsageDaily; metric: Metric }) {
  const titleId = useId();
  const descId = useId();
  const rows = chartRows(data, metric);
  const width = 880;
  const height = 300;
  const left = 72;
  const bottom = 28;
  const top = 10;
  const plotHeight = height - bottom - top;
  // Grouped by tag a request with two tags is in two bars, so a stack may top the day's total.
  const max = Math.max(...rows.map((r) => Math.max(r.total, r.values.reduce((a, b) => a + b, 0))), 0) || 1;
  const slot = (width - left - 8) / rows.length;
  const barWidth = Math.max(2, slot * 0.7);
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * max);
  const labelEvery = Math.ceil(rows.length / 10);
  const metricName = METRICS.find(([m]) => m === metric)![1];
  return (
    <svg className="usage-chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby={`${titleId} ${descId}`}>
      <title id={titleId}>{`${metricName} per UTC day by ${data.group_by}, ${data.from} to ${data.to}`}</title>
      <desc id={descId}>{`Total ${formatMetric(metric, data.totals[metric])}. The table “${metricName} per day” below lists every bar's values.`}</desc>
      {ticks.map((t) => {
        const y = top + plotHeight - (t / max) * plotHeight;
        return (
          <g key={t}>
            <line x1={left} x2={width - 4} y1={y} y2={y} stroke="#d4d4d8" />
            <text x={left - 6} y={y + 4} textAnchor="end" fontSize="11" fill="#3f3f46">
              {formatMetric(metric, t)}
            </text>
          </g>
        );
      })}
      {rows.map((row, i) => {
        const x = left + i * slot + (slot - barWidth) / 2;
        let y = top + plotHeight;
        return (
          <g key={row.date}>
            {row.values.map((value, g) => {
              if (value <= 0) return null;
              const h = (value / max) * plotHeight;
              y -= h;
              return (
                <rect key={data.groups[g]!.id} x={x} y={y} width={barWidth} height={h} fill={COLOURS[g % COLOURS.length]}>
                  <title>{`${row.date} · ${data.groups[g]!.label}: ${formatMetric(metric, value)}`}</title>
                </rect>
              );
            })}
            {i % labelEvery === 0 && (
              <text x={x + barWidth / 2} y={height - 8} textAnchor="middle" fontSize="11" fill="#3f3f46">
                {row.date.slice(5)}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}

/** /usage: spend and requests per UTC day stacked by a dimension, totals from the gateway (GET /v1/usage/daily), CSV of the chart. */
export function UsagePage() {
  const search = useSearch({ strict: false }) as UsageSearch;
  const navigate = useNavigate();
  const range = { from: search.from ?? utcDay(-29), to: search.to ?? utcDay(0), group_by: search.group_by ?? ('model' as Dimension) };
  const metric: Metric = search.show ?? 'cost_usd';
  const show = (patch: UsageSearch) => void navigate({ to: '/usage', search: { ...search, ...patch } as never, replace: true });
  const usage = useQuery({
    queryKey: ['gateway-usage-daily', range],
    queryFn: () => unwrap(api.GET('/v1/usage/daily', { params: { query: range } })),
  });
  const data = usage.data;
  const download = () => {
    if (!data) return;
    const url = URL.createObjectURL(new Blob([usageCsv(data, metric)], { type: 'text/csv;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `gateway-usage-${data.group_by}-${metric === 'cost_usd' ? 'spend' : 'requests'}-${data.from}-${data.to}.csv`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  const metricName = METRICS.find(([m]) => m === metric)![1];
  return (
    <section>
      <h1>Usage</h1>
      <p className="muted">Model gateway spend and requests per day. Days are UTC days (00:00–24:00 UTC); totals are computed by the gateway.</p>
      <form
        key={`${range.from}|${range.to}|${range.group_by}`}
        className="card"
        aria-label="Usage range"
        onSubmit={(event) => {
          event.preventDefault();
          const f = new FormData(event.currentTarget);
          show({ from: String(f.get('from')), to: String(f.get('to')), group_by: String(f.get('group_by')) as Dimension });
        }}
      >
        <div className="grid">
          <label>
            From (UTC day)
            <input name="from" type="date" defaultValue={range.from} required />
          </label>
          <label>
            To (UTC day, included)
            <input name="to" type="date" defaultValue={range.to} required />
          </label>
          <label>
            Stack by
            <select name="group_by" defaultValue={range.group_by}>
              {DIMENSIONS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Show
            <select value={metric} onChange={(event) => show({ show: event.target.value as Metric })}>
              {METRICS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div className="row">
          <button type="submit">Show usage</button>
          <button type="button" className="secondary" onClick={download} disabled={!data}>
            Download CSV
          </button>
        </div>
      </form>
      <ErrorText error={usage.error} />
      {usage.isPending && <p>Loading usage…</p>}
      {data && (
        <>
          <div className="row usage-totals" role="group" aria-label="Totals">
            <p>
              <strong>{formatMetric('cost_usd', data.totals.cost_usd)}</strong> spent
            </p>
            <p>
              <strong>{data.totals.requests.toLocaleString('en-US')}</strong> requests ({data.totals.failed_requests.toLocaleString('en-US')} failed)
            </p>
            <p className="muted">
              {data.from} to {data.to} (UTC) · {data.group_count} {DIMENSIONS.find(([d]) => d === data.group_by)![1].toLowerCase()}{data.group_count === 1 ? '' : 's'}
              {data.group_count > data.groups.filter((g) => g.id !== 'other').length ? ', the largest named, the rest as Other' : ''}
            </p>
          </div>
          <StackedChart data={data} metric={metric} />
          <ul className="legend" aria-label="Legend">
            {data.groups.map((g, i) => (
              <li key={g.id}>
                <svg className="swatch" width="12" height="12" aria-hidden="true">
                  <rect width="12" height="12" fill={COLOURS[i % COLOURS.length]} />
                </svg> {g.label}: {formatMetric(metric, g[metric])}
              </li>
            ))}
          </ul>
          {data.group_by === 'tag' && <p className="muted">A request with several tags is in each tag’s bar; the totals count it once.</p>}
          <div className="scroll">
            <table>
              <caption>
                {metricName} per day (UTC) by {data.group_by}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Day (UTC)</th>
                  {data.groups.map((g) => (
                    <th scope="col" key={g.id}>
                      {g.label}
                    </th>
                  ))}
                  <th scope="col">Total</th>
                </tr>
              </thead>
              <tbody>
                {chartRows(data, metric).map((row) => (
                  <tr key={row.date}>
                    <th scope="row">{row.date}</th>
                    {row.values.map((v, i) => (
                      <td key={data.groups[i]!.id}>{formatMetric(metric, v)}</td>
                    ))}
                    <td>{formatMetric(metric, row.total)}</td>
                  </tr>
                ))}
              </tbody>
              <tfoot>
                <tr>
                  <th scope="row">Total</th>
                  {data.groups.map((g) => (
                    <td key={g.id}>{formatMetric(metric, g[metric])}</td>
                  ))}
                  <td>{formatMetric(metric, data.totals[metric])}</td>
                </tr>
              </tfoot>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
