import { ServiceUnavailableError } from '@patchbay/errors';
import { SERVICE_TOKEN_HEADER } from './service-token';
import type { KeyPrincipal } from './principal';
import type { KeyLoader } from './verifier';

export const VERIFY_PATH = '/internal/v1/access-keys/verify';

/**
 * Asks access-keys-and-audit about a key hash. Only the hash crosses the wire; the raw key
 * stays in the service that received it.
 */
export function httpKeyLoader(options: { baseUrl: string; serviceToken: string; timeoutMs?: number; fetchImpl?: typeof fetch }): KeyLoader {
  const url = new URL(VERIFY_PATH, options.baseUrl).toString();
  const doFetch = options.fetchImpl ?? fetch;
  return async (keyHash) => {
    let res: Response;
    try {
      res = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [SERVICE_TOKEN_HEADER]: options.serviceToken },
        body: JSON.stringify({ key_hash: keyHash }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 3000),
      });
    } catch {
      throw new ServiceUnavailableError('Access keys cannot be verified right now; retry shortly.');
    }
    if (res.status === 404) return null;
    if (!res.ok) throw new ServiceUnavailableError('Access keys cannot be verified right now; retry shortly.');
    return (await res.json()) as KeyPrincipal;
  };
}
