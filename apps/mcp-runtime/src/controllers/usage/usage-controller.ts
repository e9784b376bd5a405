import { principalOf } from '@patchbay/auth';
import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { readUsage, type UsageView } from '../../domain/usage';
import { servicesOf } from '../../services';
import type { ErrorBody } from '../schemas';

@Route('api/v1/usage')
@Tags('Usage')
@Response<ErrorBody>(401, 'Missing, invalid, revoked or expired key, or an ended console session')
@Response<ErrorBody>(403, 'The key lacks management:all')
export class UsageController extends Controller {
  /**
   * The organization's credits in a billing cycle (calendar month, UTC): one per tools/call, production and test keys together.
   * @param cycle 'YYYY-MM'; default the current cycle. Past cycles are available while their tool-call records are kept (90 days).
   */
  @Security('session', ['view_billing'])
  @Security('access_key', ['management:all'])
  @Get('/')
  @Response<ErrorBody>(400, 'Invalid cycle')
  public async getUsage(@Request() req: ExpressRequest, @Query() cycle?: string): Promise<UsageView> {
    const { db, meter } = servicesOf(req);
    return readUsage(db, meter, principalOf(req), cycle);
  }
}
