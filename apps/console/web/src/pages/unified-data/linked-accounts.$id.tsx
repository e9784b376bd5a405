import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap } from '../../api/api';
import { CursorPager } from '../../components/cursor-pager';
import { ErrorText, formatTime } from '../../components/error-text';
import { LinkedAccountActions, accountLabel } from './linked-account-actions';
import { isSyncing } from './linked-accounts';

/** Syncs take seconds: the history shows them (UTC). */
const atSecond = (iso: string) => `${iso.slice(0, 19).replace('T', ' ')} UTC`;

/**
 * /linked-accounts/$id: one linked account (GET /api/mktg/v1/linked-accounts/{id} with its sync
 * summary), the sync status of each model, and its sync history (GET .../{id}/sync-runs, newest first,
 * paged by the API's cursors).
 */
export function LinkedAccountPage() {
  const { id } = useParams({ strict: false }) as { id: string };
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const account = useQuery({
    queryKey: ['linked-accounts', 'one', id],
    queryFn: () => unwrap(api.GET('/api/mktg/v1/linked-accounts/{id}', { params: { path: { id }, query: { include_sync_summary: 'true' } } })),
    // Closely while a sync runs (a resync's run shows up in the history when it ends), calmly otherwise.
    refetchInterval: (query) => (query.state.data && isSyncing(query.state.data) ? 5_000 : 60_000),
  });
  const syncing = account.data ? isSyncing(account.data) : false;
  // A sync that finished is a new row of the history: its end time in the key fetches the history again.
  const lastFinished = account.data?.sync_summary?.statuses.map((s) => s.last_sync_finished).join();
  const runs = useQuery({
    queryKey: ['linked-accounts', 'one', id, 'sync-runs', cursor, lastFinished],
    queryFn: () => unwrap(api.GET('/api/mktg/v1/linked-accounts/{id}/sync-runs', { params: { path: { id }, query: { page_size: '20', ...(cursor ? { cursor } : {}) } } })),
    placeholderData: (previous) => previous,
    refetchInterval: cursor ? false : syncing ? 5_000 : 60_000,
  });
  const a = account.data;
  return (
    <section>
      <h1>{a ? `Linked account ${accountLabel(a)}` : 'Linked account'}</h1>
      <p>
        <Link to="/linked-accounts">All linked accounts</Link>
      </p>
      <ErrorText error={account.error} />
      {a && (
        <>
          <dl className="card">
            <dt>Platform</dt>
            <dd>
              {a.integration.name}
              {a.remote_account_name && ` (${a.remote_account_name})`}
            </dd>
            <dt>Status</dt>
            <dd>
              {a.status}
              {a.status_detail && ` — ${a.status_detail}`}
            </dd>
            <dt>End user</dt>
            <dd>
              {a.end_user_origin_id}
              {a.end_user_email_address && `, ${a.end_user_email_address}`}
            </dd>
            <dt>Records</dt>
            <dd>
              <Link to="/events" search={{ linked_account_id: a.id }}>
                {a.sync_summary?.event_count ?? '—'} events
              </Link>
              , {a.sync_summary?.contact_count ?? '—'} contacts ·{' '}
              <Link to="/field-mappings" search={{ linked_account_id: a.id }}>
                Field mappings
              </Link>
            </dd>
            <dt>Incremental sync every</dt>
            <dd>{a.sync_frequency_seconds / 60} minutes</dd>
            <dt>Last error</dt>
            <dd>{a.sync_summary?.last_error ? `${a.sync_summary.last_error.message} (${formatTime(a.sync_summary.last_error.at)})` : 'None'}</dd>
          </dl>
          <LinkedAccountActions account={a} afterDelete="list" />
          <div className="table-scroll">
            <table>
              <caption>Sync status per model</caption>
              <thead>
                <tr>
                  <th scope="col">Model</th>
                  <th scope="col">Status</th>
                  <th scope="col">Last sync started</th>
                  <th scope="col">Last sync finished</th>
                  <th scope="col">Last result</th>
                  <th scope="col">Next sync</th>
                </tr>
              </thead>
              <tbody>
                {(a.sync_summary?.statuses ?? []).map((s) => (
                  <tr key={s.model_id}>
                    <th scope="row">{s.model_name}</th>
                    <td>
                      {s.status}
                      {s.is_initial_sync && <span className="muted"> (initial sync)</span>}
                    </td>
                    <td>{formatTime(s.last_sync_start)}</td>
                    <td>{formatTime(s.last_sync_finished)}</td>
                    <td>{s.last_sync_result ?? '—'}</td>
                    <td>{formatTime(s.next_sync_start)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      <h2>Sync history</h2>
      <ErrorText error={runs.error} />
      {runs.data && (
        <>
          <div className="table-scroll">
            <table>
              <caption>{runs.data.results.length === 0 ? 'No sync has finished yet.' : 'Finished syncs, newest first'}</caption>
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Finished</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Result</th>
                  <th scope="col">Pages written</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {runs.data.results.map((r) => (
                  <tr key={r.id}>
                    <th scope="row">{atSecond(r.started_at)}</th>
                    <td>{atSecond(r.finished_at)}</td>
                    <td>{r.kind}</td>
                    <td>{r.result}</td>
                    <td>{r.pages_written}</td>
                    <td>{r.error ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <CursorPager label="Sync history pages" next={runs.data.next} previous={runs.data.previous} onCursor={setCursor} />
        </>
      )}
    </section>
  );
}
