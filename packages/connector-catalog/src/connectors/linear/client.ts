import type { ResponseHeaders } from '@patchbay/outbound';
import { createProviderClient, parseRetryAfter } from '../../core/provider-http';
import { ToolError } from '../../core/tool-error';
import type { InjectedCredential, ToolContext } from '../../core/types';

/** One entry of a GraphQL `errors` array as Linear sends it. */
interface LinearGraphqlError {
  message?: string;
  path?: Array<string | number>;
  extensions?: { code?: string; type?: string; userError?: boolean; userPresentableMessage?: string };
}

interface GraphqlBody<T> {
  data?: T | null;
  errors?: LinearGraphqlError[];
}

/**
 * Personal API keys go in `Authorization` as they are; OAuth access tokens as `Bearer <token>`
 * (https://linear.app/developers/graphql#authentication).
 */
function authHeaders(credential: InjectedCredential): Record<string, string> {
  if (credential.auth_type === 'oauth2') return { authorization: `Bearer ${credential.access_token ?? ''}` };
  return { authorization: credential.values.api_key ?? '' };
}

function errorsOf(body: unknown): LinearGraphqlError[] {
  if (typeof body !== 'object' || body === null) return [];
  const errors = (body as GraphqlBody<unknown>).errors;
  return Array.isArray(errors) ? errors : [];
}

function describe(error: LinearGraphqlError): string {
  const said = error.extensions?.userPresentableMessage;
  const message = error.message ?? 'unknown error';
  return (said && said !== message ? `${message} (${said})` : message).slice(0, 300);
}

/** Seconds to wait: Retry-After when sent, else the reset time (epoch milliseconds) of the exhausted budget. */
function retryAfterOf(headers: ResponseHeaders): number | undefined {
  const retryAfter = parseRetryAfter(headers.get('retry-after'));
  if (retryAfter !== undefined) return retryAfter;
  for (const name of ['x-ratelimit-requests-reset', 'x-ratelimit-complexity-reset']) {
    const remaining = headers.get(name.replace('-reset', '-remaining'));
    const reset = Number(headers.get(name));
    if (remaining === '0' && Number.isFinite(reset) && reset > 0) return Math.max(1, Math.ceil((reset - Date.now()) / 1000));
  }
  return undefined;
}

/**
 * Linear reports failures in a GraphQL `errors` array, with HTTP 200 for errors met while running the
 * operation (an unknown issue) and HTTP 400 (or 429) for a bad key, a rate limit or an invalid query,
 * so the kind comes from `extensions.code` and the message, not from the status.
 */
export function linearError(status: number, headers: ResponseHeaders, body: unknown): ToolError | undefined {
  const errors = errorsOf(body);
  const first = errors[0];
  if (!first) return undefined;
  const code = (first.extensions?.code ?? first.extensions?.type ?? '').toUpperCase().replace(/ /g, '_');
  const message = describe(first);
  if (code === 'AUTHENTICATION_ERROR') {
    return new ToolError('credential_rejected', `Linear rejected the stored credential: ${message}. The user must reconnect Linear.`, { status });
  }
  if (code === 'RATELIMITED' || status === 429) {
    const retryAfterSeconds = retryAfterOf(headers);
    const wait = retryAfterSeconds !== undefined ? `retry after ${retryAfterSeconds} s` : 'retry later';
    return new ToolError('rate_limited', `Linear rate limit reached: ${message}; ${wait}.`, { status, retryAfterSeconds });
  }
  if (code === 'FORBIDDEN' || code === 'FEATURE_NOT_ACCESSIBLE') {
    return new ToolError('forbidden', `Linear refused the request: ${message}. The stored credential lacks access or a permission for this action.`, { status });
  }
  if (/^entity not found/i.test(first.message ?? '')) {
    return new ToolError('not_found', `Linear found nothing there: ${message}. Check the identifiers in the input.`, { status });
  }
  if (code === 'INVALID_INPUT' || code === 'INPUT_ERROR' || code === 'USER_ERROR' || code === 'GRAPHQL_VALIDATION_FAILED' || code === 'BAD_USER_INPUT' || first.extensions?.userError) {
    return new ToolError('invalid_input', `Linear rejected the input: ${message}.`, { status });
  }
  if (status >= 500 || status === 200) return new ToolError('provider_error', `Linear could not complete the request: ${message}; retry later.`, { status });
  return undefined;
}

const request = createProviderClient({
  provider: 'Linear',
  authHeaders,
  errorMessage: (body) => {
    const first = errorsOf(body)[0];
    return first ? describe(first) : undefined;
  },
  errorFromBody: linearError,
});

/**
 * Runs one GraphQL operation against https://api.linear.app/graphql and returns its `data`, turning a
 * GraphQL `errors` array (even under HTTP 200) into a ToolError.
 */
export async function linearGraphql<T>(ctx: ToolContext, query: string, variables: Record<string, unknown>): Promise<T> {
  const res = await request<GraphqlBody<T>>(ctx, { method: 'POST', path: '/graphql', json: { query, variables } });
  const failure = linearError(res.status, res.headers, res.data);
  if (failure) throw failure;
  if (!res.data || typeof res.data !== 'object' || !res.data.data) throw new ToolError('provider_error', 'Linear answered without data; retry later.', { status: res.status });
  return res.data.data;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
