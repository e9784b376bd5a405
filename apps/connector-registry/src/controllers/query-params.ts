import { ValidationError } from '@patchbay/errors';

/**
 * Query values are read as raw strings and checked here, so a bad value is a 400 naming
 * `query.<name>` with a message that says what is accepted (tsoa's own coercion names the
 * parameter without its location and accepts less).
 */

/** `true`/`false` (any case) or `1`/`0`; omitted or empty is undefined. */
export function parseBooleanQuery(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw ValidationError.forField(`query.${name}`, 'must be true or false');
}

/** A comma-separated list of allowed values (case-insensitive, returned as the allowed spelling); undefined when omitted. */
export function parseEnumListQuery<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T[] | undefined {
  if (value === undefined || value === '') return undefined;
  const result: T[] = [];
  for (const raw of value.split(',')) {
    const match = allowed.find((a) => a.toLowerCase() === raw.trim().toLowerCase());
    if (!match) throw ValidationError.forField(`query.${name}`, `must be one of ${allowed.join(', ')}, or several of them separated by commas; got "${raw.trim()}"`);
    if (!result.includes(match)) result.push(match);
  }
  return result;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/i;

/**
 * An ISO 8601 date-time with a UTC offset (`2026-01-31T12:00:00Z`, `...+02:00`), or a date alone
 * (midnight UTC). A time without an offset is refused rather than read in the server's time zone.
 */
export function parseDateTimeQuery(name: string, value: string | undefined): Date | undefined {
  if (value === undefined || value === '') return undefined;
  // An unencoded '+' of an offset arrives as a space (form encoding of query strings).
  const v = value.trim().replace(/ (\d{2}:?\d{2})$/, '+$1');
  const ms = DATE_TIME.test(v) ? Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v) : Number.NaN;
  if (Number.isNaN(ms)) throw ValidationError.forField(`query.${name}`, 'must be an ISO 8601 date-time with a UTC offset, e.g. 2026-01-31T12:00:00Z, or a date such as 2026-01-31');
  return new Date(ms);
}

/** A free-text search term: trimmed; omitted or blank is undefined; longer than 255 characters is a 400. */
export function searchQuery(value: string | undefined): string | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  if (v.length > 255) throw ValidationError.forField('query.search', 'must be at most 255 characters');
  return v;
}
