import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Get, Put, Request, Route, Security, Tags } from '@tsoa/runtime';
import { sessionOf } from '../../authentication';
import { servicesOf } from '../../services';

export interface TwoFactorPolicy {
  /** Every member signs in with a second factor; members without one enrol at their next sign-in. */
  require_two_factor: boolean;
}

@Route('api/v1/two-factor-policy')
@Tags('Organization')
export class TwoFactorPolicyController extends Controller {
  /** Whether the organization requires two-factor sign-in. */
  @Get('/')
  @Security('session', ['view_org_settings'])
  public async getPolicy(@Request() req: ExpressRequest): Promise<TwoFactorPolicy> {
    return servicesOf(req).twoFactor.policy(sessionOf(req).organizationId);
  }

  /** Requires (or stops requiring) two-factor sign-in for every member. Recorded in the audit log. */
  @Put('/')
  @Security('session', ['manage_org_settings'])
  public async putPolicy(@Request() req: ExpressRequest, @Body() body: TwoFactorPolicy): Promise<TwoFactorPolicy> {
    return servicesOf(req).twoFactor.setPolicy(sessionOf(req), body.require_two_factor);
  }
}
