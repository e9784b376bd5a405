import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap } from '../../api/api';
import { ErrorText, formatTime } from '../../components/error-text';
import { useHolds, useSession } from '../../components/use-session';
import { usePermissionLabel } from '../../components/use-permissions';
import { Pager } from '../members';

export const toolPacksQueryKey = ['tool-packs'] as const;

/** /tool-packs: the environment's tool packs, searched by name and paged by the server; each opens in the editor. */
export function ToolPacksPage() {
  const session = useSession();
  const canManage = useHolds('manage_tool_packs');
  const permission = usePermissionLabel('manage_tool_packs');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const packs = useQuery({
    queryKey: [...toolPacksQueryKey, session?.environment, { search, page }],
    queryFn: () => unwrap(api.GET('/api/v1/tool-packs', { params: { query: { search: search || undefined, page: String(page), page_size: '20' } } })),
  });
  return (
    <section>
      <h1>Tool packs</h1>
      <p className="muted">Which connectors, tools and credential scope an agent gets in the {session?.environment} environment.</p>
      <p>
        {canManage ? (
          <Link to="/tool-packs/$id" params={{ id: 'new' }} className="button">
            New tool pack
          </Link>
        ) : (
          <span className="muted">Creating tool packs needs the permission {permission}.</span>
        )}
      </p>
      <label className="inline">
        Search tool packs
        <input type="search" value={search} placeholder="name" onChange={(e) => { setSearch(e.target.value); setPage(1); }} />
      </label>
      <ErrorText error={packs.error} />
      {packs.data && (
        <>
          <div className="table-scroll">
            <table>
              <caption>{packs.data.count} tool packs</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Connectors</th>
                  <th scope="col">Tools</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {packs.data.results.map((p) => (
                  <tr key={p.id}>
                    <th scope="row">
                      <Link to="/tool-packs/$id" params={{ id: p.id }}>{p.name}</Link>
                      {p.description && (
                        <>
                          <br />
                          <span className="muted">{p.description}</span>
                        </>
                      )}
                    </th>
                    <td>{p.connectors.map((c) => `${c.name} (${c.auth_scope})`).join(', ') || '—'}</td>
                    <td>{p.connectors.reduce((n, c) => n + c.tools.length, 0)}</td>
                    <td>{formatTime(p.updated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} hasNext={packs.data.next !== null} onPage={setPage} />
        </>
      )}
    </section>
  );
}
