import type { ResponseHeaders } from '@patchbay/outbound';
import { createProviderClient } from '../../core/provider-http';
import type { AuthOption, InjectedCredential } from '../../core/types';

/**
 * What Google's APIs share (Calendar, Gmail...): OAuth 2.0 bearer tokens and one error shape,
 * `{"error": {"code", "message", "status", "errors": [{"reason", "domain", "message"}]}}`.
 */
interface GoogleErrorBody {
  error?: { code?: number; message?: string; status?: string; errors?: Array<{ reason?: string; message?: string }> } | string;
  error_description?: string;
}

/** Rate and quota limits Google reports as 403 (or 429) with one of these reasons. */
const RATE_LIMIT_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'dailyLimitExceeded', 'quotaExceeded']);

function reasons(body: unknown): string[] {
  const error = (body as GoogleErrorBody | null)?.error;
  if (typeof error !== 'object' || error === null) return [];
  return (error.errors ?? []).map((e) => e.reason ?? '').filter(Boolean);
}

export function googleErrorMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as GoogleErrorBody;
  // OAuth endpoints answer {"error": "invalid_grant", "error_description": ...}.
  if (typeof b.error === 'string') return b.error_description ?? b.error;
  const message = b.error?.message;
  if (!message) return undefined;
  const why = reasons(body).filter((r) => !message.includes(r));
  return (why.length > 0 ? `${message} (${why.join(', ')})` : message).slice(0, 500);
}

export function isGoogleRateLimit(status: number, _headers: ResponseHeaders, body: unknown): boolean {
  return status === 403 && reasons(body).some((r) => RATE_LIMIT_REASONS.has(r));
}

function token(credential: InjectedCredential): string {
  return credential.access_token ?? credential.values.access_token ?? '';
}

export function createGoogleClient(provider: string) {
  return createProviderClient({
    provider,
    authHeaders: (credential) => ({ authorization: `Bearer ${token(credential)}` }),
    errorMessage: googleErrorMessage,
    isRateLimited: isGoogleRateLimit,
  });
}

/**
 * Google's OAuth 2.0 (offline access so a refresh token is issued, consent prompt so it is issued again
 * on reconnect), and a raw access token for trying a connector out (they expire after an hour).
 */
export function googleAuthOptions(scopes: string[]): AuthOption[] {
  return [
    {
      type: 'oauth2',
      oauth2: {
        authorize_url: 'https://accounts.google.com/o/oauth2/v2/auth',
        token_url: 'https://oauth2.googleapis.com/token',
        default_scopes: scopes,
        authorize_params: { access_type: 'offline', prompt: 'consent' },
        token_auth_method: 'client_secret_post',
      },
      credential_fields: [],
    },
    {
      type: 'bearer_token',
      credential_fields: [
        {
          name: 'access_token',
          label: 'OAuth access token',
          type: 'secret',
          required: true,
          description: `An access token with the scopes ${scopes.join(', ')} (for testing: Google access tokens expire after an hour; use OAuth for lasting connections).`,
        },
      ],
    },
  ];
}
