import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap, type RegistrySchemas } from '../../api/api';
import { ErrorText, formatTime } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';
import { SecretOnce } from '../../components/secret-once';
import { useSession } from '../../components/use-session';
import { Pager } from '../members';
import { ConnectionStatusBadge, connectionsQueryKey } from './connections';
import { registeredUsersQueryKey } from './registered-users';

type Connection = RegistrySchemas['ConnectionRecord'];

/**
 * /registered-users/$id: one user, its own connections (ACTIVE or ERROR, with the reason), a link token
 * whose magic link the user opens to connect a connector (shown once, with a copy button), and
 * deleting a stored credential or the whole user.
 */
export function RegisteredUserPage() {
  const { id } = useParams({ strict: false }) as { id: string };
  const session = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [confirm, setConfirm] = useState(false);
  const user = useQuery({
    queryKey: [...registeredUsersQueryKey, session?.environment, 'detail', id],
    queryFn: () => unwrap(api.GET('/api/v1/registered-users/{registered_user_id}', { params: { path: { registered_user_id: id } } })),
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/registered-users/{registered_user_id}', { params: { path: { registered_user_id: id } } })),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: registeredUsersQueryKey });
      await navigate({ to: '/registered-users' });
    },
  });
  return (
    <section>
      <p>
        <Link to="/registered-users">← Registered users</Link>
      </p>
      <ErrorText error={user.error} />
      {user.isPending && <p role="status">Loading…</p>}
      {user.data && (
        <>
          <h1>{user.data.origin_user_name}</h1>
          <dl className="facts">
            <dt>origin_user_id</dt>
            <dd>
              <code>{user.data.origin_user_id}</code>
            </dd>
            <dt>Patchbay id</dt>
            <dd>
              <code>{user.data.id}</code>
            </dd>
            <dt>Company</dt>
            <dd>
              {user.data.shared_credential_group.origin_company_name} <code className="muted">{user.data.shared_credential_group.origin_company_id}</code>
            </dd>
            <dt>Type</dt>
            <dd>{user.data.user_type}</dd>
            <dt>Environment</dt>
            <dd>{user.data.is_test ? 'Test' : 'Production'}</dd>
            <dt>Usable connectors</dt>
            <dd>{user.data.authenticated_connectors.join(', ') || 'None yet'}</dd>
          </dl>
          <LinkTokenForm userId={id} />
          <UserConnections userId={id} />
          <div className="row">
            {confirm ? (
              <>
                <button type="button" className="danger" onClick={() => remove.mutate()}>
                  Confirm: delete this user and its credentials
                </button>
                <button type="button" className="secondary" onClick={() => setConfirm(false)}>
                  Cancel
                </button>
              </>
            ) : (
              <GuardedButton permission="manage_registered_users" className="danger" onClick={() => setConfirm(true)}>
                Delete user
              </GuardedButton>
            )}
          </div>
          {confirm && <p className="muted">Deletes its credentials, link tokens, profile and tool-call records, irreversibly. Shared and organization credentials stay.</p>}
          <ErrorText error={remove.error} />
        </>
      )}
    </section>
  );
}

function LinkTokenForm({ userId }: { userId: string }) {
  const [link, setLink] = useState<RegistrySchemas['LinkTokenRecord'] | null>(null);
  const create = useMutation({
    mutationFn: (body: RegistrySchemas['LinkTokenInput']) => unwrap(api.POST('/api/v1/registered-users/{registered_user_id}/link-token', { params: { path: { registered_user_id: userId } }, body })),
    onSuccess: setLink,
  });
  return (
    <form
      className="card"
      aria-label="Create a link token"
      onSubmit={(event) => {
        event.preventDefault();
        const f = new FormData(event.currentTarget);
        const callback = String(f.get('callback_url') ?? '').trim();
        setLink(null);
        create.mutate({ connector: String(f.get('connector') ?? '').trim(), auth_scope: String(f.get('auth_scope') ?? 'INDIVIDUAL') as 'INDIVIDUAL', callback_url: callback || null });
      }}
    >
      <h2>Connect a connector</h2>
      <p className="muted">Creates a single-use magic link the user opens in a browser to enter their credentials or sign in with OAuth.</p>
      <div className="grid fields">
        <label>
          Connector slug
          <input name="connector" required placeholder="github" />
        </label>
        <label>
          Whose credential
          <select name="auth_scope" defaultValue="INDIVIDUAL">
            <option value="INDIVIDUAL">The user’s own (INDIVIDUAL)</option>
            <option value="SHARED">The user’s company (SHARED)</option>
            <option value="ORGANIZATION">The organization’s (ORGANIZATION)</option>
          </select>
        </label>
        <label>
          Callback URL (optional)
          <input name="callback_url" type="url" placeholder="an allowed callback origin" />
        </label>
      </div>
      <GuardedButton permission="manage_registered_users" type="submit" busy={create.isPending}>
        Create link token
      </GuardedButton>
      <ErrorText error={create.error} />
      {link && <SecretOnce label={`Magic link for ${link.connector} (single use, valid until ${formatTime(link.expires_at)}).`} value={link.magic_link_url} onDone={() => setLink(null)} />}
    </form>
  );
}

function UserConnections({ userId }: { userId: string }) {
  const session = useSession();
  const [page, setPage] = useState(1);
  const connections = useQuery({
    queryKey: [...connectionsQueryKey, session?.environment, 'user', userId, page],
    queryFn: () => unwrap(api.GET('/api/v1/connections', { params: { query: { registered_user_id: userId, page: String(page), page_size: '20' } } })),
  });
  return (
    <section aria-labelledby="user-connections">
      <h2 id="user-connections">Connections</h2>
      <ErrorText error={connections.error} />
      {connections.data && (
        <>
          <div className="table-scroll">
            <table>
              <caption>{connections.data.count} stored credentials of this user</caption>
              <thead>
                <tr>
                  <th scope="col">Connector</th>
                  <th scope="col">Status</th>
                  <th scope="col">Type</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last refreshed</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {connections.data.results.map((c) => (
                  <ConnectionRow key={c.id} userId={userId} connection={c} />
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} hasNext={connections.data.next !== null} onPage={setPage} />
        </>
      )}
    </section>
  );
}

function ConnectionRow({ userId, connection: c }: { userId: string; connection: Connection }) {
  const queryClient = useQueryClient();
  const [confirm, setConfirm] = useState(false);
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/credentials/registered-users/{registered_user_id}/connectors/{connector_slug}', { params: { path: { registered_user_id: userId, connector_slug: c.connector } } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: connectionsQueryKey });
      await queryClient.invalidateQueries({ queryKey: registeredUsersQueryKey });
    },
  });
  return (
    <tr>
      <th scope="row">
        <Link to="/connectors/$slug" params={{ slug: c.connector }}>{c.connector}</Link>
      </th>
      <td>
        <ConnectionStatusBadge connection={c} />
      </td>
      <td>{c.auth_type}</td>
      <td>{formatTime(c.created_at)}</td>
      <td>{formatTime(c.last_refreshed_at)}</td>
      <td>
        {confirm ? (
          <div className="row">
            <button type="button" className="danger" aria-label={`Confirm delete of the ${c.connector} credential`} onClick={() => remove.mutate()}>
              Confirm delete
            </button>
            <button type="button" className="secondary" onClick={() => setConfirm(false)}>
              Cancel
            </button>
          </div>
        ) : (
          <GuardedButton permission="manage_registered_users" className="danger" aria-label={`Delete credential of ${c.connector}`} onClick={() => setConfirm(true)}>
            Delete credential
          </GuardedButton>
        )}
        <ErrorText error={remove.error} />
      </td>
    </tr>
  );
}
