import { createHash } from 'node:crypto';
import { AuthenticationError, ConflictError, NotFoundError, PermissionDeniedError, ServiceUnavailableError, ValidationError, type FieldError } from '@patchbay/errors';
import { createGuardedFetch, type OutboundPolicy } from '@patchbay/outbound';
import { BUILT_IN_ROLES } from '@patchbay/permissions';
import type { SecretBox } from '@patchbay/secrets';
import type { Cluster, Redis } from 'ioredis';
import * as oidc from 'openid-client';
import type { Db } from '../../db';
import { recordAuditEvent } from '../audit-log';
import { AUDIT_EVENT_TYPES } from '../event-types';
import type { SessionPrincipal } from '../members/session-principal';
import { memberEvent, normalizeEmail } from '../members/sessions';

/** The organization's single sign-on settings as the API shows them: the client secret never leaves. */
export interface SsoSettings {
  enabled: boolean;
  discovery_url: string;
  client_id: string;
  /** Last four characters of the client secret, to tell which one is set. */
  client_secret_last4: string;
  allowed_domains: string[];
  require_sso: boolean;
  /** Role given to a person of an allowed domain who signs in without an invitation; null: they are refused. */
  jit_role_id: string | null;
  /** Give this to the identity provider as the redirect (callback) URI. */
  redirect_uri: string;
  updated_at: string;
}

export interface SsoSettingsInput {
  discovery_url?: string;
  client_id?: string;
  /** Required when setting up; leave out to keep the stored one. */
  client_secret?: string;
  allowed_domains?: string[];
  require_sso?: boolean;
  jit_role_id?: string | null;
  enabled?: boolean;
}

/** What the browser's start of a sign-in is bound to (Redis, under the hash of `state`). */
interface SsoAttempt {
  organizationId: string;
  codeVerifier: string;
  nonce: string;
  returnTo: string;
  /** The console's sign-in page, for errors and the two-factor step. */
  signInPath: string;
  /** The discovery URL the attempt began with: settings changed meanwhile end it. */
  discoveryUrl: string;
}

/** How long a started single sign-on may take at the identity provider. */
export const SSO_ATTEMPT_SECONDS = 600;
const ATTEMPT_PREFIX = 'patchbay:sso:attempt';
const secretContext = (organizationId: string) => `sso:${organizationId}`;
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
/** Discovery documents are fetched again after this long, or at once when the settings change. */
const DISCOVERY_CACHE_MS = 10 * 60_000;

export interface SsoIdentity {
  email: string;
  name: string;
  subject: string;
  issuer: string;
}

export class SsoService {
  private readonly fetch: typeof fetch;
  private readonly discovered = new Map<string, { config: oidc.Configuration; at: number; key: string }>();

  constructor(
    private readonly db: Db,
    private readonly redis: Redis | Cluster,
    private readonly secrets: SecretBox | undefined,
    private readonly policy: OutboundPolicy,
    private readonly now: () => number = Date.now,
  ) {
    // The discovery URL is the organization's input: every request to the issuer (discovery, keys,
    // token) goes through the outbound guard, https only unless the private network is allowed (tests).
    this.fetch = createGuardedFetch(policy, { requireHttps: !policy.allowPrivateNetwork });
  }

  private box(): SecretBox {
    if (!this.secrets) throw new ServiceUnavailableError('Single sign-on needs encryption keys for secrets at rest: set PATCHBAY_ENCRYPTION_KEYS (pnpm start does).');
    return this.secrets;
  }

  async get(organizationId: string, redirectUri: string): Promise<SsoSettings> {
    const row = await this.db.ssoConnection.findUnique({ where: { organizationId } });
    if (!row) throw new NotFoundError('Single sign-on is not set up for this organization.');
    return view(row, redirectUri);
  }

  /** Sets up or changes single sign-on. The issuer's discovery document is fetched first, so a wrong URL is refused now, not at sign-in. */
  async put(actor: SessionPrincipal, input: SsoSettingsInput, redirectUri: string): Promise<SsoSettings> {
    const existing = await this.db.ssoConnection.findUnique({ where: { organizationId: actor.organizationId } });
    const errors: FieldError[] = [];
    const discoveryUrl = input.discovery_url ?? existing?.discoveryUrl;
    const clientId = input.client_id ?? existing?.clientId;
    if (!discoveryUrl) errors.push({ field: 'body.discovery_url', message: 'is required: the issuer\'s discovery URL, e.g. https://login.example.com/.well-known/openid-configuration' });
    else {
      try {
        const url = new URL(discoveryUrl);
        if (url.protocol !== 'https:' && !(this.policy.allowPrivateNetwork && url.protocol === 'http:')) errors.push({ field: 'body.discovery_url', message: 'must be an https:// URL' });
      } catch {
        errors.push({ field: 'body.discovery_url', message: 'is not a URL' });
      }
    }
    if (!clientId || clientId.length > 500) errors.push({ field: 'body.client_id', message: 'is required (up to 500 characters): the client id the identity provider gave Patchbay' });
    if (input.client_secret !== undefined && (typeof input.client_secret !== 'string' || input.client_secret === '' || input.client_secret.length > 2000)) errors.push({ field: 'body.client_secret', message: 'must be 1 to 2000 characters' });
    if (!existing && input.client_secret === undefined) errors.push({ field: 'body.client_secret', message: 'is required when setting up single sign-on' });
    const domains = input.allowed_domains !== undefined ? input.allowed_domains.map((d) => String(d).trim().toLowerCase().replace(/^@/, '')) : existing?.allowedDomains ?? [];
    if (domains.length === 0 || domains.length > 50) errors.push({ field: 'body.allowed_domains', message: 'needs 1 to 50 email domains, e.g. ["example.com"]' });
    for (const d of domains) if (!DOMAIN.test(d)) errors.push({ field: 'body.allowed_domains', message: `"${d.slice(0, 100)}" is not an email domain like example.com` });
    const jitRoleId = input.jit_role_id !== undefined ? input.jit_role_id : existing?.jitRoleId ?? null;
    if (jitRoleId !== null && !BUILT_IN_ROLES.some((r) => r.id === jitRoleId)) errors.push({ field: 'body.jit_role_id', message: `must be null (refuse people without an invitation) or a built-in role id: ${BUILT_IN_ROLES.map((r) => r.id).join(', ')}` });
    if (jitRoleId === 'admin') errors.push({ field: 'body.jit_role_id', message: 'cannot be admin: people joining without an invitation get at most developer' });
    if (input.require_sso !== undefined && typeof input.require_sso !== 'boolean') errors.push({ field: 'body.require_sso', message: 'must be true or false' });
    if (input.enabled !== undefined && typeof input.enabled !== 'boolean') errors.push({ field: 'body.enabled', message: 'must be true or false' });
    if (errors.length > 0) throw new ValidationError(errors);
    const uniqueDomains = [...new Set(domains)];
    const claimed = await this.db.ssoConnection.findFirst({ where: { organizationId: { not: actor.organizationId }, allowedDomains: { hasSome: uniqueDomains } }, select: { allowedDomains: true } });
    if (claimed) {
      const taken = uniqueDomains.filter((d) => claimed.allowedDomains.includes(d));
      throw new ConflictError(`The email domain ${taken.join(', ')} already signs in to another organization's single sign-on; a domain belongs to one organization.`);
    }
    const clientSecret = input.client_secret ?? (existing ? this.box().open(existing.clientSecretSealed, secretContext(actor.organizationId)) : '');
    // Refuse a discovery URL that does not answer with an issuer's metadata now, with the reason.
    await this.discover(actor.organizationId, discoveryUrl!, clientId!, clientSecret, true);
    const data = {
      discoveryUrl: discoveryUrl!,
      clientId: clientId!,
      clientSecretSealed: this.box().seal(clientSecret, secretContext(actor.organizationId)),
      clientSecretLast4: clientSecret.slice(-4),
      allowedDomains: uniqueDomains,
      requireSso: input.require_sso ?? existing?.requireSso ?? false,
      jitRoleId,
      enabled: input.enabled ?? existing?.enabled ?? true,
    };
    const row = await this.db.$transaction(async (tx) => {
      const saved = await tx.ssoConnection.upsert({ where: { organizationId: actor.organizationId }, create: { organizationId: actor.organizationId, ...data }, update: data });
      await recordAuditEvent(tx, ssoEvent(actor, AUDIT_EVENT_TYPES.ssoConfigured, {
        discovery_url: data.discoveryUrl,
        client_id: data.clientId,
        client_secret_changed: input.client_secret !== undefined,
        allowed_domains: data.allowedDomains,
        require_sso: data.requireSso,
        jit_role_id: data.jitRoleId,
        enabled: data.enabled,
      }));
      return saved;
    });
    this.discovered.delete(actor.organizationId);
    return view(row, redirectUri);
  }

  async remove(actor: SessionPrincipal): Promise<void> {
    await this.db.$transaction(async (tx) => {
      const removed = await tx.ssoConnection.deleteMany({ where: { organizationId: actor.organizationId } });
      if (removed.count === 0) throw new NotFoundError('Single sign-on is not set up for this organization.');
      await recordAuditEvent(tx, ssoEvent(actor, AUDIT_EVENT_TYPES.ssoRemoved, {}));
    });
    this.discovered.delete(actor.organizationId);
  }

  /**
   * Starts a sign-in: finds the organization by the email's domain (or by id), and returns the
   * identity provider's authorization URL (code flow with PKCE S256, state and nonce) and the state,
   * which the caller binds to the browser in an HttpOnly cookie.
   */
  async start(input: { email?: string; organization_id?: string; return_to?: string }, redirectUri: string, signInPath: string): Promise<{ authorizationUrl: string; state: string }> {
    let row;
    if (input.organization_id) {
      row = await this.db.ssoConnection.findUnique({ where: { organizationId: input.organization_id } });
    } else if (input.email) {
      const domain = normalizeEmail(input.email).split('@')[1];
      if (!domain) throw ValidationError.forField('body.email', 'is not an email address');
      row = await this.db.ssoConnection.findFirst({ where: { allowedDomains: { has: domain } } });
    } else {
      throw ValidationError.forField('body.email', 'is required (or organization_id): your work email tells which organization\'s single sign-on to use');
    }
    if (!row || !row.enabled) throw new NotFoundError('Single sign-on is not set up for this email domain. Sign in with your password, or ask an admin of your organization.');
    const returnTo = safeReturnPath(input.return_to);
    const config = await this.discover(row.organizationId, row.discoveryUrl, row.clientId, this.box().open(row.clientSecretSealed, secretContext(row.organizationId)));
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const attempt: SsoAttempt = { organizationId: row.organizationId, codeVerifier, nonce, returnTo, signInPath, discoveryUrl: row.discoveryUrl };
    await this.redis.set(attemptKey(state), JSON.stringify(attempt), 'EX', SSO_ATTEMPT_SECONDS);
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid email profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      ...(input.email ? { login_hint: input.email } : {}),
    });
    return { authorizationUrl: url.href, state };
  }

  /**
   * The identity provider's redirect back: the state must be the one this browser started with (its
   * cookie), used once; the code is exchanged with the PKCE verifier and the ID token's nonce checked.
   */
  async finish(callbackUrl: URL, browserState: string | undefined, redirectUri: string): Promise<{ organizationId: string; identity: SsoIdentity; returnTo: string; signInPath: string }> {
    const state = callbackUrl.searchParams.get('state');
    if (!state || !browserState || state !== browserState) {
      throw new AuthenticationError('This single sign-on answer does not belong to a sign-in started in this browser (or it took over 10 minutes). Start again.');
    }
    const raw = await this.redis.getdel(attemptKey(state));
    if (!raw) throw new AuthenticationError('This single sign-on attempt was already used or took over 10 minutes. Start again.');
    const attempt = JSON.parse(raw) as SsoAttempt;
    const error = callbackUrl.searchParams.get('error');
    if (error) {
      const description = callbackUrl.searchParams.get('error_description');
      throw new AuthenticationError(`The identity provider refused the sign-in: ${error.slice(0, 100)}${description ? ` (${description.slice(0, 200)})` : ''}.`);
    }
    const row = await this.db.ssoConnection.findUnique({ where: { organizationId: attempt.organizationId } });
    if (!row || !row.enabled || row.discoveryUrl !== attempt.discoveryUrl) throw new AuthenticationError('Single sign-on settings changed during this sign-in. Start again.');
    const config = await this.discover(row.organizationId, row.discoveryUrl, row.clientId, this.box().open(row.clientSecretSealed, secretContext(row.organizationId)));
    // openid-client compares the redirect URI's origin and path with the callback's: give it ours, with the IdP's parameters.
    const current = new URL(redirectUri);
    current.search = callbackUrl.search;
    let claims: Record<string, unknown> & { sub: string; iss: string };
    try {
      const tokens = await oidc.authorizationCodeGrant(config, current, { pkceCodeVerifier: attempt.codeVerifier, expectedState: state, expectedNonce: attempt.nonce, idTokenExpected: true });
      const idClaims = tokens.claims();
      if (!idClaims) throw new AuthenticationError('The identity provider sent no ID token.');
      claims = idClaims;
      // Providers that follow the core spec strictly put scope claims (email, name) in the UserInfo
      // answer only, not in the ID token: ask there when the ID token lacks them.
      if (typeof claims.email !== 'string' && config.serverMetadata().userinfo_endpoint) {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub);
        claims = { ...info, ...idClaims, email: info.email, email_verified: info.email_verified, name: idClaims.name ?? info.name };
      }
    } catch (err) {
      if (err instanceof AuthenticationError) throw err;
      throw new AuthenticationError(`Single sign-on failed at the identity provider's token step: ${describe(err)}`);
    }
    const email = typeof claims.email === 'string' ? claims.email : undefined;
    if (!email) throw new AuthenticationError('The identity provider sent no email claim: allow the "email" scope for Patchbay\'s client.');
    if (claims.email_verified === false) throw new AuthenticationError('The identity provider says this email address is not verified.');
    const domain = normalizeEmail(email).split('@')[1] ?? '';
    if (!row.allowedDomains.includes(domain)) {
      throw new PermissionDeniedError(`The email ${email} is not in a domain this organization's single sign-on allows (${row.allowedDomains.join(', ')}).`);
    }
    const name = typeof claims.name === 'string' && claims.name.trim() !== '' ? claims.name.trim().slice(0, 200) : email.split('@')[0]!;
    return { organizationId: row.organizationId, identity: { email, name, subject: claims.sub, issuer: claims.iss }, returnTo: attempt.returnTo, signInPath: attempt.signInPath };
  }

  /**
   * Who the identity belongs to in the organization (just in time): an active member signs in; an
   * invited one joins (the invitation is used); someone else joins with the organization's jit role
   * if it has one, else is refused. Disabled members are refused.
   */
  async resolveMember(organizationId: string, identity: SsoIdentity): Promise<{ user: { id: string; email: string; totpEnabled: boolean }; membership: { id: string; organizationId: string } }> {
    const emailNormalized = normalizeEmail(identity.email);
    const sso = await this.db.ssoConnection.findUniqueOrThrow({ where: { organizationId } });
    return this.db.$transaction(async (tx) => {
      let user = await tx.user.findUnique({ where: { emailNormalized } });
      const membership = user ? await tx.membership.findUnique({ where: { organizationId_userId: { organizationId, userId: user.id } } }) : null;
      const refuse = async (reason: string, message: string) => {
        if (membership) {
          await recordAuditEvent(this.db, memberEvent(organizationId, membership.id, AUDIT_EVENT_TYPES.memberSsoRefused, { email: identity.email, reason }, 'system'));
        }
        throw new PermissionDeniedError(message);
      };
      if (membership?.status === 'disabled') return refuse('disabled', 'Your membership of this organization is disabled. Ask an admin of the organization.');
      if (membership?.status === 'active') return { user: { id: user!.id, email: user!.email, totpEnabled: user!.totpEnabledAt !== null }, membership };
      const now = new Date(this.now());
      if (membership?.status === 'invited') {
        const invitation = await tx.invitation.findFirst({ where: { organizationId, emailNormalized, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } } });
        if (!invitation) return refuse('invitation_expired', 'Your invitation to this organization expired or was revoked. Ask an admin of the organization for a new one.');
        await tx.invitation.update({ where: { id: invitation.id }, data: { acceptedAt: now } });
        if (!user!.name) user = await tx.user.update({ where: { id: user!.id }, data: { name: identity.name } });
        const joined = await tx.membership.update({ where: { id: membership.id }, data: { status: 'active', roleIds: invitation.roleIds, customRoleIds: invitation.customRoleIds } });
        await recordAuditEvent(tx, memberEvent(organizationId, joined.id, AUDIT_EVENT_TYPES.memberJoined, { email: user!.email, invitation_id: invitation.id, via: 'sso' }));
        return { user: { id: user!.id, email: user!.email, totpEnabled: user!.totpEnabledAt !== null }, membership: joined };
      }
      if (!sso.jitRoleId) {
        throw new PermissionDeniedError(`${identity.email} is not a member of this organization. Single sign-on lets invited members in; ask an admin of the organization for an invitation.`);
      }
      if (!user) user = await tx.user.create({ data: { email: identity.email, emailNormalized, name: identity.name } });
      const joined = await tx.membership.create({ data: { organizationId, userId: user.id, status: 'active', roleIds: [sso.jitRoleId], customRoleIds: [] } });
      await recordAuditEvent(tx, memberEvent(organizationId, joined.id, AUDIT_EVENT_TYPES.memberJoined, { email: user.email, via: 'sso', role_ids: [sso.jitRoleId] }));
      return { user: { id: user.id, email: user.email, totpEnabled: user.totpEnabledAt !== null }, membership: joined };
    });
  }

  private async discover(organizationId: string, discoveryUrl: string, clientId: string, clientSecret: string, fresh = false): Promise<oidc.Configuration> {
    const key = createHash('sha256').update(`${discoveryUrl}\n${clientId}\n${clientSecret}`).digest('hex');
    const cached = this.discovered.get(organizationId);
    if (!fresh && cached && cached.key === key && this.now() - cached.at < DISCOVERY_CACHE_MS) return cached.config;
    const guarded = this.fetch;
    const customFetch: oidc.CustomFetch = (url, options) => guarded(url, { ...options, signal: options.signal ?? AbortSignal.timeout(10_000) } as RequestInit);
    let config: oidc.Configuration;
    try {
      config = await oidc.discovery(new URL(discoveryUrl), clientId, clientSecret, undefined, {
        [oidc.customFetch]: customFetch,
        ...(this.policy.allowPrivateNetwork ? { execute: [oidc.allowInsecureRequests] } : {}),
      });
    } catch (err) {
      throw ValidationError.forField('body.discovery_url', `did not give an OpenID Connect discovery document: ${describe(err)}`);
    }
    this.discovered.set(organizationId, { config, at: this.now(), key });
    return config;
  }
}

/** Where to go after signing in: a path on this origin only (never //host or a scheme), else the console. */
export function safeReturnPath(value: string | undefined, fallback = '/console/'): string {
  if (typeof value !== 'string' || value.length > 2000) return fallback;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\') || /[\r\n]/.test(value)) return fallback;
  return value;
}


function attemptKey(state: string): string {
  return `${ATTEMPT_PREFIX}:${createHash('sha256').update(state).digest('hex')}`;
}

function describe(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string; code?: string }; error?: string; error_description?: string };
  const parts = [e.error ?? e.message ?? 'unknown error'];
  if (e.error_description) parts.push(e.error_description);
  if (e.cause?.message && e.cause.message !== e.message) parts.push(e.cause.message);
  return parts.join(': ').slice(0, 300);
}

function view(row: { enabled: boolean; discoveryUrl: string; clientId: string; clientSecretLast4: string; allowedDomains: string[]; requireSso: boolean; jitRoleId: string | null; updatedAt: Date }, redirectUri: string): SsoSettings {
  return {
    enabled: row.enabled,
    discovery_url: row.discoveryUrl,
    client_id: row.clientId,
    client_secret_last4: row.clientSecretLast4,
    allowed_domains: row.allowedDomains,
    require_sso: row.requireSso,
    jit_role_id: row.jitRoleId,
    redirect_uri: redirectUri,
    updated_at: row.updatedAt.toISOString(),
  };
}

function ssoEvent(actor: SessionPrincipal, eventType: string, details: Record<string, unknown>) {
  return {
    organizationId: actor.organizationId,
    environment: 'production' as const,
    eventType,
    actorType: 'member' as const,
    actorMemberId: actor.memberId,
    resourceType: 'sso_connection',
    resourceId: actor.organizationId,
    sourceService: 'access-keys-and-audit',
    details,
  };
}
