import type { FieldError } from '@patchbay/errors';

/**
 * A list's date-time filter (`created_after`, `created_before`...): undefined when absent; otherwise
 * the date, or undefined with a field error pushed onto `errors` so the caller reports every bad
 * parameter at once.
 */
export function parseDateTimeQuery(field: string, value: string | undefined, errors: FieldError[]): Date | undefined {
  if (value === undefined || value === '') return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
    errors.push({ field: `query.${field}`, message: 'must be an ISO 8601 date-time, e.g. 2026-11-01T00:00:00Z' });
    return undefined;
  }
  return date;
}
