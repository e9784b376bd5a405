import type { Request as ExpressRequest } from 'express';
import { Controller, Delete, Path, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { sessionOf } from '../../authentication';
import { servicesOf } from '../../services';
import type { ErrorBody } from '../schemas';

@Route('api/v1/members')
@Tags('Members')
export class MemberTwoFactorController extends Controller {
  /**
   * Reset two-factor: removes a member's authenticator and recovery codes (they lost them); they enrol
   * again at their next sign-in if the organization requires it. Recorded as member.two_factor_reset.
   */
  @Delete('{member_id}/two-factor')
  @Security('session', ['manage_members'])
  @SuccessResponse(204, 'Reset')
  @Response<ErrorBody>(404, 'No such member')
  @Response<ErrorBody>(409, 'The member has no two-factor sign-in')
  public async resetTwoFactor(@Request() req: ExpressRequest, @Path() member_id: string): Promise<void> {
    await servicesOf(req).twoFactor.adminReset(sessionOf(req), member_id);
    this.setStatus(204);
  }
}
