import type { KeyPrincipal } from '@patchbay/auth';
import { NotFoundError } from '@patchbay/errors';
import type { Db } from '../db';
import { emitAudit } from './audit';
import { findRegisteredUser } from './registered-users';

/**
 * Removes the registered user's own stored credential for one connector (its INDIVIDUAL connection,
 * ACTIVE or ERROR). Tool calls that need it fail until the user authenticates again; the user, its
 * other credentials and its history stay. SHARED and ORGANIZATION credentials are not the user's to
 * remove here.
 */
export async function deleteUserCredential(db: Db, principal: KeyPrincipal, registeredUserId: string, connectorSlug: string): Promise<void> {
  const user = await findRegisteredUser(db, principal, registeredUserId);
  await db.$transaction(async (tx) => {
    const connection = await tx.connection.findFirst({
      where: { organizationId: principal.organizationId, environment: principal.environment, connectorSlug, authScope: 'INDIVIDUAL', registeredUserId: user.id },
      select: { id: true },
    });
    if (!connection) throw new NotFoundError(`Registered user has no stored credential for connector "${connectorSlug}".`);
    await tx.connection.delete({ where: { id: connection.id } });
    await emitAudit(tx, principal, {
      eventType: 'credential.deleted',
      resourceType: 'connection',
      resourceId: connection.id,
      userId: user.id,
      details: { connector: connectorSlug, auth_scope: 'INDIVIDUAL' },
    });
  });
}
