import { randomUUID } from 'node:crypto';
import { QUEUE_NAMES } from './names';
import { addToOutbox, type OutboxWriter } from './outbox';
import type { Environment } from './payloads';

/** The acting key, as a verified key principal carries it; a member's console session names the member. */
export interface AuditPrincipal {
  organizationId: string;
  environment: Environment;
  keyId: string;
  member?: { memberId: string };
}

export interface AuditChange {
  /** Dot-separated resource.action, e.g. 'security_rule.created'. */
  eventType: string;
  resourceType: string;
  resourceId: string;
  /** The registered user the change concerns. */
  userId?: string | null;
  /** Never secrets. */
  details?: Record<string, unknown>;
}

/**
 * Records an audit event for a change made with an access key or a member's session, inside the caller's transaction
 * (transactional outbox): the event leaves for access-keys-and-audit if and only if the change commits.
 */
export async function emitAuditEvent(tx: OutboxWriter, sourceService: string, principal: AuditPrincipal, change: AuditChange): Promise<void> {
  await addToOutbox(tx, {
    queue: QUEUE_NAMES.auditEvents,
    payload: {
      event_id: randomUUID(),
      organization_id: principal.organizationId,
      environment: principal.environment,
      event_type: change.eventType,
      occurred_at: new Date().toISOString(),
      // A member's session is recorded as the member, never as a key.
      actor: principal.member ? { type: 'member', member_id: principal.member.memberId } : { type: 'access_key', access_key_id: principal.keyId },
      user_id: change.userId ?? null,
      resource_type: change.resourceType,
      resource_id: change.resourceId,
      source_service: sourceService,
      details: change.details ?? {},
    },
  });
}
