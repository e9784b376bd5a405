import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap, type RegistrySchemas } from '../../api/api';
import { ApiError, apiErrorFrom } from '../../api/client';
import { ErrorText, formatTime } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';
import { useSession } from '../../components/use-session';
import { connectorsQueryKey } from './connectors';

type Connector = RegistrySchemas['ConnectorRecord'];
type Tool = RegistrySchemas['ConnectorTool'];
type CredentialField = RegistrySchemas['CredentialField'];

/** A refused deletion: the tool packs that still include the connector. */
class DeletionConflict extends ApiError {
  constructor(
    base: ApiError,
    readonly dependents: Array<{ id: string; name: string }>,
  ) {
    super(base.status, base.code, base.message, base.fieldErrors);
  }
}

/**
 * /connectors/$slug: one connector with its tools (input and output schemas, annotations as the
 * server declared them) and the credential fields a user fills in; a custom MCP server can be
 * re-discovered or deleted. Two requests: the detail with tool details, and the runtime credential fields.
 */
export function ConnectorPage() {
  const { slug } = useParams({ strict: false }) as { slug: string };
  const session = useSession();
  const detail = useQuery({
    queryKey: [...connectorsQueryKey, session?.environment, 'detail', slug],
    queryFn: () => unwrap(api.GET('/api/v1/connectors/{slug}', { params: { path: { slug }, query: { include_tool_details: true } } })),
  });
  const fields = useQuery({
    queryKey: [...connectorsQueryKey, session?.environment, 'credential-fields', slug],
    queryFn: () => unwrap(api.GET('/api/v1/connectors/{slug}', { params: { path: { slug }, query: { auth_mode: 'runtime' } } })),
  });
  return (
    <section>
      <p>
        <Link to="/connectors">← Connectors</Link>
      </p>
      <ErrorText error={detail.error} />
      {detail.isPending && <p role="status">Loading…</p>}
      {detail.data && (
        <>
          <h1>{detail.data.name}</h1>
          <p>{detail.data.description}</p>
          <dl className="facts">
            <dt>Slug</dt>
            <dd>
              <code>{detail.data.slug}</code>
            </dd>
            <dt>Source</dt>
            <dd>{detail.data.source === 'custom_mcp' ? `Custom MCP server at ${detail.data.source_url}` : 'Built-in'}</dd>
            <dt>Categories</dt>
            <dd>{detail.data.categories.join(', ') || '—'}</dd>
            {detail.data.tools_refreshed_at && (
              <>
                <dt>Tools discovered</dt>
                <dd>{formatTime(detail.data.tools_refreshed_at)}</dd>
              </>
            )}
          </dl>
          {detail.data.source === 'custom_mcp' && <CustomConnectorActions connector={detail.data} />}
          <CredentialFields fields={fields.data?.credential_fields} authOptions={detail.data.auth_options} error={fields.error} />
          <h2>Tools ({detail.data.tools.length})</h2>
          {detail.data.tools.map((tool) => (
            <ToolDetail key={tool.name} tool={tool} />
          ))}
        </>
      )}
    </section>
  );
}

function CredentialFields({ fields, authOptions, error }: { fields: CredentialField[] | undefined; authOptions: Connector['auth_options']; error: Error | null }) {
  const types = (authOptions ?? []).map((o) => o.type);
  return (
    <section className="card" aria-labelledby="credential-fields">
      <h2 id="credential-fields">Credential fields</h2>
      <p className="muted">How a registered user authenticates: {types.length > 0 ? types.join(', ') : 'no authentication'}. Secret values are masked in the magic-link form and never shown again.</p>
      <ErrorText error={error} />
      {fields && fields.length === 0 && <p>No fields to fill in.</p>}
      {fields && fields.length > 0 && (
        <div className="table-scroll">
          <table>
            <caption className="sr-only">Credential fields</caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Type</th>
                <th scope="col">Required</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {fields.map((f) => (
                <tr key={f.name}>
                  <th scope="row">
                    {f.label} <code className="muted">{f.name}</code>
                  </th>
                  <td>{f.type}</td>
                  <td>{f.required ? 'Yes' : 'No'}</td>
                  <td>{f.description ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function ToolDetail({ tool }: { tool: Tool }) {
  const annotations = Object.entries(tool.annotations ?? {});
  return (
    <details className="card tool">
      <summary>
        <code>{tool.name}</code> <span className="muted">{tool.description}</span>
      </summary>
      {annotations.length > 0 && (
        <ul className="annotations" aria-label={`Annotations of ${tool.name}`}>
          {annotations.map(([name, value]) => (
            <li key={name}>
              <span className="badge">{name}</span> {JSON.stringify(value)}
            </li>
          ))}
        </ul>
      )}
      <h3>Input schema</h3>
      <pre className="schema">{JSON.stringify(tool.input_schema ?? {}, null, 2)}</pre>
      <h3>Output schema</h3>
      {tool.output_schema ? <pre className="schema">{JSON.stringify(tool.output_schema, null, 2)}</pre> : <p className="muted">None declared: results are free-form content.</p>}
    </details>
  );
}

function CustomConnectorActions({ connector }: { connector: Connector }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [confirm, setConfirm] = useState(false);
  const refresh = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/connectors/{slug}/refresh', { params: { path: { slug: connector.slug } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: connectorsQueryKey }),
  });
  const remove = useMutation({
    mutationFn: async () => {
      const result = await api.DELETE('/api/v1/connectors/{slug}', { params: { path: { slug: connector.slug } } }).catch(() => {
        throw new ApiError(0, 'network_error', 'Patchbay could not be reached. Check your connection and try again.');
      });
      if (result.response.ok) return;
      const raw = (result.error ?? {}) as { dependents?: Array<{ id: string; name: string }> };
      throw new DeletionConflict(apiErrorFrom(result.response.status, result.error), raw.dependents ?? []);
    },
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: connectorsQueryKey });
      await navigate({ to: '/connectors' });
    },
  });
  const changes = refresh.data?.changes;
  return (
    <div className="card">
      <div className="row">
        <GuardedButton permission="manage_connectors" className="secondary" busy={refresh.isPending} onClick={() => refresh.mutate()}>
          Re-discover tools
        </GuardedButton>
        {confirm ? (
          <>
            <button type="button" className="danger" onClick={() => remove.mutate()}>
              Confirm deletion
            </button>
            <button type="button" className="secondary" onClick={() => setConfirm(false)}>
              Cancel
            </button>
          </>
        ) : (
          <GuardedButton permission="manage_connectors" className="danger" onClick={() => setConfirm(true)}>
            Delete connector
          </GuardedButton>
        )}
      </div>
      {changes && (
        <p role="status">
          Added: {changes.added.join(', ') || 'none'}; removed: {changes.removed.join(', ') || 'none'}; changed: {changes.changed.map((c) => `${c.name} (${c.fields.join(', ')})`).join(', ') || 'none'}.
        </p>
      )}
      <ErrorText error={refresh.error} />
      {remove.error instanceof DeletionConflict && remove.error.dependents.length > 0 ? (
        <div role="alert" className="error">
          <p>{remove.error.message}</p>
          <p>Remove it from these tool packs first:</p>
          <ul>
            {remove.error.dependents.map((d) => (
              <li key={d.id}>
                <Link to="/tool-packs/$id" params={{ id: d.id }}>{d.name}</Link>
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <ErrorText error={remove.error} />
      )}
    </div>
  );
}
