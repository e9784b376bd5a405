import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { api, unwrap, type RegistrySchemas } from '../../api/api';
import { ApiError } from '../../api/client';
import { ErrorText } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';
import { useSession } from '../../components/use-session';
import { connectorsQueryKey } from './connectors';
import { toolPacksQueryKey } from './tool-packs';

type AuthScope = RegistrySchemas['AuthScope'];
type ToolPack = RegistrySchemas['ToolPackRecord'];

const AUTH_SCOPES: ReadonlyArray<[AuthScope, string]> = [
  ['INDIVIDUAL', 'Individual: each registered user’s own credential'],
  ['SHARED', 'Shared: one credential per company'],
  ['ORGANIZATION', 'Organization: one credential for everyone'],
];

/** One connector of the pack being edited. */
interface Entry {
  connectorId: string;
  slug: string;
  name: string;
  authScope: AuthScope;
  /** Every tool, including tools the connector gains later (the API's empty tool_names). */
  allTools: boolean;
  toolNames: string[];
}

function entriesOf(pack: ToolPack): Entry[] {
  return pack.connectors.map((c) => ({ connectorId: c.connector_id, slug: c.slug, name: c.name, authScope: c.auth_scope, allTools: c.tool_names.length === 0, toolNames: c.tool_names }));
}

/**
 * /tool-packs/$id (and /tool-packs/new): the tool-pack editor. Pick connectors from the catalog (searched
 * by the server), the auth scope of each, and all of its tools or some; saved as one PATCH (or POST),
 * which replaces the pack's connector list whole. Save needs manage_tool_packs; the service enforces it.
 */
export function ToolPackEditorPage() {
  const { id } = useParams({ strict: false }) as { id: string };
  const isNew = id === 'new';
  const session = useSession();
  const pack = useQuery({
    queryKey: [...toolPacksQueryKey, session?.environment, 'detail', id],
    queryFn: () => unwrap(api.GET('/api/v1/tool-packs/{id}', { params: { path: { id } } })),
    enabled: !isNew,
  });
  if (!isNew && pack.error) return <ErrorText error={pack.error} />;
  if (!isNew && !pack.data) return <p role="status">Loading…</p>;
  return <Editor key={pack.data?.id ?? 'new'} pack={isNew ? null : (pack.data ?? null)} />;
}

function Editor({ pack }: { pack: ToolPack | null }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState(pack?.name ?? '');
  const [description, setDescription] = useState(pack?.description ?? '');
  const [entries, setEntries] = useState<Entry[]>(pack ? entriesOf(pack) : []);
  const [problem, setProblem] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const save = useMutation({
    mutationFn: async () => {
      const body = {
        name,
        description,
        connectors: entries.map((e) => ({ connector_id: e.connectorId, auth_scope: e.authScope, tool_names: e.allTools ? [] : e.toolNames })),
      };
      return pack ? unwrap(api.PATCH('/api/v1/tool-packs/{id}', { params: { path: { id: pack.id } }, body })) : unwrap(api.POST('/api/v1/tool-packs', { body }));
    },
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: toolPacksQueryKey });
      if (!pack) await navigate({ to: '/tool-packs/$id', params: { id: saved.id } });
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/tool-packs/{id}', { params: { path: { id: pack!.id } } })),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: toolPacksQueryKey });
      await navigate({ to: '/tool-packs' });
    },
  });
  const change = (connectorId: string, patch: Partial<Entry>) => setEntries((list) => list.map((e) => (e.connectorId === connectorId ? { ...e, ...patch } : e)));
  return (
    <section>
      <p>
        <Link to="/tool-packs">← Tool packs</Link>
      </p>
      <h1>{pack ? `Tool pack ${pack.name}` : 'New tool pack'}</h1>
      <form
        aria-label="Tool pack editor"
        onSubmit={(event) => {
          event.preventDefault();
          const empty = entries.find((e) => !e.allTools && e.toolNames.length === 0);
          if (empty) {
            setProblem(`Pick at least one tool of ${empty.name}, or choose “All tools”, or remove the connector.`);
            return;
          }
          setProblem(null);
          save.mutate();
        }}
      >
        <div className="card grid fields">
          <label>
            Name
            <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={255} />
          </label>
          <label>
            Description
            <input value={description} onChange={(e) => setDescription(e.target.value)} />
          </label>
        </div>
        <h2>Connectors ({entries.length})</h2>
        {entries.length === 0 && <p className="muted">No connectors yet: add some from the catalog below.</p>}
        {entries.map((entry) => (
          <EntryEditor key={entry.connectorId} entry={entry} onChange={(patch) => change(entry.connectorId, patch)} onRemove={() => setEntries((list) => list.filter((e) => e.connectorId !== entry.connectorId))} />
        ))}
        <ConnectorPicker chosen={entries.map((e) => e.connectorId)} onAdd={(c) => setEntries((list) => [...list, { connectorId: c.id, slug: c.slug, name: c.name, authScope: 'INDIVIDUAL', allTools: true, toolNames: [] }])} />
        {problem && (
          <p role="alert" className="error">
            {problem}
          </p>
        )}
        <ErrorText error={save.error} />
        {save.isSuccess && pack && <p role="status">Saved.</p>}
        <div className="row">
          <GuardedButton permission="manage_tool_packs" type="submit" busy={save.isPending}>
            {pack ? 'Save tool pack' : 'Create tool pack'}
          </GuardedButton>
          {pack &&
            (confirmDelete ? (
              <>
                <button type="button" className="danger" onClick={() => remove.mutate()}>
                  Confirm deletion
                </button>
                <button type="button" className="secondary" onClick={() => setConfirmDelete(false)}>
                  Cancel
                </button>
              </>
            ) : (
              <GuardedButton permission="manage_tool_packs" className="danger" onClick={() => setConfirmDelete(true)}>
                Delete tool pack
              </GuardedButton>
            ))}
        </div>
        <ErrorText error={remove.error} />
      </form>
    </section>
  );
}

/** One connector of the pack: its auth scope and its tools (the connector's full list, from the catalog). */
function EntryEditor({ entry, onChange, onRemove }: { entry: Entry; onChange: (patch: Partial<Entry>) => void; onRemove: () => void }) {
  const session = useSession();
  const connector = useQuery({
    queryKey: [...connectorsQueryKey, session?.environment, 'summary', entry.slug],
    queryFn: () => unwrap(api.GET('/api/v1/connectors/{slug}', { params: { path: { slug: entry.slug } } })),
    staleTime: 60_000,
  });
  const tools = connector.data?.tools ?? [];
  // A selection naming tools the connector no longer has would be refused on save: drop them.
  useEffect(() => {
    if (!connector.data || entry.allTools) return;
    const known = entry.toolNames.filter((n) => connector.data.tools.some((t) => t.name === n));
    if (known.length !== entry.toolNames.length) onChange({ toolNames: known });
  }, [connector.data, entry.allTools, entry.toolNames, onChange]);
  return (
    <fieldset className="card">
      <legend>
        {entry.name} <code className="muted">{entry.slug}</code>
      </legend>
      <div className="row">
        <label>
          Auth scope of {entry.name}
          <select value={entry.authScope} onChange={(e) => onChange({ authScope: e.target.value as AuthScope })}>
            {AUTH_SCOPES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={entry.allTools} onChange={(e) => onChange({ allTools: e.target.checked, toolNames: e.target.checked ? [] : tools.map((t) => t.name) })} />
          All tools of {entry.name} (including tools it gains later)
        </label>
        <button type="button" className="secondary" onClick={onRemove}>
          Remove {entry.name}
        </button>
      </div>
      <ErrorText error={connector.error instanceof ApiError ? connector.error : null} />
      {!entry.allTools && (
        <div className="checks" role="group" aria-label={`Tools of ${entry.name}`}>
          {tools.map((t) => (
            <label key={t.name} className="check" title={t.description}>
              <input
                type="checkbox"
                checked={entry.toolNames.includes(t.name)}
                onChange={(e) => onChange({ toolNames: e.target.checked ? [...entry.toolNames, t.name] : entry.toolNames.filter((n) => n !== t.name) })}
              />
              {t.name}
            </label>
          ))}
        </div>
      )}
    </fieldset>
  );
}

/** Adds connectors from the catalog, searched by the server (ten at a time). */
function ConnectorPicker({ chosen, onAdd }: { chosen: string[]; onAdd: (c: RegistrySchemas['ConnectorRecord']) => void }) {
  const session = useSession();
  const [search, setSearch] = useState('');
  const found = useQuery({
    queryKey: [...connectorsQueryKey, session?.environment, { search, page: 1, pageSize: 10 }],
    queryFn: () => unwrap(api.GET('/api/v1/connectors', { params: { query: { search: search || undefined, page_size: '10' } } })),
  });
  return (
    <section className="card" aria-labelledby="add-connectors">
      <h2 id="add-connectors">Add connectors</h2>
      <label className="inline">
        Search the catalog
        <input type="search" value={search} placeholder="name or slug" onChange={(e) => setSearch(e.target.value)} />
      </label>
      <ErrorText error={found.error} />
      <ul className="picker">
        {found.data?.results.map((c) => (
          <li key={c.id}>
            <button type="button" className="secondary" disabled={chosen.includes(c.id)} onClick={() => onAdd(c)} aria-label={`Add ${c.name}`}>
              Add
            </button>{' '}
            {c.name} <code className="muted">{c.slug}</code> <span className="muted">{c.tools.length} tools</span>
          </li>
        ))}
      </ul>
      {found.data && found.data.count > found.data.results.length && <p className="muted">{found.data.count - found.data.results.length} more: narrow the search.</p>}
    </section>
  );
}
