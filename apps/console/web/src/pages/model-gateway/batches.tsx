import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap, type GatewaySchemas } from '../../api/api';
import { ErrorText } from '../../components/error-text';
import { useSession } from '../../components/use-session';

type Batch = GatewaySchemas['OrganizationBatch'];
const STATUSES = ['validating', 'in_progress', 'finalizing', 'completed', 'failed', 'cancelling', 'cancelled', 'expired'] as const;
const PAGE_SIZE = 20;

/** Unix seconds as the console shows times (UTC). */
export function formatUnix(seconds: number | null | undefined): string {
  return seconds === null || seconds === undefined ? '—' : `${new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export interface BatchesSearch {
  status?: (typeof STATUSES)[number];
  key_hash?: string;
}

/** The filters live in the address (/batches?status=failed), so a view can be shared. */
export function validateBatchesSearch(search: Record<string, unknown>): BatchesSearch {
  const out: BatchesSearch = {};
  const status = STATUSES.find((s) => s === search.status);
  if (status) out.status = status;
  if (typeof search.key_hash === 'string' && /^[0-9a-f]{64}$/.test(search.key_hash)) out.key_hash = search.key_hash;
  return out;
}

/**
 * /batches: GET /v1/organization/batches, every gateway key's and customer's batches of the session's
 * environment, newest first, paged by the API's last_id; filtered by status (and by key from a key's row).
 * OpenAI's /v1/batches stays each key's own: this view only reads.
 */
export function BatchesPage() {
  const search = useSearch({ strict: false }) as BatchesSearch;
  return <BatchList key={JSON.stringify(search)} search={search} />;
}

function BatchList({ search }: { search: BatchesSearch }) {
  const session = useSession();
  const navigate = useNavigate();
  // The last_id of each page before this one, to go back.
  const [afters, setAfters] = useState<string[]>([]);
  const after = afters.at(-1);
  const batches = useQuery({
    queryKey: ['organization-batches', session?.environment, search, after],
    queryFn: () => unwrap(api.GET('/v1/organization/batches', { params: { query: { ...search, after, limit: PAGE_SIZE } } })),
  });
  return (
    <section>
      <h1>Batches</h1>
      <p className="muted">Every gateway key&apos;s and customer&apos;s batches in this environment. Keys create and cancel them through the OpenAI-compatible Batches API; times are UTC.</p>
      <form className="card" aria-label="Filter the batches" onSubmit={(event) => event.preventDefault()}>
        <div className="grid">
          <label>
            Status
            <select value={search.status ?? ''} onChange={(e) => void navigate({ to: '/batches', search: validateBatchesSearch({ ...search, status: e.target.value }) })}>
              <option value="">Any</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          {search.key_hash && (
            <p>
              Made by key <code>{search.key_hash.slice(0, 12)}…</code>{' '}
              <Link to="/batches" search={validateBatchesSearch({ status: search.status })}>
                Show every key&apos;s
              </Link>
            </p>
          )}
        </div>
      </form>
      <ErrorText error={batches.error} />
      {batches.data && (
        <>
          <div className="table-scroll">
            <table>
              <caption>Batches, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Created</th>
                  <th scope="col">Batch</th>
                  <th scope="col">Status</th>
                  <th scope="col">Requests (done / failed / total)</th>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Made by</th>
                </tr>
              </thead>
              <tbody>
                {batches.data.data.length === 0 && (
                  <tr>
                    <td colSpan={6}>No batches match.</td>
                  </tr>
                )}
                {batches.data.data.map((b) => (
                  <BatchRow key={b.id} batch={b} />
                ))}
              </tbody>
            </table>
          </div>
          <nav aria-label="Pages" className="row">
            <button type="button" className="secondary" disabled={afters.length === 0} onClick={() => setAfters(afters.slice(0, -1))}>
              Previous page
            </button>
            <button type="button" className="secondary" disabled={!batches.data.has_more || !batches.data.last_id} onClick={() => setAfters([...afters, batches.data.last_id!])}>
              Next page
            </button>
          </nav>
        </>
      )}
    </section>
  );
}

function BatchRow({ batch: b }: { batch: Batch }) {
  return (
    <tr>
      <td>{formatUnix(b.created_at)}</td>
      <th scope="row">
        <Link to="/batches/$id" params={{ id: b.id }}>
          <code>{b.id}</code>
        </Link>
      </th>
      <td>
        <span className={`badge status-${b.status}`}>{b.status}</span>
      </td>
      <td>
        {b.request_counts.completed} / {b.request_counts.failed} / {b.request_counts.total}
      </td>
      <td>
        <code>{b.endpoint}</code>
      </td>
      <td>
        <Link to="/batches" search={{ key_hash: b.key_hash }} title="This key's batches">
          key <code>{b.key_hash.slice(0, 12)}…</code>
        </Link>
        {b.customer_id && (
          <>
            {' '}
            for customer <code>{b.customer_id}</code>
          </>
        )}
      </td>
    </tr>
  );
}
