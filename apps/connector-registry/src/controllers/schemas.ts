import type { ErrorEnvelope } from '@patchbay/errors';

/** The error body: `{detail, code}`, plus field errors for validation errors. */
export type ErrorBody = ErrorEnvelope;

export interface PaginatedList<T> {
  count: number;
  /** Absolute URL of the next page, or null on the last page. */
  next: string | null;
  /** Absolute URL of the previous page, or null on the first page. */
  previous: string | null;
  results: T[];
}
