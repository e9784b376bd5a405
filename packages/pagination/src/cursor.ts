import { ValidationError } from '@patchbay/errors';

/**
 * Keyset cursors for Merge-style lists (`next`, `previous`, `results`). A cursor is opaque to clients:
 * base64url JSON of the sort key of the row it points after (or before) and the direction.
 */
export const CURSOR_PAGE_SIZE_DEFAULT = 100;
export const CURSOR_PAGE_SIZE_MAX = 100;

export type CursorDirection = 'next' | 'previous';

export interface CursorPosition {
  /** The sort values of the boundary row, last one the unique id that breaks ties. */
  key: Array<string | number>;
  direction: CursorDirection;
}

export interface CursorList<T> {
  next: string | null;
  previous: string | null;
  results: T[];
}

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify({ k: position.key, d: position.direction === 'next' ? 'n' : 'p' }), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): CursorPosition {
  const invalid = () => ValidationError.forField('query.cursor', 'is not a cursor this API returned; send the next or previous value of an earlier page unchanged');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (typeof parsed !== 'object' || parsed === null) throw invalid();
  const { k, d } = parsed as { k?: unknown; d?: unknown };
  if (!Array.isArray(k) || k.length === 0 || !k.every((v) => typeof v === 'string' || typeof v === 'number') || (d !== 'n' && d !== 'p')) throw invalid();
  return { key: k as Array<string | number>, direction: d === 'n' ? 'next' : 'previous' };
}

export function parseCursorPageSize(pageSize: unknown): number {
  if (pageSize === undefined || pageSize === null) return CURSOR_PAGE_SIZE_DEFAULT;
  // Decimal digits only, as for page-number lists: Number() would also take '', '0x10' and '1e1'.
  const n = typeof pageSize === 'string' && !/^[0-9]{1,16}$/.test(pageSize) ? NaN : Number(pageSize);
  if (!Number.isSafeInteger(n) || n < 1 || n > CURSOR_PAGE_SIZE_MAX) {
    throw ValidationError.forField('query.page_size', `must be an integer from 1 to ${CURSOR_PAGE_SIZE_MAX}`);
  }
  return n;
}

/**
 * Builds a cursor page from rows fetched with one extra row (`pageSize + 1`) in the direction of travel.
 * `rows` must already be in the order of the list (for a `previous` request the caller fetched
 * backwards and reversed them). `keyOf` gives a row's sort key.
 */
export function cursorList<T>(
  rows: T[],
  options: { pageSize: number; from: CursorPosition | null; keyOf: (row: T) => Array<string | number> },
): CursorList<T> {
  const { pageSize, from, keyOf } = options;
  const hasMore = rows.length > pageSize;
  let results = rows;
  if (hasMore) results = from?.direction === 'previous' ? rows.slice(rows.length - pageSize) : rows.slice(0, pageSize);
  const first = results[0];
  const last = results[results.length - 1];
  const movingBack = from?.direction === 'previous';
  const moreAfter = movingBack ? true : hasMore;
  const moreBefore = movingBack ? hasMore : from !== null;
  return {
    next: moreAfter && last !== undefined ? encodeCursor({ key: keyOf(last), direction: 'next' }) : null,
    previous: moreBefore && first !== undefined ? encodeCursor({ key: keyOf(first), direction: 'previous' }) : null,
    results,
  };
}
