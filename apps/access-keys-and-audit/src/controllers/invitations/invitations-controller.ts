import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Post, Request, Response, Route, Tags } from '@tsoa/runtime';
import { assertSameOrigin, clientOf, sessionTokenOf } from '../../http/session-http';
import { servicesOf } from '../../services';
import type { ErrorBody } from '../schemas';
import { answerSignIn, type SessionView, type TwoFactorRequired } from '../session/session-view';

export interface AcceptInvitationBody {
  /** The token from the link (after #token=). */
  token: string;
  /** Your name (ignored when you already have an account). */
  name?: string;
  /** A new password of 10+ characters, or your existing account's password. */
  password: string;
  /** Only for an owner-setup link, which names no email. */
  email?: string;
}

@Route('api/v1/invitations')
@Tags('Invitations')
export class InvitationsController extends Controller {
  /**
   * Accepts an invitation or owner-setup link: creates the account if needed, activates the
   * membership and signs in (sets the session cookie). Each link works once, for 7 days. When the
   * organization requires two-factor (or the account has it on), no session yet: the answer says
   * `two_factor_required` and the sign-in's second step follows (POST /api/v1/session/two-factor). An
   * organization that requires single sign-on refuses password acceptance (403): the invited person
   * joins through "Continue with SSO".
   */
  @Post('accept')
  @Response<ErrorBody>(400, 'Missing name, short password, or email given for a link that names one')
  @Response<ErrorBody>(401, 'An account with this email exists and the password is not its password')
  @Response<ErrorBody>(403, 'The organization requires single sign-on')
  @Response<ErrorBody>(404, 'The link is unknown, used, replaced or expired')
  public async acceptInvitation(@Request() req: ExpressRequest, @Body() body: AcceptInvitationBody): Promise<SessionView | TwoFactorRequired> {
    const services = servicesOf(req);
    assertSameOrigin(req, services.publicBaseUrl);
    return answerSignIn(req, await services.members.accept(body, clientOf(req), sessionTokenOf(req)));
  }
}
