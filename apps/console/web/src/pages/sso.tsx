import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { accountKeys, fetchSso, fetchTwoFactorPolicy, removeSso, saveSso, saveTwoFactorPolicy } from '../api/account';
import { fetchSession, sessionQueryKey } from '../api/session';
import { useFormSubmit } from '../components/use-form-submit';

function useHolds(permission: string): boolean {
  const session = useQuery({ queryKey: sessionQueryKey, queryFn: fetchSession, staleTime: 60_000 }).data;
  return session?.permissions.includes(permission) ?? false;
}

/** A submit button for a permission the member may lack: shown, but disabled with the reason (the API answers 403 anyway). */
function GuardedSubmit({ permission, label, busy, className }: { permission: string; label: string; busy: boolean; className?: string }) {
  const holds = useHolds(permission);
  const tip = useId();
  return (
    <span className="guarded">
      <button type={holds ? 'submit' : 'button'} className={className} aria-disabled={!holds || busy || undefined} aria-describedby={holds ? undefined : tip} onClick={holds ? undefined : (e) => e.preventDefault()}>
        {label}
      </button>
      {!holds && (
        <span role="tooltip" id={tip} className="tooltip">
          Needs the permission {permission}
        </span>
      )}
    </span>
  );
}

function FormError({ error }: { error: { message: string; fieldErrors?: Array<{ field: string; message: string }> } | null }) {
  if (!error) return null;
  return (
    <div role="alert" className="error">
      <p>{error.message}</p>
      {error.fieldErrors && error.fieldErrors.length > 0 && (
        <ul>
          {error.fieldErrors.map((f) => (
            <li key={f.field + f.message}>
              {f.field.replace(/^body\./, '')} {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** /sso: the organization's single sign-on (OpenID Connect, any issuer) and its two-factor requirement. */
export function SsoPage() {
  return (
    <>
      <h1>Single sign-on and two-factor</h1>
      <SsoSection />
      <TwoFactorPolicySection />
    </>
  );
}

function SsoSection() {
  const id = useId();
  const queryClient = useQueryClient();
  const canView = useHolds('view_sso');
  const sso = useQuery({ queryKey: accountKeys.sso, queryFn: fetchSso, enabled: canView });
  const [saved, setSaved] = useState<string | null>(null);
  const save = useFormSubmit(async (form) => {
    setSaved(null);
    const secret = String(form.get('client_secret') ?? '');
    const jit = String(form.get('jit_role_id') ?? '');
    const result = await saveSso({
      discovery_url: String(form.get('discovery_url') ?? '').trim(),
      client_id: String(form.get('client_id') ?? '').trim(),
      ...(secret ? { client_secret: secret } : {}),
      allowed_domains: String(form.get('allowed_domains') ?? '').split(/[\s,]+/).filter(Boolean),
      require_sso: form.get('require_sso') === 'on',
      jit_role_id: jit === '' ? null : jit,
      enabled: form.get('enabled') === 'on',
    });
    queryClient.setQueryData(accountKeys.sso, result);
    setSaved('Single sign-on settings saved.');
  }, 'The settings could not be saved; try again.');
  const remove = useFormSubmit(async () => {
    await removeSso();
    queryClient.setQueryData(accountKeys.sso, null);
    setSaved('Single sign-on removed.');
  }, 'Single sign-on could not be removed; try again.');

  if (!canView) return <p>Seeing single sign-on needs the permission view_sso.</p>;
  if (sso.isPending) return <p role="status">Loading…</p>;
  if (sso.error) return <p role="alert">{sso.error.message}</p>;
  const current = sso.data;
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>Single sign-on (OpenID Connect)</h2>
      <p>
        {current ? (
          <>
            Register this redirect URI at your identity provider: <code>{current.redirect_uri}</code>
          </>
        ) : (
          'Not set up. Register Patchbay at your identity provider as a web application with the redirect URI …/api/v1/sso/callback on this address, scopes openid, email and profile, then fill in what it gives you.'
        )}
      </p>
      <form key={current?.updated_at ?? 'new'} onSubmit={save.submit} noValidate>
        <label>
          Discovery URL
          <input name="discovery_url" type="url" required defaultValue={current?.discovery_url} placeholder="https://login.example.com/.well-known/openid-configuration" />
        </label>
        <label>
          Client id
          <input name="client_id" required defaultValue={current?.client_id} autoComplete="off" />
        </label>
        <label>
          Client secret {current ? `(set, ending in ${current.client_secret_last4}; leave empty to keep it)` : ''}
          <input name="client_secret" type="password" autoComplete="new-password" required={!current} />
        </label>
        <label>
          Allowed email domains (comma-separated)
          <input name="allowed_domains" required defaultValue={current?.allowed_domains.join(', ')} placeholder="example.com" />
        </label>
        <label>
          People of these domains without an invitation
          <select name="jit_role_id" defaultValue={current?.jit_role_id ?? ''}>
            <option value="">are refused (invite them first)</option>
            <option value="read_only">join as Read-only</option>
            <option value="developer">join as Developer</option>
            <option value="security">join as Security</option>
          </select>
        </label>
        <label className="checkbox">
          <input name="require_sso" type="checkbox" defaultChecked={current?.require_sso ?? false} /> Require SSO (password sign-in off for members; the owner keeps it)
        </label>
        <label className="checkbox">
          <input name="enabled" type="checkbox" defaultChecked={current?.enabled ?? true} /> Enabled
        </label>
        <FormError error={save.error} />
        {saved && <p role="status">{saved}</p>}
        <GuardedSubmit permission="manage_sso" label={current ? 'Save single sign-on' : 'Set up single sign-on'} busy={save.busy} />
      </form>
      {current && (
        <form onSubmit={remove.submit}>
          <FormError error={remove.error} />
          <GuardedSubmit permission="manage_sso" label="Remove single sign-on" busy={remove.busy} className="secondary" />
        </form>
      )}
    </section>
  );
}

function TwoFactorPolicySection() {
  const id = useId();
  const queryClient = useQueryClient();
  const canView = useHolds('view_org_settings');
  const policy = useQuery({ queryKey: accountKeys.twoFactorPolicy, queryFn: fetchTwoFactorPolicy, enabled: canView });
  const save = useFormSubmit(async (form) => {
    queryClient.setQueryData(accountKeys.twoFactorPolicy, await saveTwoFactorPolicy(form.get('require_two_factor') === 'on'));
  }, 'The setting could not be saved; try again.');
  if (!canView) return null;
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>Two-factor sign-in</h2>
      {policy.data && (
        <form key={String(policy.data.require_two_factor)} onSubmit={save.submit}>
          <label className="checkbox">
            <input name="require_two_factor" type="checkbox" defaultChecked={policy.data.require_two_factor} /> Require two-factor sign-in for every member (members without it set it up at their next sign-in)
          </label>
          <FormError error={save.error} />
          <GuardedSubmit permission="manage_org_settings" label="Save two-factor requirement" busy={save.busy} />
        </form>
      )}
    </section>
  );
}
