import { createHash, timingSafeEqual } from 'node:crypto';
import { AuthenticationError, PermissionDeniedError, ServiceUnavailableError } from '@patchbay/errors';
import { publicRequestUrl } from '@patchbay/pagination';
import { permissionDefinition } from '@patchbay/permissions';
import type { Request } from 'express';
import { subscribeChannel, type CloseChannelSubscription } from '@patchbay/queues';
import type Redis from 'ioredis';
import { hashAccessKey } from './keys';
import type { Environment, KeyPrincipal, OrganizationSettings } from './principal';
import { SERVICE_TOKEN_HEADER } from './service-token';
import { KEY_INVALIDATION_CHANNEL, KeyVerifier, parseKeyInvalidation, type KeyInvalidation, type KeyLoader } from './verifier';

/**
 * Members signed in to the console. access-keys-and-audit owns the sessions; every other service verifies
 * the cookie's token through its internal route (only the token's hash crosses the wire) and caches the
 * answer like a key's, dropped over pub/sub when a session ends or a member's roles change.
 */

/** The console session's cookie: HttpOnly, SameSite=Lax, Path=/, Secure over https (set by access-keys-and-audit). */
export const SESSION_COOKIE = 'patchbay_session';
/** The anti-forgery header of a state-changing request made with a session. */
export const CSRF_HEADER = 'x-csrf-token';
/** Where ended sessions, disabled members and changed roles are announced (a session id or an organization). */
export const SESSION_INVALIDATION_CHANNEL = 'patchbay:sessions:invalidate';
export const SESSION_VERIFY_PATH = '/internal/v1/sessions/verify';

/** A member signed in to the console, as other services see them: one organization, one environment. */
export interface MemberSessionPrincipal {
  /** The session id (the cache invalidates one session by it). */
  keyId: string;
  organizationId: string;
  environment: Environment;
  /** The absolute end of the session. */
  expiresAt: string;
  /** The member's id in the organization (the audit log's actor). */
  memberId: string;
  userId: string;
  email: string;
  /** The permission codenames the member holds now, in catalog order. */
  permissions: string[];
  organization: OrganizationSettings;
  /** When the session was last used, as access-keys-and-audit recorded it; with the idle timeout, when it ends. */
  lastSeenAtMs: number;
  idleTimeoutSeconds: number;
}

/** The session token from the Cookie header, if any. */
export function sessionTokenOf(req: Pick<Request, 'headers'>): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}

/**
 * The anti-forgery token of a session: derived from the session's secret token, so it needs no storage,
 * changes with every sign-in, and cannot be computed without the HttpOnly cookie's value.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHash('sha256').update(`patchbay-csrf:${sessionToken}`).digest('base64url');
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isStateChanging(req: Pick<Request, 'method'>): boolean {
  return !SAFE_METHODS.has(req.method);
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  const first = raw?.split(',')[0]?.trim();
  return first ? first : undefined;
}

/**
 * Cross-site request forgery, first line: a state-changing browser request must come from Patchbay's own
 * origin. Browsers send Origin on every cross-site POST/PATCH/DELETE; a same-origin fetch that omits it
 * still says Sec-Fetch-Site: same-origin.
 */
export function assertSameOrigin(req: Request, publicBaseUrl: string | undefined): void {
  const expected = publicRequestUrl(req, publicBaseUrl).origin;
  const origin = firstHeader(req.headers.origin);
  if (origin !== undefined) {
    if (origin !== expected) {
      throw new PermissionDeniedError(`Cross-site request refused: the Origin ${origin.slice(0, 100)} is not Patchbay's own (${expected}). Send it from the console this installation serves on ${expected}.`);
    }
    return;
  }
  if (firstHeader(req.headers['sec-fetch-site']) === 'same-origin') return;
  throw new PermissionDeniedError(`Cross-site request refused: a state-changing request made with a session must carry the Origin header of ${expected} (browsers send it; other clients set it).`);
}

/** Second line: the anti-forgery token GET /api/v1/session returned, in X-CSRF-Token. */
export function assertCsrfToken(req: Request, sessionToken: string): void {
  const given = firstHeader(req.headers[CSRF_HEADER]);
  const expected = csrfTokenFor(sessionToken);
  const ok = given !== undefined && given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
  if (!ok) {
    throw new PermissionDeniedError(
      given === undefined
        ? 'Missing anti-forgery token: send the csrf_token from GET /api/v1/session in the X-CSRF-Token header.'
        : 'Wrong anti-forgery token: send the csrf_token from GET /api/v1/session (it changes at every sign-in) in the X-CSRF-Token header.',
    );
  }
}

/** 403 naming the permission and its display name when the member's roles do not grant it. */
export function requirePermission(holder: { permissions: readonly string[] }, permission: string): void {
  if (holder.permissions.includes(permission)) return;
  const name = permissionDefinition(permission)?.displayName;
  throw new PermissionDeniedError(`This needs the permission ${permission}${name ? ` (${name})` : ''}, which your roles do not grant. Ask an admin of the organization.`);
}

/**
 * The key-shaped principal of a member's session: what a key of the session's organization and
 * environment sees (both scopes, no restriction), plus who the member is and what they may do. Services
 * keep one code path for scoping by organization and environment; the permission is checked before.
 */
export function sessionKeyPrincipal(session: MemberSessionPrincipal): KeyPrincipal {
  return {
    keyId: session.keyId,
    organizationId: session.organizationId,
    environment: session.environment,
    scopes: ['runtime:all', 'management:all'],
    toolPackIds: null,
    registeredUserIds: null,
    expiresAt: session.expiresAt,
    isMaster: false,
    serviceAccount: null,
    organization: session.organization,
    member: { memberId: session.memberId, sessionId: session.keyId, userId: session.userId, email: session.email, permissions: session.permissions },
  };
}

/** Asks access-keys-and-audit about a session token's hash; null when the session has ended. */
export function httpSessionLoader(options: { baseUrl: string; serviceToken: string; timeoutMs?: number; fetchImpl?: typeof fetch }): KeyLoader<MemberSessionPrincipal> {
  const url = new URL(SESSION_VERIFY_PATH, options.baseUrl).toString();
  const doFetch = options.fetchImpl ?? fetch;
  return async (tokenHash) => {
    let res: Response;
    try {
      res = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [SERVICE_TOKEN_HEADER]: options.serviceToken },
        body: JSON.stringify({ token_hash: tokenHash }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 3000),
      });
    } catch {
      throw new ServiceUnavailableError('Console sessions cannot be verified right now; retry shortly.');
    }
    if (res.status === 404) return null;
    if (!res.ok) throw new ServiceUnavailableError('Console sessions cannot be verified right now; retry shortly.');
    return (await res.json()) as MemberSessionPrincipal;
  };
}

/** How often a session's last use is reported back: often enough for the idle timeout, rarely enough to spare the database. */
export function sessionTouchIntervalMs(idleTimeoutSeconds: number): number {
  return Math.min(60_000, (idleTimeoutSeconds * 1000) / 4);
}

export interface SessionVerifierOptions {
  loader: KeyLoader<MemberSessionPrincipal>;
  /** The public URL (scheme://host[:port]) a same-origin request carries; else the forwarded headers decide. */
  publicBaseUrl?: string;
  ttlMs?: number;
  now?: () => number;
  logger?: { warn(fields: Record<string, unknown>, message: string): void };
}

const ENDED = 'Your session has ended; sign in again.';

/**
 * Verifies console session cookies in services other than access-keys-and-audit. The cache is a
 * KeyVerifier on the sessions' channel; organization-wide changes announced on the keys' channel (new
 * settings) drop that organization's sessions too. A session whose cached last use is older than the
 * touch interval is asked about again, which records its use (the idle timeout counts every service).
 */
export class SessionVerifier {
  readonly publicBaseUrl: string | undefined;
  private readonly cache: KeyVerifier<MemberSessionPrincipal>;
  private readonly now: () => number;
  private readonly logger: SessionVerifierOptions['logger'];
  private closeOrganizations: CloseChannelSubscription | null = null;

  constructor(options: SessionVerifierOptions) {
    this.publicBaseUrl = options.publicBaseUrl;
    this.now = options.now ?? Date.now;
    this.logger = options.logger;
    this.cache = new KeyVerifier<MemberSessionPrincipal>({ loader: options.loader, channel: SESSION_INVALIDATION_CHANNEL, ttlMs: options.ttlMs, now: this.now, logger: options.logger });
  }

  /** The member's session for a raw cookie token, or 401 when it has ended (signed out, idle, expired, member disabled). */
  async verify(token: string): Promise<MemberSessionPrincipal> {
    const tokenHash = hashAccessKey(token);
    let principal = await this.cache.lookup(tokenHash);
    if (!principal) throw new AuthenticationError(ENDED);
    if (this.now() - principal.lastSeenAtMs > sessionTouchIntervalMs(principal.idleTimeoutSeconds)) {
      // Ask again: access-keys-and-audit records this use, or answers that the session has gone idle.
      this.cache.invalidate({ keyHash: tokenHash });
      principal = await this.cache.lookup(tokenHash);
      if (!principal) throw new AuthenticationError('Your session has ended after a period of inactivity; sign in again.');
    }
    return principal;
  }

  invalidate(message: KeyInvalidation): void {
    this.cache.invalidate(message);
  }

  clear(): void {
    this.cache.clear();
  }

  get size(): number {
    return this.cache.size;
  }

  /**
   * Listens on a dedicated connection: the sessions' channel (ended sessions, changed roles, disabled
   * members), and organization changes on the keys' channel (the settings a session carries). Resolves
   * once Redis has confirmed both.
   */
  async subscribe(subscriber: Redis): Promise<void> {
    await this.cache.subscribe(subscriber);
    this.closeOrganizations = await subscribeChannel(
      subscriber,
      KEY_INVALIDATION_CHANNEL,
      parseKeyInvalidation,
      (message) => {
        if (message === 'unreadable') this.cache.clear();
        else if ('organizationId' in message) this.cache.invalidate(message);
      },
      // A settings change missed while down: start again from an empty cache.
      { onLive: () => this.cache.clear(), onDown: () => this.cache.clear(), logger: this.logger, label: 'organization invalidation (sessions)' },
    );
  }

  async close(): Promise<void> {
    const close = this.closeOrganizations;
    this.closeOrganizations = null;
    if (close) await close();
    await this.cache.close();
  }
}
