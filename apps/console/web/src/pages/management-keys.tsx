import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type ManagementKey } from '../api/api';
import { ErrorText, formatTime } from '../components/error-text';
import { GuardedButton } from '../components/guarded-button';
import { SecretOnce } from '../components/secret-once';
import { usePermissionCatalog } from '../components/use-permissions';
import { useSession } from '../components/use-session';

const managementKeysQueryKey = ['management-keys'] as const;

/**
 * /management-keys: the model gateway's management keys. A new key carries the permissions the member
 * holds now, listed before it is made, and keeps them if the member's roles change later.
 */
export function ManagementKeysPage() {
  const session = useSession();
  const catalog = usePermissionCatalog() ?? [];
  const queryClient = useQueryClient();
  const [secret, setSecret] = useState<string | null>(null);
  const keys = useQuery({ queryKey: managementKeysQueryKey, queryFn: async () => (await unwrap(api.GET('/api/v1/management-keys'))).results });
  const create = useMutation({
    mutationFn: (name: string) => unwrap(api.POST('/api/v1/management-keys', { body: { name } })),
    onSuccess: async (key) => {
      setSecret(key.key);
      await queryClient.invalidateQueries({ queryKey: managementKeysQueryKey });
    },
  });
  const mine = session?.permissions ?? [];
  return (
    <section>
      <h1>Management keys</h1>
      <p className="muted">Keys for the model gateway's management API (prefix mgmt_). They belong to the organization, not to an environment.</p>
      <form
        className="card"
        aria-label="Create a management key"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate(String(new FormData(event.currentTarget).get('name') ?? ''));
        }}
      >
        <h2>Create a management key</h2>
        <label>
          Key name
          <input name="name" required maxLength={255} />
        </label>
        <details>
          <summary>It will carry your {mine.length} permissions as its scopes</summary>
          <ul aria-label="Permissions the new key will carry" className="columns">
            {mine.map((p) => (
              <li key={p}>
                {catalog.find((c) => c.codename === p)?.display_name ?? p} <code className="muted">{p}</code>
              </li>
            ))}
          </ul>
          <p className="muted">A key keeps these scopes when your roles change; make a new key to change them.</p>
        </details>
        <ErrorText error={create.error} />
        <GuardedButton permission="manage_access_keys" type="submit" busy={create.isPending}>
          Create management key
        </GuardedButton>
      </form>
      {secret && <SecretOnce label="Management key." value={secret} onDone={() => setSecret(null)} />}
      <ErrorText error={keys.error} />
      {keys.data && (
        <div className="table-scroll">
          <table>
            <caption>{keys.data.length} management keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Status</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((k) => (
                <ManagementKeyRow key={k.id} managementKey={k} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function ManagementKeyRow({ managementKey: k }: { managementKey: ManagementKey }) {
  const queryClient = useQueryClient();
  const [confirm, setConfirm] = useState(false);
  const revoke = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/management-keys/{management_key_id}/revoke', { params: { path: { management_key_id: k.id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: managementKeysQueryKey }),
  });
  const name = k.name ?? '(unnamed)';
  return (
    <tr>
      <th scope="row">{name}</th>
      <td>
        <code>{k.key_masked}</code>
      </td>
      <td>
        <details>
          <summary>{k.scopes.length} scopes</summary>
          <ul aria-label={`Scopes of ${name}`} className="scopes">
            {k.scopes.map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ul>
        </details>
      </td>
      <td>{formatTime(k.created_at)}</td>
      <td>{k.revoked_at ? `Revoked ${formatTime(k.revoked_at)}` : 'Active'}</td>
      <td>
        {!k.revoked_at &&
          (confirm ? (
            <div className="row">
              <button type="button" className="danger" aria-label={`Confirm revoking ${name}`} onClick={() => revoke.mutate()}>
                Confirm revoke
              </button>
              <button type="button" className="secondary" onClick={() => setConfirm(false)}>
                Cancel
              </button>
            </div>
          ) : (
            <GuardedButton permission="manage_access_keys" className="danger" aria-label={`Revoke ${name}`} onClick={() => setConfirm(true)}>
              Revoke
            </GuardedButton>
          ))}
        <ErrorText error={revoke.error} />
      </td>
    </tr>
  );
}
