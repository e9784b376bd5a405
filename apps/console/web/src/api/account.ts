import { apiRequest, setCsrfToken } from './client';
import type { Session } from './session';

// The signed-in person's own account, two-factor sign-in and single sign-on (access-keys-and-audit:
// /api/v1/account, /api/v1/session/two-factor, /api/v1/sso, /api/v1/two-factor-policy).

export interface TwoFactorStatus {
  enabled: boolean;
  enabled_at: string | null;
  recovery_codes_left: number;
  /** An organization of the person requires it (then it cannot be turned off). */
  required: boolean;
}

export interface TwoFactorEnrolment {
  secret: string;
  otpauth_uri: string;
}

export interface SessionRecord {
  id: string;
  organization_id: string;
  environment: 'production' | 'test';
  created_at: string;
  last_seen_at: string;
  idle_expires_at: string;
  expires_at: string;
  user_agent: string | null;
  ip_address: string | null;
  current: boolean;
}

export interface SsoSettings {
  enabled: boolean;
  discovery_url: string;
  client_id: string;
  client_secret_last4: string;
  allowed_domains: string[];
  require_sso: boolean;
  jit_role_id: string | null;
  redirect_uri: string;
  updated_at: string;
}

export interface SsoSettingsInput {
  discovery_url: string;
  client_id: string;
  client_secret?: string;
  allowed_domains: string[];
  require_sso: boolean;
  jit_role_id: string | null;
  enabled: boolean;
}

export const accountKeys = {
  twoFactor: ['account', 'two-factor'] as const,
  sessions: ['session', 'all'] as const,
  sso: ['sso'] as const,
  twoFactorPolicy: ['two-factor-policy'] as const,
};

export const changePassword = (current_password: string, new_password: string) =>
  apiRequest<{ sessions_ended: number }>('api/v1/account/password', { method: 'PUT', body: { current_password, new_password } });
export const fetchTwoFactor = () => apiRequest<TwoFactorStatus>('api/v1/account/two-factor');
export const beginEnrolment = () => apiRequest<TwoFactorEnrolment>('api/v1/account/two-factor/enrolment', { method: 'POST' });
export const confirmEnrolment = (code: string) => apiRequest<{ recovery_codes: string[] }>('api/v1/account/two-factor/confirmation', { method: 'POST', body: { code } });
export const disableTwoFactor = (code: string) => apiRequest<void>('api/v1/account/two-factor/disable', { method: 'POST', body: { code } });
export const regenerateRecoveryCodes = (code: string) => apiRequest<{ recovery_codes: string[] }>('api/v1/account/two-factor/recovery-codes', { method: 'POST', body: { code } });
export const fetchSessions = async () => (await apiRequest<{ results: SessionRecord[] }>('api/v1/session/all')).results;
export const endOtherSessions = () => apiRequest<{ sessions_ended: number }>('api/v1/session/all', { method: 'DELETE' });

export const fetchSso = async (): Promise<SsoSettings | null> => {
  try {
    return await apiRequest<SsoSettings>('api/v1/sso');
  } catch (err) {
    if ((err as { status?: number }).status === 404) return null;
    throw err;
  }
};
export const saveSso = (input: SsoSettingsInput) => apiRequest<SsoSettings>('api/v1/sso', { method: 'PUT', body: input });
export const removeSso = () => apiRequest<void>('api/v1/sso', { method: 'DELETE' });
export const fetchTwoFactorPolicy = () => apiRequest<{ require_two_factor: boolean }>('api/v1/two-factor-policy');
export const saveTwoFactorPolicy = (require_two_factor: boolean) => apiRequest<{ require_two_factor: boolean }>('api/v1/two-factor-policy', { method: 'PUT', body: { require_two_factor } });

// The sign-in's steps (no session yet: a 401 is an answer for the form, not an expired session).

export const startSso = (email: string, return_to: string, sign_in_path: string) =>
  apiRequest<{ authorization_url: string }>('api/v1/sso/start', { method: 'POST', body: { email, return_to, sign_in_path }, expectUnauthenticated: true });
export const beginSignInEnrolment = () => apiRequest<TwoFactorEnrolment>('api/v1/session/two-factor/enrolment', { method: 'POST', expectUnauthenticated: true });
export async function finishTwoFactor(code: string): Promise<Session & { recovery_codes?: string[] }> {
  const session = await apiRequest<Session & { recovery_codes?: string[] }>('api/v1/session/two-factor', { method: 'POST', body: { code }, expectUnauthenticated: true });
  setCsrfToken(session.csrf_token);
  return session;
}
