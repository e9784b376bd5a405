import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap } from '../../api/api';
import { CursorPager } from '../../components/cursor-pager';
import { ErrorText, formatTime } from '../../components/error-text';
import { LinkedAccountPicker } from './linked-account-picker';

/** The events list's filters, as GET /api/mktg/v1/events takes them (dates ISO 8601, UTC). */
interface EventFilters {
  created_after?: string;
  created_before?: string;
  modified_after?: string;
  modified_before?: string;
  remote_id?: string;
  include_deleted_data?: string;
  include_shell_data?: string;
  page_size?: string;
}

const DATE_FILTERS = [
  ['created_after', 'Stored after'],
  ['created_before', 'Stored before'],
  ['modified_after', 'Changed by a sync after'],
  ['modified_before', 'Changed by a sync before'],
] as const;

/** A datetime-local value read as UTC (the page says so), as the API wants it. */
const utc = (value: FormDataEntryValue | null): string | undefined => (value ? `${String(value)}:00Z` : undefined);

/**
 * /events: the synced events of one linked account with the API's filters, paged by the API's own
 * cursors (every filter stays fixed while paging; changing one starts from the first page). A row opens
 * the event with its contacts and, on demand, the platform's original data.
 */
export function EventsPage() {
  const search = useSearch({ strict: false }) as { linked_account_id?: string };
  const navigate = useNavigate();
  const accountId = search.linked_account_id;
  const [filters, setFilters] = useState<EventFilters>({});
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const events = useQuery({
    queryKey: ['linked-accounts', 'one', accountId, 'events', filters, cursor],
    enabled: accountId !== undefined,
    queryFn: () => unwrap(api.GET('/api/mktg/v1/events', { params: { query: { linked_account_id: accountId, page_size: '25', ...filters, ...(cursor ? { cursor } : {}) } } })),
  });
  return (
    <section>
      <h1>Events</h1>
      <p className="muted">Marketing events synced from a linked account, in the order they were first stored. Times are UTC.</p>
      <LinkedAccountPicker
        value={accountId}
        onChange={(id) => {
          setCursor(undefined);
          void navigate({ to: '/events', search: { linked_account_id: id } });
        }}
      />
      {accountId && (
        <form
          className="card"
          aria-label="Filter events"
          onSubmit={(event) => {
            event.preventDefault();
            const f = new FormData(event.currentTarget);
            const next: EventFilters = {};
            for (const [name] of DATE_FILTERS) {
              const value = utc(f.get(name));
              if (value) next[name] = value;
            }
            const remoteId = String(f.get('remote_id') ?? '').trim();
            if (remoteId) next.remote_id = remoteId;
            if (f.get('include_deleted_data')) next.include_deleted_data = 'true';
            if (f.get('include_shell_data')) next.include_shell_data = 'true';
            setFilters(next);
            setCursor(undefined);
          }}
        >
          <h2>Filters</h2>
          <div className="grid">
            {DATE_FILTERS.map(([name, label]) => (
              <label key={name}>
                {label} (UTC)
                <input name={name} type="datetime-local" />
              </label>
            ))}
            <label>
              Remote id
              <input name="remote_id" placeholder="the platform's id" />
            </label>
          </div>
          <div className="row">
            <label className="check">
              <input type="checkbox" name="include_deleted_data" /> Include events deleted on the platform
            </label>
            <label className="check">
              <input type="checkbox" name="include_shell_data" /> Include shell records
            </label>
          </div>
          <div className="row">
            <button type="submit">Apply filters</button>
          </div>
        </form>
      )}
      <ErrorText error={events.error} />
      {accountId && events.data && (
        <>
          <div className="scroll">
            <table>
              <caption>{events.data.results.length === 0 ? 'No events match.' : 'Events'}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Remote id</th>
                  <th scope="col">Starts</th>
                  <th scope="col">Ends</th>
                  <th scope="col">Stored</th>
                  <th scope="col">Changed by a sync</th>
                  <th scope="col">Deleted on the platform</th>
                </tr>
              </thead>
              <tbody>
                {events.data.results.map((e) => (
                  <tr key={e.id}>
                    <th scope="row">
                      <Link to="/events/$id" params={{ id: e.id }} search={{ linked_account_id: accountId }}>
                        {e.name ?? e.remote_id}
                      </Link>
                    </th>
                    <td>
                      <code>{e.remote_id}</code>
                    </td>
                    <td>{formatTime(e.start_time)}</td>
                    <td>{formatTime(e.end_time)}</td>
                    <td>{formatTime(e.created_at)}</td>
                    <td>{formatTime(e.modified_at)}</td>
                    <td>{e.remote_was_deleted ? 'Yes' : 'No'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <CursorPager next={events.data.next} previous={events.data.previous} onCursor={setCursor} />
        </>
      )}
    </section>
  );
}
