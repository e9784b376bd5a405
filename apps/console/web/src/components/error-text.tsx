import type { ApiError } from '../api/client';

/** A failed call's message as the server said it, with the field errors it listed. */
export function ErrorText({ error }: { error: Error | null | undefined }) {
  if (!error) return null;
  const fields = (error as Partial<ApiError>).fieldErrors ?? [];
  return (
    <div role="alert" className="error">
      <p>{error.message}</p>
      {fields.length > 0 && (
        <ul>
          {fields.map((f) => (
            <li key={f.field + f.message}>
              {f.field}: {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Times with their zone (UTC), as the services send them. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}
