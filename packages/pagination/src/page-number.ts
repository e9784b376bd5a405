import { ValidationError, type FieldError } from '@patchbay/errors';

/** Page-size bounds of every page-number list: the spec leaves them open, so these are ours, documented in the README. */
export const PAGE_SIZE_DEFAULT = 20;
export const PAGE_SIZE_MAX = 100;

export interface PageParams {
  page: number;
  pageSize: number;
  /** Rows to skip: `(page - 1) * pageSize`. */
  offset: number;
}

/** What building links needs of a request; an express Request satisfies it. */
export interface RequestLike {
  protocol: string;
  originalUrl: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface PageNumberList<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/**
 * Reads and checks `page` and `page_size` (raw query values, so this works with or without tsoa).
 * A value out of bounds is a 400 that says what is allowed, never a silent clamp.
 */
export function parsePageParams(page: unknown, pageSize: unknown): PageParams {
  const errors: FieldError[] = [];
  const pageNumber = parsePositiveInt(page, 1);
  if (pageNumber === null) errors.push({ field: 'query.page', message: 'must be an integer of 1 or more' });
  const size = parsePositiveInt(pageSize, PAGE_SIZE_DEFAULT);
  if (size === null || size > PAGE_SIZE_MAX) errors.push({ field: 'query.page_size', message: `must be an integer from 1 to ${PAGE_SIZE_MAX}` });
  if (errors.length > 0 || pageNumber === null || size === null) throw new ValidationError(errors);
  return { page: pageNumber, pageSize: size, offset: (pageNumber - 1) * size };
}

function parsePositiveInt(value: unknown, fallback: number): number | null {
  if (value === undefined || value === null) return fallback;
  // Decimal digits only: Number() would also take '', '0x10', '1e1' and ' 2 '.
  if (typeof value === 'string' && !/^[0-9]{1,16}$/.test(value)) return null;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n) || n < 1) return null;
  return n;
}

/**
 * The public URL the client used for this request. Behind the edge router the service sees an
 * internal host, so the `X-Forwarded-*` headers the router sets win over the socket's view.
 */
export function publicRequestUrl(req: RequestLike, publicBaseUrl?: string): URL {
  if (publicBaseUrl) return new URL(req.originalUrl, withTrailingSlashless(publicBaseUrl) + '/');
  const proto = firstHeader(req.headers['x-forwarded-proto']) ?? req.protocol;
  const host = firstHeader(req.headers['x-forwarded-host']) ?? firstHeader(req.headers.host) ?? 'localhost';
  const prefix = firstHeader(req.headers['x-forwarded-prefix']) ?? '';
  return new URL(`${proto}://${host}${withTrailingSlashless(prefix)}${req.originalUrl}`);
}

/**
 * Set to "1" by the edge router only when X-Forwarded-Host came from a trusted load balancer
 * (EDGE_TRUST_FORWARDED), never from the client's own Host header.
 */
export const TRUSTED_HOST_HEADER = 'x-patchbay-trusted-host';

/**
 * The public base URL for links sent to end users (magic links, OAuth redirects), without a trailing
 * slash: the configured one, else the X-Forwarded-* headers only when the edge marked them trusted;
 * null when neither says. Never the client's Host header, which anyone can set (`Host: evil.example.com`).
 */
export function trustedPublicBaseUrl(req: RequestLike, configured: string | undefined): string | null {
  if (configured) return withTrailingSlashless(configured);
  if (firstHeader(req.headers[TRUSTED_HOST_HEADER]) !== '1') return null;
  return withTrailingSlashless(publicRequestUrl({ protocol: req.protocol, originalUrl: '', headers: req.headers }).toString());
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  const first = raw?.split(',')[0]?.trim();
  return first ? first : undefined;
}

function withTrailingSlashless(value: string): string {
  return value.endsWith('/') ? value.slice(0, -1) : value;
}

/** Wraps one page of rows with `count` and absolute `next`/`previous` links that keep every other query parameter. */
export function pageNumberList<T>(req: RequestLike, params: PageParams, count: number, results: T[], publicBaseUrl?: string): PageNumberList<T> {
  const url = publicRequestUrl(req, publicBaseUrl);
  const linkTo = (page: number): string => {
    const target = new URL(url.toString());
    target.searchParams.set('page', String(page));
    target.searchParams.set('page_size', String(params.pageSize));
    return target.toString();
  };
  const lastPage = Math.max(1, Math.ceil(count / params.pageSize));
  return {
    count,
    next: params.page < lastPage ? linkTo(params.page + 1) : null,
    previous: params.page > 1 ? linkTo(Math.min(params.page - 1, lastPage)) : null,
    results,
  };
}
