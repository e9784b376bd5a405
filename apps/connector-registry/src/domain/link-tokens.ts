import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { assertRegisteredUserInScope, type KeyPrincipal } from '@patchbay/auth';
import type { AuthOption, ConnectorDefinition, CredentialField, OAuth2Config } from '@patchbay/connector-catalog';
import { NotFoundError, NotInScopeError, ValidationError, type FieldError } from '@patchbay/errors';
import { QUEUE_NAMES, addToOutbox } from '@patchbay/queues';
import type { Db, Tx } from '../db';
import type { ApplicationCredential, AuthScope, LinkToken, RegisteredUser } from '../generated/prisma/client';
import { emitAudit } from './audit';
import { resolveConnector } from './connectors';
import { isUuid } from './ids';
import { effectiveOAuthConfig, type OAuthEndpointOverride } from './oauth-client';
import { storeCredential, type StoredSecret } from './store-credential';
import type { SecretBox } from '@patchbay/secrets';

/** Body of POST /api/v1/registered-users/{registered_user_id}/link-token/. */
export interface LinkTokenInput {
  /** Slug of the connector the user will authenticate with. */
  connector: string;
  /** Picks the organization's application credential (OAuth app) of that connector with this external_id. */
  external_id?: string | null;
  /** Where the browser goes after authentication; its origin must be one of the organization's allowed callback origins. */
  callback_url?: string | null;
  /** Anti-forgery value returned to callback_url as `state`; requires callback_url. */
  state?: string | null;
  /**
   * Whose credential the link stores: INDIVIDUAL (default) the registered user's own; SHARED the
   * user's company (origin_company_id of shared_credential_group); ORGANIZATION the whole organization's.
   */
  auth_scope?: 'INDIVIDUAL' | 'SHARED' | 'ORGANIZATION' | null;
}

/** Response of POST .../link-token/: the token is shown once; only its SHA-256 is stored. */
export interface LinkTokenRecord {
  /** The single-use token (also the last path segment of magic_link_url). */
  link_token: string;
  /** The page to open in a browser: `<public URL>/link/<link_token>`. */
  magic_link_url: string;
  /** When the link stops working (ISO 8601 UTC). */
  expires_at: string;
  /** Slug of the connector. */
  connector: string;
  registered_user_id: string;
  auth_scope: AuthScope;
}

const MAX_STATE = 1024;
const MAX_URL = 2048;

export function hashLinkToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function newLinkToken(): string {
  return `lt_${randomBytes(32).toString('base64url')}`;
}

/** The ways a connector's users authenticate through a magic link: OAuth 2.0, a form, or both. */
export interface LinkAuthMethods {
  oauth?: { config: OAuth2Config; fields: CredentialField[] };
  form?: { type: 'api_key' | 'bearer_token'; fields: CredentialField[] };
}

export function linkAuthMethods(connector: ConnectorDefinition, overrides?: Record<string, OAuthEndpointOverride>): LinkAuthMethods {
  const methods: LinkAuthMethods = {};
  const oauth = connector.auth_options.find((o): o is Extract<AuthOption, { type: 'oauth2' }> => o.type === 'oauth2');
  if (oauth) methods.oauth = { config: effectiveOAuthConfig(connector.slug, oauth.oauth2, overrides), fields: oauth.credential_fields };
  const form = connector.auth_options.find((o): o is Extract<AuthOption, { type: 'api_key' | 'bearer_token' }> => o.type !== 'oauth2');
  if (form) methods.form = { type: form.type, fields: form.credential_fields };
  return methods;
}

/** The registered user of the URL, in the key's organization and environment and within its restriction list. */
export async function findRegisteredUserInScope(db: Db, principal: KeyPrincipal, registeredUserId: string): Promise<RegisteredUser> {
  assertRegisteredUserInScope(principal, registeredUserId);
  const user = isUuid(registeredUserId)
    ? await db.registeredUser.findFirst({ where: { id: registeredUserId, organizationId: principal.organizationId, environment: principal.environment } })
    : null;
  if (!user) throw new NotInScopeError();
  return user;
}

function checkCallbackUrl(principal: KeyPrincipal, raw: string, errors: FieldError[]): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    errors.push({ field: 'body.callback_url', message: 'must be an absolute URL' });
    return;
  }
  if (raw.length > MAX_URL) errors.push({ field: 'body.callback_url', message: `must be at most ${MAX_URL} characters` });
  else if (url.protocol !== 'https:' && url.protocol !== 'http:') errors.push({ field: 'body.callback_url', message: 'must be an http(s) URL' });
  else if (url.username || url.password) errors.push({ field: 'body.callback_url', message: 'must not contain credentials' });
  else if (!principal.organization.callbackOrigins.includes(url.origin)) {
    errors.push({ field: 'body.callback_url', message: `its origin ${url.origin} is not among the organization's allowed callback origins` });
  } else if (url.searchParams.has('state')) {
    errors.push({ field: 'body.callback_url', message: 'must not contain a state query parameter; pass it in the state field instead' });
  }
}

/**
 * Creates a single-use link token for one registered user and one connector. Every problem with the
 * body is a 400 naming its field, and nothing is written then.
 */
export async function createLinkToken(
  deps: { db: Db; ttlSeconds: number },
  principal: KeyPrincipal,
  registeredUserId: string,
  input: LinkTokenInput,
  publicBaseUrl: string,
): Promise<LinkTokenRecord> {
  const user = await findRegisteredUserInScope(deps.db, principal, registeredUserId);
  const errors: FieldError[] = [];
  let connectorSlug: string | undefined;
  const slug = input.connector.trim();
  if (slug === '') {
    errors.push({ field: 'body.connector', message: 'is required: the slug of a connector' });
  } else {
    try {
      const connector = await resolveConnector(deps.db, principal, slug);
      if (connector.kind === 'custom') {
        errors.push({ field: 'body.connector', message: `"${slug}" is a custom MCP connector: it uses the secret given at its registration, so users have nothing to authenticate` });
      } else if (connector.definition.auth_options.length === 0) {
        errors.push({ field: 'body.connector', message: `"${slug}" has no way for a user to authenticate` });
      } else {
        connectorSlug = slug;
      }
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      errors.push({ field: 'body.connector', message: `no connector with slug "${slug}"` });
    }
  }

  let applicationCredential: ApplicationCredential | null = null;
  const externalId = input.external_id ?? null;
  if (externalId !== null && connectorSlug !== undefined) {
    applicationCredential = await deps.db.applicationCredential.findFirst({
      where: { organizationId: principal.organizationId, environment: principal.environment, connectorSlug, externalKey: externalId },
    });
    if (externalId === '' || !applicationCredential) {
      errors.push({ field: 'body.external_id', message: `no application credential of connector "${connectorSlug}" has external_id "${externalId}"` });
    }
  }

  const callbackUrl = input.callback_url ?? null;
  if (callbackUrl !== null) checkCallbackUrl(principal, callbackUrl, errors);
  const state = input.state ?? null;
  if (state !== null) {
    if (callbackUrl === null) errors.push({ field: 'body.state', message: 'requires callback_url: the state is returned to it' });
    else if (state.length > MAX_STATE) errors.push({ field: 'body.state', message: `must be at most ${MAX_STATE} characters` });
  }

  const authScope: AuthScope = input.auth_scope ?? 'INDIVIDUAL';
  if (authScope === 'SHARED' && user.originCompanyId.trim() === '') {
    errors.push({ field: 'body.auth_scope', message: 'SHARED needs the registered user to have shared_credential_group.origin_company_id' });
  }

  if (errors.length > 0 || connectorSlug === undefined) throw new ValidationError(errors);

  const token = newLinkToken();
  const expiresAt = new Date(Date.now() + deps.ttlSeconds * 1000);
  await deps.db.$transaction(async (tx) => {
    const row = await tx.linkToken.create({
      data: {
        organizationId: principal.organizationId,
        environment: principal.environment,
        tokenHash: hashLinkToken(token),
        registeredUserId: user.id,
        connectorSlug: connectorSlug as string,
        authScope,
        applicationCredentialId: applicationCredential?.id ?? null,
        callbackUrl,
        state,
        expiresAt,
      },
    });
    await emitAudit(tx, principal, {
      eventType: 'link_token.created',
      resourceType: 'link_token',
      resourceId: row.id,
      userId: user.id,
      details: {
        connector: connectorSlug,
        auth_scope: authScope,
        external_id: externalId,
        callback_origin: callbackUrl === null ? null : new URL(callbackUrl).origin,
        expires_at: expiresAt.toISOString(),
      },
    });
  });
  return {
    link_token: token,
    magic_link_url: `${publicBaseUrl}/link/${token}`,
    expires_at: expiresAt.toISOString(),
    connector: connectorSlug,
    registered_user_id: user.id,
    auth_scope: authScope,
  };
}

/** A link token as a page request finds it. */
export type LinkLookup =
  | { status: 'unknown' }
  | { status: 'used' | 'expired' | 'active'; row: LinkToken };

function statusOf(row: LinkToken, now: Date): 'used' | 'expired' | 'active' {
  if (row.usedAt !== null) return 'used';
  if (row.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

export async function findLinkToken(db: Db, token: string, now = new Date()): Promise<LinkLookup> {
  if (token.length > 200) return { status: 'unknown' };
  const row = await db.linkToken.findUnique({ where: { tokenHash: hashLinkToken(token) } });
  return row ? { status: statusOf(row, now), row } : { status: 'unknown' };
}

/** The pending OAuth flow of the `state` the provider sent back. */
export async function findLinkTokenByOAuthState(db: Db, oauthState: string, now = new Date()): Promise<LinkLookup> {
  if (oauthState === '' || oauthState.length > 200) return { status: 'unknown' };
  const row = await db.linkToken.findUnique({ where: { oauthState } });
  return row ? { status: statusOf(row, now), row } : { status: 'unknown' };
}

/** The registered user a link token is for, if it still exists. */
export async function linkTokenUser(db: Db, row: LinkToken): Promise<RegisteredUser | null> {
  return db.registeredUser.findFirst({ where: { id: row.registeredUserId, organizationId: row.organizationId, environment: row.environment } });
}

/**
 * The OAuth app the flow uses: the one the token was created for (external_id), else the
 * organization's application credential of the connector without external_id. Null when none exists.
 */
export async function applicationCredentialFor(db: Db, row: LinkToken): Promise<ApplicationCredential | null> {
  const where = { organizationId: row.organizationId, environment: row.environment, connectorSlug: row.connectorSlug };
  if (row.applicationCredentialId !== null) return db.applicationCredential.findFirst({ where: { ...where, id: row.applicationCredentialId } });
  return db.applicationCredential.findFirst({ where: { ...where, externalKey: '' } });
}

/** Sealing context of the pending OAuth flow's secrets (PKCE verifier) on a link token. */
export function linkFlowContext(linkTokenId: string): string {
  return `link-token:${linkTokenId}`;
}

/** What is sealed in `pkce_verifier_sealed` while the user is at the provider. */
export interface PendingOAuthFlow {
  code_verifier: string;
  /** Values of the OAuth option's own credential_fields (a site URL), filled in before Connect. */
  values: Record<string, string>;
}

/** Records a started OAuth flow; starting again replaces the previous one (its state stops matching). */
export async function recordOAuthStart(db: Db, box: Pick<SecretBox, 'sealJson'>, row: LinkToken, flow: { oauthState: string; applicationCredentialId: string; pending: PendingOAuthFlow }): Promise<boolean> {
  const updated = await db.linkToken.updateMany({
    where: { id: row.id, usedAt: null, expiresAt: { gt: new Date() } },
    data: { oauthState: flow.oauthState, applicationCredentialId: flow.applicationCredentialId, pkceVerifierSealed: box.sealJson(flow.pending, linkFlowContext(row.id)) },
  });
  return updated.count === 1;
}

/** Forgets a pending OAuth flow, so its state and code cannot be replayed after a failure. */
export async function clearOAuthFlow(db: Db, row: LinkToken): Promise<void> {
  await db.linkToken.updateMany({ where: { id: row.id, oauthState: row.oauthState }, data: { oauthState: null, pkceVerifierSealed: null } });
}

export class LinkNoLongerUsableError extends Error {
  constructor() {
    super('the link token was used or expired meanwhile');
    this.name = 'LinkNoLongerUsableError';
  }
}

/**
 * Stores the credential obtained through a link and marks the link used, in one transaction: a
 * link completes at most once even if two tabs finish at the same moment. The audit event's actor
 * is `system` (the end user in the browser holds no access key); it names the link token.
 */
export async function completeLink(
  deps: { db: Db; box: Pick<SecretBox, 'sealJson'> },
  row: LinkToken,
  credential: { authType: string; secret: StoredSecret; applicationCredentialId: string | null },
): Promise<{ connectionId: string }> {
  return deps.db.$transaction(async (tx: Tx) => {
    const now = new Date();
    const marked = await tx.linkToken.updateMany({
      where: { id: row.id, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now, oauthState: null, pkceVerifierSealed: null },
    });
    if (marked.count !== 1) throw new LinkNoLongerUsableError();
    const user = await tx.registeredUser.findFirst({ where: { id: row.registeredUserId, organizationId: row.organizationId, environment: row.environment } });
    if (!user) throw new LinkNoLongerUsableError();
    const { connection, created } = await storeCredential(tx, deps.box, {
      organizationId: row.organizationId,
      environment: row.environment,
      connectorSlug: row.connectorSlug,
      authScope: row.authScope,
      registeredUserId: user.id,
      companyId: user.originCompanyId,
      authType: credential.authType,
      secret: credential.secret,
      applicationCredentialId: credential.applicationCredentialId,
    });
    await addToOutbox(tx, {
      queue: QUEUE_NAMES.auditEvents,
      payload: {
        event_id: randomUUID(),
        organization_id: row.organizationId,
        environment: row.environment,
        event_type: created ? 'connection.created' : 'connection.updated',
        occurred_at: now.toISOString(),
        actor: { type: 'system' },
        user_id: user.id,
        resource_type: 'connection',
        resource_id: connection.id,
        source_service: 'connector-registry',
        details: { connector: row.connectorSlug, auth_scope: row.authScope, auth_type: credential.authType, link_token_id: row.id, via: 'magic_link' },
      },
    });
    return { connectionId: connection.id };
  });
}
