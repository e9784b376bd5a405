import { ConflictError, NotFoundError, PermissionDeniedError, ServiceUnavailableError, ValidationError } from '@patchbay/errors';
import type { SecretBox } from '@patchbay/secrets';
import type { Db } from '../../db';
import { recordAuditEvent } from '../audit-log';
import { AUDIT_EVENT_TYPES } from '../event-types';
import type { SessionPrincipal } from './session-principal';
import { memberEvent } from './sessions';
import { hashRecoveryCode, matchTotp, newRecoveryCodes, newTotpSecret, otpauthUri } from './totp';

export interface TwoFactorStatus {
  enabled: boolean;
  enabled_at: string | null;
  /** Unused recovery codes left. */
  recovery_codes_left: number;
  /** Whether an organization the person is an active member of requires two-factor sign-in. */
  required: boolean;
}

export interface TwoFactorEnrolment {
  /** The TOTP secret (base32), shown this once: type it into an authenticator app or open the URI. */
  secret: string;
  /** otpauth:// URI with the secret (SHA-1, 6 digits, 30 s), what a QR code would carry. */
  otpauth_uri: string;
}

export interface RecoveryCodes {
  /** Single-use codes that replace a TOTP code once each; shown this once, only their hashes are stored. */
  recovery_codes: string[];
}

/** Who a two-factor change is recorded for: the member and organization of the session (or sign-in) it happens in. */
export interface TwoFactorContext {
  userId: string;
  organizationId: string;
  memberId: string;
}

const secretContext = (userId: string) => `totp:${userId}`;

/** TOTP two-factor sign-in: enrolment, verification, recovery codes, and an admin's reset. */
export class TwoFactorService {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  private box(): SecretBox {
    if (!this.secrets) throw new ServiceUnavailableError('Two-factor sign-in needs encryption keys for secrets at rest: set PATCHBAY_ENCRYPTION_KEYS (pnpm start does).');
    return this.secrets;
  }

  async status(userId: string): Promise<TwoFactorStatus> {
    const user = await this.db.user.findUniqueOrThrow({ where: { id: userId }, include: { memberships: { where: { status: 'active' }, include: { organization: { select: { requireTwoFactor: true } } } } } });
    return {
      enabled: user.totpEnabledAt !== null,
      enabled_at: user.totpEnabledAt?.toISOString() ?? null,
      recovery_codes_left: user.totpEnabledAt ? user.recoveryCodeHashes.length : 0,
      required: user.memberships.some((m) => m.organization.requireTwoFactor),
    };
  }

  /** Starts enrolment: a new secret, kept aside until a code from it confirms it. Any earlier unconfirmed secret is replaced. */
  async beginEnrolment(userId: string): Promise<TwoFactorEnrolment> {
    const user = await this.db.user.findUniqueOrThrow({ where: { id: userId } });
    if (user.totpEnabledAt) throw new ConflictError('Two-factor sign-in is already on. Turn it off first to enrol another authenticator.');
    const secret = newTotpSecret();
    await this.db.user.update({ where: { id: userId }, data: { totpPendingSecret: this.box().seal(secret, secretContext(userId)) } });
    return { secret, otpauth_uri: otpauthUri(secret, user.email) };
  }

  /** Confirms enrolment with a code from the new secret: two-factor is on, and the recovery codes are returned once. */
  async confirmEnrolment(context: TwoFactorContext, code: string): Promise<RecoveryCodes> {
    const user = await this.db.user.findUniqueOrThrow({ where: { id: context.userId } });
    if (user.totpEnabledAt) throw new ConflictError('Two-factor sign-in is already on.');
    if (!user.totpPendingSecret) throw new ConflictError('Start enrolment first (POST .../two-factor/enrolment): there is no secret to confirm.');
    const secret = this.box().open(user.totpPendingSecret, secretContext(context.userId));
    const step = matchTotp(secret, String(code ?? ''), this.now());
    if (step === null) throw ValidationError.forField('body.code', 'is not the current code of the new secret; check the authenticator app\'s clock and type the 6 digits it shows now');
    const codes = newRecoveryCodes();
    await this.db.$transaction(async (tx) => {
      await tx.user.update({
        where: { id: context.userId },
        data: { totpSecret: user.totpPendingSecret, totpPendingSecret: null, totpEnabledAt: new Date(this.now()), totpLastStep: BigInt(step), recoveryCodeHashes: codes.map(hashRecoveryCode) },
      });
      await recordAuditEvent(tx, memberEvent(context.organizationId, context.memberId, AUDIT_EVENT_TYPES.memberTwoFactorEnabled, { email: user.email }));
    });
    return { recovery_codes: codes };
  }

  /**
   * Checks a second-factor code for sign-in or for a sensitive change: a TOTP code (each time step
   * once) or an unused recovery code (then removed). Returns which it was, or null.
   */
  async verify(userId: string, code: string): Promise<'totp' | 'recovery_code' | null> {
    const user = await this.db.user.findUnique({ where: { id: userId } });
    if (!user?.totpSecret) return null;
    const given = String(code ?? '').trim();
    if (/^\d{6}$/.test(given.replace(/\s/g, ''))) {
      const secret = this.box().open(user.totpSecret, secretContext(userId));
      const step = matchTotp(secret, given, this.now(), user.totpLastStep === null ? null : Number(user.totpLastStep));
      if (step === null) return null;
      // Only one request can move the last step past this one: a code raced twice is accepted once.
      const moved = await this.db.user.updateMany({ where: { id: userId, OR: [{ totpLastStep: null }, { totpLastStep: { lt: BigInt(step) } }] }, data: { totpLastStep: BigInt(step) } });
      return moved.count === 1 ? 'totp' : null;
    }
    const hash = hashRecoveryCode(given);
    if (!user.recoveryCodeHashes.includes(hash)) return null;
    // Removes exactly this hash, only if still there: single use under concurrency.
    const removed = await this.db.$executeRaw`UPDATE "users" SET "recovery_code_hashes" = array_remove("recovery_code_hashes", ${hash}) WHERE "id" = ${userId}::uuid AND ${hash} = ANY("recovery_code_hashes")`;
    return removed === 1 ? 'recovery_code' : null;
  }

  /** A sensitive change (turning off, new recovery codes) needs a current code. */
  private async requireCode(context: TwoFactorContext, code: string | undefined): Promise<void> {
    if (!code) throw ValidationError.forField('body.code', 'is required: a code from your authenticator app or an unused recovery code');
    if (!(await this.verify(context.userId, code))) throw ValidationError.forField('body.code', 'is not a current code from your authenticator app nor an unused recovery code');
  }

  /** Turns two-factor off for oneself (with a code); refused while an organization of theirs requires it. */
  async disable(context: TwoFactorContext, code: string | undefined): Promise<void> {
    const status = await this.status(context.userId);
    if (!status.enabled) throw new ConflictError('Two-factor sign-in is not on.');
    if (status.required) throw new ConflictError('An organization you are a member of requires two-factor sign-in, so it cannot be turned off. An admin can reset it if you lost your authenticator.');
    await this.requireCode(context, code);
    await this.db.$transaction(async (tx) => {
      const user = await tx.user.update({ where: { id: context.userId }, data: cleared() });
      await recordAuditEvent(tx, memberEvent(context.organizationId, context.memberId, AUDIT_EVENT_TYPES.memberTwoFactorDisabled, { email: user.email }));
    });
  }

  /** New recovery codes (with a code); the old ones stop working. */
  async regenerateRecoveryCodes(context: TwoFactorContext, code: string | undefined): Promise<RecoveryCodes> {
    const user = await this.db.user.findUniqueOrThrow({ where: { id: context.userId } });
    if (!user.totpEnabledAt) throw new ConflictError('Two-factor sign-in is not on: enrol first.');
    await this.requireCode(context, code);
    const codes = newRecoveryCodes();
    await this.db.$transaction(async (tx) => {
      await tx.user.update({ where: { id: context.userId }, data: { recoveryCodeHashes: codes.map(hashRecoveryCode) } });
      await recordAuditEvent(tx, memberEvent(context.organizationId, context.memberId, AUDIT_EVENT_TYPES.memberRecoveryCodesRegenerated, { email: user.email }));
    });
    return { recovery_codes: codes };
  }

  /**
   * An admin's "reset two-factor" for a member who lost their authenticator: their second factor is
   * removed (they enrol again at their next sign-in if the organization requires it). Audited.
   */
  async adminReset(actor: SessionPrincipal, memberId: string): Promise<void> {
    const target = await this.db.membership.findFirst({ where: { id: memberId, organizationId: actor.organizationId }, include: { user: true, organization: { select: { ownerUserId: true } } } });
    if (!target) throw new NotFoundError('No member with this id in your organization.');
    if (target.organization.ownerUserId === target.userId && !actor.isOwner) throw new PermissionDeniedError('Only the owner can reset the owner\'s two-factor sign-in.');
    if (target.userId === actor.userId) throw new PermissionDeniedError('Reset your own two-factor sign-in from your account page (it asks for a code); an admin resets it for others.');
    if (!target.user.totpEnabledAt && !target.user.totpPendingSecret) throw new ConflictError('This member has no two-factor sign-in to reset.');
    await this.db.$transaction(async (tx) => {
      await tx.user.update({ where: { id: target.userId }, data: cleared() });
      await recordAuditEvent(tx, memberEvent(actor.organizationId, target.id, AUDIT_EVENT_TYPES.memberTwoFactorReset, { email: target.user.email }, 'member', actor.memberId));
    });
  }

  /** The organization's rule: every member signs in with a second factor. */
  async policy(organizationId: string): Promise<{ require_two_factor: boolean }> {
    const org = await this.db.organization.findUniqueOrThrow({ where: { id: organizationId }, select: { requireTwoFactor: true } });
    return { require_two_factor: org.requireTwoFactor };
  }

  async setPolicy(actor: SessionPrincipal, requireTwoFactor: boolean): Promise<{ require_two_factor: boolean }> {
    if (typeof requireTwoFactor !== 'boolean') throw ValidationError.forField('body.require_two_factor', 'must be true or false');
    await this.db.$transaction(async (tx) => {
      await tx.organization.update({ where: { id: actor.organizationId }, data: { requireTwoFactor } });
      await recordAuditEvent(tx, {
        organizationId: actor.organizationId,
        environment: 'production',
        eventType: AUDIT_EVENT_TYPES.organizationTwoFactorPolicyChanged,
        actorType: 'member',
        actorMemberId: actor.memberId,
        resourceType: 'organization',
        resourceId: actor.organizationId,
        sourceService: 'access-keys-and-audit',
        details: { require_two_factor: requireTwoFactor },
      });
    });
    return { require_two_factor: requireTwoFactor };
  }
}

function cleared() {
  return { totpSecret: null, totpPendingSecret: null, totpEnabledAt: null, totpLastStep: null, recoveryCodeHashes: [] };
}

