import { randomBytes } from 'node:crypto';
import { hashAccessKey, type KeyPrincipal } from '@patchbay/auth';
import { AuthenticationError } from '@patchbay/errors';
import type { Db, Tx } from '../db';
import type { LinkedAccount } from '../generated/prisma/client';

export const ACCOUNT_TOKEN_HEADER = 'x-account-token';

/**
 * One message for every account-token failure (missing, wrong, revoked, another organization's or
 * environment's): a caller learns nothing about which tokens exist.
 */
export const ACCOUNT_TOKEN_INVALID =
  'Missing or invalid account token. Send the header "X-Account-Token: <account token>" of a linked account of this organization and environment (the token is returned once when the account is linked, and by regeneration).';

/** A new account token: 256 random bits; only its SHA-256 is stored. */
export function generateAccountToken(): { token: string; hash: string } {
  const token = `pbat_${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashAccessKey(token) };
}

/**
 * The linked account an `X-Account-Token` designates, within the key's organization and environment.
 * Anything else is the same 401.
 */
export async function resolveAccountToken(db: Db | Tx, principal: KeyPrincipal, header: string | string[] | undefined): Promise<LinkedAccount> {
  const token = Array.isArray(header) ? undefined : header?.trim();
  if (!token) throw new AuthenticationError(ACCOUNT_TOKEN_INVALID);
  const account = await db.linkedAccount.findUnique({ where: { accountTokenHash: hashAccessKey(token) } });
  if (!account || account.organizationId !== principal.organizationId || account.environment !== principal.environment) {
    throw new AuthenticationError(ACCOUNT_TOKEN_INVALID);
  }
  return account;
}
