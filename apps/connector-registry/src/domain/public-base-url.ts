import { ServiceUnavailableError } from '@patchbay/errors';
import { trustedPublicBaseUrl, type RequestLike } from '@patchbay/pagination';

/** Said when no trustworthy public URL is known: what the operator sets to fix it. */
export const NO_PUBLIC_URL =
  'Links for end users cannot be built: PATCHBAY_PUBLIC_URL is not set and no trusted load balancer named the public host. Set PATCHBAY_PUBLIC_URL (or EDGE_TRUST_FORWARDED behind a load balancer that sets X-Forwarded-Host).';

/**
 * The base URL browsers reach Patchbay at, without a trailing slash, for links sent to end users
 * (magic links, OAuth redirects): PATCHBAY_PUBLIC_URL, else a trusted load balancer's X-Forwarded-*
 * (see trustedPublicBaseUrl). Never the client's Host header.
 */
export function publicBaseUrl(req: RequestLike, configured: string | undefined): string {
  const url = trustedPublicBaseUrl(req, configured);
  if (url === null) throw new ServiceUnavailableError(NO_PUBLIC_URL);
  return url;
}
