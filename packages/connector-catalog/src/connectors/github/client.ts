import { createProviderClient } from '../../core/provider-http';
import type { InjectedCredential } from '../../core/types';

function token(credential: InjectedCredential): string {
  return credential.access_token ?? credential.values.token ?? '';
}

/** GitHub REST API v3: bearer token, versioned media type, rate limits as 403 with x-ratelimit-remaining: 0. */
export const githubRequest = createProviderClient({
  provider: 'GitHub',
  authHeaders: (credential) => ({ authorization: `Bearer ${token(credential)}` }),
  defaultHeaders: { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'user-agent': 'patchbay' },
  isRateLimited: (status, headers) => status === 403 && headers.get('x-ratelimit-remaining') === '0',
});
