import { publicRequestUrl, type RequestLike } from '@patchbay/pagination';

/**
 * The base URL browsers reach Patchbay at, without a trailing slash: PATCHBAY_PUBLIC_URL when set
 * (path prefix kept), else what the edge router's X-Forwarded-* headers say the client used.
 */
export function publicBaseUrl(req: RequestLike, configured: string | undefined): string {
  if (configured) return configured.replace(/\/+$/, '');
  return publicRequestUrl({ protocol: req.protocol, originalUrl: '', headers: req.headers }).toString().replace(/\/+$/, '');
}
