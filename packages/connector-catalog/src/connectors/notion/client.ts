import { createProviderClient } from '../../core/provider-http';
import { ToolError } from '../../core/tool-error';
import type { InjectedCredential } from '../../core/types';

function token(credential: InjectedCredential): string {
  return credential.access_token ?? credential.values.token ?? '';
}

/** Notion errors are `{"object": "error", "status", "code", "message"}`; the code says more than the status. */
function notionErrorMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { code, message } = body as { code?: unknown; message?: unknown };
  if (typeof message !== 'string') return undefined;
  return (typeof code === 'string' ? `${message} (${code})` : message).slice(0, 500);
}

/** Notion API with the 2022-06-28 version, whose databases are queried through /databases/{id}/query. */
export const notionRequest = createProviderClient({
  provider: 'Notion',
  authHeaders: (credential) => ({ authorization: `Bearer ${token(credential)}` }),
  defaultHeaders: { 'notion-version': '2022-06-28' },
  errorMessage: notionErrorMessage,
});

const DASHED = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PLAIN = /(?:^|[^0-9a-f])([0-9a-f]{32})$/i;

/**
 * A Notion ID from what a person or model has at hand: the ID with or without dashes, or a Notion
 * URL, whose last path segment ends in the ID (`/Page-Title-<32 hex digits>`; a `?v=` query names a
 * database view, not the database, so the query is ignored).
 */
export function notionId(value: string, field: string): string {
  const trimmed = value.trim();
  const segment = trimmed.split(/[?#]/)[0]!.split('/').filter(Boolean).at(-1) ?? '';
  const dashed = DASHED.exec(segment)?.[0];
  const hex = dashed ? dashed.replace(/-/g, '') : PLAIN.exec(segment)?.[1];
  if (!hex) throw new ToolError('invalid_input', `input.${field} must be a Notion ID (32 hexadecimal digits, dashes optional) or a Notion page URL.`);
  const h = hex.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
