import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Environment, Scope } from '@patchbay/auth';
import { ValidationError } from '@patchbay/errors';
import type { Db } from '../db';
import {
  createAdminKey,
  createOrganization,
  createServiceAccountKey,
  getOrganization,
  listOrganizations,
  updateOrganization,
} from '../domain/organizations';
import { createManagementKey, listManagementKeys, revokeManagementKey } from '../domain/management-keys';
import { createOwnerSetupLink, inviteMember } from '../domain/members/members';

export const USAGE = `Patchbay admin CLI

  patchbay org create --name <name> [--plan free|paid] [--credits <monthly allotment>]
                      [--callback-origin <origin> ...] [--mcp-allowed-origin <origin> ...]
                      [--no-master-key] [--payment-method true|false] [--gateway-credit-usd <amount>]
  patchbay org update <organization_id> [--name <name>] [--plan free|paid] [--credits <n>]
                      [--callback-origin <origin> ...] [--clear-callback-origins]
                      [--mcp-allowed-origin <origin> ...] [--clear-mcp-allowed-origins]
                      [--environment-matching true|false] [--mcp-rate-limit <calls per minute>]
                      [--payment-method true|false] [--gateway-credit-usd <amount>]
                      [--response-store on|off|default]   (the model gateway's stored responses;
                      default: the OpenAI-compatible surface stores, the native one does not)
                      [--audit-retention-days <days>|default]   (days audit events stay in the live
                      log before the archive; default: AUDIT_RETENTION_DAYS, 90)
  patchbay org show <organization_id>
  patchbay org list
  patchbay key create [--org <organization_id>] [--environment production|test] [--name <name>]
                      [--expires-in <seconds>]
  patchbay key create-service-account --org <organization_id> --service-account <name>
                      [--environment production|test] [--scope runtime:all|management:all ...] [--name <name>]

  patchbay mgmt-key create [--org <organization_id>] [--scope <name> ...] [--name <name>]
                      model gateway management key (mgmt_...); scopes default to all of
                      manage_api_keys, view_billing, manage_projects, manage_customers,
                      manage_vendor_keys, manage_policies, manage_routing, view_routing,
                      manage_guardrails, view_guardrails
  patchbay mgmt-key list [--org <organization_id>]
  patchbay mgmt-key revoke <management_key_id>

  patchbay member owner-setup [--org <organization_id>]
                      a one-time link (7 days) that makes whoever opens it the owner of an
                      organization without members; org create prints one too
  patchbay member invite [--org <organization_id>] --email <email> --role <role> [--role <role> ...]
                      a single-use invitation link (7 days); roles: admin, developer, security,
                      read_only, or a custom role's id

Every command prints one JSON object (org list: an array). Keys are printed once and never again.
`;

export class UsageError extends Error {}

export interface CliDeps {
  db: Db;
  /**
   * Publishes the cache invalidations a command wrote to the outbox (an organization's settings, a
   * revoked management key), so running services drop what they cached. What Redis does not take
   * stays in the outbox for the running service's relay.
   */
  publishInvalidations: () => Promise<void>;
  /** Base of the links printed (owner setup, invitations): PATCHBAY_PUBLIC_URL, else the local edge router. */
  publicBaseUrl: string;
}

function intOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw ValidationError.forField(name, `must be a whole number, got "${value}"`);
  return Number(value);
}

function planOption(value: string | undefined): 'free' | 'paid' | undefined {
  if (value === undefined) return undefined;
  if (value !== 'free' && value !== 'paid') throw ValidationError.forField('plan', 'must be free or paid');
  return value;
}

function usdOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+(\.\d{1,6})?$/.test(value)) throw ValidationError.forField(name, `must be an amount in USD such as 25 or 0.50, got "${value}"`);
  return Number(value);
}

function boolOption(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'on') return true;
  if (value === 'false' || value === 'off') return false;
  throw ValidationError.forField(name, 'must be true or false');
}

/** --response-store on|off|default: the gateway's response store (default: each surface's own). */
function responseStoreOption(value: string | undefined): boolean | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'default') return null;
  return boolOption('response-store', value);
}

/** Without --org, a database with exactly one organization (a local one) needs no id. */
async function onlyOrganization(db: Db): Promise<string> {
  const organizations = await listOrganizations(db);
  if (organizations.length === 1) return organizations[0]!.organization_id;
  if (organizations.length === 0) throw new UsageError('there is no organization yet: make one with org create --name <name>');
  throw new UsageError(`there are ${organizations.length} organizations: pick one with --org <organization_id> (org list shows them)`);
}

/** Runs one CLI command and returns what it prints as JSON. */
export async function runCommand(argv: string[], deps: CliDeps): Promise<unknown> {
  const [group, action, ...rest] = argv;
  const parse = (options: NonNullable<ParseArgsConfig['options']>) => {
    try {
      return parseArgs({ args: rest, options, allowPositionals: true, strict: true });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  };
  if (group === 'org' && action === 'create') {
    const { values } = parse({
      name: { type: 'string' },
      plan: { type: 'string' },
      credits: { type: 'string' },
      'callback-origin': { type: 'string', multiple: true },
      'mcp-allowed-origin': { type: 'string', multiple: true },
      'no-master-key': { type: 'boolean' },
      'payment-method': { type: 'string' },
      'gateway-credit-usd': { type: 'string' },
    });
    if (typeof values.name !== 'string') throw new UsageError('org create needs --name <name>');
    const created = await createOrganization(deps.db, {
      name: values.name,
      plan: planOption(values.plan as string | undefined),
      monthlyCredits: intOption('credits', values.credits as string | undefined),
      callbackOrigins: values['callback-origin'] as string[] | undefined,
      mcpAllowedOrigins: values['mcp-allowed-origin'] as string[] | undefined,
      withMasterKey: values['no-master-key'] !== true,
      gatewayPaymentMethod: boolOption('payment-method', values['payment-method'] as string | undefined),
      gatewayCreditUsd: usdOption('gateway-credit-usd', values['gateway-credit-usd'] as string | undefined),
    });
    // The first member: whoever opens this link becomes the owner (the console's first-run setup).
    const ownerSetup = await createOwnerSetupLink(deps.db, created.organization_id, deps.publicBaseUrl);
    return { ...created, owner_setup_url: ownerSetup.url, owner_setup_expires_at: ownerSetup.expires_at };
  }
  if (group === 'member' && action === 'owner-setup') {
    const { values } = parse({ org: { type: 'string' } });
    const organizationId = (values.org as string | undefined) ?? (await onlyOrganization(deps.db));
    const link = await createOwnerSetupLink(deps.db, organizationId, deps.publicBaseUrl);
    return { organization_id: organizationId, owner_setup_url: link.url, token: link.token, expires_at: link.expires_at };
  }
  if (group === 'member' && action === 'invite') {
    const { values } = parse({ org: { type: 'string' }, email: { type: 'string' }, role: { type: 'string', multiple: true } });
    if (typeof values.email !== 'string') throw new UsageError('member invite needs --email <email>');
    const roles = values.role as string[] | undefined;
    if (!roles || roles.length === 0) throw new UsageError('member invite needs --role <role> (admin, developer, security, read_only or a custom role id)');
    const organizationId = (values.org as string | undefined) ?? (await onlyOrganization(deps.db));
    const { member, invitation } = await inviteMember(deps.db, { kind: 'admin_cli' }, organizationId, { email: values.email, role_ids: roles }, deps.publicBaseUrl);
    return {
      organization_id: organizationId,
      member_id: member.id,
      email: member.email,
      roles: member.roles.map((r) => r.id),
      invitation_url: invitation.url,
      token: invitation.token,
      expires_at: invitation.expires_at,
    };
  }
  if (group === 'org' && action === 'update') {
    const { values, positionals } = parse({
      name: { type: 'string' },
      plan: { type: 'string' },
      credits: { type: 'string' },
      'callback-origin': { type: 'string', multiple: true },
      'clear-callback-origins': { type: 'boolean' },
      'mcp-allowed-origin': { type: 'string', multiple: true },
      'clear-mcp-allowed-origins': { type: 'boolean' },
      'environment-matching': { type: 'string' },
      'mcp-rate-limit': { type: 'string' },
      'payment-method': { type: 'string' },
      'gateway-credit-usd': { type: 'string' },
      'response-store': { type: 'string' },
      'audit-retention-days': { type: 'string' },
    });
    const id = positionals[0];
    if (!id) throw new UsageError('org update needs the organization id');
    const auditRetention = values['audit-retention-days'] as string | undefined;
    const origins = values['clear-callback-origins'] === true ? [] : (values['callback-origin'] as string[] | undefined);
    const mcpOrigins = values['clear-mcp-allowed-origins'] === true ? [] : (values['mcp-allowed-origin'] as string[] | undefined);
    return updateOrganization(
      deps.db,
      id,
      {
        name: values.name as string | undefined,
        plan: planOption(values.plan as string | undefined),
        monthlyCredits: intOption('credits', values.credits as string | undefined),
        callbackOrigins: origins,
        mcpAllowedOrigins: mcpOrigins,
        environmentMatching: boolOption('environment-matching', values['environment-matching'] as string | undefined),
        mcpRateLimitPerMinute: intOption('mcp-rate-limit', values['mcp-rate-limit'] as string | undefined),
        gatewayPaymentMethod: boolOption('payment-method', values['payment-method'] as string | undefined),
        gatewayCreditUsd: usdOption('gateway-credit-usd', values['gateway-credit-usd'] as string | undefined),
        gatewayResponseStore: responseStoreOption(values['response-store'] as string | undefined),
        auditRetentionDays: auditRetention === 'default' ? null : intOption('audit-retention-days', auditRetention),
      },
      () => deps.publishInvalidations(),
    );
  }
  if (group === 'org' && action === 'show') {
    const { positionals } = parse({});
    if (!positionals[0]) throw new UsageError('org show needs the organization id');
    return getOrganization(deps.db, positionals[0]);
  }
  if (group === 'org' && action === 'list') {
    parse({});
    return listOrganizations(deps.db);
  }
  if (group === 'key' && action === 'create') {
    const { values } = parse({
      org: { type: 'string' },
      environment: { type: 'string' },
      name: { type: 'string' },
      'expires-in': { type: 'string' },
    });
    const environment = values.environment as string | undefined;
    if (environment !== undefined && environment !== 'production' && environment !== 'test') throw ValidationError.forField('environment', 'must be production or test');
    const organizationId = (values.org as string | undefined) ?? (await onlyOrganization(deps.db));
    return createAdminKey(deps.db, {
      organizationId,
      environment: environment as Environment | undefined,
      name: values.name as string | undefined,
      expiresInSeconds: intOption('expires-in', values['expires-in'] as string | undefined),
    });
  }
  if (group === 'key' && action === 'create-service-account') {
    const { values } = parse({
      org: { type: 'string' },
      'service-account': { type: 'string' },
      environment: { type: 'string' },
      scope: { type: 'string', multiple: true },
      name: { type: 'string' },
    });
    if (typeof values.org !== 'string' || typeof values['service-account'] !== 'string') {
      throw new UsageError('key create-service-account needs --org <organization_id> and --service-account <name>');
    }
    const environment = values.environment as string | undefined;
    if (environment !== undefined && environment !== 'production' && environment !== 'test') throw ValidationError.forField('environment', 'must be production or test');
    return createServiceAccountKey(deps.db, {
      organizationId: values.org,
      serviceAccount: values['service-account'],
      environment: environment as Environment | undefined,
      scopes: values.scope as Scope[] | undefined,
      name: values.name as string | undefined,
    });
  }
  if (group === 'mgmt-key' && action === 'create') {
    const { values } = parse({ org: { type: 'string' }, scope: { type: 'string', multiple: true }, name: { type: 'string' } });
    const organizationId = (values.org as string | undefined) ?? (await onlyOrganization(deps.db));
    const created = await createManagementKey(deps.db, { organizationId, scopes: values.scope as string[] | undefined, name: values.name as string | undefined });
    return { key: created.key, id: created.id, scopes: created.scopes, organization_id: created.organization_id, name: created.name, created_at: created.created_at };
  }
  if (group === 'mgmt-key' && action === 'list') {
    const { values } = parse({ org: { type: 'string' } });
    return listManagementKeys(deps.db, values.org as string | undefined);
  }
  if (group === 'mgmt-key' && action === 'revoke') {
    const { positionals } = parse({});
    if (!positionals[0]) throw new UsageError('mgmt-key revoke needs the management key id (mgmt-key list shows them)');
    return revokeManagementKey(deps.db, positionals[0], () => deps.publishInvalidations());
  }
  throw new UsageError(argv.length === 0 || group === 'help' || group === '--help' ? '' : `unknown command: ${argv.slice(0, 2).join(' ')}`);
}
