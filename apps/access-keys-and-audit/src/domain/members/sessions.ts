import { randomBytes } from 'node:crypto';
import { hashAccessKey, type Environment, type KeyInvalidation, type KeyVerifier } from '@patchbay/auth';
import { AuthenticationError, ConflictError, NotFoundError, PermissionDeniedError, ValidationError } from '@patchbay/errors';
import type { Db, Tx } from '../../db';
import { recordAuditEvent } from '../audit-log';
import { AUDIT_EVENT_TYPES } from '../event-types';
import { hashPassword, validateNewPassword, verifyPassword } from './passwords';
import type { PendingSignIns } from './pending-sign-in';
import type { SessionPrincipal } from './session-principal';
import type { SignInThrottle } from './sign-in-throttle';

const SOURCE = 'access-keys-and-audit';

export interface SessionSettings {
  idleTimeoutSeconds: number;
  absoluteTimeoutSeconds: number;
}

export const DEFAULT_SESSION_SETTINGS: SessionSettings = { idleTimeoutSeconds: 12 * 3600, absoluteTimeoutSeconds: 7 * 86_400 };

/** Where a sign-in comes from: shown in the member's session list, and the address is throttled. */
export interface ClientContext {
  address: string;
  userAgent: string | null;
}

/**
 * Side effects after a commit: the session caches (this process and, over pub/sub, every other) drop
 * what changed. The message itself is written to the outbox in the change's transaction.
 */
export interface SessionEvents {
  /** Writes the invalidation to the outbox inside the change's transaction. */
  stage(tx: Tx, message: KeyInvalidation): Promise<void>;
  /** After the commit: drops it here at once and publishes the outbox now. */
  published(message: KeyInvalidation): Promise<void>;
}

export interface SessionRecord {
  id: string;
  organization_id: string;
  environment: Environment;
  created_at: string;
  last_seen_at: string;
  /** When the session ends without further activity. */
  idle_expires_at: string;
  /** When the session ends whatever the activity. */
  expires_at: string;
  user_agent: string | null;
  ip_address: string | null;
  /** The session making this request. */
  current: boolean;
}

/** A sign-in either issues a session or waits for the second factor (the pending token goes in an HttpOnly cookie). */
export type SignInOutcome =
  | { kind: 'session'; token: string; principal: SessionPrincipal }
  | { kind: 'two_factor'; pendingToken: string; enrol: boolean };

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** How often a session's last-seen time is written: often enough for the idle timeout, rarely enough to spare the database. */
function touchIntervalMs(idleTimeoutSeconds: number): number {
  return Math.min(60_000, (idleTimeoutSeconds * 1000) / 4);
}

const ENDED = 'Your session has ended; sign in again.';

export class SessionService {
  constructor(
    private readonly db: Db,
    private readonly verifier: KeyVerifier<SessionPrincipal>,
    private readonly throttle: SignInThrottle,
    private readonly events: SessionEvents,
    private readonly settings: SessionSettings = DEFAULT_SESSION_SETTINGS,
    private readonly now: () => number = Date.now,
    private readonly logger?: { warn(fields: Record<string, unknown>, message: string): void },
    /** Sign-ins waiting for their second factor. */
    private readonly pending?: PendingSignIns,
  ) {}

  /**
   * Email and password sign-in. Always issues a new token (a session cookie the client already had is
   * ended, never reused: no fixation). Unknown emails cost one argon2 verification like wrong passwords.
   */
  async signIn(input: { email: string; password: string; organizationId?: string }, client: ClientContext, previousToken?: string): Promise<SignInOutcome> {
    const email = normalizeEmail(input.email);
    await this.throttle.assertNotLocked(email, client.address);
    const user = await this.db.user.findUnique({ where: { emailNormalized: email }, include: { memberships: true } });
    const ok = await verifyPassword(user?.passwordHash, input.password);
    if (!ok || !user) {
      const { accountLocked, addressLocked, retryAfterMs } = await this.throttle.recordFailure(email, client.address);
      if (user) {
        // Not awaited: an unknown email writes no audit event, and the answer must not take longer for a
        // known one (that difference would tell which emails have accounts).
        void this.db.$transaction(async (tx) => {
          for (const m of user.memberships) {
            await recordAuditEvent(tx, memberEvent(m.organizationId, m.id, AUDIT_EVENT_TYPES.memberSignInFailed, { email: user.email, ip_address: client.address }, 'system'));
            if (accountLocked) {
              await recordAuditEvent(tx, memberEvent(m.organizationId, m.id, AUDIT_EVENT_TYPES.memberLockedOut, { email: user.email, ip_address: client.address, locked_for_seconds: retryAfterMs / 1000 }, 'system'));
            }
          }
        }).catch((err: unknown) => this.logger?.warn({ err: (err as Error).message }, 'failed sign-in not recorded in the audit log'));
      }
      if (accountLocked) throw this.throttle.lockedError('this account', retryAfterMs);
      if (addressLocked) throw this.throttle.lockedError('your address', retryAfterMs);
      throw new AuthenticationError('The email or password is wrong.');
    }
    const active = user.memberships.filter((m) => m.status === 'active');
    if (active.length === 0) {
      throw new PermissionDeniedError('You are not an active member of any organization. Ask an admin of your organization for an invitation.');
    }
    let membership = active.sort((a, b) => (b.lastSignInAt?.getTime() ?? 0) - (a.lastSignInAt?.getTime() ?? 0))[0]!;
    if (input.organizationId !== undefined) {
      const chosen = active.find((m) => m.organizationId === input.organizationId);
      if (!chosen) throw ValidationError.forField('body.organization_id', 'you are not an active member of this organization');
      membership = chosen;
    }
    await this.throttle.recordSuccess(email);
    await this.assertPasswordAllowed(membership.organizationId, user.id);
    return this.afterFirstFactor({ id: user.id, email: user.email, totpEnabled: user.totpEnabledAt !== null }, membership, 'password', client, previousToken);
  }

  /**
   * "Require SSO": password sign-in is off for the organization's members. The owner keeps it, so a
   * broken identity provider cannot lock the organization out of its own settings.
   */
  private async assertPasswordAllowed(organizationId: string, userId: string): Promise<void> {
    const org = await this.db.organization.findUnique({ where: { id: organizationId }, select: { name: true, ownerUserId: true, ssoConnection: { select: { requireSso: true, enabled: true } } } });
    if (org?.ssoConnection?.enabled && org.ssoConnection.requireSso && org.ownerUserId !== userId) {
      throw new PermissionDeniedError(`${org.name} requires single sign-on: use "Sign in with SSO" with your work email instead of a password.`);
    }
  }

  /**
   * After the password or the identity provider: a session, or the second step when the person has
   * two-factor on (or must enrol because the organization requires it).
   */
  async afterFirstFactor(
    user: { id: string; email: string; totpEnabled: boolean },
    membership: { id: string; organizationId: string },
    method: 'password' | 'sso',
    client: ClientContext,
    previousToken?: string,
  ): Promise<SignInOutcome> {
    let enrol = false;
    if (!user.totpEnabled) {
      const org = await this.db.organization.findUnique({ where: { id: membership.organizationId }, select: { requireTwoFactor: true } });
      enrol = org?.requireTwoFactor === true;
    }
    if (user.totpEnabled || enrol) {
      if (!this.pending) throw new Error('two-factor sign-in needs the pending sign-in store');
      const pendingToken = await this.pending.create({ userId: user.id, organizationId: membership.organizationId, membershipId: membership.id, method, enrol });
      return { kind: 'two_factor', pendingToken, enrol };
    }
    const token = await this.completeSignIn(user, membership, method, client, previousToken);
    return { kind: 'session', token, principal: await this.principalOf(token) };
  }

  /** Issues the session of a sign-in whose every factor passed, and records it. */
  async completeSignIn(
    user: { id: string; email: string },
    membership: { id: string; organizationId: string },
    method: 'password' | 'sso',
    client: ClientContext,
    previousToken?: string,
    extra: Record<string, unknown> = {},
  ): Promise<string> {
    return this.db.$transaction(async (tx) => {
      const issued = await this.createSession(tx, user.id, membership.organizationId, client, previousToken);
      await tx.membership.update({ where: { id: membership.id }, data: { lastSignInAt: new Date(this.now()) } });
      await recordAuditEvent(tx, memberEvent(membership.organizationId, membership.id, AUDIT_EVENT_TYPES.memberSignedIn, { email: user.email, ip_address: client.address, user_agent: client.userAgent, method, ...extra }));
      return issued;
    });
  }

  /**
   * Changes the person's password: the current one is required, and every other session of theirs
   * ends (someone who knew the old password is signed out).
   */
  async changePassword(principal: SessionPrincipal, currentPassword: string, newPassword: string): Promise<{ sessions_ended: number }> {
    if (typeof currentPassword !== 'string' || currentPassword === '') throw ValidationError.forField('body.current_password', 'is required');
    validateNewPassword(newPassword, 'body.new_password');
    const user = await this.db.user.findUniqueOrThrow({ where: { id: principal.userId } });
    if (!user.passwordHash) throw new ConflictError('Your account signs in with single sign-on and has no password to change.');
    if (!(await verifyPassword(user.passwordHash, currentPassword))) {
      const { accountLocked, retryAfterMs } = await this.throttle.recordFailure(normalizeEmail(user.email), 'password-change');
      if (accountLocked) throw this.throttle.lockedError('this account', retryAfterMs);
      throw ValidationError.forField('body.current_password', 'is not your current password');
    }
    if (newPassword === currentPassword) throw ValidationError.forField('body.new_password', 'must differ from the current password');
    await this.db.$transaction(async (tx) => {
      await tx.user.update({ where: { id: principal.userId }, data: { passwordHash: await hashPassword(newPassword) } });
      await recordAuditEvent(tx, memberEvent(principal.organizationId, principal.memberId, AUDIT_EVENT_TYPES.memberPasswordChanged, { email: user.email }));
    });
    const ended = await this.endOthers(principal, false);
    return { sessions_ended: ended };
  }

  /**
   * Creates a session in the caller's transaction and returns its token. A token the client already
   * held is ended in the same transaction.
   */
  async createSession(tx: Tx, userId: string, organizationId: string, client: ClientContext, previousToken?: string): Promise<string> {
    if (previousToken) await tx.session.deleteMany({ where: { tokenHash: hashAccessKey(previousToken) } });
    const now = this.now();
    // The person's sessions that have ended by time go now, so ended sessions do not pile up.
    await tx.$executeRaw`DELETE FROM "sessions" WHERE "user_id" = ${userId}::uuid AND ("expires_at" <= ${new Date(now)} OR "last_seen_at" + make_interval(secs => "idle_timeout_seconds") <= ${new Date(now)})`;
    const token = newSessionToken();
    await tx.session.create({
      data: {
        tokenHash: hashAccessKey(token),
        userId,
        organizationId,
        environment: 'production',
        createdAt: new Date(now),
        lastSeenAt: new Date(now),
        idleTimeoutSeconds: this.settings.idleTimeoutSeconds,
        expiresAt: new Date(now + this.settings.absoluteTimeoutSeconds * 1000),
        userAgent: client.userAgent?.slice(0, 512) ?? null,
        ipAddress: client.address,
      },
    });
    if (previousToken) this.verifier.invalidate({ keyHash: hashAccessKey(previousToken) });
    return token;
  }

  /** The principal of a session token just issued (never cached stale: the token is new). */
  async principalOf(token: string): Promise<SessionPrincipal> {
    const principal = await this.verifier.lookup(hashAccessKey(token));
    if (!principal) throw new AuthenticationError(ENDED);
    return principal;
  }

  /**
   * Verifies a session token: unknown, ended, past its absolute end, idle for longer than its idle
   * timeout, or of a member no longer active: 401. Records activity at most every minute.
   */
  async authenticate(token: string): Promise<SessionPrincipal> {
    return this.authenticateHash(hashAccessKey(token));
  }

  /** The same from the token's hash: other services verify sessions through the internal route with it. */
  async authenticateHash(tokenHash: string): Promise<SessionPrincipal> {
    let principal = await this.verifier.lookup(tokenHash);
    if (!principal) throw new AuthenticationError(ENDED);
    const now = this.now();
    if (now - principal.lastSeenAtMs > principal.idleTimeoutSeconds * 1000) {
      // The cached last-seen time may be older than the stored one: ask the database before ending it.
      this.verifier.invalidate({ keyHash: tokenHash });
      principal = await this.verifier.lookup(tokenHash);
      if (!principal || now - principal.lastSeenAtMs > principal.idleTimeoutSeconds * 1000) {
        await this.db.session.deleteMany({ where: { tokenHash } });
        this.verifier.invalidate({ keyHash: tokenHash });
        throw new AuthenticationError('Your session has ended after a period of inactivity; sign in again.');
      }
    }
    if (now - principal.lastSeenAtMs > touchIntervalMs(principal.idleTimeoutSeconds)) {
      await this.db.session.updateMany({ where: { tokenHash }, data: { lastSeenAt: new Date(now) } });
      this.verifier.invalidate({ keyHash: tokenHash });
      principal = { ...principal, lastSeenAtMs: now };
    }
    return principal;
  }

  async signOut(principal: SessionPrincipal): Promise<void> {
    await this.endSessions((tx) => tx.session.deleteMany({ where: { id: principal.keyId } }).then(() => undefined), { keyId: principal.keyId });
  }

  /** The member's sessions, in every organization, newest first. */
  async list(principal: SessionPrincipal): Promise<SessionRecord[]> {
    const rows = await this.db.session.findMany({ where: { userId: principal.userId, expiresAt: { gt: new Date(this.now()) } }, orderBy: { createdAt: 'desc' } });
    return rows
      .filter((r) => r.lastSeenAt.getTime() + r.idleTimeoutSeconds * 1000 > this.now())
      .map((r) => ({
        id: r.id,
        organization_id: r.organizationId,
        environment: r.environment,
        created_at: r.createdAt.toISOString(),
        last_seen_at: r.lastSeenAt.toISOString(),
        idle_expires_at: new Date(r.lastSeenAt.getTime() + r.idleTimeoutSeconds * 1000).toISOString(),
        expires_at: r.expiresAt.toISOString(),
        user_agent: r.userAgent,
        ip_address: r.ipAddress,
        current: r.id === principal.keyId,
      }));
  }

  /** Sign out everywhere: ends every other session of the person, in every organization. */
  async endOthers(principal: SessionPrincipal, audit = true): Promise<number> {
    let ended = 0;
    const others = await this.db.session.findMany({ where: { userId: principal.userId, id: { not: principal.keyId } }, select: { id: true, organizationId: true } });
    for (const other of others) {
      await this.endSessions(async (tx) => {
        ended += (await tx.session.deleteMany({ where: { id: other.id } })).count;
      }, { keyId: other.id });
    }
    if (audit) await recordAuditEvent(this.db, memberEvent(principal.organizationId, principal.memberId, AUDIT_EVENT_TYPES.memberSignedOutEverywhere, { sessions_ended: ended }));
    return ended;
  }

  async switchEnvironment(principal: SessionPrincipal, environment: Environment): Promise<void> {
    await this.endSessions((tx) => tx.session.update({ where: { id: principal.keyId }, data: { environment } }).then(() => undefined), { keyId: principal.keyId });
  }

  /** Moves the session to another organization the person is an active member of (production first). */
  async switchOrganization(principal: SessionPrincipal, organizationId: string): Promise<void> {
    const membership = await this.db.membership.findUnique({ where: { organizationId_userId: { organizationId, userId: principal.userId } } });
    if (!membership || membership.status !== 'active') throw new NotFoundError('You are not an active member of this organization.');
    await this.endSessions(
      (tx) => tx.session.update({ where: { id: principal.keyId }, data: { organizationId, environment: 'production' } }).then(() => undefined),
      { keyId: principal.keyId },
    );
  }

  /** Organizations the person may switch to. */
  async organizationsOf(userId: string): Promise<{ id: string; name: string }[]> {
    const rows = await this.db.membership.findMany({ where: { userId, status: 'active' }, include: { organization: { select: { id: true, name: true } } }, orderBy: { createdAt: 'asc' } });
    return rows.map((r) => r.organization);
  }

  /** Runs a change to sessions with its invalidation in one transaction, then drops and publishes it. */
  private async endSessions(change: (tx: Tx) => Promise<void>, message: KeyInvalidation): Promise<void> {
    await this.db.$transaction(async (tx) => {
      await change(tx);
      await this.events.stage(tx, message);
    });
    await this.events.published(message);
  }
}

/** A member.* audit event in the organization's production log (members belong to both environments). */
export function memberEvent(
  organizationId: string,
  memberId: string,
  eventType: string,
  details: Record<string, unknown>,
  actor: 'member' | 'system' | 'admin_cli' = 'member',
  actorMemberId: string = memberId,
) {
  return {
    organizationId,
    environment: 'production' as const,
    eventType,
    actorType: actor,
    actorMemberId: actor === 'member' ? actorMemberId : null,
    resourceType: 'member',
    resourceId: memberId,
    sourceService: SOURCE,
    details,
  };
}
