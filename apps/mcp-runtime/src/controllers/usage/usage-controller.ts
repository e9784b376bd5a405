import { principalOf } from '@patchbay/auth';
import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import { readDailyUsage, readUsage, type DailyUsageView, type UsageView } from '../../domain/usage';
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

  /**
   * Tool calls, failures and credits per UTC day, summed by the service: every day of a billing cycle (default the current one)
   * or of a range of at most 92 days, zeros included, with the range's totals. Calls and failures are the caller's environment's;
   * `credits_all_environments` counts production and test together, as the plan's allotment does. A key restricted to tool packs
   * or registered users counts only theirs. Records are kept 90 days: older days read zero.
   * @param cycle 'YYYY-MM': the cycle's days (default the current cycle when start and end are absent).
   * @param start First UTC day 'YYYY-MM-DD' (inclusive), with end.
   * @param end Last UTC day 'YYYY-MM-DD' (inclusive), with start; at most 92 days after start.
   */
  @Security('session', ['view_billing'])
  @Security('access_key', ['management:all'])
  @Get('daily')
  @Response<ErrorBody>(400, 'Invalid cycle or days, or a range longer than 92 days')
  public async getDailyUsage(@Request() req: ExpressRequest, @Query() cycle?: string, @Query() start?: string, @Query() end?: string): Promise<DailyUsageView> {
    const { db, readDb } = servicesOf(req);
    return readDailyUsage(readDb ?? db, principalOf(req), { cycle, start, end });
  }
}
