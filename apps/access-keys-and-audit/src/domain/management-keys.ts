import { randomBytes } from 'node:crypto';
import { MANAGEMENT_KEY_PREFIX, MANAGEMENT_SCOPES, addKeyInvalidationToOutbox, hashAccessKey, hashesEqual, normalizeManagementScopes, type ManagementPrincipal, type OrganizationSettings } from '@patchbay/auth';
import { InvalidRequestError, NotFoundError, ValidationError } from '@patchbay/errors';
import { isUuid } from '@patchbay/service-kit';
import type { Db } from '../db';
import type { ManagementKey, Organization } from '../generated/prisma/client';
import { recordAuditEvent } from './audit-log';
import { AUDIT_EVENT_TYPES } from './event-types';
import type { SessionPrincipal } from './members/session-principal';

/**
 * Model gateway management keys. The console makes them (spec: "created only in the dashboard"), carrying
 * the permissions their creator holds at that moment as scopes; the admin CLI makes them too, for
 * bootstrap and automation, with gateway scopes. They are stored here with their organization (as
 * access keys are) and the gateway verifies them by hash over the internal route, caching them with the
 * same pub/sub invalidation.
 */
export interface ManagementKeyRecord {
  id: string;
  organization_id: string;
  name: string | null;
  key_masked: string;
  /** Permission codenames: the gateway acts on its own (manage_api_keys, view_billing, ...), the rest are kept as they were granted. */
  scopes: string[];
  /** The member who made it in the console; null for the admin CLI. */
  created_by_member_id: string | null;
  created_at: string;
  revoked_at: string | null;
}

function toRecord(row: ManagementKey): ManagementKeyRecord {
  return {
    id: row.id,
    organization_id: row.organizationId,
    name: row.name,
    key_masked: `${MANAGEMENT_KEY_PREFIX}${'*'.repeat(8)}${row.keyLast4}`,
    scopes: row.scopes,
    created_by_member_id: row.createdByMemberId,
    created_at: row.createdAt.toISOString(),
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

/** The settings other services act on, with the gateway's (used by access keys and management keys alike). */
export function organizationSettings(org: Organization): OrganizationSettings {
  return {
    id: org.id,
    plan: org.plan,
    monthlyCredits: org.monthlyCredits,
    environmentMatching: org.environmentMatching,
    mcpRateLimitPerMinute: org.mcpRateLimitPerMinute,
    callbackOrigins: org.callbackOrigins,
    mcpAllowedOrigins: org.mcpAllowedOrigins,
    gateway: { paymentMethodOnFile: org.gatewayPaymentMethod, creditMicros: Number(org.gatewayCreditMicros), responseStore: org.gatewayResponseStore },
  };
}

export async function createManagementKey(db: Db, input: { organizationId: string; scopes?: string[]; name?: string }): Promise<ManagementKeyRecord & { key: string }> {
  const { scopes, unknown } = normalizeManagementScopes(input.scopes ?? MANAGEMENT_SCOPES);
  if (unknown.length > 0) throw ValidationError.forField('scope', `unknown scopes ${unknown.join(', ')}; allowed: ${MANAGEMENT_SCOPES.join(', ')} (manage_keys and read_usage also work)`);
  if (scopes.length === 0) throw ValidationError.forField('scope', 'give at least one scope, or none for all');
  const org = isUuid(input.organizationId) ? await db.organization.findUnique({ where: { id: input.organizationId } }) : null;
  if (!org) throw new NotFoundError(`Organization ${input.organizationId} not found.`);
  const key = MANAGEMENT_KEY_PREFIX + randomBytes(32).toString('base64url');
  const row = await db.$transaction(async (tx) => {
    const created = await tx.managementKey.create({ data: { organizationId: org.id, name: input.name ?? null, keyHash: hashAccessKey(key), keyLast4: key.slice(-4), scopes } });
    await recordAuditEvent(tx, {
      organizationId: org.id,
      environment: 'production',
      eventType: AUDIT_EVENT_TYPES.managementKeyCreated,
      actorType: 'admin_cli',
      resourceType: 'management_key',
      resourceId: created.id,
      sourceService: 'access-keys-and-audit',
      details: { scopes },
    });
    return created;
  });
  return { key, ...toRecord(row) };
}

/**
 * A key made by a member in the console: its scopes are exactly the permissions the member holds now,
 * stored as they are, so a later change of the member's roles does not change the key (spec: "if
 * permissions change, a new key must be created").
 */
export async function createMemberManagementKey(db: Db, member: Pick<SessionPrincipal, 'organizationId' | 'memberId' | 'permissions'>, input: { name?: string }): Promise<ManagementKeyRecord & { key: string }> {
  const name = input.name?.trim();
  if (!name || name.length > 255) throw ValidationError.forField('body.name', 'is required, 1 to 255 characters');
  const scopes = [...member.permissions];
  if (scopes.length === 0) throw new InvalidRequestError('You hold no permissions, so a management key of yours would carry none.');
  const key = MANAGEMENT_KEY_PREFIX + randomBytes(32).toString('base64url');
  const row = await db.$transaction(async (tx) => {
    const created = await tx.managementKey.create({ data: { organizationId: member.organizationId, name, keyHash: hashAccessKey(key), keyLast4: key.slice(-4), scopes, createdByMemberId: member.memberId } });
    await recordAuditEvent(tx, {
      organizationId: member.organizationId,
      environment: 'production',
      eventType: AUDIT_EVENT_TYPES.managementKeyCreated,
      actorType: 'member',
      actorMemberId: member.memberId,
      resourceType: 'management_key',
      resourceId: created.id,
      sourceService: 'access-keys-and-audit',
      details: { name, key_masked: toRecord(created).key_masked, scopes },
    });
    return created;
  });
  return { key, ...toRecord(row) };
}

export async function listManagementKeys(db: Db, organizationId?: string): Promise<ManagementKeyRecord[]> {
  const rows = await db.managementKey.findMany({ where: organizationId ? { organizationId } : {}, orderBy: { createdAt: 'desc' } });
  return rows.map(toRecord);
}

/**
 * Revokes a key (idempotent). Its cache invalidation is written to the outbox in the same transaction;
 * `onRevoked` publishes it now (the service's relay does, later, if Redis does not answer).
 */
export async function revokeManagementKey(
  db: Db,
  id: string,
  onRevoked: () => Promise<void>,
  /** A member revoking in the console: only their organization's keys, and named in the audit log. */
  member?: Pick<SessionPrincipal, 'organizationId' | 'memberId'>,
): Promise<ManagementKeyRecord> {
  const row = isUuid(id) ? await db.managementKey.findFirst({ where: { id, ...(member ? { organizationId: member.organizationId } : {}) } }) : null;
  if (!row) throw new NotFoundError(`Management key ${id} not found.`);
  const revoked = await db.$transaction(async (tx) => {
    const updated = row.revokedAt ? row : await tx.managementKey.update({ where: { id }, data: { revokedAt: new Date() } });
    if (!row.revokedAt) {
      await recordAuditEvent(tx, {
        organizationId: row.organizationId,
        environment: 'production',
        eventType: AUDIT_EVENT_TYPES.managementKeyRevoked,
        actorType: member ? 'member' : 'admin_cli',
        actorMemberId: member?.memberId ?? null,
        resourceType: 'management_key',
        resourceId: row.id,
        sourceService: 'access-keys-and-audit',
        details: { name: row.name, key_masked: toRecord(row).key_masked },
      });
    }
    await addKeyInvalidationToOutbox(tx, { keyHash: row.keyHash });
    return updated;
  });
  await onRevoked();
  return toRecord(revoked);
}

export async function loadManagementPrincipal(db: Db, keyHash: string): Promise<ManagementPrincipal | null> {
  const row = await db.managementKey.findUnique({ where: { keyHash }, include: { organization: true } });
  if (!row || row.revokedAt || !hashesEqual(row.keyHash, keyHash)) return null;
  return { keyId: row.id, organizationId: row.organizationId, expiresAt: null, scopes: normalizeManagementScopes(row.scopes).scopes, organization: organizationSettings(row.organization) };
}

export async function loadOrganizationSettings(db: Db, organizationId: string): Promise<OrganizationSettings | null> {
  const org = isUuid(organizationId) ? await db.organization.findUnique({ where: { id: organizationId } }) : null;
  return org ? organizationSettings(org) : null;
}
