import { principalOf } from '@patchbay/auth';
import { Body, Controller, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { createLinkToken, type LinkTokenCreated, type LinkTokenInput } from '../../domain/link-flow';
import { servicesOf } from '../../services';
import type { ErrorBody } from '../schemas';

@Route('api/mktg/v1/link-token')
@Tags('Link flow')
@Response<ErrorBody>(401, 'Missing, invalid, revoked or expired access key')
export class LinkTokenController extends Controller {
  /**
   * Step 1 of the link flow (Merge Link): a single-use link token and its magic-link URL. Your end user
   * opens the URL, enters the platform's credentials, and the page hands back a public token (also
   * posted to the opener window as `{type: "patchbay.mktg.linked", public_token}`). Step 3: exchange it
   * with GET /api/mktg/v1/account-token/{public_token}.
   */
  @Security('session', ['manage_linked_accounts'])
  @Security('access_key')
  @Post('/')
  @SuccessResponse(201, 'Created')
  @Response<ErrorBody>(400, 'A field is invalid: the error names it')
  public async createLinkToken(@Request() req: ExpressRequest, @Body() body: LinkTokenInput): Promise<LinkTokenCreated> {
    const forwarded = {
      proto: (req.headers['x-forwarded-proto'] as string | undefined)?.split(',')[0]?.trim() ?? req.protocol,
      host: (req.headers['x-forwarded-host'] as string | undefined)?.split(',')[0]?.trim() ?? req.get('host'),
    };
    const created = await createLinkToken(servicesOf(req), principalOf(req), body, forwarded);
    this.setStatus(201);
    return created;
  }
}
