import { principalOf } from '@patchbay/auth';
import { pageNumberList, parsePageParams } from '@patchbay/pagination';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Request as ExpressRequest } from 'express';
import type { RuleTestResult } from '../../domain/security-rule-tester';
import type { RuleTestBody, SecurityRuleRecord } from '../../domain/security-rules';
import { afterCommit, servicesOf } from '../../services';
import type { ErrorBody, PaginatedList } from '../schemas';

/** A security rule as created. */
export interface SecurityRuleBody {
  /** 1 to 255 characters; named in block errors. */
  name: string;
  /** EMAIL_ADDRESS, PHONE_NUMBER, CREDIT_CARD, US_SSN, IBAN, IP_ADDRESS, SECRET, or CUSTOM with pattern and label. */
  detector: string;
  /** CUSTOM only: a JavaScript regular expression, at most 500 characters; patterns that risk catastrophic backtracking are refused. */
  pattern?: string | null;
  /** CUSTOM only: any of i, m, s, u. */
  flags?: string | null;
  /** CUSTOM only: [A-Z0-9_]{1,40}; the marker is [REDACTED:<label>]. */
  label?: string | null;
  /** inbound (arguments sent to tools), outbound (results returned to the model) or both. */
  direction: string;
  /** allow (detection recorded), redact (match replaced by [REDACTED:<KIND>]) or block (the call fails and still costs its credit). */
  action: string;
  /** Default true. */
  enabled?: boolean;
}

/** Any fields of a rule; null clears pattern, flags or label. The merged rule is validated as a whole. */
export interface SecurityRulePatchBody {
  name?: string;
  detector?: string;
  pattern?: string | null;
  flags?: string | null;
  label?: string | null;
  direction?: string;
  action?: string;
  enabled?: boolean;
}

@Route('api/v1/security-rules')
@Tags('Security rules')
@Response<ErrorBody>(401, 'Missing, invalid, revoked or expired key, or an ended console session')
@Response<ErrorBody>(403, 'The key lacks management:all, or (writes) has tool-pack or registered-user restrictions')
export class SecurityRulesController extends Controller {
  /**
   * The organization's security-scanning rules in the key's environment, oldest first (the order the scanner applies them).
   * @param page Page number, from 1.
   * @param page_size Items per page, 1 to 100 (default 20).
   */
  @Security('session', ['view_security_rules'])
  @Security('access_key', ['management:all'])
  @Get('/')
  public async listSecurityRules(@Request() req: ExpressRequest, @Query() page?: string, @Query() page_size?: string): Promise<PaginatedList<SecurityRuleRecord>> {
    const params = parsePageParams(page, page_size);
    const { securityRules, publicBaseUrl } = servicesOf(req);
    const { count, results } = await securityRules.list(principalOf(req), params);
    return pageNumberList(req, params, count, results, publicBaseUrl);
  }

  /** Creates a rule; it applies to every tool pack of the environment within a second. At most 100 rules per environment. */
  @Security('session', ['manage_security_rules'])
  @Security('access_key', ['management:all'])
  @Post('/')
  @SuccessResponse(201, 'Created')
  @Response<ErrorBody>(400, 'Invalid rule; every problem is listed under its field')
  @Response<ErrorBody>(409, 'The environment already has 100 rules')
  public async createSecurityRule(@Request() req: ExpressRequest, @Body() body: SecurityRuleBody): Promise<SecurityRuleRecord> {
    const services = servicesOf(req);
    const rule = await services.securityRules.create(principalOf(req), body);
    afterCommit(services);
    this.setStatus(201);
    return rule;
  }

  /**
   * The rule tester: runs the environment's rules (as one tool pack runs them, with tool_pack_id) and an
   * optional unsaved draft over sample input, without calling any tool. Free text is scanned both ways
   * (as sent to a tool and as returned to the model), a tool call's arguments inbound, a tool's result
   * outbound. The answer shows the samples after all enabled rules together, as a call would see them,
   * and what each rule would redact, record or block on its own. Nothing is stored or recorded, and no
   * credit is used.
   */
  @Security('session', ['view_security_rules'])
  @Security('access_key', ['management:all'])
  @Post('test')
  @Response<ErrorBody>(400, 'No sample, a sample too large or too deeply nested, or an invalid draft rule; the field is named')
  @Response<ErrorBody>(404, 'tool_pack_id names no tool pack of the key\'s organization and environment')
  public async testSecurityRules(@Request() req: ExpressRequest, @Body() body: RuleTestBody): Promise<RuleTestResult> {
    return servicesOf(req).securityRules.test(principalOf(req), body);
  }

  @Security('session', ['view_security_rules'])
  @Security('access_key', ['management:all'])
  @Get('{rule_id}')
  @Response<ErrorBody>(404, 'No such rule in the key\'s organization and environment')
  public async getSecurityRule(@Request() req: ExpressRequest, @Path() rule_id: string): Promise<SecurityRuleRecord> {
    return servicesOf(req).securityRules.get(principalOf(req), rule_id);
  }

  /** Changes some fields; omitted fields keep their value, null clears pattern, flags or label. */
  @Security('session', ['manage_security_rules'])
  @Security('access_key', ['management:all'])
  @Patch('{rule_id}')
  @Response<ErrorBody>(400, 'The merged rule is invalid')
  @Response<ErrorBody>(404, 'No such rule in the key\'s organization and environment')
  public async updateSecurityRule(@Request() req: ExpressRequest, @Path() rule_id: string, @Body() body: SecurityRulePatchBody): Promise<SecurityRuleRecord> {
    const services = servicesOf(req);
    const rule = await services.securityRules.update(principalOf(req), rule_id, body as Record<string, unknown>);
    afterCommit(services);
    return rule;
  }

  /** Deletes the rule and every tool pack's override of it. */
  @Security('session', ['manage_security_rules'])
  @Security('access_key', ['management:all'])
  @Delete('{rule_id}')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorBody>(404, 'No such rule in the key\'s organization and environment')
  public async deleteSecurityRule(@Request() req: ExpressRequest, @Path() rule_id: string): Promise<void> {
    const services = servicesOf(req);
    await services.securityRules.delete(principalOf(req), rule_id);
    afterCommit(services);
    this.setStatus(204);
  }
}
