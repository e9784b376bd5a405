import { principalOf } from '@patchbay/auth';
import type { Request } from 'express';
import { AuthenticationError } from '@patchbay/errors';
import { ACCOUNT_TOKEN_HEADER, ACCOUNT_TOKEN_INVALID, LINKED_ACCOUNT_ID_QUERY, accountNamedBySession, resolveAccountToken, type AccountIdentity } from '../domain/account-tokens';
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

/**
 * The linked account a data route acts on, within the caller's organization and environment: the one
 * named by X-Account-Token (keys and sessions; else 401), or, for a member's console session only, the
 * one named by the `linked_account_id` query parameter (else 404). The route's permission was checked
 * before this runs (tsoa security).
 */
export async function accountOf(req: Request): Promise<AccountIdentity> {
  const services = servicesOf(req);
  const principal = principalOf(req);
  const named = req.query[LINKED_ACCOUNT_ID_QUERY];
  if (named !== undefined) {
    // A console browsing an account is not the integration using it: it neither keeps the account's
    // syncs from pausing for idleness nor resumes them.
    return accountNamedBySession(services.db, principal, named, req.headers[ACCOUNT_TOKEN_HEADER]);
  }
  const account = await resolveAccountToken(services.accountTokens, principal, req.headers[ACCOUNT_TOKEN_HEADER]);
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
