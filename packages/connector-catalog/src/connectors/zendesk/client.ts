import { createProviderClient } from '../../core/provider-http';
import type { InjectedCredential } from '../../core/types';

function basicAuth(credential: InjectedCredential): string {
  const { email = '', api_token: token = '' } = credential.values;
  return `Basic ${Buffer.from(`${email}/token:${token}`).toString('base64')}`;
}

/**
 * Zendesk's error bodies: `{"error": "Couldn't authenticate you"}`, `{"error": "RecordNotFound",
 * "description": "Not found"}`, `{"error": "RecordInvalid", "description": "Record validation
 * errors", "details": {"status": [{"description": "Status: is not valid"}]}}`, and on some
 * endpoints `{"error": {"title": ..., "message": ...}}`.
 */
export function zendeskErrorMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim().slice(0, 300) || undefined;
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as { error?: unknown; description?: unknown; details?: unknown };
  const parts: string[] = [];
  if (typeof b.error === 'string') parts.push(b.error);
  else if (typeof b.error === 'object' && b.error !== null) {
    const e = b.error as { title?: unknown; message?: unknown };
    parts.push([e.title, e.message].filter((x) => typeof x === 'string').join(': '));
  }
  if (typeof b.description === 'string') parts.push(b.description);
  if (typeof b.details === 'object' && b.details !== null) {
    const details = Object.values(b.details as Record<string, unknown>)
      .flatMap((list) => (Array.isArray(list) ? list : []))
      .map((d) => (d as { description?: unknown }).description)
      .filter((d): d is string => typeof d === 'string');
    if (details.length) parts.push(details.join('; '));
  }
  return parts.filter(Boolean).join(' - ').slice(0, 500) || undefined;
}

/** Zendesk Support API v2: API-token Basic auth (`{email}/token:{api_token}`), 429 with Retry-After. */
export const zendeskRequest = createProviderClient({
  provider: 'Zendesk',
  authHeaders: (credential) => ({ authorization: basicAuth(credential) }),
  defaultHeaders: { 'user-agent': 'patchbay' },
  errorMessage: zendeskErrorMessage,
});
