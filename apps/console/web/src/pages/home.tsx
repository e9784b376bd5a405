import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { api, unwrap } from '../api/api';
import type { ApiError } from '../api/client';
import { useHolds, useSession } from '../components/use-session';

const DAY_MS = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const count = (n: number) => n.toLocaleString('en-US');
/** USD with cents, and below a dollar down to the micro-dollar the gateway counts in (a few small calls cost less than a cent). */
const usd = (n: number) => `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: n >= 1 ? 2 : 6 })}`;

/** A figure over the last day and the last 30 days, or one that is a state now (failing connections). */
type Figure =
  | { kind: 'window'; day: string; month: string }
  | { kind: 'now'; value: string }
  | { kind: 'missing'; reason: string };

interface FigureRow {
  label: string;
  /** The console page the figure links to, and what the link says. */
  to: string;
  search?: Record<string, string>;
  /** The link of each column when they differ (a range in the page's address: the gateway's /usage). */
  daySearch?: Record<string, string>;
  monthSearch?: Record<string, string>;
  figure: Figure;
}

/** A query's state as a figure: loading, refused (the permission it needs), failed, or the value. */
function figureOf<T>(query: { data?: T; error: Error | null; isPending: boolean }, permission: string, holds: boolean, make: (data: T) => Figure): Figure {
  if (!holds) return { kind: 'missing', reason: `needs ${permission}` };
  if (query.error) return { kind: 'missing', reason: (query.error as ApiError).status === 403 ? `needs ${permission}` : 'not available' };
  if (query.isPending || query.data === undefined) return { kind: 'missing', reason: 'loading…' };
  return make(query.data);
}

/**
 * /: the overview of the session's environment. Each figure comes from one aggregate the owning
 * service computes (never a list paged through here), over the last day (today, UTC) and the last 30
 * days (UTC days, today included), and links to the page that shows its detail. Six API requests.
 */
export function HomePage() {
  const session = useSession();
  const today = utcDay(Date.now());
  const monthStart = utcDay(Date.now() - 29 * DAY_MS);
  const environment = session?.environment ?? 'production';
  const canBill = useHolds('view_billing');
  const canConnections = useHolds('view_registered_users');
  const canAccounts = useHolds('view_linked_accounts');

  const toolCalls = useQuery({
    queryKey: ['overview', environment, 'tool-calls', monthStart, today],
    enabled: canBill,
    queryFn: () => unwrap(api.GET('/api/v1/usage/daily', { params: { query: { start: monthStart, end: today } } })),
  });
  const credits = useQuery({
    queryKey: ['overview', environment, 'credits'],
    enabled: canBill,
    queryFn: () => unwrap(api.GET('/api/v1/usage')),
  });
  const gateway = useQuery({
    queryKey: ['overview', environment, 'gateway', monthStart, today],
    enabled: canBill,
    // One group: only the days' and the range's totals are shown (computed by the gateway).
    queryFn: () => unwrap(api.GET('/v1/usage/daily', { params: { query: { from: monthStart, to: today, group_by: 'model', limit: 1 } } })),
  });
  const failingConnections = useQuery({
    queryKey: ['overview', environment, 'failing-connections'],
    enabled: canConnections,
    queryFn: () => unwrap(api.GET('/api/v1/connections', { params: { query: { status: 'ERROR', page_size: '1' } } })),
  });
  const accounts = useQuery({
    queryKey: ['overview', environment, 'linked-accounts'],
    enabled: canAccounts,
    queryFn: () => unwrap(api.GET('/api/mktg/v1/linked-accounts', { params: { query: { include_sync_summary: 'true', page_size: '100' } } })),
  });

  const rows: FigureRow[] = [
    {
      label: 'Tool calls',
      to: '/tool-call-records',
      figure: figureOf(toolCalls, 'view_billing', canBill, (d) => ({ kind: 'window', day: count(d.days.find((x) => x.date === today)?.tool_calls ?? 0), month: count(d.totals.tool_calls) })),
    },
    {
      label: 'Tool-call failures',
      to: '/tool-call-records',
      search: { status: 'error' },
      figure: figureOf(toolCalls, 'view_billing', canBill, (d) => ({ kind: 'window', day: count(d.days.find((x) => x.date === today)?.failures ?? 0), month: count(d.totals.failures) })),
    },
    {
      label: 'Credits used',
      to: '/credits',
      figure: figureOf(toolCalls, 'view_billing', canBill, (d) => ({ kind: 'window', day: count(d.days.find((x) => x.date === today)?.credits ?? 0), month: count(d.totals.credits) })),
    },
    {
      label: 'Gateway spend',
      to: '/usage',
      daySearch: { from: today, to: today, show: 'cost_usd' },
      monthSearch: { from: monthStart, to: today, show: 'cost_usd' },
      figure: figureOf(gateway, 'view_billing', canBill, (d) => ({ kind: 'window', day: usd(d.days.find((x) => x.date === today)?.cost_usd ?? 0), month: usd(d.totals.cost_usd) })),
    },
    {
      label: 'Gateway requests',
      to: '/usage',
      daySearch: { from: today, to: today, show: 'requests' },
      monthSearch: { from: monthStart, to: today, show: 'requests' },
      figure: figureOf(gateway, 'view_billing', canBill, (d) => ({ kind: 'window', day: count(d.days.find((x) => x.date === today)?.requests ?? 0), month: count(d.totals.requests) })),
    },
    {
      label: 'Failing connections',
      to: '/connections',
      search: { status: 'ERROR' },
      figure: figureOf(failingConnections, 'view_registered_users', canConnections, (d) => ({ kind: 'now', value: count(d.count) })),
    },
    {
      label: 'Syncs in error',
      to: '/linked-accounts',
      figure: figureOf(accounts, 'view_linked_accounts', canAccounts, (d) => {
        const failing = d.results.filter((a) => a.status === 'RELINK_NEEDED' || (a.sync_summary?.statuses ?? []).some((s) => s.status === 'FAILED')).length;
        // One page of accounts (100): beyond it the figure says it is a lower bound rather than paging through them all.
        return { kind: 'now', value: d.next ? `${count(failing)} or more` : count(failing) };
      }),
    },
  ];

  return (
    <section className="overview" data-overview-ready={toolCalls.data || gateway.data || failingConnections.data ? '' : undefined}>
      <div>
        <h1>Overview</h1>
        <p className="muted">
          The {environment} environment. Days are UTC days: “last day” is today ({today}), “last 30 days” is {monthStart} to {today}. Failing connections and syncs in error are counted
          now. The gateway's figures are the organization's (its keys serve both environments).
        </p>
        <div className="table-scroll">
          <table>
            <caption>Figures of the {environment} environment</caption>
            <thead>
              <tr>
                <th scope="col">Figure</th>
                <th scope="col">Last day</th>
                <th scope="col">Last 30 days</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.label}>
                  <th scope="row">{row.label}</th>
                  <FigureCells row={row} />
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {credits.data && (
          <p>
            This billing cycle ({credits.data.cycle}, production and test together):{' '}
            <FigureLink to="/credits" label={`Credits this cycle: ${count(credits.data.credits_used)} of ${count(credits.data.monthly_credits)} credits used`}>
              {count(credits.data.credits_used)} of {count(credits.data.monthly_credits)} credits used
            </FigureLink>
            {credits.data.billing_limit_reached ? ' — the free plan’s limit is reached: tool calls answer 402 until the next cycle.' : '.'}
          </p>
        )}
      </div>
      <MemberCorner />
    </section>
  );
}

function FigureCells({ row }: { row: FigureRow }) {
  const { figure } = row;
  if (figure.kind === 'missing')
    return (
      <td colSpan={2} className="muted">
        {figure.reason}
      </td>
    );
  if (figure.kind === 'now')
    return (
      <td colSpan={2}>
        <FigureLink to={row.to} search={row.search} label={`${row.label} now: ${figure.value}`}>
          {figure.value}
        </FigureLink>{' '}
        <span className="muted">now</span>
      </td>
    );
  return (
    <>
      <td>
        <FigureLink to={row.to} search={row.daySearch ?? row.search} label={`${row.label}, last day: ${figure.day}`}>
          {figure.day}
        </FigureLink>
      </td>
      <td>
        <FigureLink to={row.to} search={row.monthSearch ?? row.search} label={`${row.label}, last 30 days: ${figure.month}`}>
          {figure.month}
        </FigureLink>
      </td>
    </>
  );
}

/** A figure as a link to its page (paths are the console's own; unknown ones fall back to the not-found page). */
function FigureLink({ to, search, label, children }: { to: string; search?: Record<string, string>; label: string; children: ReactNode }) {
  return (
    <Link to={to as '/'} search={search as never} aria-label={label}>
      {children}
    </Link>
  );
}

/** Who is signed in, where, and with which permissions: kept in a corner of the overview. */
function MemberCorner() {
  const session = useSession();
  if (!session) return null;
  return (
    <aside className="member-corner card" aria-label="Signed in">
      <h2>Welcome, {session.member.name || session.member.email}</h2>
      <p className="muted">
        {session.organization.name} ({session.environment})
      </p>
      {/* Open, as the list was before the overview: it can be folded away. */}
      <details open>
        <summary>Your permissions ({session.permissions.length})</summary>
        <ul className="scopes">
          {session.permissions.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      </details>
    </aside>
  );
}
