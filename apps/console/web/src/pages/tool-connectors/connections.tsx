import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { api, unwrap, type RegistrySchemas } from '../../api/api';
import { ErrorText, formatTime } from '../../components/error-text';
import { useSession } from '../../components/use-session';
import { Pager } from '../members';

export const connectionsQueryKey = ['connections'] as const;

/** The spec's filters of GET /api/v1/connections, kept in the page's URL (the overview links to ?status=ERROR). */
export interface ConnectionsSearch {
  auth_scope?: string;
  company?: string;
  connector?: string;
  status?: string;
  created_at_after?: string;
  created_at_before?: string;
  page?: number;
}

const FILTERS = ['auth_scope', 'company', 'connector', 'status', 'created_at_after', 'created_at_before'] as const;

export function validateConnectionsSearch(search: Record<string, unknown>): ConnectionsSearch {
  const out: ConnectionsSearch = {};
  for (const name of FILTERS) {
    const value = search[name];
    if (typeof value === 'string' && value !== '') out[name] = value;
  }
  const page = Number(search.page);
  if (Number.isInteger(page) && page > 1) out.page = page;
  return out;
}

export function ConnectionStatusBadge({ connection: c }: { connection: RegistrySchemas['ConnectionRecord'] }) {
  return (
    <>
      <span className={c.status === 'ERROR' ? 'status error-status' : 'status ok-status'}>{c.status}</span>
      {c.status_reason && <span className="muted"> {c.status_reason}</span>}
    </>
  );
}

/** A date input's day as the API's inclusive bound at midnight UTC (the page says days are UTC). */
const dayOf = (value: string | undefined) => (value ? value.slice(0, 10) : '');

/**
 * /connections: stored credentials of the environment with the spec's filters (auth scope, company,
 * connector, status, creation range), newest first, paged by the server; never a credential value.
 */
export function ConnectionsPage() {
  const session = useSession();
  const search = useSearch({ strict: false }) as ConnectionsSearch;
  const navigate = useNavigate();
  const page = search.page ?? 1;
  const setFilter = (patch: Partial<ConnectionsSearch>) => void navigate({ to: '/connections', search: { ...search, ...patch, page: undefined } as never, replace: true });
  const connections = useQuery({
    queryKey: [...connectionsQueryKey, session?.environment, search],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/connections', {
          params: {
            query: {
              auth_scope: search.auth_scope,
              company: search.company,
              connector: search.connector,
              status: search.status,
              created_at_after: search.created_at_after,
              created_at_before: search.created_at_before ? `${search.created_at_before.slice(0, 10)}T23:59:59.999Z` : undefined,
              page: String(page),
              page_size: '20',
            },
          },
        }),
      ),
  });
  return (
    <section>
      <h1>Connections</h1>
      <p className="muted">Stored credentials of the {session?.environment} environment, newest first. Dates are UTC days.</p>
      <form className="card filters" aria-label="Filter connections" onSubmit={(e) => e.preventDefault()}>
        <div className="grid fields">
          <label>
            Status
            <select value={search.status ?? ''} onChange={(e) => setFilter({ status: e.target.value || undefined })}>
              <option value="">Active and error</option>
              <option value="ACTIVE">ACTIVE</option>
              <option value="ERROR">ERROR</option>
            </select>
          </label>
          <label>
            Auth scope
            <select value={search.auth_scope ?? ''} onChange={(e) => setFilter({ auth_scope: e.target.value || undefined })}>
              <option value="">Any</option>
              <option value="INDIVIDUAL">INDIVIDUAL</option>
              <option value="SHARED">SHARED</option>
              <option value="ORGANIZATION">ORGANIZATION</option>
            </select>
          </label>
          <label>
            Connector slug
            <input type="search" value={search.connector ?? ''} onChange={(e) => setFilter({ connector: e.target.value || undefined })} />
          </label>
          <label>
            Company id (shared)
            <input type="search" value={search.company ?? ''} onChange={(e) => setFilter({ company: e.target.value || undefined })} />
          </label>
          <label>
            Created from (UTC)
            <input type="date" value={dayOf(search.created_at_after)} onChange={(e) => setFilter({ created_at_after: e.target.value || undefined })} />
          </label>
          <label>
            Created through (UTC)
            <input type="date" value={dayOf(search.created_at_before)} onChange={(e) => setFilter({ created_at_before: e.target.value || undefined })} />
          </label>
        </div>
      </form>
      <ErrorText error={connections.error} />
      {connections.data && (
        <>
          <div className="table-scroll">
            <table>
              <caption>{connections.data.count} connections</caption>
              <thead>
                <tr>
                  <th scope="col">Connector</th>
                  <th scope="col">Status</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Belongs to</th>
                  <th scope="col">Type</th>
                  <th scope="col">Created</th>
                  <th scope="col">Token expires</th>
                </tr>
              </thead>
              <tbody>
                {connections.data.results.map((c) => (
                  <tr key={c.id}>
                    <th scope="row">
                      <Link to="/connectors/$slug" params={{ slug: c.connector }}>{c.connector}</Link>
                    </th>
                    <td>
                      <ConnectionStatusBadge connection={c} />
                    </td>
                    <td>{c.auth_scope}</td>
                    <td>
                      {c.registered_user_id ? (
                        <Link to="/registered-users/$id" params={{ id: c.registered_user_id }}>User {c.registered_user_id.slice(0, 8)}</Link>
                      ) : c.company_id ? (
                        `Company ${c.company_id}`
                      ) : (
                        'The organization'
                      )}
                    </td>
                    <td>{c.auth_type}</td>
                    <td>{formatTime(c.created_at)}</td>
                    <td>{formatTime(c.access_token_expires_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} hasNext={connections.data.next !== null} onPage={(p) => void navigate({ to: '/connections', search: { ...search, page: p > 1 ? p : undefined } as never })} />
        </>
      )}
    </section>
  );
}
