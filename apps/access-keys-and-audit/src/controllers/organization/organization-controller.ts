import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Get, Patch, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import { PermissionDeniedError } from '@patchbay/errors';
import { permissionDefinition } from '@patchbay/permissions';
import { sessionOf } from '../../authentication';
import { getOrganization, updateOrganization, type OrganizationRecord } from '../../domain/organizations';
import { servicesOf } from '../../services';
import type { ErrorBody } from '../schemas';

export interface UpdateOrganizationBody {
  /** 1 to 255 characters. */
  name?: string;
  /** free or paid (needs manage_billing). */
  plan?: 'free' | 'paid';
  /**
   * Monthly credit allotment (needs manage_billing).
   * @isInt monthly_credits must be a whole number
   */
  monthly_credits?: number;
  /** Allowed callback origins of magic links (replaces the list): https://host[:port], http only for localhost. */
  callback_origins?: string[];
  /** Browser origins allowed on the MCP endpoint (replaces the list), same rules. */
  mcp_allowed_origins?: string[];
  /** Whether a test key may act only on test resources and a production key on production ones. */
  environment_matching?: boolean;
  /**
   * MCP calls per minute per registered user, 1 to 100000.
   * @isInt mcp_rate_limit_per_minute must be a whole number
   */
  mcp_rate_limit_per_minute?: number;
  /** Model gateway: a payment method on file (needs manage_billing). */
  gateway_payment_method?: boolean;
  /** Model gateway credit balance in USD, at most 6 decimals (needs manage_billing). */
  gateway_credit_usd?: number;
}

const BILLING_FIELDS = ['plan', 'monthly_credits', 'gateway_payment_method', 'gateway_credit_usd'] as const;

/**
 * The signed-in member's organization: the settings the admin CLI's `org update` sets, through the same
 * update (audited, and every service's cached copy dropped over pub/sub within a second).
 */
@Route('api/v1/organization')
@Tags('Organization')
@Response<ErrorBody>(401, 'No session, or it has ended')
@Response<ErrorBody>(403, 'The member lacks the permission the message names, or a cross-site request')
export class OrganizationController extends Controller {
  @Get('/')
  @Security('session', ['view_org_settings'])
  public async getOrganization(@Request() req: ExpressRequest): Promise<OrganizationRecord> {
    return getOrganization(servicesOf(req).db, sessionOf(req).organizationId);
  }

  /**
   * Changes the settings sent (lists are replaced whole). Settings need manage_org_settings; the plan,
   * the credit allotment, the payment method and the gateway credit need manage_billing as well.
   */
  @Patch('/')
  @Security('session', ['manage_org_settings'])
  @Response<ErrorBody>(400, 'Invalid setting (the errors list names each field)')
  public async updateOrganization(@Request() req: ExpressRequest, @Body() body: UpdateOrganizationBody): Promise<OrganizationRecord> {
    const principal = sessionOf(req);
    const billing = BILLING_FIELDS.filter((field) => body[field] !== undefined);
    if (billing.length > 0 && !principal.permissions.includes('manage_billing')) {
      throw new PermissionDeniedError(`Changing ${billing.join(', ')} needs the permission manage_billing (${permissionDefinition('manage_billing')?.displayName ?? 'Manage billing'}), which your roles do not grant. Ask an admin of the organization.`);
    }
    const services = servicesOf(req);
    return updateOrganization(
      services.db,
      principal.organizationId,
      {
        name: body.name,
        plan: body.plan,
        monthlyCredits: body.monthly_credits,
        callbackOrigins: body.callback_origins,
        mcpAllowedOrigins: body.mcp_allowed_origins,
        environmentMatching: body.environment_matching,
        mcpRateLimitPerMinute: body.mcp_rate_limit_per_minute,
        gatewayPaymentMethod: body.gateway_payment_method,
        gatewayCreditUsd: body.gateway_credit_usd,
      },
      services.organizationChanged,
      { kind: 'member', memberId: principal.memberId },
    );
  }
}
