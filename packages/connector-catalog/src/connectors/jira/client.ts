import { createProviderClient, type ProviderRequest, type ProviderResponse } from '../../core/provider-http';
import { ToolError } from '../../core/tool-error';
import type { InjectedCredential, ToolContext } from '../../core/types';

function authHeaders(credential: InjectedCredential): Record<string, string> {
  if (credential.auth_type === 'oauth2') return { authorization: `Bearer ${credential.access_token ?? ''}` };
  const basic = Buffer.from(`${credential.values.email ?? ''}:${credential.values.api_token ?? ''}`).toString('base64');
  return { authorization: `Basic ${basic}` };
}

/** Jira answers `{"errorMessages": [...], "errors": {"field": "message"}}`; both halves matter to a model. */
export function jiraErrorMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as { errorMessages?: unknown; errors?: unknown; message?: unknown };
  const parts: string[] = [];
  if (Array.isArray(b.errorMessages)) parts.push(...b.errorMessages.filter((m): m is string => typeof m === 'string' && m !== ''));
  if (typeof b.errors === 'object' && b.errors !== null) {
    for (const [field, message] of Object.entries(b.errors as Record<string, unknown>)) {
      if (typeof message === 'string') parts.push(`${field}: ${message}`);
    }
  }
  // api.atlassian.com's own gateway errors (OAuth) use {code, message}.
  if (parts.length === 0 && typeof b.message === 'string') parts.push(b.message);
  return parts.length > 0 ? parts.join('; ').slice(0, 500) : undefined;
}

const request = createProviderClient({
  provider: 'Jira',
  authHeaders,
  errorMessage: jiraErrorMessage,
});

/**
 * Jira Cloud REST API v3. With an API token the calls go to the user's site (site_url) with HTTP Basic
 * email:token. OAuth 2.0 (3LO) tokens are only accepted by Atlassian's gateway, at
 * https://api.atlassian.com/ex/jira/{cloud_id}/rest/api/3/..., so the cloud id is put in front of the path.
 */
export async function jiraRequest<T = unknown>(ctx: ToolContext, req: ProviderRequest): Promise<ProviderResponse<T>> {
  const { credential } = ctx;
  if (credential.auth_type === 'oauth2') {
    const cloudId = credential.values.cloud_id;
    if (!cloudId) throw new ToolError('credential_rejected', 'The Jira connection has no cloud ID, which OAuth calls need. The user must reconnect Jira and enter the site\'s cloud ID.');
    return request<T>(ctx, { ...req, path: `/${encodeURIComponent(cloudId)}${req.path}` });
  }
  if (!credential.values.site_url) throw new ToolError('credential_rejected', 'The Jira connection has no site URL. The user must reconnect Jira with their site URL (https://<site>.atlassian.net).');
  return request<T>(ctx, req);
}
