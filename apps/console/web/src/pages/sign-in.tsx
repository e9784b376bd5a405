import { useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { useId, useState } from 'react';
import { beginSignInEnrolment, finishTwoFactor, startSso, type TwoFactorEnrolment } from '../api/account';
import { ApiError } from '../api/client';
import { sessionQueryKey, signIn, type Session } from '../api/session';
import { RecoveryCodes } from '../components/recovery-codes';
import { useFormSubmit } from '../components/use-form-submit';
import { consoleBasePath } from '../config';

const consoleRoot = consoleBasePath.replace(/\/$/, '');

/**
 * Where to go after signing in: the console page in `next` (a path relative to the console, with its
 * query; single sign-on hands back the full path, console base included), never an address elsewhere
 * (no open redirect).
 */
function returnTo(next: string | undefined): { to: string; search?: Record<string, string> } {
  if (!next || !next.startsWith('/') || next.startsWith('//')) return { to: '/' };
  const relative = consoleRoot && (next === consoleRoot || next.startsWith(`${consoleRoot}/`)) ? next.slice(consoleRoot.length) || '/' : next;
  const url = new URL(relative, 'http://console.invalid');
  return { to: url.pathname, search: Object.fromEntries(url.searchParams) };
}

type Step = 'password' | 'two-factor' | 'two-factor-enrol';

/**
 * /sign-in: email and password, or single sign-on by the email's domain; then, for members with
 * two-factor on (or required by their organization), the code step. `next` is where the member was
 * when their session ended; single sign-on comes back here with `step` or `sso_error`.
 */
export function SignInPage() {
  const search = useSearch({ strict: false }) as { next?: string; step?: string; sso_error?: string };
  const next = typeof search.next === 'string' ? search.next : undefined;
  const [step, setStep] = useState<Step>(search.step === 'two-factor' || search.step === 'two-factor-enrol' ? search.step : 'password');
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const errorId = useId();

  const finish = async (session: Session) => {
    queryClient.setQueryData(sessionQueryKey, session);
    await navigate(returnTo(next));
  };

  const password = useFormSubmit(async (form) => {
    const result = await signIn(String(form.get('email') ?? ''), String(form.get('password') ?? ''));
    if ('two_factor_required' in result) {
      setStep((result as { enrol?: boolean }).enrol ? 'two-factor-enrol' : 'two-factor');
      return;
    }
    await finish(result);
  }, 'Sign-in failed; try again.');

  // Single sign-on uses the same Email field: its domain finds the organization's identity provider.
  const [ssoError, setSsoError] = useState<string | null>(null);
  const [ssoBusy, setSsoBusy] = useState(false);
  const startSingleSignOn = async (email: string) => {
    setSsoError(null);
    if (!email.includes('@')) {
      setSsoError('Type your work email first: its domain tells which single sign-on to use.');
      return;
    }
    setSsoBusy(true);
    try {
      const target = returnTo(next);
      const query = new URLSearchParams(target.search ?? {}).toString();
      const started = await startSso(email, `${consoleRoot}${target.to}${query ? `?${query}` : ''}`, `${consoleRoot}/sign-in`);
      window.location.assign(started.authorization_url);
    } catch (err) {
      setSsoError(err instanceof ApiError ? err.message : 'Single sign-on could not start; try again.');
      setSsoBusy(false);
    }
  };

  if (step !== 'password') {
    return (
      <main className="sign-in">
        <h1>Sign in to Patchbay</h1>
        <TwoFactorStep enrol={step === 'two-factor-enrol'} onSignedIn={finish} onRestart={() => setStep('password')} />
      </main>
    );
  }

  return (
    <main className="sign-in">
      <h1>Sign in to Patchbay</h1>
      {typeof search.sso_error === 'string' && (
        <p role="alert" className="error">
          Single sign-on did not sign you in: {search.sso_error}
        </p>
      )}
      <form onSubmit={password.submit} aria-describedby={password.error ? errorId : undefined} noValidate>
        <label>
          Email
          <input name="email" type="email" autoComplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        {password.error && (
          <p id={errorId} role="alert" className="error">
            {password.error.message}
          </p>
        )}
        <button type="submit" disabled={password.busy}>
          {password.busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="sso-sign-in">
          Your organization uses single sign-on?{' '}
          <button
            type="button"
            className="secondary"
            disabled={ssoBusy}
            onClick={(event) => void startSingleSignOn(String(new FormData(event.currentTarget.form ?? undefined).get('email') ?? '').trim())}
          >
            {ssoBusy ? 'Opening your identity provider…' : 'Continue with SSO'}
          </button>
        </p>
        {ssoError && (
          <p role="alert" className="error">
            {ssoError}
          </p>
        )}
      </form>
    </main>
  );
}

/** The second step: a code from the authenticator app or a recovery code; or, when required, enrolment first. */
function TwoFactorStep({ enrol, onSignedIn, onRestart }: { enrol: boolean; onSignedIn: (session: Session) => Promise<void>; onRestart: () => void }) {
  const [enrolment, setEnrolment] = useState<TwoFactorEnrolment | null>(null);
  const [done, setDone] = useState<(Session & { recovery_codes?: string[] }) | null>(null);
  const [expired, setExpired] = useState(false);
  const errorId = useId();
  const start = useFormSubmit(async () => {
    try {
      setEnrolment(await beginSignInEnrolment());
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) setExpired(true);
      throw err;
    }
  }, 'Enrolment could not start; sign in again.');
  const verify = useFormSubmit(async (form) => {
    try {
      const session = await finishTwoFactor(String(form.get('code') ?? ''));
      if (session.recovery_codes) setDone(session);
      else await onSignedIn(session);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) setExpired(true);
      throw err;
    }
  }, 'The code could not be checked; try again.');

  if (done) {
    return (
      <>
        <p role="status">Two-factor sign-in is on.</p>
        <RecoveryCodes codes={done.recovery_codes ?? []} />
        <button type="button" onClick={() => void onSignedIn(done)}>
          Continue to the console
        </button>
      </>
    );
  }
  if (expired) {
    return (
      <>
        <p role="alert" className="error">
          {verify.error?.message ?? start.error?.message}
        </p>
        <button type="button" onClick={onRestart}>
          Sign in again
        </button>
      </>
    );
  }
  if (enrol && !enrolment) {
    return (
      <form onSubmit={start.submit}>
        <h2>Set up two-factor sign-in</h2>
        <p>Your organization requires a second factor. Add Patchbay to an authenticator app (any TOTP app), then type the code it shows.</p>
        {start.error && <p role="alert" className="error">{start.error.message}</p>}
        <button type="submit" disabled={start.busy}>
          Set up an authenticator app
        </button>
      </form>
    );
  }
  return (
    <form onSubmit={verify.submit} aria-describedby={verify.error ? errorId : undefined} noValidate>
      <h2>{enrolment ? 'Set up two-factor sign-in' : 'Two-factor sign-in'}</h2>
      {enrolment && <EnrolmentSecret enrolment={enrolment} />}
      <label>
        {enrolment ? 'Code from the authenticator app' : 'Code from your authenticator app, or a recovery code'}
        <input name="code" autoComplete="one-time-code" inputMode={enrolment ? 'numeric' : 'text'} required autoFocus />
      </label>
      {verify.error && (
        <p id={errorId} role="alert" className="error">
          {verify.error.fieldErrors[0]?.message ? `The code ${verify.error.fieldErrors[0].message}.` : verify.error.message}
        </p>
      )}
      <button type="submit" disabled={verify.busy}>
        {verify.busy ? 'Checking…' : 'Verify'}
      </button>
    </form>
  );
}

/** A new TOTP secret, shown once: as text to type in, and as the otpauth:// link phones open. */
export function EnrolmentSecret({ enrolment }: { enrolment: TwoFactorEnrolment }) {
  const grouped = enrolment.secret.replace(/(.{4})/g, '$1 ').trim();
  return (
    <div className="secret">
      <p>
        Secret key (shown only now): <code aria-label="Secret key" data-secret={enrolment.secret}>{grouped}</code>
      </p>
      <p>
        Or open <a href={enrolment.otpauth_uri}>this otpauth link</a> on the device with your authenticator app.
      </p>
    </div>
  );
}
