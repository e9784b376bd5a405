import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type AccessKey } from '../api/api';
import { ErrorText, formatTime } from '../components/error-text';
import { GuardedButton } from '../components/guarded-button';
import { SecretOnce } from '../components/secret-once';
import { useSession } from '../components/use-session';
import { Pager } from './members';

const accessKeysQueryKey = ['access-keys'] as const;

const SORTS = [
  ['-created_at', 'Newest first'],
  ['created_at', 'Oldest first'],
  ['name', 'Name A–Z'],
  ['-name', 'Name Z–A'],
  ['expires_at', 'Expiring soonest'],
  ['-expires_at', 'Expiring latest'],
] as const;

function ids(value: FormDataEntryValue | null): string[] | null {
  const list = String(value ?? '')
    .split(/[\s,]+/)
    .filter(Boolean);
  return list.length > 0 ? list : null;
}

/**
 * /access-keys: the session's environment's keys, server-searched, -sorted and -paged; create (no scope
 * choice: runtime and management), regenerate, revoke. A secret is shown once, when made.
 */
export function AccessKeysPage() {
  const session = useSession();
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<string>('-created_at');
  const [page, setPage] = useState(1);
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const keys = useQuery({
    queryKey: [...accessKeysQueryKey, session?.environment, { search, sort, page }],
    queryFn: () => unwrap(api.GET('/api/v1/access-keys', { params: { query: { search: search || undefined, sort, page: String(page), page_size: '20' } } })),
  });
  return (
    <section>
      <h1>Access keys</h1>
      <p className="muted">
        Keys of the {session?.environment} environment. Keys made here get both scopes (runtime:all and management:all); restrictions and expiry cannot be edited later.
      </p>
      <CreateKeyForm onCreated={(key) => setSecret({ label: `Access key “${key.name ?? ''}”.`, value: key.key })} />
      {secret && <SecretOnce label={secret.label} value={secret.value} onDone={() => setSecret(null)} />}
      <div className="row">
        <label className="inline">
          Search keys
          <input type="search" value={search} placeholder="name or last 4 characters" onChange={(e) => { setSearch(e.target.value); setPage(1); }} />
        </label>
        <label className="inline">
          Sort
          <select value={sort} onChange={(e) => { setSort(e.target.value); setPage(1); }}>
            {SORTS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorText error={keys.error} />
      {keys.data && (
        <>
          <div className="table-scroll">
            <table>
              <caption>{keys.data.count} active keys</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Restrictions</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Created</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {keys.data.results.map((k) => (
                  <KeyRow key={k.id} accessKey={k} onSecret={setSecret} />
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} hasNext={keys.data.next !== null} onPage={setPage} />
        </>
      )}
    </section>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: (key: { name: string | null; key: string }) => void }) {
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (body: { name: string; tool_pack_ids: string[] | null; registered_user_ids: string[] | null; expires_at?: string | null; expires_in?: number }) =>
      unwrap(api.POST('/api/v1/access-keys', { body })),
    onSuccess: async (key) => {
      onCreated(key);
      await queryClient.invalidateQueries({ queryKey: accessKeysQueryKey });
    },
  });
  return (
    <form
      className="card"
      aria-label="Create an access key"
      onSubmit={(event) => {
        event.preventDefault();
        const f = new FormData(event.currentTarget);
        const expiry = String(f.get('expiry') ?? '90');
        const date = String(f.get('expires_on') ?? '');
        create.mutate({
          name: String(f.get('name') ?? ''),
          tool_pack_ids: ids(f.get('tool_pack_ids')),
          registered_user_ids: ids(f.get('registered_user_ids')),
          ...(expiry === 'never' ? { expires_at: null } : expiry === 'date' ? { expires_at: date ? new Date(`${date}T00:00:00Z`).toISOString() : '' } : { expires_in: Number(expiry) * 86_400 }),
        });
      }}
    >
      <h2>Create an access key</h2>
      <div className="grid">
        <label>
          Key name
          <input name="name" required maxLength={255} />
        </label>
        <label>
          Expires
          <select name="expiry" defaultValue="90">
            <option value="30">In 30 days</option>
            <option value="90">In 90 days</option>
            <option value="365">In a year</option>
            <option value="never">Never</option>
            <option value="date">On a date (below)</option>
          </select>
        </label>
        <label>
          Expiry date (UTC)
          <input name="expires_on" type="date" />
        </label>
        <label>
          Only these tool packs (ids, optional)
          <input name="tool_pack_ids" placeholder="all tool packs" />
        </label>
        <label>
          Only these registered users (ids, optional)
          <input name="registered_user_ids" placeholder="all registered users" />
        </label>
      </div>
      <ErrorText error={create.error} />
      <GuardedButton permission="manage_access_keys" type="submit" busy={create.isPending}>
        Create key
      </GuardedButton>
    </form>
  );
}

function restrictions(k: AccessKey): string {
  const parts = [];
  if (k.tool_pack_ids) parts.push(`${k.tool_pack_ids.length} tool pack${k.tool_pack_ids.length === 1 ? '' : 's'}`);
  if (k.registered_user_ids) parts.push(`${k.registered_user_ids.length} registered user${k.registered_user_ids.length === 1 ? '' : 's'}`);
  return parts.length > 0 ? parts.join(', ') : 'None';
}

function KeyRow({ accessKey: k, onSecret }: { accessKey: AccessKey; onSecret: (s: { label: string; value: string }) => void }) {
  const queryClient = useQueryClient();
  const [confirm, setConfirm] = useState(false);
  const name = k.is_master ? 'Master key' : (k.name ?? '');
  const refresh = () => queryClient.invalidateQueries({ queryKey: accessKeysQueryKey });
  const regenerate = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/access-keys/{key_id}/regenerate', { params: { path: { key_id: k.id } } })),
    onSuccess: async (key) => {
      onSecret({ label: `New secret of “${name}” (the old one no longer works).`, value: key.key });
      await refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/access-keys/{key_id}/revoke', { params: { path: { key_id: k.id } } })),
    onSuccess: refresh,
  });
  const regenerateReason = k.environment === 'test' ? 'Test keys cannot be regenerated; revoke and create one' : k.service_account ? 'Keys linked to a service account cannot be regenerated' : undefined;
  return (
    <tr>
      <th scope="row">
        {name}
        {k.is_master && <span className="badge">Master</span>}
      </th>
      <td>
        <code>{k.key_masked}</code>
      </td>
      <td>{k.scopes.join(', ')}</td>
      <td>{restrictions(k)}</td>
      <td>{k.expires_at ? formatTime(k.expires_at) : 'Never'}</td>
      <td>{formatTime(k.created_at)}</td>
      <td>
        <div className="row">
          <GuardedButton permission="manage_access_keys" className="secondary" disabledReason={regenerateReason} busy={regenerate.isPending} aria-label={`Regenerate ${name}`} onClick={() => regenerate.mutate()}>
            Regenerate
          </GuardedButton>
          {confirm ? (
            <>
              <button type="button" className="danger" aria-label={`Confirm revoking ${name}`} onClick={() => revoke.mutate()}>
                Confirm revoke
              </button>
              <button type="button" className="secondary" onClick={() => setConfirm(false)}>
                Cancel
              </button>
            </>
          ) : (
            <GuardedButton permission="manage_access_keys" className="danger" disabledReason={k.is_master ? 'The master key cannot be revoked; regenerate it instead' : undefined} aria-label={`Revoke ${name}`} onClick={() => setConfirm(true)}>
              Revoke
            </GuardedButton>
          )}
        </div>
        <ErrorText error={regenerate.error ?? revoke.error} />
      </td>
    </tr>
  );
}
