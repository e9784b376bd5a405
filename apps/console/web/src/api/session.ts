import { apiRequest, setCsrfToken } from './client';

/** The signed-in member as GET /api/v1/session describes them (access-keys-and-audit). */
export interface Session {
  /** `id` is the member's id in this organization; `user_id` the person's, the same in every organization. */
  member: { id: string; user_id: string; email: string; name: string; is_owner: boolean };
  organization: { id: string; name: string };
  /** Every organization the person may switch to (POST api/v1/session/organization). */
  organizations: Array<{ id: string; name: string }>;
  environment: 'production' | 'test';
  permissions: string[];
  csrf_token: string;
  /** When the session ends without further activity, and whatever the activity (ISO 8601 UTC). */
  idle_expires_at: string;
  expires_at: string;
}

export const sessionQueryKey = ['session'] as const;

export async function fetchSession(): Promise<Session> {
  const session = await apiRequest<Session>('api/v1/session', { expectUnauthenticated: true });
  setCsrfToken(session.csrf_token);
  return session;
}

export type SignInResult = Session | { two_factor_required: true };

export async function signIn(email: string, password: string): Promise<SignInResult> {
  const result = await apiRequest<SignInResult>('api/v1/session', { method: 'POST', body: { email, password }, expectUnauthenticated: true });
  if ('csrf_token' in result) setCsrfToken(result.csrf_token);
  return result;
}

/** Ends this session (the cookie is cleared by the server). */
export async function signOut(): Promise<void> {
  await apiRequest<unknown>('api/v1/session', { method: 'DELETE', expectUnauthenticated: true });
  setCsrfToken(null);
}
