import { principalOf } from '@patchbay/auth';
import { Controller, Get, Path, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { exchangePublicToken, type AccountTokenExchange } from '../../domain/link-flow';
import { regenerateAccountToken } from '../../domain/linked-accounts';
import { servicesOf } from '../../services';
import { accountOf, type ErrorBody } from '../schemas';

@Route('api/mktg/v1/account-token')
@Tags('Link flow')
@Response<ErrorBody>(401, 'Missing or invalid access key or account token')
export class AccountTokenController extends Controller {
  /**
   * Regenerates the account token sent as X-Account-Token (Merge's `POST /account-token/regenerate`):
   * the old token stops working at once.
   */
  @Security('session', ['manage_linked_accounts'])
  @Security('access_key')
  @Post('regenerate')
  public async regenerateAccountToken(@Request() req: ExpressRequest): Promise<{ linked_account_id: string; account_token: string }> {
    const account = await accountOf(req);
    return regenerateAccountToken(servicesOf(req), principalOf(req), account);
  }

  /** Step 3 of the link flow: the single-use public token from the magic-link page, for the account token. */
  @Security('session', ['manage_linked_accounts'])
  @Security('access_key')
  @Get('{public_token}')
  @Response<ErrorBody>(404, 'Public token not found, expired or already exchanged')
  public async exchangePublicToken(@Request() req: ExpressRequest, @Path() public_token: string): Promise<AccountTokenExchange> {
    return exchangePublicToken(servicesOf(req), principalOf(req), public_token);
  }
}
