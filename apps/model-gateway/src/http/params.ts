import { isUuid } from '@patchbay/service-kit';
import { ManagementError } from './errors';

/** Query and path parameters the management routes share (several folders' routes read them). */
export function parsePaging(query: Record<string, unknown>): { offset: number; limit: number } {
  const offset = query.offset === undefined ? 0 : Number(query.offset);
  const limit = query.limit === undefined ? 100 : Number(query.limit);
  if (!Number.isInteger(offset) || offset < 0) throw new ManagementError(400, 'offset must be a whole number of 0 or more.');
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new ManagementError(400, 'limit must be a whole number from 1 to 500.');
  return { offset, limit };
}

export function requireUuid(value: string, what: string): string {
  if (!isUuid(value)) throw new ManagementError(404, `No ${what} ${value} in this organization.`);
  return value;
}
