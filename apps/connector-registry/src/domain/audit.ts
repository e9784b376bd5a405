import type { KeyPrincipal } from '@patchbay/auth';
import { emitAuditEvent, type AuditChange } from '@patchbay/queues';
import type { Tx } from '../db';

/**
 * Records an audit event inside the caller's transaction (transactional outbox): the event leaves
 * for access-keys-and-audit if and only if the change commits. Details never hold secret values.
 */
export async function emitAudit(tx: Tx, principal: KeyPrincipal, event: AuditChange): Promise<void> {
  await emitAuditEvent(tx, 'connector-registry', principal, event);
}
