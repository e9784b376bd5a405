import { randomUUID } from 'node:crypto';
import type { KeyPrincipal } from '@patchbay/auth';
import { QUEUE_NAMES, addToOutbox } from '@patchbay/queues';
import type { Tx } from '../db';

/**
 * Records an audit event inside the caller's transaction (transactional outbox): the event leaves
 * for access-keys-and-audit if and only if the change commits. Details never hold secret values.
 */
export async function emitAudit(
  tx: Tx,
  principal: KeyPrincipal,
  event: { eventType: string; resourceType: string; resourceId: string; userId?: string | null; details?: Record<string, unknown> },
): Promise<void> {
  await addToOutbox(tx, {
    queue: QUEUE_NAMES.auditEvents,
    payload: {
      event_id: randomUUID(),
      organization_id: principal.organizationId,
      environment: principal.environment,
      event_type: event.eventType,
      occurred_at: new Date().toISOString(),
      actor: { type: 'access_key', access_key_id: principal.keyId },
      user_id: event.userId ?? null,
      resource_type: event.resourceType,
      resource_id: event.resourceId,
      source_service: 'connector-registry',
      details: event.details ?? {},
    },
  });
}
