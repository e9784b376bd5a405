import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap, type RegistrySchemas } from '../../api/api';
import { ErrorText, formatTime } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';
import { useSession } from '../../components/use-session';
import { Pager } from '../members';

const credentialsQueryKey = ['application-credentials'] as const;

type ApplicationCredential = RegistrySchemas['ApplicationCredentialRecord'];

const scopesOf = (value: FormDataEntryValue | null): string[] =>
  String(value ?? '')
    .split(/[\s,]+/)
    .filter(Boolean);

/**
 * /application-credentials: the organization's OAuth apps per connector (client id, external_id for
 * one app per customer tenant, scopes). The client secret is write-only: the API says only whether one
 * is set, and the page never shows it back.
 */
export function ApplicationCredentialsPage() {
  const session = useSession();
  const [connector, setConnector] = useState('');
  const [page, setPage] = useState(1);
  const credentials = useQuery({
    queryKey: [...credentialsQueryKey, session?.environment, { connector, page }],
    queryFn: () => unwrap(api.GET('/api/v1/application-credentials', { params: { query: { slug: connector.trim() || undefined, page: String(page), page_size: '20' } } })),
  });
  return (
    <section>
      <h1>Application credentials</h1>
      <p className="muted">OAuth apps Patchbay uses when your users connect OAuth connectors in the {session?.environment} environment. Client secrets are stored encrypted and never shown again.</p>
      <CreateCredentialForm />
      <label className="inline">
        Connector slug
        <input type="search" value={connector} placeholder="all connectors" onChange={(e) => { setConnector(e.target.value); setPage(1); }} />
      </label>
      <ErrorText error={credentials.error} />
      {credentials.data && (
        <>
          <div className="table-scroll">
            <table>
              <caption>{credentials.data.count} application credentials</caption>
              <thead>
                <tr>
                  <th scope="col">Connector</th>
                  <th scope="col">Client id</th>
                  <th scope="col">External id</th>
                  <th scope="col">Client secret</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Updated</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {credentials.data.results.map((c) => (
                  <CredentialRow key={c.id} credential={c} />
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} hasNext={credentials.data.next !== null} onPage={setPage} />
        </>
      )}
    </section>
  );
}

function CreateCredentialForm() {
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (body: RegistrySchemas['CreateApplicationCredentialBody']) => unwrap(api.POST('/api/v1/application-credentials', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: credentialsQueryKey }),
  });
  return (
    <form
      className="card"
      aria-label="Add an application credential"
      onSubmit={(event) => {
        event.preventDefault();
        const form = event.currentTarget;
        const f = new FormData(form);
        const externalId = String(f.get('external_id') ?? '').trim();
        const secret = String(f.get('client_secret') ?? '');
        create.mutate(
          { connector: String(f.get('connector') ?? '').trim(), client_id: String(f.get('client_id') ?? ''), client_secret: secret || null, external_id: externalId || null, scopes: scopesOf(f.get('scopes')) },
          { onSuccess: () => form.reset() },
        );
      }}
    >
      <h2>Add an application credential</h2>
      <div className="grid fields">
        <label>
          Connector slug
          <input name="connector" required placeholder="github" />
        </label>
        <label>
          Client id
          <input name="client_id" required autoComplete="off" />
        </label>
        <label>
          Client secret (write-only)
          <input name="client_secret" type="password" autoComplete="new-password" />
        </label>
        <label>
          External id (optional)
          <input name="external_id" placeholder="one app per customer tenant" />
        </label>
        <label>
          Scopes (optional)
          <input name="scopes" placeholder="the connector’s defaults" />
        </label>
      </div>
      <GuardedButton permission="manage_connectors" type="submit" busy={create.isPending}>
        Add credential
      </GuardedButton>
      <ErrorText error={create.error} />
      {create.isSuccess && <p role="status">Saved. The client secret is stored and will not be shown again.</p>}
    </form>
  );
}

function CredentialRow({ credential: c }: { credential: ApplicationCredential }) {
  const queryClient = useQueryClient();
  const [confirm, setConfirm] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: credentialsQueryKey });
  const update = useMutation({
    mutationFn: (body: RegistrySchemas['UpdateApplicationCredentialBody']) => unwrap(api.PATCH('/api/v1/application-credentials/{id}', { params: { path: { id: c.id } }, body })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/application-credentials/{id}', { params: { path: { id: c.id } } })),
    onSuccess: refresh,
  });
  const label = `${c.connector} ${c.external_id ?? c.client_id}`;
  return (
    <tr>
      <th scope="row">
        <Link to="/connectors/$slug" params={{ slug: c.connector }}>{c.connector}</Link>
      </th>
      <td>
        <code>{c.client_id}</code>
      </td>
      <td>{c.external_id ?? '—'}</td>
      <td>{c.has_client_secret ? 'Set (hidden)' : 'Not set'}</td>
      <td>{c.scopes.join(' ') || 'Defaults'}</td>
      <td>{formatTime(c.updated_at)}</td>
      <td>
        <details className="roles-editor">
          <summary aria-label={`Edit ${label}`}>Edit</summary>
          <form
            aria-label={`Edit application credential ${label}`}
            onSubmit={(event) => {
              event.preventDefault();
              const f = new FormData(event.currentTarget);
              const secret = String(f.get('client_secret') ?? '');
              const externalId = String(f.get('external_id') ?? '').trim();
              update.mutate({
                client_id: String(f.get('client_id') ?? ''),
                external_id: externalId || null,
                scopes: scopesOf(f.get('scopes')),
                ...(f.get('clear_secret') ? { client_secret: null } : secret ? { client_secret: secret } : {}),
              });
            }}
          >
            <label>
              Client id
              <input name="client_id" defaultValue={c.client_id} required autoComplete="off" />
            </label>
            <label>
              External id
              <input name="external_id" defaultValue={c.external_id ?? ''} />
            </label>
            <label>
              New client secret
              <input name="client_secret" type="password" autoComplete="new-password" placeholder={c.has_client_secret ? 'leave empty to keep the stored one' : 'not set'} />
            </label>
            <label className="check">
              <input type="checkbox" name="clear_secret" /> Remove the stored secret
            </label>
            <label>
              Scopes
              <input name="scopes" defaultValue={c.scopes.join(' ')} />
            </label>
            <GuardedButton permission="manage_connectors" type="submit" busy={update.isPending}>
              Save
            </GuardedButton>
          </form>
        </details>
        {confirm ? (
          <div className="row">
            <button type="button" className="danger" aria-label={`Confirm delete of ${label}`} onClick={() => remove.mutate()}>
              Confirm delete
            </button>
            <button type="button" className="secondary" onClick={() => setConfirm(false)}>
              Cancel
            </button>
          </div>
        ) : (
          <GuardedButton permission="manage_connectors" className="danger" aria-label={`Delete ${label}`} onClick={() => setConfirm(true)}>
            Delete
          </GuardedButton>
        )}
        {confirm && <p className="muted">Users’ credentials obtained through this app are deleted too.</p>}
        <ErrorText error={update.error ?? remove.error} />
      </td>
    </tr>
  );
}
