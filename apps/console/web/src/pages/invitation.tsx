import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useId, useState } from 'react';
import { apiRequest, setCsrfToken } from '../api/client';
import { sessionQueryKey, type Session } from '../api/session';
import { useFormSubmit } from '../components/use-form-submit';

/**
 * The token of an invitation or owner-setup link travels in the fragment (`#token=…`), which browsers
 * never send to a server; it is read once and the fragment is dropped from the address bar and history.
 */
function takeTokenFromFragment(): string | null {
  const token = new URLSearchParams(window.location.hash.replace(/^#/, '')).get('token');
  if (token) window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  return token;
}

/**
 * /invitation (a member invited by email) and /setup (the organization's first owner, who says which
 * email they will sign in with): a name and a password, then the member is signed in.
 */
export function AcceptInvitationPage({ ownerSetup }: { ownerSetup: boolean }) {
  const [token] = useState(takeTokenFromFragment);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const errorId = useId();
  const { submit, error, busy } = useFormSubmit(async (form) => {
    const body = { token, name: String(form.get('name') ?? ''), password: String(form.get('password') ?? ''), ...(ownerSetup ? { email: String(form.get('email') ?? '') } : {}) };
    const session = await apiRequest<Session | { two_factor_required: true; enrol: boolean }>('api/v1/invitations/accept', { method: 'POST', body, expectUnauthenticated: true });
    if ('two_factor_required' in session) {
      // The organization requires two-factor (or the account has it): the sign-in page takes the code.
      await navigate({ to: '/sign-in', search: { step: session.enrol ? 'two-factor-enrol' : 'two-factor' } });
      return;
    }
    setCsrfToken(session.csrf_token);
    queryClient.setQueryData(sessionQueryKey, session);
    await navigate({ to: '/' });
  }, 'The link could not be accepted; try again.');

  const title = ownerSetup ? 'Set up your organization' : 'Join your organization';
  if (!token) {
    return (
      <main className="sign-in">
        <h1>{title}</h1>
        <p role="alert">This page needs the whole link you were given, including the part after #token=. Ask for a new link if yours is incomplete.</p>
      </main>
    );
  }
  const fieldError = (field: string) => error?.fieldErrors.find((e) => e.field === `body.${field}`)?.message;
  return (
    <main className="sign-in">
      <h1>{title}</h1>
      <p>{ownerSetup ? 'You become the owner of this Patchbay organization: choose the email and password you will sign in with.' : 'Choose your name and a password to finish joining.'}</p>
      <form onSubmit={submit} aria-describedby={error ? errorId : undefined} noValidate>
        {ownerSetup && (
          <label>
            Email
            <input name="email" type="email" autoComplete="username" required aria-invalid={fieldError('email') ? true : undefined} />
          </label>
        )}
        <label>
          Name
          <input name="name" autoComplete="name" required aria-invalid={fieldError('name') ? true : undefined} />
        </label>
        <label>
          Password (10 characters or more)
          <input name="password" type="password" autoComplete="new-password" required minLength={10} aria-invalid={fieldError('password') ? true : undefined} />
        </label>
        {error && (
          <div id={errorId} role="alert" className="error">
            <p>{error.message}</p>
            {error.fieldErrors.length > 0 && (
              <ul>
                {error.fieldErrors.map((e) => (
                  <li key={e.field}>
                    {e.field.replace(/^body\./, '')}: {e.message}
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Working…' : ownerSetup ? 'Become the owner' : 'Join'}
        </button>
      </form>
    </main>
  );
}
