import { AuthenticationError, ValidationError } from '@patchbay/errors';
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { Body, Controller, Post, Request, Response, Route, Tags } from '@tsoa/runtime';
import type { TwoFactorEnrolment } from '../../domain/members/two-factor';
import { AUDIT_EVENT_TYPES } from '../../domain/event-types';
import { recordAuditEvent } from '../../domain/audit-log';
import { memberEvent } from '../../domain/members/sessions';
import { assertSameOrigin, clearPendingSignInCookie, clientOf, cookieOf, PENDING_SIGN_IN_COOKIE, sessionTokenOf } from '../../http/session-http';
import { servicesOf } from '../../services';
import type { ErrorBody } from '../schemas';
import { startSession, type SessionView } from './session-view';

export interface TwoFactorCodeBody {
  /** The 6 digits the authenticator app shows now, or an unused recovery code. */
  code: string;
}

export type TwoFactorSignedIn = SessionView & {
  /** Only right after enrolling at sign-in: single-use recovery codes, shown this once. */
  recovery_codes?: string[];
};

const NO_PENDING = 'No sign-in is waiting for a second factor in this browser (it takes 5 minutes at most, and 5 wrong codes end it): sign in again.';

/** The second step of a sign-in (after the password or single sign-on), for members with two-factor on or required. */
@Route('api/v1/session/two-factor')
@Tags('Session')
export class TwoFactorSignInController extends Controller {
  /**
   * For a sign-in whose organization requires two-factor when the person has none yet: a new TOTP
   * secret to add to an authenticator app (shown once). Its first code, sent to POST
   * /api/v1/session/two-factor, turns two-factor on and finishes the sign-in.
   */
  @Post('enrolment')
  @Response<ErrorBody>(401, 'No sign-in waiting for a second factor')
  @Response<ErrorBody>(409, 'Two-factor is already on: send a code instead')
  public async beginSignInEnrolment(@Request() req: ExpressRequest): Promise<TwoFactorEnrolment> {
    const services = servicesOf(req);
    assertSameOrigin(req, services.publicBaseUrl);
    const token = cookieOf(req, PENDING_SIGN_IN_COOKIE);
    const pending = token ? await services.pendingSignIns.get(token) : null;
    if (!token || !pending) throw new AuthenticationError(NO_PENDING);
    return services.twoFactor.beginEnrolment(pending.userId);
  }

  /**
   * Finishes the sign-in with a code: a TOTP code (or a recovery code, each usable once), or, when
   * enrolling, the first code of the new secret (the answer then carries the recovery codes, once).
   * Wrong codes count toward the account's lockout; five end the pending sign-in.
   */
  @Post('/')
  @Response<ErrorBody>(400, 'Wrong code')
  @Response<ErrorBody>(401, 'No sign-in waiting for a second factor')
  @Response<ErrorBody>(429, 'Too many failed sign-ins')
  public async finishSignIn(@Request() req: ExpressRequest, @Body() body: TwoFactorCodeBody): Promise<TwoFactorSignedIn> {
    const services = servicesOf(req);
    assertSameOrigin(req, services.publicBaseUrl);
    const res = req.res as ExpressResponse;
    const token = cookieOf(req, PENDING_SIGN_IN_COOKIE);
    const pending = token ? await services.pendingSignIns.get(token) : null;
    if (!token || !pending) throw new AuthenticationError(NO_PENDING);
    const user = await services.db.user.findUniqueOrThrow({ where: { id: pending.userId } });
    const client = clientOf(req);
    const context = { userId: pending.userId, organizationId: pending.organizationId, memberId: pending.membershipId };
    let recoveryCodes: string[] | undefined;
    let usedRecoveryCode = false;
    const wrong = async (message: string): Promise<never> => {
      const left = await services.pendingSignIns.recordWrongCode(token);
      await recordAuditEvent(services.db, memberEvent(pending.organizationId, pending.membershipId, AUDIT_EVENT_TYPES.memberTwoFactorFailed, { email: user.email, ip_address: client.address }, 'system'));
      const { accountLocked, retryAfterMs } = await services.signInThrottle.recordFailure(user.emailNormalized, client.address);
      if (accountLocked || left === 0) clearPendingSignInCookie(req, res, services.publicBaseUrl);
      if (accountLocked) throw services.signInThrottle.lockedError('this account', retryAfterMs);
      if (left === 0) throw new AuthenticationError('Too many wrong codes: sign in again.');
      throw ValidationError.forField('body.code', `${message} (${left} tries left)`);
    };
    await services.signInThrottle.assertNotLocked(user.emailNormalized, client.address);
    if (pending.enrol && !user.totpEnabledAt) {
      try {
        recoveryCodes = (await services.twoFactor.confirmEnrolment(context, body.code)).recovery_codes;
      } catch (err) {
        if (err instanceof ValidationError) return wrong('is not the current code of the new secret');
        throw err;
      }
    } else {
      const kind = await services.twoFactor.verify(pending.userId, body.code);
      if (!kind) return wrong('is not a current code from your authenticator app nor an unused recovery code');
      usedRecoveryCode = kind === 'recovery_code';
    }
    // Used once: a second request with the same pending sign-in finds nothing.
    if (!(await services.pendingSignIns.take(token))) throw new AuthenticationError(NO_PENDING);
    clearPendingSignInCookie(req, res, services.publicBaseUrl);
    await services.signInThrottle.recordSuccess(user.emailNormalized);
    if (usedRecoveryCode) {
      await recordAuditEvent(services.db, memberEvent(pending.organizationId, pending.membershipId, AUDIT_EVENT_TYPES.memberRecoveryCodeUsed, { email: user.email, ip_address: client.address }));
    }
    const sessionToken = await services.sessions.completeSignIn(user, { id: pending.membershipId, organizationId: pending.organizationId }, pending.method, client, sessionTokenOf(req), { two_factor: usedRecoveryCode ? 'recovery_code' : 'totp' });
    const view = await startSession(req, { token: sessionToken, principal: await services.sessions.principalOf(sessionToken) });
    return recoveryCodes ? { ...view, recovery_codes: recoveryCodes } : view;
  }
}
