import { randomBytes, randomUUID } from 'node:crypto';
import { hashAccessKey, type KeyPrincipal } from '@patchbay/auth';
import { NotFoundError, ValidationError, type FieldError } from '@patchbay/errors';
import type { Platform } from '@patchbay/marketing-platforms';
import { TokenExchangeError, authorizeUrl, createPkcePair, exchangeAuthorizationCode, randomOAuthState } from '@patchbay/oauth';
import type { LinkToken, LinkedAccount } from '../generated/prisma/client';
import type { AppServices } from '../services';
import { accountTokenChanged, generateAccountToken, stageAccountTokenChange } from './account-tokens';
import { AUDIT, auditLinkedAccount } from './audit';
import { insertLinkedAccount, parseEndUser, scheduleAfterCommit, toLinkedAccountView } from './linked-accounts';
import { CREDENTIAL_FIELDS, isPlatform, parseCredentials, sealCredentials } from './platform-credentials';
import { credentialsFromTokens, oauthClientFor } from './platform-oauth';
import { checkCredentials } from './linked-accounts';

export interface LinkTokenInput {
  end_user_origin_id: string;
  end_user_organization_name: string;
  end_user_email_address?: string;
  /** Limit the page to one platform (hubspot, zoom or eventbrite); omitted: the end user chooses. */
  integration?: string;
  /** Minutes the magic link stays valid (30 to 10080); default LINK_TOKEN_TTL_SECONDS. */
  link_expiry_mins?: number;
}

export interface LinkTokenCreated {
  link_token: string;
  integration_name: string | null;
  /** The page the end user opens to link their account. */
  magic_link_url: string;
  expires_at: string;
}

export interface AccountTokenExchange {
  account_token: string;
  /** The linked account's id. */
  id: string;
  integration: { name: string; slug: Platform };
}

function publicBase(services: AppServices, forwarded: { proto?: string; host?: string }): string {
  if (services.config.PATCHBAY_PUBLIC_URL) return services.config.PATCHBAY_PUBLIC_URL.replace(/\/$/, '');
  return `${forwarded.proto ?? 'http'}://${forwarded.host ?? 'localhost'}`;
}

/** POST /link-token: a single-use link token and its magic-link URL (Merge Link's first step). */
export async function createLinkToken(
  services: AppServices,
  principal: KeyPrincipal,
  body: LinkTokenInput,
  forwarded: { proto?: string; host?: string },
): Promise<LinkTokenCreated> {
  const raw = body as unknown as Record<string, unknown>;
  const errors: FieldError[] = [];
  const endUser = parseEndUser(raw, errors);
  let platform: Platform | null = null;
  if (raw.integration !== undefined && raw.integration !== null) {
    if (isPlatform(raw.integration)) platform = raw.integration;
    else errors.push({ field: 'body.integration', message: 'must be one of hubspot, zoom, eventbrite' });
  }
  let ttlSeconds = services.config.LINK_TOKEN_TTL_SECONDS;
  if (raw.link_expiry_mins !== undefined) {
    const m = raw.link_expiry_mins;
    if (typeof m !== 'number' || !Number.isInteger(m) || m < 30 || m > 10_080) errors.push({ field: 'body.link_expiry_mins', message: 'must be an integer from 30 to 10080' });
    else ttlSeconds = m * 60;
  }
  if (errors.length > 0) throw new ValidationError(errors);
  const token = `pblt_${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
  await services.db.linkToken.create({
    data: {
      id: randomUUID(),
      tokenHash: hashAccessKey(token),
      organizationId: principal.organizationId,
      environment: principal.environment,
      createdByKeyId: principal.keyId,
      platform,
      endUserOriginId: endUser.originId,
      endUserOrganizationName: endUser.organizationName,
      endUserEmailAddress: endUser.email,
      expiresAt,
    },
  });
  return {
    link_token: token,
    integration_name: platform ? CREDENTIAL_FIELDS[platform].label : null,
    magic_link_url: `${publicBase(services, forwarded)}/api/mktg/v1/link/${token}`,
    expires_at: expiresAt.toISOString(),
  };
}

export class LinkPageError extends Error {}

/** The link token behind a magic-link URL, if it can still be used. */
export async function openLinkToken(services: AppServices, token: string): Promise<LinkToken> {
  const row = await services.db.linkToken.findUnique({ where: { tokenHash: hashAccessKey(token) } });
  if (!row || row.expiresAt.getTime() <= Date.now()) throw new LinkPageError('This link has expired or does not exist. Ask for a new one.');
  if (row.completedAt) throw new LinkPageError('This link was already used. Ask for a new one to link again.');
  return row;
}

/**
 * The end user submitted the magic-link page: checks the credentials with the platform, links the
 * account (or relinks the end user's existing one), and returns the single-use public token.
 */
export async function completeLink(services: AppServices, token: string, form: Record<string, unknown>): Promise<{ publicToken: string; account: LinkedAccount }> {
  const link = await openLinkToken(services, token);
  const platform = chosenPlatform(link, form.platform);
  const credentials = parseCredentials(
    platform,
    Object.fromEntries(Object.entries(form).filter(([k, v]) => k !== 'platform' && typeof v === 'string' && v.trim() !== '')),
    'credentials',
  );
  return linkWithCredentials(services, link, platform, credentials);
}

function chosenPlatform(link: LinkToken, asked: unknown): Platform {
  const chosen = link.platform ?? asked;
  if (!isPlatform(chosen)) throw ValidationError.forField('platform', 'choose hubspot, zoom or eventbrite');
  return chosen;
}

/**
 * Links (or relinks) the link token's end user with checked credentials: the API token of the form,
 * or the OAuth tokens of the sign-in. Returns the single-use public token.
 */
async function linkWithCredentials(services: AppServices, link: LinkToken, platform: Platform, credentials: Record<string, string>): Promise<{ publicToken: string; account: LinkedAccount }> {
  const info = await checkCredentials(services, platform, credentials);
  const principal: KeyPrincipal = {
    keyId: link.createdByKeyId,
    organizationId: link.organizationId,
    environment: link.environment,
  } as KeyPrincipal;
  const publicToken = `pbpt_${randomBytes(32).toString('base64url')}`;
  const account = await services.db.$transaction(async (tx) => {
    // Claim the link token first: two submissions of one page link once.
    const claimed = await tx.linkToken.updateMany({ where: { id: link.id, completedAt: null }, data: { completedAt: new Date() } });
    if (claimed.count !== 1) throw new LinkPageError('This link was already used. Ask for a new one to link again.');
    const existing = await tx.linkedAccount.findFirst({
      where: { organizationId: link.organizationId, environment: link.environment, endUserOriginId: link.endUserOriginId },
    });
    let row: LinkedAccount;
    if (existing) {
      // Relink: new credentials on the same account (Merge keeps one linked account per end user).
      row = await tx.linkedAccount.update({
        where: { id: existing.id },
        data: {
          platform,
          credentialsSealed: sealCredentials(services.box, existing.id, credentials),
          status: existing.status === 'RELINK_NEEDED' ? 'COMPLETE' : existing.status,
          statusDetail: null,
          remoteAccountId: info.remoteAccountId,
          remoteAccountName: info.name,
        },
      });
      await auditLinkedAccount(tx, principal, AUDIT.linked, row.id, { platform, end_user_origin_id: link.endUserOriginId, via: 'link', relink: true });
    } else {
      row = (
        await insertLinkedAccount(
          tx,
          services,
          principal,
          {
            platform,
            credentials,
            originId: link.endUserOriginId,
            organizationName: link.endUserOrganizationName,
            email: link.endUserEmailAddress,
            syncFrequencySeconds: services.config.MKTG_SYNC_FREQUENCY_SECONDS,
            info,
          },
          'link',
        )
      ).row;
    }
    await tx.linkToken.update({
      where: { id: link.id },
      data: {
        linkedAccountId: row.id,
        publicTokenHash: hashAccessKey(publicToken),
        publicTokenExpiresAt: new Date(Date.now() + services.config.PUBLIC_TOKEN_TTL_SECONDS * 1000),
      },
    });
    return row;
  });
  void services.relay.kick();
  await scheduleAfterCommit(services, account);
  if (account.status === 'COMPLETE') await services.scheduler.enqueue(account, 'incremental', 'manual').catch(() => undefined);
  return { publicToken, account };
}

/**
 * GET /account-token/{public_token}: the public token, once, for the linked account's account token
 * (a new one each time: tokens are stored only as hashes, so a relinked account gets a fresh token).
 */
export async function exchangePublicToken(services: AppServices, principal: KeyPrincipal, publicToken: string): Promise<AccountTokenExchange> {
  const notFound = new NotFoundError('Public token not found, expired or already exchanged: each public token works once, within minutes of linking.');
  const { token, hash } = generateAccountToken();
  const account = await services.db.$transaction(async (tx) => {
    const link = await tx.linkToken.findUnique({ where: { publicTokenHash: hashAccessKey(publicToken) } });
    if (
      !link ||
      link.organizationId !== principal.organizationId ||
      link.environment !== principal.environment ||
      !link.linkedAccountId ||
      !link.publicTokenExpiresAt ||
      link.publicTokenExpiresAt.getTime() <= Date.now()
    ) {
      throw notFound;
    }
    const used = await tx.linkToken.updateMany({ where: { id: link.id, publicTokenUsedAt: null }, data: { publicTokenUsedAt: new Date() } });
    if (used.count !== 1) throw notFound;
    // The account may have been deleted since the page was completed.
    const updated = await tx.linkedAccount.updateMany({ where: { id: link.linkedAccountId }, data: { accountTokenHash: hash } });
    if (updated.count !== 1) throw notFound;
    // A relinked account had a token already: that one stops working now.
    await stageAccountTokenChange(tx, link.linkedAccountId);
    return tx.linkedAccount.findUniqueOrThrow({ where: { id: link.linkedAccountId } });
  });
  await accountTokenChanged(services.accountTokens, services.relay, account.id);
  const view = toLinkedAccountView(account);
  return { account_token: token, id: account.id, integration: view.integration };
}

/** What is sealed in `oauth_pending_sealed` while the end user is at the platform's authorize page. */
interface PendingOAuth {
  platform: Platform;
  code_verifier: string;
  redirect_uri: string;
}

const pendingContext = (linkTokenId: string) => `mktg_link_token_oauth:${linkTokenId}`;

/** Where the platform sends the browser back; register it as the OAuth app's redirect URI. */
export const OAUTH_CALLBACK_PATH = '/api/mktg/v1/link/oauth/callback';

/** The platforms the page may offer "Sign in with ..." for: those with an OAuth app configured. */
export function oauthPlatforms(services: AppServices, link: LinkToken): Platform[] {
  const candidates: Platform[] = link.platform && isPlatform(link.platform) ? [link.platform] : ['hubspot', 'zoom', 'eventbrite'];
  return candidates.filter((p) => oauthClientFor(p, services.config) !== null);
}

/**
 * The end user chose "Sign in with <platform>": a PKCE pair and a state for this link token (a new
 * one replaces an unfinished one), the verifier sealed, and the platform's authorize URL to go to.
 */
export async function startOAuth(services: AppServices, token: string, askedPlatform: unknown, forwarded: { proto?: string; host?: string }): Promise<string> {
  const link = await openLinkToken(services, token);
  const platform = chosenPlatform(link, askedPlatform);
  const client = oauthClientFor(platform, services.config);
  if (!client) throw ValidationError.forField('platform', `${CREDENTIAL_FIELDS[platform].label} sign-in is not set up on this installation; enter an API token instead`);
  const pkce = createPkcePair();
  const state = randomOAuthState();
  const redirectUri = `${publicBase(services, forwarded)}${OAUTH_CALLBACK_PATH}`;
  const pending: PendingOAuth = { platform, code_verifier: pkce.verifier, redirect_uri: redirectUri };
  const started = await services.db.linkToken.updateMany({
    where: { id: link.id, completedAt: null },
    data: { oauthState: state, oauthPendingSealed: services.box.sealJson(pending, pendingContext(link.id)) },
  });
  if (started.count !== 1) throw new LinkPageError('This link was already used. Ask for a new one to link again.');
  return authorizeUrl(client.provider, { clientId: client.clientId, redirectUri, scopes: client.scopes, state, codeChallenge: pkce.challenge });
}

/**
 * The platform sent the browser back with `code` (or `error`) and `state`: the state is claimed once,
 * the code exchanged with the PKCE verifier, and the account linked with the tokens (sealed). Throws
 * LinkPageError with a message for the end user.
 */
export async function finishOAuth(services: AppServices, query: Record<string, unknown>, fetchImpl: typeof fetch = fetch): Promise<{ publicToken: string; account: LinkedAccount; link: LinkToken }> {
  const state = typeof query.state === 'string' ? query.state : '';
  const unknownState = new LinkPageError('This sign-in is unknown, expired or was already finished. Open your link again to retry.');
  if (state === '' || state.length > 200) throw unknownState;
  const link = await services.db.linkToken.findUnique({ where: { oauthState: state } });
  if (!link || link.oauthPendingSealed === null) throw unknownState;
  // The state works once: a replayed callback (or a second tab) finds nothing.
  const claimed = await services.db.linkToken.updateMany({ where: { id: link.id, oauthState: state }, data: { oauthState: null, oauthPendingSealed: null } });
  if (claimed.count !== 1) throw unknownState;
  if (link.expiresAt.getTime() <= Date.now()) throw new LinkPageError('This link has expired. Ask for a new one.');
  if (link.completedAt) throw new LinkPageError('This link was already used. Ask for a new one to link again.');
  const pending = services.box.openJson<PendingOAuth>(link.oauthPendingSealed, pendingContext(link.id));
  const label = CREDENTIAL_FIELDS[pending.platform].label;
  if (typeof query.error === 'string') {
    const why = query.error === 'access_denied' ? 'You did not allow access.' : `${label} answered ${query.error.slice(0, 100)}.`;
    throw new LinkPageError(`${why} Nothing was linked; open your link again to retry.`);
  }
  const code = typeof query.code === 'string' ? query.code : '';
  if (code === '') throw new LinkPageError(`${label} sent no authorization code back. Open your link again to retry.`);
  const client = oauthClientFor(pending.platform, services.config);
  if (!client) throw new LinkPageError(`${label} sign-in is no longer set up on this installation. Enter an API token instead.`);
  let credentials: Record<string, string>;
  try {
    const tokens = await exchangeAuthorizationCode(fetchImpl, client.provider, {
      code,
      redirectUri: pending.redirect_uri,
      codeVerifier: pending.code_verifier,
      clientId: client.clientId,
      clientSecret: client.clientSecret,
    });
    credentials = credentialsFromTokens(tokens, Date.now());
  } catch (err) {
    if (!(err instanceof TokenExchangeError)) throw err;
    throw new LinkPageError(`Signing in with ${label} could not be finished. ${err.description} Nothing was linked; open your link again to retry.`);
  }
  const linked = await linkWithCredentials(services, link, pending.platform, credentials);
  return { ...linked, link };
}
