import { principalOf } from '@patchbay/auth';
import { Body, Controller, Delete, Get, Path, Put, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import type { PackSecurityRuleRecord, RuleOverrideInput } from '../../domain/security-rules';
import { afterCommit, servicesOf } from '../../services';
import type { ErrorBody } from '../schemas';

export interface PackSecurityRuleList {
  tool_pack_id: string;
  /** Every organization rule with this pack's action and enabled flag; `override` shows what the pack changed. */
  results: PackSecurityRuleRecord[];
}

@Route('api/v1/tool-packs/{tool_pack_id}/security-rules')
@Tags('Security rules')
@Response<ErrorBody>(401, 'Missing, invalid, revoked or expired key, or an ended console session')
@Response<ErrorBody>(403, 'The key lacks management:all')
@Response<ErrorBody>(404, 'No such tool pack, or Resource not in API key scope.')
export class ToolPackSecurityRulesController extends Controller {
  /** The rules as this tool pack runs them (organization rules with the pack's overrides applied). */
  @Security('session', ['view_security_rules'])
  @Security('access_key', ['management:all'])
  @Get('/')
  public async listToolPackSecurityRules(@Request() req: ExpressRequest, @Path() tool_pack_id: string): Promise<PackSecurityRuleList> {
    const results = await servicesOf(req).securityRules.listForPack(principalOf(req), tool_pack_id);
    return { tool_pack_id, results };
  }

  /**
   * Sets this pack's override of a rule: a different action, enabled flag, or both (null keeps the organization's value).
   * A rule meant for one pack only is an organization rule created with enabled false and enabled here.
   */
  @Security('session', ['manage_security_rules'])
  @Security('access_key', ['management:all'])
  @Put('{rule_id}/override')
  @Response<ErrorBody>(400, 'Invalid override')
  public async putSecurityRuleOverride(@Request() req: ExpressRequest, @Path() tool_pack_id: string, @Path() rule_id: string, @Body() body: RuleOverrideInput): Promise<PackSecurityRuleRecord> {
    const services = servicesOf(req);
    const rule = await services.securityRules.putOverride(principalOf(req), tool_pack_id, rule_id, body);
    afterCommit(services);
    return rule;
  }

  /** Removes the override: the pack follows the organization rule again. */
  @Security('session', ['manage_security_rules'])
  @Security('access_key', ['management:all'])
  @Delete('{rule_id}/override')
  @SuccessResponse(204, 'Deleted')
  public async deleteSecurityRuleOverride(@Request() req: ExpressRequest, @Path() tool_pack_id: string, @Path() rule_id: string): Promise<void> {
    const services = servicesOf(req);
    await services.securityRules.deleteOverride(principalOf(req), tool_pack_id, rule_id);
    afterCommit(services);
    this.setStatus(204);
  }
}
