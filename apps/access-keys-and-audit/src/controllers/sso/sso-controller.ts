import { AppError } from '@patchbay/errors';
import { publicRequestUrl } from '@patchbay/pagination';
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { Body, Controller, Delete, Get, Post, Put, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { sessionOf } from '../../authentication';
import { PENDING_SIGN_IN_SECONDS } from '../../domain/members/pending-sign-in';
import { safeReturnPath, SSO_ATTEMPT_SECONDS, type SsoSettings, type SsoSettingsInput } from '../../domain/sso/sso';
import { assertSameOrigin, clearSsoStateCookie, clientOf, cookieOf, sessionTokenOf, setPendingSignInCookie, setSessionCookie, setSsoStateCookie, SSO_STATE_COOKIE } from '../../http/session-http';
import { servicesOf } from '../../services';
import type { ErrorBody } from '../schemas';

export interface StartSsoBody {
  /** Your work email: its domain finds the organization's single sign-on. */
  email?: string;
  /** Or the organization, when known. */
  organization_id?: string;
  /** A path on this origin to return to after signing in (default /console/). */
  return_to?: string;
  /** The console's sign-in page, where errors and the two-factor step are shown (default /console/sign-in). */
  sign_in_path?: string;
}

export interface StartedSso {
  /** Send the browser here (the identity provider); it comes back to /api/v1/sso/callback. */
  authorization_url: string;
}

/** The redirect (callback) URI to register at the identity provider, on Patchbay's public origin. */
function redirectUriOf(req: ExpressRequest): string {
  const here = publicRequestUrl(req, servicesOf(req).publicBaseUrl);
  const index = here.pathname.indexOf('/api/v1/sso');
  return `${here.origin}${index >= 0 ? here.pathname.slice(0, index) : ''}/api/v1/sso/callback`;
}

/**
 * Single sign-on over OpenID Connect, per organization, with any issuer (authorization code flow with
 * PKCE, state and nonce). See the README's "Single sign-on" section for setting up an identity provider.
 */
@Route('api/v1/sso')
@Tags('Single sign-on')
export class SsoController extends Controller {
  /** The organization's single sign-on settings (never the client secret), with the redirect URI to register. */
  @Get('/')
  @Security('session', ['view_sso'])
  @Response<ErrorBody>(404, 'Not set up')
  public async getSso(@Request() req: ExpressRequest): Promise<SsoSettings> {
    return servicesOf(req).sso.get(sessionOf(req).organizationId, redirectUriOf(req));
  }

  /**
   * Sets up or changes single sign-on. The discovery URL is fetched now (through the outbound guard:
   * https, public addresses only) and refused with the reason when it is not an OpenID issuer's. The
   * client secret is stored encrypted and never returned; leave it out to keep it.
   */
  @Put('/')
  @Security('session', ['manage_sso'])
  @Response<ErrorBody>(400, 'Invalid settings, or the discovery URL is not an OpenID issuer\'s')
  @Response<ErrorBody>(409, 'An email domain belongs to another organization\'s single sign-on')
  public async putSso(@Request() req: ExpressRequest, @Body() body: SsoSettingsInput): Promise<SsoSettings> {
    return servicesOf(req).sso.put(sessionOf(req), body, redirectUriOf(req));
  }

  /** Turns single sign-on off and forgets its settings (password sign-in works again for everyone). */
  @Delete('/')
  @Security('session', ['manage_sso'])
  @SuccessResponse(204, 'Removed')
  public async deleteSso(@Request() req: ExpressRequest): Promise<void> {
    await servicesOf(req).sso.remove(sessionOf(req));
    this.setStatus(204);
  }

  /**
   * Starts signing in with single sign-on: answers with the identity provider's URL to send the
   * browser to, and binds the attempt to this browser with an HttpOnly cookie.
   */
  @Post('start')
  @Response<ErrorBody>(404, 'No single sign-on for this email domain')
  public async startSso(@Request() req: ExpressRequest, @Body() body: StartSsoBody): Promise<StartedSso> {
    const services = servicesOf(req);
    assertSameOrigin(req, services.publicBaseUrl);
    const started = await services.sso.start(body, redirectUriOf(req), safeReturnPath(body.sign_in_path, '/console/sign-in'));
    setSsoStateCookie(req, req.res as ExpressResponse, started.state, SSO_ATTEMPT_SECONDS, services.publicBaseUrl);
    return { authorization_url: started.authorizationUrl };
  }

  /**
   * Where the identity provider sends the browser back. Signs the member in (a new session; any
   * session cookie sent along is ended) and redirects to where they were, or to the console's sign-in
   * page for the two-factor step or with the reason it failed.
   */
  @Get('callback')
  @SuccessResponse(302, 'Redirect to the console')
  public async callback(@Request() req: ExpressRequest): Promise<void> {
    const services = servicesOf(req);
    const res = req.res as ExpressResponse;
    const state = cookieOf(req, SSO_STATE_COOKIE);
    clearSsoStateCookie(req, res, services.publicBaseUrl);
    const here = publicRequestUrl(req, services.publicBaseUrl);
    let signInPath = '/console/sign-in';
    let location: string;
    try {
      const finished = await services.sso.finish(here, state, redirectUriOf(req));
      signInPath = finished.signInPath;
      const { user, membership } = await services.sso.resolveMember(finished.organizationId, finished.identity);
      const outcome = await services.sessions.afterFirstFactor(user, membership, 'sso', clientOf(req), sessionTokenOf(req));
      if (outcome.kind === 'session') {
        setSessionCookie(req, res, outcome.token, services.sessionSettings.absoluteTimeoutSeconds, services.publicBaseUrl);
        location = finished.returnTo;
      } else {
        setPendingSignInCookie(req, res, outcome.pendingToken, PENDING_SIGN_IN_SECONDS, services.publicBaseUrl);
        location = `${signInPath}?${new URLSearchParams({ step: outcome.enrol ? 'two-factor-enrol' : 'two-factor', next: finished.returnTo }).toString()}`;
      }
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      location = `${signInPath}?${new URLSearchParams({ sso_error: err.message }).toString()}`;
    }
    this.setStatus(302);
    this.setHeader('Location', location);
    this.setHeader('Cache-Control', 'no-store');
  }
}
