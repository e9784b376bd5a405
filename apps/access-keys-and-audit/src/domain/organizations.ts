import { SCOPES, type Environment, type Scope, addKeyInvalidationToOutbox, generateAccessKey } from '@patchbay/auth';
import { NotFoundError, ValidationError, type FieldError } from '@patchbay/errors';
import type { Db } from '../db';
import type { Organization, Plan } from '../generated/prisma/client';
import { recordAuditEvent } from './audit-log';
import { toAccessKeyRecord, type AccessKeyWithSecret } from './access-keys';
import { AUDIT_EVENT_TYPES } from './event-types';
import { isUuid } from '@patchbay/service-kit';

const SOURCE = 'access-keys-and-audit';

/** Monthly credit allotments when the CLI is not given one (the spec leaves them to us). */
export const DEFAULT_MONTHLY_CREDITS: Record<Plan, number> = { free: 1_000, paid: 100_000 };
export const DEFAULT_MCP_RATE_LIMIT_PER_MINUTE = 30;

export interface OrganizationRecord {
  organization_id: string;
  name: string;
  plan: Plan;
  monthly_credits: number;
  callback_origins: string[];
  mcp_allowed_origins: string[];
  environment_matching: boolean;
  mcp_rate_limit_per_minute: number;
  gateway_payment_method: boolean;
  gateway_credit_usd: number;
  /** null: each gateway surface's default (native off, OpenAI-compatible on). */
  gateway_response_store: boolean | null;
  created_at: string;
  updated_at: string;
  /**
   * The organization's audit/tool-call retention (the spec's one setting): days its audit events and its tool-call
   * records stay in the live log before they move to the archive, where they stay readable with an earlier
   * created_after. null: each service's default (AUDIT_RETENTION_DAYS, TOOL_CALL_RETENTION_DAYS; 90 days).
   */
  audit_retention_days: number | null;
}

export function toOrganizationRecord(org: Organization): OrganizationRecord {
  return {
    organization_id: org.id,
    name: org.name,
    plan: org.plan,
    monthly_credits: org.monthlyCredits,
    callback_origins: org.callbackOrigins,
    mcp_allowed_origins: org.mcpAllowedOrigins,
    environment_matching: org.environmentMatching,
    mcp_rate_limit_per_minute: org.mcpRateLimitPerMinute,
    gateway_payment_method: org.gatewayPaymentMethod,
    gateway_credit_usd: Number(org.gatewayCreditMicros) / 1e6,
    gateway_response_store: org.gatewayResponseStore,
    created_at: org.createdAt.toISOString(),
    updated_at: org.updatedAt.toISOString(),
    audit_retention_days: org.auditRetentionDays,
  };
}

/**
 * A callback origin is scheme://host[:port] and nothing else. https is required except for
 * localhost, so a newcomer can test a callback on their own machine.
 */
export function normalizeCallbackOrigin(value: string, field = 'callback_origin'): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw ValidationError.forField(field, `"${value}" is not a URL; give an origin like https://app.example.com`);
  }
  const local = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) {
    throw ValidationError.forField(field, `"${value}" must use https (http is allowed only for localhost)`);
  }
  if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw ValidationError.forField(field, `"${value}" must be an origin only (scheme, host and port), without path, query or credentials`);
  }
  return url.origin;
}

/** A browser origin allowed on the MCP endpoint: the same rules as a callback origin. */
export function normalizeMcpAllowedOrigin(value: string): string {
  return normalizeCallbackOrigin(value, 'mcp_allowed_origin');
}

export interface CreateOrganizationInput {
  name: string;
  plan?: Plan;
  monthlyCredits?: number;
  callbackOrigins?: string[];
  mcpAllowedOrigins?: string[];
  /** Without a master key the organization starts with one named unrestricted production key instead. */
  withMasterKey?: boolean;
  /** Model gateway: payment method on file (default true, so a new paid organization works at once). */
  gatewayPaymentMethod?: boolean;
  /** Model gateway credit balance in USD (default PATCHBAY_GATEWAY_DEFAULT_CREDIT_USD, else 100). */
  gatewayCreditUsd?: number;
}

/** USD to integer micro-USD, refusing what is not a non-negative amount with at most six decimals. */
export function creditMicrosFromUsd(usd: number, field = 'gateway-credit-usd'): bigint {
  const micros = Math.round(usd * 1e6);
  if (!Number.isFinite(usd) || usd < 0 || micros > Number.MAX_SAFE_INTEGER || Math.abs(micros - usd * 1e6) > 1e-3) {
    throw ValidationError.forField(field, 'must be an amount in USD of 0 or more, with at most 6 decimals');
  }
  return BigInt(micros);
}

export function defaultGatewayCreditUsd(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.PATCHBAY_GATEWAY_DEFAULT_CREDIT_USD;
  if (raw === undefined || raw === '') return 100;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw ValidationError.forField('PATCHBAY_GATEWAY_DEFAULT_CREDIT_USD', 'must be an amount in USD of 0 or more');
  return value;
}

export interface CreatedOrganization extends OrganizationRecord {
  master_key: string | null;
  master_key_id: string | null;
  initial_key: string | null;
  initial_key_id: string | null;
  test_key: string;
  test_key_id: string;
}

function validateSettings(input: { name?: string; monthlyCredits?: number; mcpRateLimitPerMinute?: number; auditRetentionDays?: number | null }): void {
  const errors: FieldError[] = [];
  if (input.name !== undefined && (input.name.trim() === '' || input.name.length > 255)) errors.push({ field: 'name', message: 'must be 1 to 255 characters' });
  if (input.monthlyCredits !== undefined && (!Number.isSafeInteger(input.monthlyCredits) || input.monthlyCredits < 0)) errors.push({ field: 'credits', message: 'must be a whole number of 0 or more' });
  if (input.mcpRateLimitPerMinute !== undefined && (!Number.isSafeInteger(input.mcpRateLimitPerMinute) || input.mcpRateLimitPerMinute < 1 || input.mcpRateLimitPerMinute > 100_000)) {
    errors.push({ field: 'mcp-rate-limit', message: 'must be a whole number from 1 to 100000 calls per minute' });
  }
  if (input.auditRetentionDays != null && (!Number.isSafeInteger(input.auditRetentionDays) || input.auditRetentionDays < 1 || input.auditRetentionDays > 3650)) {
    errors.push({ field: 'audit-retention-days', message: 'must be a whole number of days from 1 to 3650, or default' });
  }
  if (errors.length > 0) throw new ValidationError(errors);
}

function newKeyData(organizationId: string, environment: Environment, name: string | null, isMaster: boolean, scopes: readonly Scope[] = SCOPES) {
  const material = generateAccessKey(environment);
  return {
    material,
    data: {
      organizationId,
      environment,
      name,
      keyHash: material.hash,
      keyPrefix: material.prefix,
      keyLast4: material.last4,
      scopes: [...scopes],
      isMaster,
      expiresAt: null,
    },
  };
}

export async function createOrganization(db: Db, input: CreateOrganizationInput): Promise<CreatedOrganization> {
  const plan = input.plan ?? 'free';
  validateSettings({ name: input.name, monthlyCredits: input.monthlyCredits });
  const origins = [...new Set((input.callbackOrigins ?? []).map((o) => normalizeCallbackOrigin(o)))];
  const mcpOrigins = [...new Set((input.mcpAllowedOrigins ?? []).map(normalizeMcpAllowedOrigin))];
  const withMaster = input.withMasterKey ?? true;
  return db.$transaction(async (tx) => {
    const org = await tx.organization.create({
      data: {
        name: input.name.trim(),
        plan,
        monthlyCredits: input.monthlyCredits ?? DEFAULT_MONTHLY_CREDITS[plan],
        callbackOrigins: origins,
        mcpAllowedOrigins: mcpOrigins,
        gatewayPaymentMethod: input.gatewayPaymentMethod ?? true,
        gatewayCreditMicros: creditMicrosFromUsd(input.gatewayCreditUsd ?? defaultGatewayCreditUsd()),
      },
    });
    const production = newKeyData(org.id, 'production', withMaster ? null : 'Initial key', withMaster);
    const test = newKeyData(org.id, 'test', 'Test key', false);
    const productionKey = await tx.accessKey.create({ data: production.data });
    const testKey = await tx.accessKey.create({ data: test.data });
    const base = { organizationId: org.id, actorType: 'admin_cli' as const, sourceService: SOURCE };
    await recordAuditEvent(tx, { ...base, environment: 'production', eventType: AUDIT_EVENT_TYPES.organizationCreated, resourceType: 'organization', resourceId: org.id, details: { name: org.name, plan } });
    await recordAuditEvent(tx, { ...base, environment: 'production', eventType: AUDIT_EVENT_TYPES.accessKeyCreated, targetKeyId: productionKey.id, resourceType: 'access_key', resourceId: productionKey.id, details: { name: productionKey.name, is_master: withMaster, key_masked: toAccessKeyRecord(productionKey).key_masked } });
    await recordAuditEvent(tx, { ...base, environment: 'test', eventType: AUDIT_EVENT_TYPES.accessKeyCreated, targetKeyId: testKey.id, resourceType: 'access_key', resourceId: testKey.id, details: { name: testKey.name, key_masked: toAccessKeyRecord(testKey).key_masked } });
    return {
      ...toOrganizationRecord(org),
      master_key: withMaster ? production.material.key : null,
      master_key_id: withMaster ? productionKey.id : null,
      initial_key: withMaster ? null : production.material.key,
      initial_key_id: withMaster ? null : productionKey.id,
      test_key: test.material.key,
      test_key_id: testKey.id,
    };
  });
}

export interface UpdateOrganizationInput {
  name?: string;
  plan?: Plan;
  monthlyCredits?: number;
  callbackOrigins?: string[];
  mcpAllowedOrigins?: string[];
  environmentMatching?: boolean;
  mcpRateLimitPerMinute?: number;
  gatewayPaymentMethod?: boolean;
  gatewayCreditUsd?: number;
  /** null returns to each surface's default. */
  gatewayResponseStore?: boolean | null;
  /** Days audit events and tool-call records stay in the live log before the archive; null: each service's default. */
  auditRetentionDays?: number | null;
}

export async function updateOrganization(
  db: Db,
  organizationId: string,
  input: UpdateOrganizationInput,
  onChanged: (id: string) => Promise<void>,
  /** Who changed it, for the audit log: the admin CLI unless a member did in the console. */
  actor: { kind: 'admin_cli' } | { kind: 'member'; memberId: string } = { kind: 'admin_cli' },
): Promise<OrganizationRecord> {
  await getOrganizationRow(db, organizationId);
  validateSettings(input);
  const data = {
    ...(input.name !== undefined ? { name: input.name.trim() } : {}),
    ...(input.plan !== undefined ? { plan: input.plan } : {}),
    ...(input.monthlyCredits !== undefined ? { monthlyCredits: input.monthlyCredits } : {}),
    ...(input.callbackOrigins !== undefined ? { callbackOrigins: [...new Set(input.callbackOrigins.map((o) => normalizeCallbackOrigin(o)))] } : {}),
    ...(input.mcpAllowedOrigins !== undefined ? { mcpAllowedOrigins: [...new Set(input.mcpAllowedOrigins.map(normalizeMcpAllowedOrigin))] } : {}),
    ...(input.environmentMatching !== undefined ? { environmentMatching: input.environmentMatching } : {}),
    ...(input.mcpRateLimitPerMinute !== undefined ? { mcpRateLimitPerMinute: input.mcpRateLimitPerMinute } : {}),
    ...(input.gatewayPaymentMethod !== undefined ? { gatewayPaymentMethod: input.gatewayPaymentMethod } : {}),
    ...(input.gatewayCreditUsd !== undefined ? { gatewayCreditMicros: creditMicrosFromUsd(input.gatewayCreditUsd) } : {}),
    ...(input.gatewayResponseStore !== undefined ? { gatewayResponseStore: input.gatewayResponseStore } : {}),
    ...(input.auditRetentionDays !== undefined ? { auditRetentionDays: input.auditRetentionDays } : {}),
  };
  const org = await db.$transaction(async (tx) => {
    const updated = await tx.organization.update({ where: { id: organizationId }, data });
    await recordAuditEvent(tx, {
      organizationId,
      environment: 'production',
      eventType: AUDIT_EVENT_TYPES.organizationUpdated,
      actorType: actor.kind,
      actorMemberId: actor.kind === 'member' ? actor.memberId : null,
      resourceType: 'organization',
      resourceId: organizationId,
      sourceService: SOURCE,
      details: { changed: Object.keys(data) },
    });
    // Services cache organization settings with each key: they drop them when this is published (onChanged).
    await addKeyInvalidationToOutbox(tx, { organizationId });
    return updated;
  });
  await onChanged(organizationId);
  return toOrganizationRecord(org);
}

async function getOrganizationRow(db: Db, organizationId: string): Promise<Organization> {
  const org = isUuid(organizationId) ? await db.organization.findUnique({ where: { id: organizationId } }) : null;
  if (!org) throw new NotFoundError(`Organization ${organizationId} not found.`);
  return org;
}

export async function getOrganization(db: Db, organizationId: string): Promise<OrganizationRecord> {
  return toOrganizationRecord(await getOrganizationRow(db, organizationId));
}

export async function listOrganizations(db: Db): Promise<OrganizationRecord[]> {
  const orgs = await db.organization.findMany({ orderBy: { createdAt: 'asc' } });
  return orgs.map(toOrganizationRecord);
}

/**
 * A key linked to a service account: created only by the admin CLI, shown once, never regenerated
 * (the service account's owner revokes it and links a new one).
 */
/**
 * A new unrestricted key (every scope, every tool pack and registered user, no expiry unless asked)
 * made by an operator: how a newcomer gets a working key for an organization whose first keys were
 * printed to someone else (keys are stored as hashes and can never be shown again).
 */
export async function createAdminKey(
  db: Db,
  input: { organizationId: string; environment?: Environment; name?: string; expiresInSeconds?: number },
  now: Date = new Date(),
): Promise<AccessKeyWithSecret> {
  await getOrganizationRow(db, input.organizationId);
  const environment = input.environment ?? 'production';
  const name = (input.name ?? `Admin CLI key ${now.toISOString().slice(0, 10)}`).trim();
  if (!name || name.length > 255) throw ValidationError.forField('name', 'must be 1 to 255 characters');
  if (input.expiresInSeconds !== undefined && (!Number.isSafeInteger(input.expiresInSeconds) || input.expiresInSeconds < 60)) {
    throw ValidationError.forField('expires-in', 'must be a whole number of seconds, 60 or more');
  }
  const expiresAt = input.expiresInSeconds === undefined ? null : new Date(now.getTime() + input.expiresInSeconds * 1000);
  return storeCliKey(db, newKeyData(input.organizationId, environment, name, false), { expiresAt }, { scopes: [...SCOPES], expires_at: expiresAt?.toISOString() ?? null }, now);
}

/** Stores a key the admin CLI made, with its access_key.created event in the same transaction; returns it with its secret. */
async function storeCliKey(
  db: Db,
  { material, data }: ReturnType<typeof newKeyData>,
  extra: { serviceAccount?: string; expiresAt?: Date | null },
  details: Record<string, unknown>,
  now: Date = new Date(),
): Promise<AccessKeyWithSecret> {
  return db.$transaction(async (tx) => {
    const row = await tx.accessKey.create({ data: { ...data, ...extra } });
    await recordAuditEvent(tx, {
      organizationId: data.organizationId,
      environment: data.environment,
      eventType: AUDIT_EVENT_TYPES.accessKeyCreated,
      actorType: 'admin_cli',
      targetKeyId: row.id,
      resourceType: 'access_key',
      resourceId: row.id,
      sourceService: SOURCE,
      details: { name: row.name, ...details, key_masked: toAccessKeyRecord(row).key_masked },
    });
    return { ...toAccessKeyRecord(row, now), key: material.key };
  });
}

export async function createServiceAccountKey(
  db: Db,
  input: { organizationId: string; serviceAccount: string; environment?: Environment; scopes?: Scope[]; name?: string },
): Promise<AccessKeyWithSecret> {
  await getOrganizationRow(db, input.organizationId);
  const serviceAccount = input.serviceAccount.trim();
  if (!serviceAccount || serviceAccount.length > 255) throw ValidationError.forField('service-account', 'must be 1 to 255 characters');
  const scopes = input.scopes ?? [...SCOPES];
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0 || scopes.length === 0) throw ValidationError.forField('scopes', `must be one or more of ${SCOPES.join(', ')}`);
  const environment = input.environment ?? 'production';
  const key = newKeyData(input.organizationId, environment, input.name ?? `Service account ${serviceAccount}`, false, scopes);
  return storeCliKey(db, key, { serviceAccount }, { service_account: serviceAccount, scopes });
}

/** An organization's own audit/tool-call retention, as the internal route sends it to mcp-runtime. */
export interface OrganizationRetention {
  organization_id: string;
  retention_days: number;
}

/** The organizations whose audit_retention_days is set (the others follow each service's default). */
export async function listOrganizationRetention(db: Db): Promise<{ organizations: OrganizationRetention[] }> {
  const rows = await db.organization.findMany({ where: { auditRetentionDays: { not: null } }, select: { id: true, auditRetentionDays: true }, orderBy: { id: 'asc' } });
  return { organizations: rows.map((r) => ({ organization_id: r.id, retention_days: r.auditRetentionDays! })) };
}
