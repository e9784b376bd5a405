import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/api';
import { DailyBarChart } from '../../components/daily-bar-chart';
import { ErrorText, formatTime } from '../../components/error-text';
import { useSession } from '../../components/use-session';
import './playground.css';

/**
 * /credits: the organization's credits in a billing cycle (GET /api/v1/usage: the plan, the allotment,
 * what is used, production and test together) and per UTC day (GET /api/v1/usage/daily, computed by the
 * service), with the environment's tool calls and failures. Two requests per cycle shown.
 */
export function CreditsPage() {
  const session = useSession();
  const [cycle, setCycle] = useState(() => new Date().toISOString().slice(0, 7));
  const usage = useQuery({ queryKey: ['usage', cycle], queryFn: () => unwrap(api.GET('/api/v1/usage', { params: { query: { cycle } } })) });
  const daily = useQuery({ queryKey: ['usage', 'daily', session?.environment, cycle], queryFn: () => unwrap(api.GET('/api/v1/usage/daily', { params: { query: { cycle } } })) });
  const u = usage.data;
  const d = daily.data;
  const days = d?.days ?? [];
  return (
    <section>
      <h1>Credits</h1>
      <form className="row" aria-label="Choose the billing cycle" onSubmit={(e) => e.preventDefault()}>
        <label htmlFor="cycle" className="inline">
          Billing cycle (calendar month, UTC)
          <input id="cycle" type="month" value={cycle} onChange={(e) => e.target.value && setCycle(e.target.value)} />
        </label>
      </form>
      <ErrorText error={usage.error ?? daily.error} />
      {u && (
        <section className="card" aria-labelledby="allotment-heading">
          <h2 id="allotment-heading">
            {u.cycle}: {u.credits_used} of {u.monthly_credits} credits used
          </h2>
          <p>
            <meter id="allotment" min={0} max={Math.max(u.monthly_credits, 1)} value={Math.min(u.credits_used, u.monthly_credits)} aria-label="Credits used of the allotment">
              {u.credits_used} of {u.monthly_credits}
            </meter>
          </p>
          <dl className="facts">
            <dt>Plan</dt>
            <dd>
              {u.plan} ({u.monthly_credits} credits a month; one per tools/call, production and test together)
            </dd>
            <dt>Remaining</dt>
            <dd>{u.credits_remaining}</dd>
            <dt>Overage</dt>
            <dd>{u.overage_credits}{u.plan === 'paid' ? ' (billed at month end)' : ''}</dd>
            <dt>Period</dt>
            <dd>
              {formatTime(u.period_start)} to {formatTime(u.period_end)}
            </dd>
            <dt>Rate limit</dt>
            <dd>{u.rate_limit_per_minute} tools/call per registered user per minute</dd>
          </dl>
          {u.billing_limit_reached && (
            <p role="alert" className="error">
              The free plan&apos;s allotment is used up: tools/call answers 402 billing_limit_reached until {formatTime(u.period_end)}.
            </p>
          )}
        </section>
      )}
      {d && (
        <section className="card" aria-labelledby="per-day-heading">
          <h2 id="per-day-heading">Per day (UTC)</h2>
          <p className="muted">
            {d.totals.credits_all_environments} credits from {d.start} to {d.end}, production and test together; {d.totals.tool_calls} tool calls in {d.environment}, {d.totals.failures} failed
            ({d.totals.blocked} blocked by security rules). Counted by the service; days are UTC days.
          </p>
          <DailyBarChart
            title={`Credits per day in ${d.cycle ?? `${d.start} to ${d.end}`}, production and test together`}
            days={days.map((x) => x.date)}
            unit="credits"
            series={[
              { label: `Credits (${d.environment})`, values: days.map((x) => x.credits), className: 'series-0' },
              { label: `Credits (other environment)`, values: days.map((x) => x.credits_all_environments - x.credits), className: 'series-1' },
            ]}
          />
          <DailyBarChart
            title={`Tool calls per day in ${d.environment}: succeeded and failed`}
            days={days.map((x) => x.date)}
            unit="tool calls"
            series={[
              { label: 'Succeeded', values: days.map((x) => x.tool_calls - x.failures), className: 'series-0' },
              { label: 'Failed', values: days.map((x) => x.failures), className: 'series-failed' },
            ]}
          />
          <details>
            <summary>The figures as a table</summary>
            <div className="table-scroll">
              <table>
                <caption>Per UTC day, {d.environment} unless said</caption>
                <thead>
                  <tr>
                    <th scope="col">Day (UTC)</th>
                    <th scope="col">Tool calls</th>
                    <th scope="col">Failures</th>
                    <th scope="col">Blocked</th>
                    <th scope="col">Credits</th>
                    <th scope="col">Credits, both environments</th>
                  </tr>
                </thead>
                <tbody>
                  {days.map((x) => (
                    <tr key={x.date}>
                      <th scope="row">{x.date}</th>
                      <td>{x.tool_calls}</td>
                      <td>{x.failures}</td>
                      <td>{x.blocked}</td>
                      <td>{x.credits}</td>
                      <td>{x.credits_all_environments}</td>
                    </tr>
                  ))}
                </tbody>
                <tfoot>
                  <tr>
                    <th scope="row">Total</th>
                    <td>{d.totals.tool_calls}</td>
                    <td>{d.totals.failures}</td>
                    <td>{d.totals.blocked}</td>
                    <td>{d.totals.credits}</td>
                    <td>{d.totals.credits_all_environments}</td>
                  </tr>
                </tfoot>
              </table>
            </div>
          </details>
        </section>
      )}
    </section>
  );
}
