import {
  assertCsrfToken,
  assertSameOrigin,
  hashAccessKey,
  isStateChanging,
  MANAGEMENT_KEY_PREFIX,
  requirePermission,
  sessionTokenOf,
  type KeyVerifier,
  type ManagementPrincipal,
  type ManagementScope,
  type MemberSessionPrincipal,
  type SessionVerifier,
} from '@patchbay/auth';
import type { Request } from 'express';
import { ManagementError } from '../http/errors';
import type { GatewayCaches, GatewayKeyPrincipal, OrganizationGatewayData } from './principals';
import { rawKeyOf } from './callers';

export type ManagementCaller =
  | { kind: 'management'; organizationId: string; principal: ManagementPrincipal }
  | { kind: 'gateway_key'; organizationId: string; key: GatewayKeyPrincipal; org: OrganizationGatewayData }
  | { kind: 'member'; organizationId: string; session: MemberSessionPrincipal };

export interface ManagementAuth {
  management: KeyVerifier<ManagementPrincipal>;
  caches: GatewayCaches;
  /** Members' console sessions (through access-keys-and-audit); without it only keys are taken. */
  sessions?: SessionVerifier;
}

/** The organization settings a caller acts under (plan, payment method), whoever the caller is. */
export function callerSettings(caller: ManagementCaller) {
  if (caller.kind === 'management') return caller.principal.organization;
  if (caller.kind === 'member') return caller.session.organization;
  return caller.org.settings;
}

/**
 * Who is calling a management route. `scope` set: only a management key holding it (403 otherwise).
 * A member's console session needs `permission` (default `scope`): reads name their view_ permission.
 * `allowGatewayKeys`: an organization's gateway key also works (never a customer key).
 */
export async function managementCaller(req: Request, auth: ManagementAuth, scope: ManagementScope | null, options: { allowGatewayKeys?: boolean; permission?: string } = {}): Promise<ManagementCaller> {
  const raw = rawKeyOf(req);
  const sessionToken = raw ? undefined : sessionTokenOf(req);
  if (sessionToken !== undefined && auth.sessions) {
    // A member's console session: the permission the route names (its view_ for a read), not a key's scope.
    const permission = options.permission ?? scope;
    if (!permission) throw new ManagementError(401, 'This endpoint describes the calling gateway key; a console session is not one. Use GET /v1/keys.');
    const session = await auth.sessions.verify(sessionToken);
    if (isStateChanging(req)) {
      assertSameOrigin(req, auth.sessions.publicBaseUrl);
      assertCsrfToken(req, sessionToken);
    }
    requirePermission(session, permission);
    return { kind: 'member', organizationId: session.organizationId, session };
  }
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
