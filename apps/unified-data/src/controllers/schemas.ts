import { principalOf } from '@patchbay/auth';
import type { Request } from 'express';
import { AuthenticationError } from '@patchbay/errors';
import { ACCOUNT_TOKEN_HEADER, ACCOUNT_TOKEN_INVALID, resolveAccountToken, type AccountIdentity } from '../domain/account-tokens';
import type { LinkedAccount } from '../generated/prisma/client';
import { servicesOf } from '../services';

/** The error envelope of every 4xx/5xx: `{"detail": "...", "code": "..."}` (validation errors add `errors`). */
export interface ErrorBody {
  detail: string;
  code: string;
  errors?: Array<{ field: string; message: string }>;
}

/** Merge's cursor list. */
export interface Paginated<T> {
  /** Cursor of the next page, or null at the end. */
  next: string | null;
  /** Cursor of the previous page, or null on the first. */
  previous: string | null;
  results: T[];
}

/** The linked account named by X-Account-Token, within the key's organization and environment (else 401). */
export async function accountOf(req: Request): Promise<AccountIdentity> {
  const services = servicesOf(req);
  const account = await resolveAccountToken(services.accountTokens, principalOf(req), req.headers[ACCOUNT_TOKEN_HEADER]);
  // An inbound request keeps the account's syncs from pausing for idleness (and resumes them if they had).
  await services.activity.touch(account.id);
  return account;
}

/** The same, as the linked account's current row: for the routes that act on its sync settings. */
export async function linkedAccountOf(req: Request): Promise<LinkedAccount> {
  const { id } = await accountOf(req);
  const account = await servicesOf(req).db.linkedAccount.findUnique({ where: { id } });
  // Deleted a moment ago on another replica: the token is gone with it.
  if (!account) throw new AuthenticationError(ACCOUNT_TOKEN_INVALID);
  return account;
}
