import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { api, unwrap, type GatewaySchemas } from '../../api/api';
import { ErrorText } from '../../components/error-text';
import { useSession } from '../../components/use-session';
import { formatUnix } from './batches';

type Preview = GatewaySchemas['OrganizationBatchDetail']['output_preview'];

/**
 * /batches/$id: GET /v1/organization/batches/{batch_id}: the batch's status, counts and timeline, and the
 * first lines of its output and error files (the whole files stay with the key that made the batch).
 */
export function BatchPage() {
  const { id } = useParams({ strict: false }) as { id: string };
  const session = useSession();
  const batch = useQuery({ queryKey: ['organization-batches', session?.environment, 'detail', id], queryFn: () => unwrap(api.GET('/v1/organization/batches/{batch_id}', { params: { path: { batch_id: id } } })) });
  const b = batch.data;
  return (
    <section>
      <p>
        <Link to="/batches">All batches</Link>
      </p>
      <h1>
        Batch <code>{id}</code>
      </h1>
      <ErrorText error={batch.error} />
      {b && (
        <>
          <dl className="card">
            <dt>Status</dt>
            <dd>
              <span className={`badge status-${b.status}`}>{b.status}</span>
            </dd>
            <dt>Requests</dt>
            <dd>
              {b.request_counts.completed} answered, {b.request_counts.failed} failed, of {b.request_counts.total}
            </dd>
            <dt>Endpoint</dt>
            <dd>
              <code>{b.endpoint}</code> within {b.completion_window}
            </dd>
            <dt>Made by</dt>
            <dd>
              key <code>{b.key_hash.slice(0, 12)}…</code>
              {b.customer_id ? ` for customer ${b.customer_id}` : ''}
            </dd>
            {b.model && (
              <>
                <dt>Model</dt>
                <dd>
                  <code>{b.model}</code>
                </dd>
              </>
            )}
            <dt>Created</dt>
            <dd>{formatUnix(b.created_at)}</dd>
            <dt>Finished</dt>
            <dd>{formatUnix(b.completed_at ?? b.failed_at ?? b.cancelled_at ?? b.expired_at)}</dd>
            <dt>Expires</dt>
            <dd>{formatUnix(b.expires_at)}</dd>
          </dl>
          <FilePreview title="Output" preview={b.output_preview} />
          <FilePreview title="Errors" preview={b.error_preview} />
        </>
      )}
    </section>
  );
}

function FilePreview({ title, preview }: { title: string; preview: Preview }) {
  return (
    <section aria-label={`${title} file`}>
      <h2>{title}</h2>
      {preview === null ? (
        <p className="muted">No {title.toLowerCase()} file yet.</p>
      ) : (
        <>
          <p className="muted">
            File <code>{preview.file_id}</code>: {preview.lines.length === 0 ? 'empty.' : `${preview.lines.length === 1 ? 'its first line' : `the first ${preview.lines.length} lines`}${preview.truncated ? ' (the file holds more)' : ''}.`}
          </p>
          {preview.lines.length > 0 && <pre className="scroll" tabIndex={0} aria-label={`The first lines of the ${title.toLowerCase()} file`}>{preview.lines.map((line) => JSON.stringify(line)).join('\n')}</pre>}
        </>
      )}
    </section>
  );
}
