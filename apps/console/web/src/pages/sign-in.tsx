import { useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { useId } from 'react';
import { ApiError } from '../api/client';
import { sessionQueryKey, signIn } from '../api/session';
import { useFormSubmit } from '../components/use-form-submit';

/**
 * Where to go after signing in: the console page in `next` (a path relative to the console, with its
 * query), never an address elsewhere (no open redirect).
 */
function returnTo(next: string | undefined): { to: string; search?: Record<string, string> } {
  if (!next || !next.startsWith('/') || next.startsWith('//')) return { to: '/' };
  const url = new URL(next, 'http://console.invalid');
  return { to: url.pathname, search: Object.fromEntries(url.searchParams) };
}

/** /sign-in: email and password; `next` is where the member was when their session ended. */
export function SignInPage() {
  const { next } = useSearch({ strict: false }) as { next?: string };
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const errorId = useId();
  const { submit, error, busy } = useFormSubmit(async (form) => {
    const result = await signIn(String(form.get('email') ?? ''), String(form.get('password') ?? ''));
    if ('two_factor_required' in result) throw new ApiError(401, 'two_factor_required', 'Two-factor sign-in is not available in this console version yet.');
    queryClient.setQueryData(sessionQueryKey, result);
    await navigate(returnTo(next));
  }, 'Sign-in failed; try again.');

  return (
    <main className="sign-in">
      <h1>Sign in to Patchbay</h1>
      <form onSubmit={submit} aria-describedby={error ? errorId : undefined} noValidate>
        <label>
          Email
          <input name="email" type="email" autoComplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        {error && (
          <p id={errorId} role="alert" className="error">
            {error.message}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
