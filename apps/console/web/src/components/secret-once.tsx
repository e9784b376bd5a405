import { useId, useState } from 'react';

/**
 * A secret (a key, an invitation link) shown once, with a copy button: the API never returns it again,
 * and the console keeps it only in this component's memory until the member closes it.
 */
export function SecretOnce({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const id = useId();
  return (
    <div className="secret" role="region" aria-labelledby={id}>
      <p id={id}>
        <strong>{label}</strong> It is shown only now: copy it and keep it somewhere safe.
      </p>
      <code className="secret-value">{value}</code>
      <div className="row">
        <button
          type="button"
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(value);
              setCopied('yes');
            } catch {
              setCopied('failed');
            }
          }}
        >
          Copy
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Done
        </button>
        <span role="status">{copied === 'yes' ? 'Copied.' : copied === 'failed' ? 'Copying failed: select the text and copy it.' : ''}</span>
      </div>
    </div>
  );
}
