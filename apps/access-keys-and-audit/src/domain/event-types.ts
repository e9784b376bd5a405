/**
 * Audit event types recorded by this service. Other services send their own `<resource>.<action>`
 * types over the audit queue; the full list is in the service README.
 */
export const AUDIT_EVENT_TYPES = {
  organizationCreated: 'organization.created',
  organizationUpdated: 'organization.updated',
  accessKeyCreated: 'access_key.created',
  accessKeyRegenerated: 'access_key.regenerated',
  accessKeyRevoked: 'access_key.revoked',
  managementKeyCreated: 'management_key.created',
} as const;

export const EVENT_TYPE_PATTERN = /^[a-z][a-z_]*\.[a-z][a-z_]*$/;

export type ActorType = 'access_key' | 'admin_cli' | 'system' | 'service';
