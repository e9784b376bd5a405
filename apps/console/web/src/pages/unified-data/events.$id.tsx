import { useQuery } from '@tanstack/react-query';
import { Link, useParams, useSearch } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap, type UnifiedSchemas } from '../../api/api';
import { CursorPager } from '../../components/cursor-pager';
import { ErrorText, formatTime } from '../../components/error-text';

/** The platform's original payloads behind a record, as stored (`remote_data`). */
function RemoteData({ data, label }: { data: UnifiedSchemas['RemoteDataView'][] | null | undefined; label: string }) {
  if (!data || data.length === 0) return <p className="muted">No remote data stored for {label}.</p>;
  return (
    <div role="region" aria-label={`Remote data of ${label}`}>
      {data.map((d, i) => (
        <div key={`${d.path}-${i}`}>
          <p>
            From <code>{d.path}</code>
          </p>
          <pre className="card">
            <code className="details">{JSON.stringify(d.data, null, 2)}</code>
          </pre>
        </div>
      ))}
    </div>
  );
}

/**
 * /events/$id: one event of a linked account, the contacts taking part in it (paged by the API's
 * cursors), and, on demand, the original data the platform sent for the event or its contacts
 * (include_remote_data), which the lists do not carry by default.
 */
export function EventPage() {
  const { id } = useParams({ strict: false }) as { id: string };
  const { linked_account_id: accountId } = useSearch({ strict: false }) as { linked_account_id?: string };
  const [showRemote, setShowRemote] = useState(false);
  const [contactsRemote, setContactsRemote] = useState(false);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const event = useQuery({
    queryKey: ['linked-accounts', 'one', accountId, 'event', id, showRemote],
    enabled: accountId !== undefined,
    queryFn: () =>
      unwrap(api.GET('/api/mktg/v1/events/{id}', { params: { path: { id }, query: { linked_account_id: accountId, ...(showRemote ? { include_remote_data: 'true' } : {}) } } })),
    placeholderData: (previous) => previous,
  });
  const contacts = useQuery({
    queryKey: ['linked-accounts', 'one', accountId, 'event', id, 'contacts', contactsRemote, cursor],
    enabled: accountId !== undefined,
    queryFn: () =>
      unwrap(
        api.GET('/api/mktg/v1/events/{parent_id}/contacts', {
          params: { path: { parent_id: id }, query: { linked_account_id: accountId, page_size: '25', ...(contactsRemote ? { include_remote_data: 'true' } : {}), ...(cursor ? { cursor } : {}) } },
        }),
      ),
  });
  const e = event.data;
  if (!accountId) {
    return (
      <section>
        <h1>Event</h1>
        <p>
          Open an event from the <Link to="/events">events</Link> of a linked account.
        </p>
      </section>
    );
  }
  return (
    <section>
      <h1>{e ? `Event ${e.name ?? e.remote_id}` : 'Event'}</h1>
      <p>
        <Link to="/events" search={{ linked_account_id: accountId }}>
          All events of this linked account
        </Link>
      </p>
      <ErrorText error={event.error} />
      {e && (
        <>
          <dl className="card">
            <dt>Remote id</dt>
            <dd>
              <code>{e.remote_id}</code>
            </dd>
            <dt>Description</dt>
            <dd>{e.description ?? '—'}</dd>
            <dt>Starts, ends</dt>
            <dd>
              {formatTime(e.start_time)} – {formatTime(e.end_time)}
            </dd>
            <dt>Created on the platform</dt>
            <dd>{formatTime(e.remote_created_at)}</dd>
            <dt>Stored, changed by a sync</dt>
            <dd>
              {formatTime(e.created_at)}, {formatTime(e.modified_at)}
            </dd>
            <dt>Deleted on the platform</dt>
            <dd>{e.remote_was_deleted ? 'Yes' : 'No'}</dd>
            <dt>Field mappings</dt>
            <dd>
              <code className="details">{JSON.stringify(e.field_mappings ?? {})}</code>
            </dd>
          </dl>
          <div className="row">
            <button type="button" className="secondary" aria-pressed={showRemote} onClick={() => setShowRemote(!showRemote)}>
              {showRemote ? 'Hide remote data' : 'Show remote data'}
            </button>
          </div>
          {showRemote && !event.isPlaceholderData && <RemoteData data={e.remote_data} label="this event" />}
        </>
      )}
      <h2>Contacts</h2>
      <div className="row">
        <button type="button" className="secondary" aria-pressed={contactsRemote} onClick={() => {
            // A cursor is bound to the flags it was made with: the list starts over.
            setContactsRemote(!contactsRemote);
            setCursor(undefined);
          }}>
          {contactsRemote ? "Hide the contacts' remote data" : "Show the contacts' remote data"}
        </button>
      </div>
      <ErrorText error={contacts.error} />
      {contacts.data && (
        <>
          <div className="scroll">
            <table>
              <caption>{contacts.data.results.length === 0 ? 'No contacts for this event.' : 'Contacts taking part in the event'}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Phone</th>
                  <th scope="col">Country</th>
                  <th scope="col">Remote id</th>
                  <th scope="col">Updated on the platform</th>
                </tr>
              </thead>
              <tbody>
                {contacts.data.results.map((c) => {
                  const name = [c.first_name, c.last_name].filter(Boolean).join(' ') || c.remote_id;
                  return (
                    <tr key={c.id}>
                      <th scope="row">
                        {name}
                        {contactsRemote && (
                          <details>
                            <summary>Remote data</summary>
                            <RemoteData data={c.remote_data} label={name} />
                          </details>
                        )}
                      </th>
                      <td>{c.email ?? '—'}</td>
                      <td>{c.phone ?? '—'}</td>
                      <td>{c.country ?? '—'}</td>
                      <td>
                        <code>{c.remote_id}</code>
                      </td>
                      <td>{formatTime(c.remote_updated_at)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <CursorPager label="Contact pages" next={contacts.data.next} previous={contacts.data.previous} onCursor={setCursor} />
        </>
      )}
    </section>
  );
}
