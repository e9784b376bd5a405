import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap, type RegistrySchemas } from '../../api/api';
import { ErrorText, formatTime } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';
import { useSession } from '../../components/use-session';
import { Pager } from '../members';

export const registeredUsersQueryKey = ['registered-users'] as const;

/**
 * /registered-users: the users of the environment the session's switch shows (production users, or
 * test users in the test environment), searched by origin_user_id (prefix) or name on the server.
 */
export function RegisteredUsersPage() {
  const session = useSession();
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const isTest = session?.environment === 'test';
  const users = useQuery({
    queryKey: [...registeredUsersQueryKey, session?.environment, { search, page }],
    queryFn: () => unwrap(api.GET('/api/v1/registered-users', { params: { query: { search: search || undefined, is_test: String(isTest), page: String(page), page_size: '20' } } })),
    enabled: session !== undefined,
  });
  return (
    <section>
      <h1>Registered users</h1>
      <p className="muted">Your users whose credentials Patchbay keeps, {isTest ? 'test users (the test environment)' : 'production users'}.</p>
      <CreateUserForm />
      <label className="inline">
        Search users
        <input type="search" value={search} placeholder="origin_user_id or name" onChange={(e) => { setSearch(e.target.value); setPage(1); }} />
      </label>
      <ErrorText error={users.error} />
      {users.data && (
        <>
          <div className="table-scroll">
            <table>
              <caption>{users.data.count} registered users</caption>
              <thead>
                <tr>
                  <th scope="col">origin_user_id</th>
                  <th scope="col">Name</th>
                  <th scope="col">Company</th>
                  <th scope="col">Type</th>
                  <th scope="col">Connected</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {users.data.results.map((u) => (
                  <tr key={u.id}>
                    <th scope="row">
                      <Link to="/registered-users/$id" params={{ id: u.id }}>{u.origin_user_id}</Link>
                    </th>
                    <td>{u.origin_user_name}</td>
                    <td>{u.shared_credential_group.origin_company_name}</td>
                    <td>{u.user_type}</td>
                    <td>{u.authenticated_connectors.join(', ') || '—'}</td>
                    <td>{formatTime(u.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} hasNext={users.data.next !== null} onPage={setPage} />
        </>
      )}
    </section>
  );
}

function CreateUserForm() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const create = useMutation({
    mutationFn: (body: RegistrySchemas['CreateRegisteredUserBody']) => unwrap(api.POST('/api/v1/registered-users', { body })),
    onSuccess: async (user) => {
      await queryClient.invalidateQueries({ queryKey: registeredUsersQueryKey });
      await navigate({ to: '/registered-users/$id', params: { id: user.id } });
    },
  });
  return (
    <form
      className="card"
      aria-label="Register a user"
      onSubmit={(event) => {
        event.preventDefault();
        const f = new FormData(event.currentTarget);
        create.mutate({
          origin_user_id: String(f.get('origin_user_id') ?? ''),
          origin_user_name: String(f.get('origin_user_name') ?? ''),
          user_type: String(f.get('user_type')) === 'SYSTEM' ? 'SYSTEM' : 'HUMAN',
          shared_credential_group: { origin_company_id: String(f.get('origin_company_id') ?? ''), origin_company_name: String(f.get('origin_company_name') ?? '') },
        });
      }}
    >
      <h2>Register a user</h2>
      <div className="grid fields">
        <label>
          origin_user_id
          <input name="origin_user_id" required maxLength={255} placeholder="your id of the user" />
        </label>
        <label>
          User name
          <input name="origin_user_name" required maxLength={255} />
        </label>
        <label>
          Company id
          <input name="origin_company_id" required placeholder="SHARED credentials are per company" />
        </label>
        <label>
          Company name
          <input name="origin_company_name" required />
        </label>
        <label>
          User type
          <select name="user_type" defaultValue="HUMAN">
            <option value="HUMAN">Human</option>
            <option value="SYSTEM">System</option>
          </select>
        </label>
      </div>
      <GuardedButton permission="manage_registered_users" type="submit" busy={create.isPending}>
        Register user
      </GuardedButton>
      <ErrorText error={create.error} />
    </form>
  );
}
