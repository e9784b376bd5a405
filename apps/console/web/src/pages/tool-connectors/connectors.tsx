import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap, type RegistrySchemas } from '../../api/api';
import { ApiError, apiErrorFrom } from '../../api/client';
import { ErrorText } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';
import { useSession } from '../../components/use-session';
import { Pager } from '../members';

export const connectorsQueryKey = ['connectors'] as const;

type Connector = RegistrySchemas['ConnectorRecord'];
type DiscoveryFailure = RegistrySchemas['DiscoveryFailure'];

/** What each handshake failure means for the person registering the server, and what to change. */
const FAILURE_HELP: Record<DiscoveryFailure, string> = {
  blocked_destination: 'Patchbay only calls public https:// URLs whose host resolves to public addresses. Use the server’s public address.',
  unreachable: 'The host did not resolve, or refused or dropped the connection. Check the URL and that the server is running and reachable from the internet.',
  tls: 'The TLS handshake failed (expired, self-signed or mismatched certificate, or not TLS at all). Fix the server’s certificate.',
  auth_refused: 'The server answered 401 or 403. Give a secret (bearer token) the server accepts.',
  not_mcp: 'Something answered, but not MCP JSON-RPC (an HTML page, a 404 or 405). Point the URL at the server’s Streamable HTTP endpoint, often ending in /mcp.',
  server_error: 'The server answered with an HTTP 5xx error. Check the server’s logs and try again.',
  mcp_error: 'The server speaks MCP but answered initialize or tools/list with an error or an unusable tool list.',
  timeout: 'The handshake did not finish in time. Check that the server answers promptly.',
};

/** A failed registration with what the API said beyond the message: the handshake's failure or the conflict. */
export class RegistrationError extends ApiError {
  constructor(
    base: ApiError,
    readonly failure: DiscoveryFailure | null,
    readonly conflicting: { field: 'slug' | 'url'; connector: { slug: string } } | null,
  ) {
    super(base.status, base.code, base.message, base.fieldErrors);
  }
}

function RegistrationErrorText({ error }: { error: Error | null }) {
  if (!(error instanceof RegistrationError)) return <ErrorText error={error} />;
  return (
    <div role="alert" className="error">
      <p>
        <strong>{error.status === 409 ? 'Already registered.' : error.failure ? `Handshake failed (${error.failure}).` : 'Not registered.'}</strong> {error.message}
      </p>
      {error.failure && <p>{FAILURE_HELP[error.failure]}</p>}
      {error.conflicting && (
        <p>
          The {error.conflicting.field === 'url' ? 'URL' : 'slug'} is already used by{' '}
          <Link to="/connectors/$slug" params={{ slug: error.conflicting.connector.slug }}>{error.conflicting.connector.slug}</Link> in this organization and environment: choose another {error.conflicting.field}, or delete that connector first.
        </p>
      )}
      {error.fieldErrors.length > 0 && (
        <ul>
          {error.fieldErrors.map((f) => (
            <li key={f.field + f.message}>
              {f.field}: {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** /connectors: the catalog (built-in and this organization's custom MCP servers), searched and paged by the server. */
export function ConnectorsPage() {
  const session = useSession();
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const connectors = useQuery({
    queryKey: [...connectorsQueryKey, session?.environment, { search, page }],
    queryFn: () => unwrap(api.GET('/api/v1/connectors', { params: { query: { search: search || undefined, page: String(page), page_size: '20' } } })),
  });
  return (
    <section>
      <h1>Connectors</h1>
      <p className="muted">The built-in catalog and the remote MCP servers registered in the {session?.environment} environment.</p>
      <RegisterConnectorForm />
      <label className="inline">
        Search connectors
        <input type="search" value={search} placeholder="name or slug" onChange={(e) => { setSearch(e.target.value); setPage(1); }} />
      </label>
      <ErrorText error={connectors.error} />
      {connectors.data && (
        <>
          <div className="table-scroll">
            <table>
              <caption>{connectors.data.count} connectors</caption>
              <thead>
                <tr>
                  <th scope="col">Connector</th>
                  <th scope="col">Source</th>
                  <th scope="col">Categories</th>
                  <th scope="col">Tools</th>
                </tr>
              </thead>
              <tbody>
                {connectors.data.results.map((c) => (
                  <ConnectorRow key={c.id} connector={c} />
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} hasNext={connectors.data.next !== null} onPage={setPage} />
        </>
      )}
    </section>
  );
}

function ConnectorRow({ connector: c }: { connector: Connector }) {
  return (
    <tr>
      <th scope="row">
        <Link to="/connectors/$slug" params={{ slug: c.slug }}>{c.name}</Link>
        <br />
        <code className="muted">{c.slug}</code>
      </th>
      <td>{c.source === 'custom_mcp' ? 'Custom MCP server' : 'Built-in'}</td>
      <td>{c.categories.join(', ') || '—'}</td>
      <td>{c.tools.length}</td>
    </tr>
  );
}

/** Registers a remote MCP server: Patchbay runs the handshake and keeps the connector only if it succeeds. */
function RegisterConnectorForm() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [registered, setRegistered] = useState<Connector | null>(null);
  const register = useMutation({
    mutationFn: async (body: RegistrySchemas['RegisterCustomConnectorBody']) => {
      const result = await api.POST('/api/v1/connectors', { body }).catch(() => {
        throw new ApiError(0, 'network_error', 'Patchbay could not be reached. Check your connection and try again.');
      });
      if (result.response.ok && result.data) return result.data;
      const raw = (result.error ?? {}) as { failure?: DiscoveryFailure; conflicting?: { field: 'slug' | 'url'; connector: { slug: string } } };
      throw new RegistrationError(apiErrorFrom(result.response.status, result.error), raw.failure ?? null, raw.conflicting ?? null);
    },
    onSuccess: async (connector) => {
      setRegistered(connector);
      await queryClient.invalidateQueries({ queryKey: connectorsQueryKey });
    },
  });
  return (
    <form
      className="card"
      aria-label="Register a remote MCP server"
      onSubmit={(event) => {
        event.preventDefault();
        const f = new FormData(event.currentTarget);
        const secret = String(f.get('secret') ?? '');
        const slug = String(f.get('slug') ?? '').trim();
        setRegistered(null);
        register.mutate({
          name: String(f.get('name') ?? ''),
          url: String(f.get('url') ?? ''),
          ...(slug ? { slug } : {}),
          description: String(f.get('description') ?? ''),
          auth: secret ? { type: 'secret', secret } : { type: 'none' },
        });
      }}
    >
      <h2>Register a remote MCP server</h2>
      <p className="muted">
        Patchbay connects to the server’s Streamable HTTP endpoint, runs initialize and tools/list, and keeps the connector only if that handshake succeeds.
      </p>
      <div className="grid fields">
        <label>
          Name
          <input name="name" required maxLength={255} />
        </label>
        <label>
          Server URL
          <input name="url" type="url" required placeholder="https://mcp.example.com/mcp" />
        </label>
        <label>
          Slug (optional)
          <input name="slug" pattern="[a-z0-9\-]{1,64}" placeholder="derived from the name" />
        </label>
        <label>
          Secret (optional, write-only)
          <input name="secret" type="password" autoComplete="off" placeholder="sent as Authorization: Bearer" />
        </label>
        <label>
          Description
          <input name="description" />
        </label>
      </div>
      <GuardedButton permission="manage_connectors" type="submit" busy={register.isPending}>
        {register.isPending ? 'Running the handshake…' : 'Register server'}
      </GuardedButton>
      <RegistrationErrorText error={register.error} />
      {registered && (
        <div className="secret" role="status" aria-label="Handshake result">
          <p>
            <strong>Handshake succeeded.</strong> {registered.name} (<code>{registered.slug}</code>) is registered with {registered.tools.length} tool{registered.tools.length === 1 ? '' : 's'}:
          </p>
          <ul>
            {registered.tools.map((t) => (
              <li key={t.name}>
                <code>{t.name}</code> {t.description && <span className="muted">— {t.description}</span>}
              </li>
            ))}
          </ul>
          <div className="row">
            <button type="button" onClick={() => void navigate({ to: '/connectors/$slug', params: { slug: registered.slug } })}>
              Open {registered.name}
            </button>
            <button type="button" className="secondary" onClick={() => setRegistered(null)}>
              Done
            </button>
          </div>
        </div>
      )}
    </form>
  );
}
