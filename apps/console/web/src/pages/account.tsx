import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import {
  accountKeys,
  beginEnrolment,
  changePassword,
  confirmEnrolment,
  disableTwoFactor,
  endOtherSessions,
  fetchSessions,
  fetchTwoFactor,
  regenerateRecoveryCodes,
  type TwoFactorEnrolment,
} from '../api/account';
import { RecoveryCodes } from '../components/recovery-codes';
import { useFormSubmit } from '../components/use-form-submit';
import { EnrolmentSecret } from './sign-in';

/** Times with their zone (UTC), as the API sends them. */
function utc(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

function FormError({ error }: { error: { message: string; fieldErrors?: Array<{ field: string; message: string }> } | null }) {
  if (!error) return null;
  const field = error.fieldErrors?.[0];
  return (
    <p role="alert" className="error">
      {field ? `${field.field.replace(/^body\./, '')} ${field.message}` : error.message}
    </p>
  );
}

/** /account: the member's own password, two-factor sign-in and sessions (every organization). */
export function AccountPage() {
  return (
    <>
      <h1>Your account</h1>
      <PasswordSection />
      <TwoFactorSection />
      <SessionsSection />
    </>
  );
}

function PasswordSection() {
  const id = useId();
  const [done, setDone] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const { submit, error, busy } = useFormSubmit(async (form) => {
    setDone(null);
    const result = await changePassword(String(form.get('current_password') ?? ''), String(form.get('new_password') ?? ''));
    setDone(`Password changed. ${result.sessions_ended === 1 ? '1 other session was' : `${result.sessions_ended} other sessions were`} signed out.`);
    await queryClient.invalidateQueries({ queryKey: accountKeys.sessions });
  }, 'The password could not be changed; try again.');
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>Password</h2>
      <form onSubmit={submit} noValidate>
        <label>
          Current password
          <input name="current_password" type="password" autoComplete="current-password" required />
        </label>
        <label>
          New password (at least 10 characters)
          <input name="new_password" type="password" autoComplete="new-password" minLength={10} required />
        </label>
        <FormError error={error} />
        {done && <p role="status">{done}</p>}
        <button type="submit" disabled={busy}>
          Change password
        </button>
      </form>
    </section>
  );
}

function TwoFactorSection() {
  const id = useId();
  const queryClient = useQueryClient();
  const status = useQuery({ queryKey: accountKeys.twoFactor, queryFn: fetchTwoFactor });
  const [enrolment, setEnrolment] = useState<TwoFactorEnrolment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: accountKeys.twoFactor });
  const start = useMutation({ mutationFn: beginEnrolment, onSuccess: setEnrolment });
  const confirm = useFormSubmit(async (form) => {
    const result = await confirmEnrolment(String(form.get('code') ?? ''));
    setEnrolment(null);
    setCodes(result.recovery_codes);
    await refresh();
  }, 'The code could not be checked; try again.');
  const renew = useFormSubmit(async (form) => {
    setCodes((await regenerateRecoveryCodes(String(form.get('code') ?? ''))).recovery_codes);
    await refresh();
  }, 'New recovery codes could not be made; try again.');
  const disable = useFormSubmit(async (form) => {
    await disableTwoFactor(String(form.get('code') ?? ''));
    await refresh();
  }, 'Two-factor could not be turned off; try again.');

  return (
    <section aria-labelledby={id}>
      <h2 id={id}>Two-factor sign-in</h2>
      {status.isPending && <p role="status">Loading…</p>}
      {codes && <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />}
      {status.data && !status.data.enabled && !enrolment && (
        <>
          <p>Off. {status.data.required ? 'An organization you belong to requires it: you will be asked to set it up when you next sign in.' : 'Add a code from an authenticator app to every sign-in.'}</p>
          <FormError error={start.error as never} />
          <button type="button" onClick={() => start.mutate()} disabled={start.isPending}>
            Set up two-factor sign-in
          </button>
        </>
      )}
      {enrolment && (
        <form onSubmit={confirm.submit} noValidate>
          <EnrolmentSecret enrolment={enrolment} />
          <label>
            Code from the authenticator app
            <input name="code" autoComplete="one-time-code" inputMode="numeric" required />
          </label>
          <FormError error={confirm.error} />
          <button type="submit" disabled={confirm.busy}>
            Turn on two-factor sign-in
          </button>
        </form>
      )}
      {status.data?.enabled && (
        <>
          <p>
            On since {status.data.enabled_at ? utc(status.data.enabled_at) : '—'}; {status.data.recovery_codes_left} unused recovery codes.
          </p>
          <form onSubmit={renew.submit} noValidate>
            <label>
              Current code (or a recovery code) to make new recovery codes
              <input name="code" autoComplete="one-time-code" required />
            </label>
            <FormError error={renew.error} />
            <button type="submit" disabled={renew.busy}>
              New recovery codes
            </button>
          </form>
          {status.data.required ? (
            <p>Your organization requires two-factor sign-in, so it cannot be turned off.</p>
          ) : (
            <form onSubmit={disable.submit} noValidate>
              <label>
                Current code (or a recovery code) to turn two-factor off
                <input name="code" autoComplete="one-time-code" required />
              </label>
              <FormError error={disable.error} />
              <button type="submit" className="secondary" disabled={disable.busy}>
                Turn off two-factor sign-in
              </button>
            </form>
          )}
        </>
      )}
    </section>
  );
}

function SessionsSection() {
  const id = useId();
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: accountKeys.sessions, queryFn: fetchSessions });
  const [ended, setEnded] = useState<number | null>(null);
  const endOthers = useMutation({
    mutationFn: endOtherSessions,
    onSuccess: async (result) => {
      setEnded(result.sessions_ended);
      await queryClient.invalidateQueries({ queryKey: accountKeys.sessions });
    },
  });
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>Sessions</h2>
      {sessions.error && <p role="alert">{sessions.error.message}</p>}
      {sessions.data && (
        <div className="table-scroll">
          <table>
            <caption>Where you are signed in (every organization), newest first. Times in UTC.</caption>
            <thead>
              <tr>
                <th scope="col">Signed in</th>
                <th scope="col">Last active</th>
                <th scope="col">Ends</th>
                <th scope="col">Browser</th>
                <th scope="col">Address</th>
              </tr>
            </thead>
            <tbody>
              {sessions.data.map((s) => (
                <tr key={s.id} aria-current={s.current ? 'true' : undefined}>
                  <td>
                    {utc(s.created_at)}
                    {s.current && <strong> (this session)</strong>}
                  </td>
                  <td>{utc(s.last_seen_at)}</td>
                  <td>{utc(s.idle_expires_at < s.expires_at ? s.idle_expires_at : s.expires_at)}</td>
                  <td>{s.user_agent ?? '—'}</td>
                  <td>{s.ip_address ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <FormError error={endOthers.error as never} />
      {ended !== null && <p role="status">{ended === 1 ? '1 other session was signed out.' : `${ended} other sessions were signed out.`}</p>}
      <button type="button" onClick={() => endOthers.mutate()} disabled={endOthers.isPending}>
        Sign out everywhere else
      </button>
    </section>
  );
}
