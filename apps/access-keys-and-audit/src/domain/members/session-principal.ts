import type { CacheablePrincipal, Environment } from '@patchbay/auth';
import type { Db } from '../../db';
import { permissionsOf } from './member-permissions';

/** Pub/sub channel of session cache invalidations (a session, or every session of an organization); other services listen too. */
export { SESSION_INVALIDATION_CHANNEL } from '@patchbay/auth';

/** A member signed in to the console, as a verified session: one organization and one environment. */
export interface SessionPrincipal extends CacheablePrincipal {
  /** The session id (CacheablePrincipal's keyId, so one session can be invalidated by id). */
  keyId: string;
  organizationId: string;
  /** The absolute end of the session. */
  expiresAt: string;
  userId: string;
  /** The membership id: the member's id in the organization's APIs and audit log. */
  memberId: string;
  email: string;
  name: string;
  isOwner: boolean;
  organizationName: string;
  environment: Environment;
  /** The permission codenames the member holds, in catalog order. */
  permissions: string[];
  lastSeenAtMs: number;
  idleTimeoutSeconds: number;
}

/** Finds the session with this token hash, while its member is active in its organization; null otherwise. */
export async function loadSessionByHash(db: Db, tokenHash: string): Promise<SessionPrincipal | null> {
  const session = await db.session.findUnique({ where: { tokenHash }, include: { user: true, organization: true } });
  if (!session) return null;
  const membership = await db.membership.findUnique({ where: { organizationId_userId: { organizationId: session.organizationId, userId: session.userId } } });
  if (!membership || membership.status !== 'active') return null;
  const customRoles = membership.customRoleIds.length === 0
    ? []
    : await db.customRole.findMany({ where: { organizationId: session.organizationId, id: { in: membership.customRoleIds } }, select: { permissions: true } });
  const isOwner = session.organization.ownerUserId === session.userId;
  return {
    keyId: session.id,
    organizationId: session.organizationId,
    expiresAt: session.expiresAt.toISOString(),
    userId: session.userId,
    memberId: membership.id,
    email: session.user.email,
    name: session.user.name,
    isOwner,
    organizationName: session.organization.name,
    environment: session.environment,
    permissions: permissionsOf({ isOwner, roleIds: membership.roleIds, customRolePermissions: customRoles.map((r) => r.permissions) }),
    lastSeenAtMs: session.lastSeenAt.getTime(),
    idleTimeoutSeconds: session.idleTimeoutSeconds,
  };
}
