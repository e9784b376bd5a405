import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap } from '../../api/api';
import { ErrorText, formatTime } from '../../components/error-text';
import { useSession } from '../../components/use-session';

interface Filters {
  registered_user_id?: string;
  tool_pack_id?: string;
  tool_name?: string;
  connector_slug?: string;
  status?: string;
  created_after?: string;
  created_before?: string;
}

/** A datetime-local input's value (read as UTC, as the labels say) to ISO 8601. */
function isoOf(value: FormDataEntryValue | null): string | undefined {
  const text = String(value ?? '').trim();
  return text ? new Date(`${text}:00Z`).toISOString() : undefined;
}

const text = (value: FormDataEntryValue | null) => String(value ?? '').trim() || undefined;

const FILTER_NAMES = ['registered_user_id', 'tool_pack_id', 'tool_name', 'connector_slug', 'status', 'created_after', 'created_before'] as const;

/** The filters live in the address (/tool-call-records?status=error), so a view can be shared and the overview can link to one. */
export function validateToolCallRecordsSearch(search: Record<string, unknown>): Filters {
  const out: Filters = {};
  for (const name of FILTER_NAMES) {
    const value = search[name];
    if (typeof value === 'string' && value !== '') out[name] = value;
  }
  return out;
}

/** An ISO 8601 time as a datetime-local input's value (UTC, as the labels say). */
const localOf = (iso: string | undefined) => (iso ? iso.slice(0, 16) : undefined);

/**
 * /tool-call-records: GET /api/v1/tool-call-records with the API's filters, newest first, paged by the
 * API's cursors (never more than one page fetched). A record's payloads are on its own page.
 */
export function ToolCallRecordsPage() {
  const filters = useSearch({ strict: false }) as Filters;
  // A new set of filters (the form, a link, the back button) starts from the first page with the form showing them.
  return <ToolCallRecordsView key={JSON.stringify(filters)} filters={filters} />;
}

function ToolCallRecordsView({ filters }: { filters: Filters }) {
  const session = useSession();
  const navigate = useNavigate();
  // The cursors of the pages before this one, to go back; the API's own `previous` works too but this keeps the first page exact.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const records = useQuery({
    queryKey: ['tool-call-records', session?.environment, filters, cursor],
    queryFn: () => unwrap(api.GET('/api/v1/tool-call-records', { params: { query: { ...filters, cursor, page_size: '50' } } })),
  });
  return (
    <section>
      <h1>Tool-call records</h1>
      <form
        className="card"
        aria-label="Filter the tool-call records"
        onSubmit={(event) => {
          event.preventDefault();
          const f = new FormData(event.currentTarget);
          void navigate({
            to: '/tool-call-records',
            search: validateToolCallRecordsSearch({
              tool_pack_id: text(f.get('tool_pack_id')),
              registered_user_id: text(f.get('registered_user_id')),
              tool_name: text(f.get('tool_name')),
              connector_slug: text(f.get('connector_slug')),
              status: text(f.get('status')),
              created_after: isoOf(f.get('created_after')),
              created_before: isoOf(f.get('created_before')),
            }),
          });
          setCursors([]);
        }}
      >
        <div className="grid">
          <label>
            Tool name
            <input name="tool_name" defaultValue={filters.tool_name} placeholder="e.g. github__create_issue" />
          </label>
          <label>
            Connector
            <input name="connector_slug" defaultValue={filters.connector_slug} placeholder="e.g. github" />
          </label>
          <label>
            Status
            <select name="status" defaultValue={filters.status ?? ''}>
              <option value="">Any</option>
              <option value="success">success</option>
              <option value="error">error</option>
              <option value="blocked">blocked</option>
            </select>
          </label>
          <label>
            Tool pack id
            <input name="tool_pack_id" defaultValue={filters.tool_pack_id} />
          </label>
          <label>
            Registered user id
            <input name="registered_user_id" defaultValue={filters.registered_user_id} />
          </label>
          <label>
            From (UTC)
            <input name="created_after" type="datetime-local" defaultValue={localOf(filters.created_after)} />
          </label>
          <label>
            Until (UTC)
            <input name="created_before" type="datetime-local" defaultValue={localOf(filters.created_before)} />
          </label>
        </div>
        <div className="row">
          <button type="submit">Apply filters</button>
        </div>
      </form>
      <ErrorText error={records.error} />
      {records.data && (
        <>
          <div className="table-scroll">
            <table>
              <caption>Tool calls in {session?.environment}, newest first (kept 90 days; times in UTC)</caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Tool</th>
                  <th scope="col">Status</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Credits</th>
                  <th scope="col">Security rules</th>
                </tr>
              </thead>
              <tbody>
                {records.data.results.length === 0 && (
                  <tr>
                    <td colSpan={6}>No tool calls match.</td>
                  </tr>
                )}
                {records.data.results.map((r) => (
                  <tr key={r.id}>
                    <td>
                      <Link to="/tool-call-records/$id" params={{ id: r.id }}>
                        {formatTime(r.occurred_at)}
                      </Link>
                    </td>
                    <th scope="row">
                      <code>{r.tool_name}</code>
                    </th>
                    <td>
                      <span className={`badge status-${r.status}`}>{r.status}</span>
                      {r.error_code && <span className="muted"> {r.error_code}</span>}
                    </td>
                    <td>{r.duration_ms} ms</td>
                    <td>
                      {r.credits}
                      {r.overage ? ' (overage)' : ''}
                    </td>
                    <td>{r.detections.length === 0 ? '—' : r.detections.map((d) => `${d.rule_name} (${d.direction}, ${d.action})`).join(', ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav aria-label="Pages" className="row">
            <button type="button" className="secondary" disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
              Newer
            </button>
            <button type="button" className="secondary" disabled={!records.data.next} onClick={() => records.data.next && setCursors((c) => [...c, records.data.next as string])}>
              Older
            </button>
          </nav>
        </>
      )}
    </section>
  );
}
