import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/api';
import { apiBasePath } from '../config';
import { ErrorText, formatTime } from '../components/error-text';
import { useHolds, useSession } from '../components/use-session';
import { Pager } from './members';

interface Filters {
  created_after?: string;
  created_before?: string;
  event_type?: string;
  user_id?: string;
}

/** A date-time-local input's value (read as UTC, as the page says) to ISO 8601. */
function isoOf(value: FormDataEntryValue | null): string | undefined {
  const text = String(value ?? '');
  return text ? new Date(`${text}:00Z`).toISOString() : undefined;
}

/** /audit-log: the environment's audit log, newest first, with the spec's filters and a CSV export of them. */
export function AuditLogPage() {
  const session = useSession();
  const [filters, setFilters] = useState<Filters>({});
  const [page, setPage] = useState(1);
  const events = useQuery({
    queryKey: ['audit-log', session?.environment, filters, page],
    queryFn: () => unwrap(api.GET('/api/v1/audit-log', { params: { query: { ...filters, page: String(page), page_size: '50' } } })),
  });
  // Members named by their name and email (for whoever may see members; the id otherwise).
  const canSeeMembers = useHolds('view_members');
  const members = useQuery({
    queryKey: ['members', 'for-audit-log'],
    enabled: canSeeMembers,
    queryFn: async () => (await unwrap(api.GET('/api/v1/members', { params: { query: { page_size: '100' } } }))).results,
  });
  const memberName = (id: string) => {
    const m = members.data?.find((x) => x.id === id);
    return m ? `${m.name || m.email} <${m.email}>` : null;
  };
  const exportUrl = new URL('api/v1/audit-log/export', new URL(apiBasePath, window.location.origin));
  for (const [name, value] of Object.entries(filters)) if (value) exportUrl.searchParams.set(name, value);
  return (
    <section>
      <h1>Audit log</h1>
      <form
        className="card"
        aria-label="Filter the audit log"
        onSubmit={(event) => {
          event.preventDefault();
          const f = new FormData(event.currentTarget);
          setFilters({
            created_after: isoOf(f.get('created_after')),
            created_before: isoOf(f.get('created_before')),
            event_type: String(f.get('event_type') ?? '').trim() || undefined,
            user_id: String(f.get('user_id') ?? '').trim() || undefined,
          });
          setPage(1);
        }}
      >
        <div className="grid">
          <label>
            From (UTC)
            <input name="created_after" type="datetime-local" />
          </label>
          <label>
            Until (UTC)
            <input name="created_before" type="datetime-local" />
          </label>
          <label>
            Event type
            <input name="event_type" placeholder="e.g. access_key.revoked" />
          </label>
          <label>
            Registered user id
            <input name="user_id" />
          </label>
        </div>
        <div className="row">
          <button type="submit">Apply filters</button>
          <a className="button secondary" href={exportUrl.href} download>
            Export CSV
          </a>
        </div>
      </form>
      <ErrorText error={events.error} />
      {events.data && (
        <>
          <div className="table-scroll">
            <table>
              <caption>
                {events.data.count} events in {session?.environment}, newest first (last 90 days unless “From” says otherwise)
              </caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Event</th>
                  <th scope="col">Actor</th>
                  <th scope="col">Resource</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {events.data.results.map((e) => (
                  <tr key={e.id}>
                    <td>{formatTime(e.created_at)}</td>
                    <th scope="row">{e.event_type}</th>
                    <td>
                      {e.actor_type}
                      {e.actor_member_id && (
                        <>
                          {' '}
                          <span className="actor">{memberName(e.actor_member_id)}</span> <code className="muted" title="member id">{e.actor_member_id}</code>
                        </>
                      )}
                      {e.actor_key_id && (
                        <>
                          {' '}
                          <code className="muted" title="key id">{e.actor_key_id}</code>
                        </>
                      )}
                    </td>
                    <td>
                      {e.resource_type} {e.resource_id && <code className="muted">{e.resource_id}</code>}
                    </td>
                    <td>
                      <code className="details">{JSON.stringify(e.details)}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} hasNext={events.data.next !== null} onPage={setPage} />
        </>
      )}
    </section>
  );
}
