import type { ResponseHeaders } from '@patchbay/outbound';
import { createProviderClient, parseRetryAfter } from '../../core/provider-http';
import { ToolError } from '../../core/tool-error';
import type { InjectedCredential } from '../../core/types';

function token(credential: InjectedCredential): string {
  return credential.access_token ?? credential.values.token ?? '';
}

interface HubspotErrorBody {
  message?: string;
  category?: string;
  policyName?: string;
  errors?: Array<{ message?: string }>;
}

/** HubSpot errors are `{"status": "error", "message", "category", "errors": [...]}`; the details name the bad field. */
function hubspotErrorMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as HubspotErrorBody;
  if (typeof b.message !== 'string') return undefined;
  const details = (b.errors ?? []).map((e) => e.message).filter((m): m is string => typeof m === 'string' && m !== '' && m !== b.message);
  const text = [b.message, ...details].join(' ');
  return (b.category ? `${text} (${b.category})` : text).slice(0, 500);
}

/**
 * HubSpot's 429 names the exhausted policy; for the rolling burst windows the wait is the window
 * length it sends in X-HubSpot-RateLimit-Interval-Milliseconds when no Retry-After is given. A daily
 * limit resets at midnight in the account's time zone, which the answer does not say.
 */
function hubspotRateLimit(status: number, headers: ResponseHeaders, body: unknown): ToolError | undefined {
  if (status !== 429) return undefined;
  const b = (typeof body === 'object' && body !== null ? body : {}) as HubspotErrorBody;
  let retryAfterSeconds = parseRetryAfter(headers.get('retry-after'));
  const interval = Number(headers.get('x-hubspot-ratelimit-interval-milliseconds'));
  if (retryAfterSeconds === undefined && b.policyName !== 'DAILY' && Number.isFinite(interval) && interval > 0) retryAfterSeconds = Math.ceil(interval / 1000);
  const wait = retryAfterSeconds !== undefined ? `retry after ${retryAfterSeconds} s` : b.policyName === 'DAILY' ? 'the daily limit resets at midnight in the account\'s time zone' : 'retry later';
  const said = hubspotErrorMessage(body);
  return new ToolError('rate_limited', `HubSpot rate limit reached (HTTP 429)${said ? `: ${said}` : ''}; ${wait}.`, { status, retryAfterSeconds });
}

/** HubSpot CRM API v3 with a private-app token or an OAuth access token as a bearer token. */
export const hubspotRequest = createProviderClient({
  provider: 'HubSpot',
  authHeaders: (credential) => ({ authorization: `Bearer ${token(credential)}` }),
  errorMessage: hubspotErrorMessage,
  errorFromBody: hubspotRateLimit,
});

/** A CRM object as HubSpot returns it; property values are strings (or null). */
export interface HubspotObject {
  id: string;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
  archived?: boolean;
}

export interface HubspotPage<T> {
  results: T[];
  total?: number;
  paging?: { next?: { after: string; link?: string } };
}
