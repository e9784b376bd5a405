import { principalOf } from '@patchbay/auth';
import { Body, Controller, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { createLinkToken, type LinkTokenInput, type LinkTokenRecord } from '../../domain/link-tokens';
import { publicBaseUrl } from '../../domain/public-base-url';
import { afterCommit, servicesOf } from '../../services';
import type { ErrorBody } from '../schemas';

@Route('api/v1/registered-users/{registered_user_id}/link-token')
@Tags('Registered users')
@Response<ErrorBody>(401, 'Missing, invalid, revoked or expired key, or an ended console session')
@Response<ErrorBody>(403, 'The key lacks the management:all scope, or the member lacks the permission the route names')
export class LinkTokensController extends Controller {
  /**
   * Creates a single-use link token and its magic-link URL, which the registered user opens in a
   * browser to connect the connector: a form for its credential fields, or a Connect button for
   * OAuth 2.0 (authorization code with PKCE, with the organization's application credential).
   * The token expires after LINK_TOKEN_TTL_SECONDS (default one hour) and is shown only here.
   * On success the browser goes to callback_url with `status=success`, `connector` and `state`;
   * on failure with `error`, `error_description`, `connector` and `state`.
   * @param registered_user_id The registered user who will authenticate.
   */
  @Security('session', ['manage_registered_users'])
  @Security('access_key', ['management:all'])
  @Post('/')
  @SuccessResponse(201, 'Created')
  @Response<ErrorBody>(400, 'A field is invalid (connector, external_id, callback_url, state or auth_scope): the error names it')
  @Response<ErrorBody>(404, 'Resource not in API key scope.')
  public async createLinkToken(@Request() req: ExpressRequest, @Path() registered_user_id: string, @Body() body: LinkTokenInput): Promise<LinkTokenRecord> {
    const services = servicesOf(req);
    const record = await createLinkToken(
      { db: services.db, ttlSeconds: services.config.LINK_TOKEN_TTL_SECONDS },
      principalOf(req),
      registered_user_id,
      body,
      publicBaseUrl(req, services.config.PATCHBAY_PUBLIC_URL),
    );
    await afterCommit(services);
    this.setStatus(201);
    return record;
  }
}
