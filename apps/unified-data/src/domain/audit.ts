import { randomUUID } from 'node:crypto';
import { QUEUE_NAMES, addToOutbox, emitAuditEvent, type AuditPrincipal, type Environment, type OutboxWriter } from '@patchbay/queues';
import { SERVICE_NAME } from '../config';

/** Audit event types this service emits (access-keys-and-audit accepts any `resource.action`). */
export const AUDIT = {
  linked: 'linked_account.created',
  deleted: 'linked_account.deleted',
  tokenRegenerated: 'linked_account.account_token_regenerated',
  credentialsInvalid: 'linked_account.credentials_invalid',
  fieldMappingCreated: 'field_mapping.created',
  fieldMappingDeleted: 'field_mapping.deleted',
  modelSyncDisabled: 'linked_account.model_sync_disabled',
  modelSyncEnabled: 'linked_account.model_sync_enabled',
} as const;

/** An audit event about a linked account caused by an access key, written in the caller's transaction. */
export async function auditLinkedAccount(
  tx: OutboxWriter,
  principal: AuditPrincipal,
  eventType: string,
  linkedAccountId: string,
  details: Record<string, unknown> = {},
): Promise<void> {
  await emitAuditEvent(tx, SERVICE_NAME, principal, { eventType, resourceType: 'linked_account', resourceId: linkedAccountId, details });
}

/** An audit event the service itself causes (a sync found the credentials refused), in the caller's transaction. */
export async function auditSystemEvent(
  tx: OutboxWriter,
  scope: { organizationId: string; environment: Environment },
  eventType: string,
  linkedAccountId: string,
  details: Record<string, unknown> = {},
): Promise<void> {
  await addToOutbox(tx, {
    queue: QUEUE_NAMES.auditEvents,
    payload: {
      event_id: randomUUID(),
      organization_id: scope.organizationId,
      environment: scope.environment,
      event_type: eventType,
      occurred_at: new Date().toISOString(),
      actor: { type: 'system', service: SERVICE_NAME },
      resource_type: 'linked_account',
      resource_id: linkedAccountId,
      source_service: SERVICE_NAME,
      details,
    },
  });
}
