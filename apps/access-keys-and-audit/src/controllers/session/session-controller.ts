import type { Environment } from '@patchbay/auth';
import { ValidationError } from '@patchbay/errors';
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { Body, Controller, Delete, Get, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { sessionOf } from '../../authentication';
import type { SessionRecord } from '../../domain/members/sessions';
import { assertSameOrigin, clearSessionCookie, clientOf, sessionTokenOf } from '../../http/session-http';
import { servicesOf } from '../../services';
import type { ErrorBody } from '../schemas';
import { answerSignIn, sessionView, type SessionView, type TwoFactorRequired } from './session-view';

export interface SignInBody {
  email: string;
  password: string;
  /** The organization to act in, for a person in several; default the one they last signed in to. */
  organization_id?: string;
}

export interface SwitchEnvironmentBody {
  environment: Environment;
}

export interface SwitchOrganizationBody {
  organization_id: string;
}

export interface SessionList {
  results: SessionRecord[];
}

export interface EndedSessions {
  /** How many other sessions were ended. */
  sessions_ended: number;
}

@Route('api/v1/session')
@Tags('Session')
export class SessionController extends Controller {
  /**
   * Signs in with email and password and sets the session cookie (HttpOnly, SameSite=Lax, Secure over
   * https). A new session is always issued; a session cookie sent along is ended. Failed attempts are
   * limited per account and per address: past the limit sign-in is locked for a while (429, Retry-After).
   * With two-factor on (or required by the organization) no session is issued yet: the answer says
   * `two_factor_required` and the second step is POST /api/v1/session/two-factor.
   */
  @Post('/')
  @Response<ErrorBody>(400, 'Invalid body')
  @Response<ErrorBody>(401, 'The email or password is wrong.')
  @Response<ErrorBody>(429, 'Too many failed sign-ins: locked until the time the message names')
  @Response<ErrorBody>(403, 'Cross-site request, not an active member of any organization, or the organization requires single sign-on')
  public async signIn(@Request() req: ExpressRequest, @Body() body: SignInBody): Promise<SessionView | TwoFactorRequired> {
    const services = servicesOf(req);
    assertSameOrigin(req, services.publicBaseUrl);
    const outcome = await services.sessions.signIn({ email: body.email, password: body.password, organizationId: body.organization_id }, clientOf(req), sessionTokenOf(req));
    return answerSignIn(req, outcome);
  }

  /** The signed-in member, organization, environment, permissions and the anti-forgery token. */
  @Get('/')
  @Security('session')
  @Response<ErrorBody>(401, 'No session, or it has ended')
  public async getSession(@Request() req: ExpressRequest): Promise<SessionView> {
    return sessionView(req, sessionOf(req), req.sessionToken!);
  }

  /** Signs out: ends this session and clears its cookie. */
  @Delete('/')
  @Security('session')
  @SuccessResponse(204, 'Signed out')
  @Response<ErrorBody>(403, 'Cross-site request or missing anti-forgery token')
  public async signOut(@Request() req: ExpressRequest): Promise<void> {
    const services = servicesOf(req);
    await services.sessions.signOut(sessionOf(req));
    clearSessionCookie(req, req.res as ExpressResponse, services.publicBaseUrl);
    this.setStatus(204);
  }

  /** Switches the session to the production or test environment: it then sees what a key of that environment sees. */
  @Post('environment')
  @Security('session')
  @Response<ErrorBody>(400, 'Unknown environment')
  public async switchEnvironment(@Request() req: ExpressRequest, @Body() body: SwitchEnvironmentBody): Promise<SessionView> {
    if (body.environment !== 'production' && body.environment !== 'test') throw ValidationError.forField('body.environment', 'must be production or test');
    const { sessions } = servicesOf(req);
    await sessions.switchEnvironment(sessionOf(req), body.environment);
    return sessionView(req, await sessions.authenticate(req.sessionToken!), req.sessionToken!);
  }

  /** Switches the session to another organization the person is an active member of (in production). */
  @Post('organization')
  @Security('session')
  @Response<ErrorBody>(404, 'Not an active member of that organization')
  public async switchOrganization(@Request() req: ExpressRequest, @Body() body: SwitchOrganizationBody): Promise<SessionView> {
    const { sessions } = servicesOf(req);
    await sessions.switchOrganization(sessionOf(req), body.organization_id);
    return sessionView(req, await sessions.authenticate(req.sessionToken!), req.sessionToken!);
  }

  /** The person's sessions (every organization), newest first; `current` marks this one. */
  @Get('all')
  @Security('session')
  public async listSessions(@Request() req: ExpressRequest): Promise<SessionList> {
    return { results: await servicesOf(req).sessions.list(sessionOf(req)) };
  }

  /** Sign out everywhere else: ends every other session of the person at once. */
  @Delete('all')
  @Security('session')
  @Response<ErrorBody>(403, 'Cross-site request or missing anti-forgery token')
  public async endOtherSessions(@Request() req: ExpressRequest): Promise<EndedSessions> {
    return { sessions_ended: await servicesOf(req).sessions.endOthers(sessionOf(req)) };
  }
}
