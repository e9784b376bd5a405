import { useId, useState } from 'react';

/** Recovery codes, shown once with a copy button: only their hashes are stored, the API never shows them again. */
export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone?: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const id = useId();
  return (
    <section className="secret" aria-labelledby={id}>
      <h3 id={id}>Recovery codes</h3>
      <p>
        Each code signs you in once if you lose your authenticator. They are shown only now: copy them and keep them somewhere safe.
      </p>
      <ul className="recovery-codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div className="row">
        <button
          type="button"
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(codes.join('\n'));
              setCopied('yes');
            } catch {
              setCopied('failed');
            }
          }}
        >
          Copy recovery codes
        </button>
        {onDone && (
          <button type="button" className="secondary" onClick={onDone}>
            Done
          </button>
        )}
        <span role="status">{copied === 'yes' ? 'Copied.' : copied === 'failed' ? 'Copying failed: select the codes and copy them.' : ''}</span>
      </div>
    </section>
  );
}
