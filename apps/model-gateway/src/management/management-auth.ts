import { hashAccessKey, MANAGEMENT_KEY_PREFIX, type KeyVerifier, type ManagementPrincipal, type ManagementScope } from '@patchbay/auth';
import type { Request } from 'express';
import { ManagementError } from '../http/errors';
import type { GatewayCaches, GatewayKeyPrincipal, OrganizationGatewayData } from '../keys/principals';
import { rawKeyOf } from '../model/model-request';

export type ManagementCaller =
  | { kind: 'management'; organizationId: string; principal: ManagementPrincipal }
  | { kind: 'gateway_key'; organizationId: string; key: GatewayKeyPrincipal; org: OrganizationGatewayData };

export interface ManagementAuth {
  management: KeyVerifier<ManagementPrincipal>;
  caches: GatewayCaches;
}

/**
 * Who is calling a management route. `scope` set: only a management key holding it (403 otherwise).
 * `allowGatewayKeys`: an organization's gateway key also works (never a customer key).
 */
export async function managementCaller(req: Request, auth: ManagementAuth, scope: ManagementScope | null, options: { allowGatewayKeys?: boolean } = {}): Promise<ManagementCaller> {
  const raw = rawKeyOf(req);
  if (!raw) throw new ManagementError(401, 'Authentication credentials were not provided. Send "Authorization: Bearer <MANAGEMENT_KEY>".');
  if (raw.startsWith(MANAGEMENT_KEY_PREFIX)) {
    const principal = await auth.management.lookup(hashAccessKey(raw));
    if (!principal) throw new ManagementError(401, 'The management key is invalid or revoked.');
    if (scope && !principal.scopes.includes(scope)) throw new ManagementError(403, `This management key lacks the ${scope} scope; create a key with it (pnpm patchbay mgmt-key create --scope ${scope}).`);
    return { kind: 'management', organizationId: principal.organizationId, principal };
  }
  if (!options.allowGatewayKeys) throw new ManagementError(401, 'This endpoint needs a management key (mgmt_...), made with the admin CLI: pnpm --silent patchbay mgmt-key create.');
  const key = await auth.caches.keys.lookup(hashAccessKey(raw));
  if (!key || key.disabled) throw new ManagementError(401, 'The API key is invalid, disabled, deleted or expired.');
  if (key.customerId) throw new ManagementError(403, 'Customer API keys cannot call management endpoints.');
  const org = await auth.caches.organizations.lookup(key.organizationId);
  if (!org) throw new ManagementError(401, 'The API key belongs to no organization.');
  return { kind: 'gateway_key', organizationId: key.organizationId, key, org };
}
