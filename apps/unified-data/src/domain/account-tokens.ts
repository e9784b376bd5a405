import { randomBytes } from 'node:crypto';
import { KeyVerifier, addKeyInvalidationToOutbox, hashAccessKey, type CacheablePrincipal, type KeyPrincipal } from '@patchbay/auth';
import { AuthenticationError, NotFoundError, ValidationError } from '@patchbay/errors';
import { isUuid } from '@patchbay/service-kit';
import type { OutboxRelay, OutboxWriter } from '@patchbay/queues';
import type { Db } from '../db';

export const ACCOUNT_TOKEN_HEADER = 'x-account-token';
/** The query parameter by which a member's console session names the linked account of a data route. */
export const LINKED_ACCOUNT_ID_QUERY = 'linked_account_id';

/**
 * One message for every account-token failure (missing, wrong, revoked, another organization's or
 * environment's): a caller learns nothing about which tokens exist.
 */
export const ACCOUNT_TOKEN_INVALID =
  'Missing or invalid account token. Send the header "X-Account-Token: <account token>" of a linked account of this organization and environment (the token is returned once when the account is linked, and by regeneration).';

/** The same for a member's session, which may also name the account by its id. */
export const ACCOUNT_TOKEN_INVALID_FOR_SESSION =
  'Missing or invalid account token. A console session names the linked account with the query parameter linked_account_id=<id>; otherwise send the header "X-Account-Token: <account token>" of a linked account of this organization and environment.';

/** A new account token: 256 random bits; only its SHA-256 is stored. */
export function generateAccountToken(): { token: string; hash: string } {
  const token = `pbat_${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashAccessKey(token) };
}

/** What an account token stands for: the linked account, whose organization, environment and platform never change. */
export interface AccountIdentity extends CacheablePrincipal {
  /** The linked account's id (also `keyId`, so invalidating by it drops the account's token). */
  id: string;
  environment: string;
  platform: string;
}

/** Where replicas hear that an account token changed (regenerated, relinked, or the account deleted). */
export const ACCOUNT_TOKEN_INVALIDATION_CHANNEL = 'patchbay:unified-data:account-tokens:invalidate';

export type AccountTokens = KeyVerifier<AccountIdentity>;

/**
 * Account tokens verified from an in-process cache, as access keys are: a page request costs no
 * database lookup for its token. A token change records its invalidation in its own transaction
 * (stageAccountTokenChange); the relay publishes it after the commit, or as soon as Redis answers if
 * it did not, and every replica drops the entry (a replica serves no cached token while its
 * subscription is not confirmed).
 */
export function accountTokenCache(db: Db, options: { ttlMs?: number } = {}): AccountTokens {
  return new KeyVerifier<AccountIdentity>({
    channel: ACCOUNT_TOKEN_INVALIDATION_CHANNEL,
    ttlMs: options.ttlMs,
    loader: async (hash) => {
      const row = await db.linkedAccount.findUnique({ where: { accountTokenHash: hash }, select: { id: true, organizationId: true, environment: true, platform: true } });
      return row ? { ...row, keyId: row.id, expiresAt: null } : null;
    },
  });
}

/** Inside the transaction that changes or removes an account's token: its invalidation commits with it. */
export async function stageAccountTokenChange(tx: OutboxWriter, linkedAccountId: string): Promise<void> {
  await addKeyInvalidationToOutbox(tx, { keyId: linkedAccountId }, ACCOUNT_TOKEN_INVALIDATION_CHANNEL);
}

/** How long the change's answer waits for the invalidation's publish (it is kept and sent later if Redis is slower). */
const PUBLISH_WAIT_MS = 1_000;

/** After that transaction committed: the old token stops working here at once, and on every replica once published. */
export async function accountTokenChanged(tokens: AccountTokens, relay: Pick<OutboxRelay, 'kickWithin'>, linkedAccountId: string): Promise<void> {
  tokens.invalidate({ keyId: linkedAccountId });
  await relay.kickWithin(PUBLISH_WAIT_MS);
}

/**
 * The linked account an `X-Account-Token` designates, within the key's organization and environment.
 * Anything else is the same 401.
 */
export async function resolveAccountToken(tokens: AccountTokens, principal: KeyPrincipal, header: string | string[] | undefined): Promise<AccountIdentity> {
  const token = Array.isArray(header) ? undefined : header?.trim();
  if (!token) throw new AuthenticationError(principal.member ? ACCOUNT_TOKEN_INVALID_FOR_SESSION : ACCOUNT_TOKEN_INVALID);
  const account = await tokens.lookup(hashAccessKey(token));
  if (!account || account.organizationId !== principal.organizationId || account.environment !== principal.environment) {
    throw new AuthenticationError(ACCOUNT_TOKEN_INVALID);
  }
  return account;
}

/**
 * The linked account a member's console session names by id (`?linked_account_id=`), within the
 * session's organization and environment; anything else is a 404 that says nothing about other
 * tenants. Keys keep naming accounts by their token only: an id is not a secret, so accepting it from a
 * key would let any key of the organization read every account, which the token exists to prevent.
 * The session's permission for the route (view_linked_accounts, manage_linked_accounts or
 * force_resync) is checked before this runs.
 */
export async function accountNamedBySession(
  db: Db,
  principal: KeyPrincipal,
  value: unknown,
  tokenHeader: string | string[] | undefined,
): Promise<AccountIdentity> {
  if (!principal.member) {
    throw ValidationError.forField(
      `query.${LINKED_ACCOUNT_ID_QUERY}`,
      'is accepted from console sessions only; an access key names the linked account with the header "X-Account-Token: <account token>"',
    );
  }
  if (tokenHeader !== undefined) {
    throw ValidationError.forField(`query.${LINKED_ACCOUNT_ID_QUERY}`, 'names the linked account already: send it or the header X-Account-Token, not both');
  }
  if (typeof value !== 'string' || value === '') {
    throw ValidationError.forField(`query.${LINKED_ACCOUNT_ID_QUERY}`, 'must be the id of one linked account (a UUID)');
  }
  const notFound = () => new NotFoundError(`No linked account ${value} in this organization and environment.`);
  if (!isUuid(value)) throw notFound();
  const row = await db.linkedAccount.findFirst({
    where: { id: value, organizationId: principal.organizationId, environment: principal.environment },
    select: { id: true, organizationId: true, environment: true, platform: true },
  });
  if (!row) throw notFound();
  return { ...row, keyId: row.id, expiresAt: null };
}
