import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { api, unwrap } from '../../api/api';
import { ErrorText, formatTime } from '../../components/error-text';

const MARKER = /\[REDACTED:[A-Za-z0-9_]+\]/g;

/** A stored payload as indented JSON, its redaction markers highlighted (marked up as text: nothing in it is HTML). */
function Payload({ label, value }: { label: string; value: unknown }) {
  if (value === null || value === undefined) return <p className="muted">Not kept (the tool never ran, or the record predates payloads).</p>;
  const json = JSON.stringify(value, null, 2);
  const parts: Array<{ text: string; marker: boolean }> = [];
  let last = 0;
  for (const match of json.matchAll(MARKER)) {
    parts.push({ text: json.slice(last, match.index), marker: false }, { text: match[0], marker: true });
    last = (match.index ?? 0) + match[0].length;
  }
  parts.push({ text: json.slice(last), marker: false });
  const markers = parts.filter((p) => p.marker).length;
  return (
    <>
      {markers > 0 && <p>{markers} value{markers === 1 ? '' : 's'} redacted by security rules.</p>}
      <pre tabIndex={0} aria-label={label} className="payload">
        {parts.map((p, i) => (p.marker ? <mark key={i}>{p.text}</mark> : p.text))}
      </pre>
    </>
  );
}

/** /tool-call-records/$id: GET /api/v1/tool-call-records/{record_id}, with the arguments and result as stored (after security scanning). */
export function ToolCallRecordPage() {
  const { id } = useParams({ strict: false }) as { id: string };
  const record = useQuery({ queryKey: ['tool-call-records', 'one', id], queryFn: () => unwrap(api.GET('/api/v1/tool-call-records/{record_id}', { params: { path: { record_id: id } } })) });
  const r = record.data;
  return (
    <section>
      <p>
        <Link to="/tool-call-records">All tool-call records</Link>
      </p>
      <h1>
        Tool call {r ? <code>{r.tool_name}</code> : null}
      </h1>
      <ErrorText error={record.error} />
      {r && (
        <>
          <dl className="card facts">
            <dt>Time</dt>
            <dd>{formatTime(r.occurred_at)}</dd>
            <dt>Status</dt>
            <dd>
              <span className={`badge status-${r.status}`}>{r.status}</span>
              {r.error_code ? ` ${r.error_code}` : ''}
            </dd>
            <dt>Duration</dt>
            <dd>{r.duration_ms} ms</dd>
            <dt>Credits</dt>
            <dd>
              {r.credits} in cycle {r.billing_cycle}
              {r.overage ? ' (overage)' : ''}
            </dd>
            <dt>Tool pack</dt>
            <dd>
              <Link to="/tool-packs/$id" params={{ id: r.tool_pack_id }}>
                <code>{r.tool_pack_id}</code>
              </Link>
            </dd>
            <dt>Registered user</dt>
            <dd>
              <Link to="/registered-users/$id" params={{ id: r.registered_user_id }}>
                <code>{r.registered_user_id}</code>
              </Link>
            </dd>
            <dt>Access key</dt>
            <dd>
              <code>{r.access_key_id}</code>
            </dd>
          </dl>
          <section className="card" aria-labelledby="detections-heading">
            <h2 id="detections-heading">Security rules that fired</h2>
            {r.detections.length === 0 ? (
              <p>None.</p>
            ) : (
              <div className="table-scroll">
                <table>
                  <caption>Detections (the matched values are never kept)</caption>
                  <thead>
                    <tr>
                      <th scope="col">Rule</th>
                      <th scope="col">Kind</th>
                      <th scope="col">Direction</th>
                      <th scope="col">Action</th>
                      <th scope="col">Where</th>
                      <th scope="col">Matches</th>
                    </tr>
                  </thead>
                  <tbody>
                    {r.detections.map((d, i) => (
                      <tr key={i}>
                        <th scope="row">{d.rule_name}</th>
                        <td>{d.kind}</td>
                        <td>{d.direction}</td>
                        <td>{d.action}</td>
                        <td>
                          <code>{d.path}</code>
                        </td>
                        <td>{d.count}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
          <div className="columns">
            <section className="card" aria-labelledby="arguments-heading">
              <h2 id="arguments-heading">Arguments</h2>
              <p className="muted">As the tool received them, after the inbound rules.</p>
              <Payload label="Arguments as stored" value={r.arguments} />
            </section>
            <section className="card" aria-labelledby="result-heading">
              <h2 id="result-heading">Result</h2>
              <p className="muted">As the agent received it, after the outbound rules.</p>
              <Payload label="Result as stored" value={r.result} />
            </section>
          </div>
        </>
      )}
    </section>
  );
}
