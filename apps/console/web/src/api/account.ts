import { api, unwrap, type Schemas } from './api';
import { ApiError, apiRequest, setCsrfToken } from './client';
import type { Session } from './session';

// The signed-in person's own account, two-factor sign-in and single sign-on (access-keys-and-audit:
// /api/v1/account, /api/v1/session/two-factor, /api/v1/sso, /api/v1/two-factor-policy).

export type TwoFactorStatus = Schemas['TwoFactorStatus'];

export type TwoFactorEnrolment = Schemas['TwoFactorEnrolment'];

export type SessionRecord = Schemas['SessionRecord'];

export type SsoSettings = Schemas['SsoSettings'];

export type SsoSettingsInput = Schemas['SsoSettingsInput'];

export const accountKeys = {
  twoFactor: ['account', 'two-factor'] as const,
  sessions: ['session', 'all'] as const,
  sso: ['sso'] as const,
  twoFactorPolicy: ['two-factor-policy'] as const,
};

// Signed-in calls go through the typed client (paths and bodies from access-keys-and-audit's OpenAPI).
export const changePassword = (current_password: string, new_password: string) => unwrap(api.PUT('/api/v1/account/password', { body: { current_password, new_password } }));
export const fetchTwoFactor = (): Promise<TwoFactorStatus> => unwrap(api.GET('/api/v1/account/two-factor'));
export const beginEnrolment = (): Promise<TwoFactorEnrolment> => unwrap(api.POST('/api/v1/account/two-factor/enrolment'));
export const confirmEnrolment = (code: string) => unwrap(api.POST('/api/v1/account/two-factor/confirmation', { body: { code } }));
export const disableTwoFactor = async (code: string): Promise<void> => {
  await unwrap(api.POST('/api/v1/account/two-factor/disable', { body: { code } }));
};
export const regenerateRecoveryCodes = (code: string) => unwrap(api.POST('/api/v1/account/two-factor/recovery-codes', { body: { code } }));
export const fetchSessions = async (): Promise<SessionRecord[]> => (await unwrap(api.GET('/api/v1/session/all'))).results as SessionRecord[];
export const endOtherSessions = () => unwrap(api.DELETE('/api/v1/session/all'));

export const fetchSso = async (): Promise<SsoSettings | null> => {
  try {
    return await unwrap(api.GET('/api/v1/sso'));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
};
export const saveSso = (input: SsoSettingsInput): Promise<SsoSettings> => unwrap(api.PUT('/api/v1/sso', { body: input }));
export const removeSso = async (): Promise<void> => {
  await unwrap(api.DELETE('/api/v1/sso'));
};
export const fetchTwoFactorPolicy = () => unwrap(api.GET('/api/v1/two-factor-policy'));
export const saveTwoFactorPolicy = (require_two_factor: boolean) => unwrap(api.PUT('/api/v1/two-factor-policy', { body: { require_two_factor } }));

// The sign-in's steps (no session yet: a 401 is an answer for the form, not an expired session).

export const startSso = (email: string, return_to: string, sign_in_path: string) =>
  apiRequest<{ authorization_url: string }>('api/v1/sso/start', { method: 'POST', body: { email, return_to, sign_in_path }, expectUnauthenticated: true });
export const beginSignInEnrolment = () => apiRequest<TwoFactorEnrolment>('api/v1/session/two-factor/enrolment', { method: 'POST', expectUnauthenticated: true });
export async function finishTwoFactor(code: string): Promise<Session & { recovery_codes?: string[] }> {
  const session = await apiRequest<Session & { recovery_codes?: string[] }>('api/v1/session/two-factor', { method: 'POST', body: { code }, expectUnauthenticated: true });
  setCsrfToken(session.csrf_token);
  return session;
}
