import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Get, Post, Put, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { sessionOf } from '../../authentication';
import type { RecoveryCodes, TwoFactorEnrolment, TwoFactorStatus } from '../../domain/members/two-factor';
import { servicesOf } from '../../services';
import type { ErrorBody } from '../schemas';

export interface ChangePasswordBody {
  current_password: string;
  /** At least 10 characters. */
  new_password: string;
}

export interface PasswordChanged {
  /** Every other session of yours ended with the change. */
  sessions_ended: number;
}

export interface CodeBody {
  /** The 6 digits your authenticator app shows now (or, to turn off or renew codes, an unused recovery code). */
  code: string;
}

function contextOf(req: ExpressRequest) {
  const principal = sessionOf(req);
  return { userId: principal.userId, organizationId: principal.organizationId, memberId: principal.memberId };
}

/** The signed-in person's own account: password and two-factor sign-in. Sessions are under /api/v1/session/all. */
@Route('api/v1/account')
@Tags('Account')
export class AccountController extends Controller {
  /** Changes your password (the current one is required); every other session of yours ends. */
  @Put('password')
  @Security('session')
  @Response<ErrorBody>(400, 'Current password wrong, or the new one too short')
  @Response<ErrorBody>(409, 'The account signs in with single sign-on only')
  public async changePassword(@Request() req: ExpressRequest, @Body() body: ChangePasswordBody): Promise<PasswordChanged> {
    return servicesOf(req).sessions.changePassword(sessionOf(req), body.current_password, body.new_password);
  }

  /** Whether two-factor sign-in is on, how many recovery codes are left, and whether an organization of yours requires it. */
  @Get('two-factor')
  @Security('session')
  public async getTwoFactor(@Request() req: ExpressRequest): Promise<TwoFactorStatus> {
    return servicesOf(req).twoFactor.status(sessionOf(req).userId);
  }

  /** Starts enrolment: a new TOTP secret, shown this once (as text and as an otpauth:// URI). Confirm it with a code. */
  @Post('two-factor/enrolment')
  @Security('session')
  @Response<ErrorBody>(409, 'Two-factor is already on')
  public async beginEnrolment(@Request() req: ExpressRequest): Promise<TwoFactorEnrolment> {
    return servicesOf(req).twoFactor.beginEnrolment(sessionOf(req).userId);
  }

  /** Confirms enrolment with the app's current code: two-factor is on; the recovery codes are shown this once. */
  @Post('two-factor/confirmation')
  @Security('session')
  @Response<ErrorBody>(400, 'Not the current code of the new secret')
  public async confirmEnrolment(@Request() req: ExpressRequest, @Body() body: CodeBody): Promise<RecoveryCodes> {
    return servicesOf(req).twoFactor.confirmEnrolment(contextOf(req), body.code);
  }

  /** Turns two-factor off (needs a current code); refused while an organization of yours requires it. */
  @Post('two-factor/disable')
  @Security('session')
  @SuccessResponse(204, 'Two-factor is off')
  @Response<ErrorBody>(409, 'Not on, or required by an organization')
  public async disable(@Request() req: ExpressRequest, @Body() body: CodeBody): Promise<void> {
    await servicesOf(req).twoFactor.disable(contextOf(req), body.code);
    this.setStatus(204);
  }

  /** New recovery codes (needs a current code): the old ones stop working; the new ones are shown this once. */
  @Post('two-factor/recovery-codes')
  @Security('session')
  @Response<ErrorBody>(400, 'Wrong code')
  public async regenerateRecoveryCodes(@Request() req: ExpressRequest, @Body() body: CodeBody): Promise<RecoveryCodes> {
    return servicesOf(req).twoFactor.regenerateRecoveryCodes(contextOf(req), body.code);
  }
}
