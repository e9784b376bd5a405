import { createProviderClient, parseRetryAfter, type QueryValue } from '../../core/provider-http';
import { ToolError, type ToolErrorKind } from '../../core/tool-error';
import type { InjectedCredential, ToolContext } from '../../core/types';

function token(credential: InjectedCredential): string {
  return credential.access_token ?? credential.values.bot_token ?? '';
}

const slackHttp = createProviderClient({
  provider: 'Slack',
  authHeaders: (credential) => ({ authorization: `Bearer ${token(credential)}` }),
  errorMessage: (body) => (typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string' ? (body as { error: string }).error : undefined),
});

/** Slack's own error codes, grouped by what the caller has to do about them. */
const ERROR_KINDS: Record<string, ToolErrorKind> = {
  invalid_auth: 'credential_rejected',
  not_authed: 'credential_rejected',
  token_revoked: 'credential_rejected',
  token_expired: 'credential_rejected',
  account_inactive: 'credential_rejected',
  no_such_token: 'credential_rejected',

  channel_not_found: 'not_found',
  user_not_found: 'not_found',
  users_not_found: 'not_found',
  message_not_found: 'not_found',
  thread_not_found: 'not_found',

  missing_scope: 'forbidden',
  not_in_channel: 'forbidden',
  is_archived: 'forbidden',
  cant_update_message: 'forbidden',
  edit_window_closed: 'forbidden',
  restricted_action: 'forbidden',
  restricted_action_read_only_channel: 'forbidden',
  restricted_action_thread_only_channel: 'forbidden',
  restricted_action_non_threadable_channel: 'forbidden',
  access_denied: 'forbidden',
  no_permission: 'forbidden',
  not_allowed_token_type: 'forbidden',
  team_access_not_granted: 'forbidden',
  ekm_access_denied: 'forbidden',
  user_is_restricted: 'forbidden',

  ratelimited: 'rate_limited',
  rate_limited: 'rate_limited',
  message_limit_exceeded: 'rate_limited',

  invalid_arguments: 'invalid_input',
  invalid_array_arg: 'invalid_input',
  invalid_cursor: 'invalid_input',
  invalid_limit: 'invalid_input',
  invalid_types: 'invalid_input',
  invalid_ts_latest: 'invalid_input',
  invalid_ts_oldest: 'invalid_input',
  invalid_name: 'invalid_input',
  invalid_blocks: 'invalid_input',
  invalid_blocks_format: 'invalid_input',
  invalid_attachments: 'invalid_input',
  invalid_metadata_format: 'invalid_input',
  invalid_charset: 'invalid_input',
  invalid_form_data: 'invalid_input',
  no_text: 'invalid_input',
  msg_too_long: 'invalid_input',
  no_item_specified: 'invalid_input',
  bad_timestamp: 'invalid_input',
  too_many_attachments: 'invalid_input',
  too_many_reactions: 'invalid_input',

  already_reacted: 'conflict',
};

/** What to tell the model for the kinds where Slack's code alone is not enough. */
function messageFor(kind: ToolErrorKind, code: string, body: SlackErrorBody, retryAfter: number | undefined): string {
  switch (kind) {
    case 'credential_rejected':
      return `Slack rejected the stored credential (${code}). The user must reconnect Slack.`;
    case 'forbidden':
      if (code === 'missing_scope') {
        const needed = body.needed ? ` (needs ${body.needed})` : '';
        return `Slack refused the request: the app lacks a permission scope${needed}. Reinstall the Slack app with that scope.`;
      }
      if (code === 'not_in_channel') return 'Slack refused the request (not_in_channel): the bot must be invited to the channel first (/invite @app in Slack).';
      return `Slack refused the request (${code}). The stored credential lacks access or a permission for this action.`;
    case 'not_found':
      return `Slack found nothing there (${code}). Check the identifiers in the input; private channels are visible only once the bot is a member.`;
    case 'rate_limited':
      return `Slack rate limit reached (${code}); ${retryAfter !== undefined ? `retry after ${retryAfter} s` : 'retry later'}.`;
    case 'invalid_input': {
      const details = body.response_metadata?.messages?.length ? `: ${body.response_metadata.messages.join('; ')}` : '';
      return `Slack rejected the input (${code})${details}.`;
    }
    case 'conflict':
      return `Slack reported a conflict (${code}).`;
    default:
      return `Slack could not complete the request (${code}); retry later.`;
  }
}

interface SlackErrorBody {
  ok: false;
  error?: string;
  needed?: string;
  response_metadata?: { messages?: string[] };
}

/** Every Web API answer: `ok` plus the method's fields, and a next cursor on paginated methods. */
export interface SlackEnvelope {
  ok: boolean;
  response_metadata?: { next_cursor?: string };
}

/**
 * Calls a Slack Web API method. Slack answers most failures with HTTP 200 and `{"ok": false,
 * "error": "<code>"}`, so the HTTP client's status mapping is not enough: the error code decides the
 * ToolError kind. Read methods take query arguments (GET); write methods take a JSON body (POST).
 */
export async function slackCall<T extends SlackEnvelope>(ctx: ToolContext, method: string, args: { query?: Record<string, QueryValue> } | { json: Record<string, unknown> }): Promise<T> {
  const res = await slackHttp<T | SlackErrorBody>(ctx, 'json' in args ? { method: 'POST', path: `/${method}`, json: args.json } : { method: 'GET', path: `/${method}`, query: args.query });
  const body = res.data;
  if (typeof body !== 'object' || body === null || typeof body.ok !== 'boolean') throw new ToolError('provider_error', `Slack answered ${method} with an unexpected body; retry later.`, { status: res.status });
  if (body.ok) return body as T;
  const failure = body as SlackErrorBody;
  const code = failure.error ?? 'unknown_error';
  const kind = ERROR_KINDS[code] ?? 'provider_error';
  const retryAfter = kind === 'rate_limited' ? parseRetryAfter(res.headers.get('retry-after')) : undefined;
  throw new ToolError(kind, messageFor(kind, code, failure, retryAfter), { status: res.status, retryAfterSeconds: retryAfter });
}

/** Slack's cursor for the next page, or null on the last page (Slack sends ""). */
export function nextCursor(envelope: SlackEnvelope): string | null {
  return envelope.response_metadata?.next_cursor || null;
}

/** A Slack timestamp (`1767225600.000100`, seconds since the epoch) as ISO 8601. */
export function isoFromTs(ts: string | number): string {
  return new Date(Math.floor(Number(ts) * 1000)).toISOString();
}
