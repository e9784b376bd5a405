import { KeyVerifier, addKeyInvalidationToOutbox, type KeyLoader, type OrganizationSettings } from '@patchbay/auth';
import type { OutboxRelay, OutboxWriter } from '@patchbay/queues';
import type { SecretBox } from '@patchbay/secrets';
import type { Db } from '../db';
import type { ApiKey, Prisma } from '../generated/prisma/client';
import type { RoutingPolicy } from '@patchbay/model-routing';
import { toRoutingPolicy } from './routing-policy-row';
import { loadGuardrails, type OrganizationGuardrails } from '../guardrails/guardrails';

/** A verified gateway API key (organization or customer key), cached in process. */
export interface GatewayKeyPrincipal {
  /** The key's hash: the cache and invalidation id. */
  keyId: string;
  hash: string;
  organizationId: string;
  environment: 'production' | 'test';
  expiresAt: string | null;
  kind: 'organization' | 'customer';
  disabled: boolean;
  limitMicros: number | null;
  limitReset: 'daily' | 'weekly' | 'monthly' | null;
  /** null: every model; entries ending in `*` are prefixes; [] allows nothing. */
  allowedModels: string[] | null;
  routingPolicyId: string | null;
  projectId: string | null;
  customerId: string | null;
  rateLimitRpm: number | null;
}

/** What the hot path needs of an organization, loaded once per organization and cached like keys. */
export interface OrganizationGatewayData {
  /** The organization id (the cache's id for invalidation). */
  keyId: string;
  organizationId: string;
  expiresAt: null;
  settings: OrganizationSettings;
  blocklist: string[];
  /** Defined tag pairs as `key\u0000value`. */
  tags: Set<string>;
  /** BYOK credentials, opened (in memory only, never logged or returned). */
  vendorKeys: Map<string, { apiKey: string; baseUrl: string | null }>;
  projects: Map<string, { id: string; budgetMicros: number | null }>;
  customers: Map<string, { id: string; budgetMicros: number | null; active: boolean }>;
  /** The organization's routing policies (issue 10), resolved in memory on every request. */
  routingPolicies: RoutingPolicy[];
  /** Prompt-injection settings, customer overrides and DLP rules (issue 10 §3), compiled in memory. */
  guardrails: OrganizationGuardrails;
}

export function tagId(key: string, value: string): string {
  return `${key}\u0000${value}`;
}

export function toKeyPrincipal(row: ApiKey): GatewayKeyPrincipal {
  return {
    keyId: row.hash,
    hash: row.hash,
    organizationId: row.organizationId,
    environment: row.environment,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    kind: row.customerId ? 'customer' : 'organization',
    disabled: row.disabled,
    limitMicros: row.limitMicros === null ? null : Number(row.limitMicros),
    limitReset: row.limitReset,
    allowedModels: row.allowedModelsSet ? row.allowedModels : null,
    routingPolicyId: row.routingPolicyId,
    projectId: row.projectId,
    customerId: row.customerId,
    rateLimitRpm: row.rateLimitRpm,
  };
}

export function vendorKeyContext(organizationId: string, vendor: string): string {
  return `model-gateway:vendor-key:${organizationId}:${vendor}`;
}

export function dbKeyLoader(db: Db): KeyLoader<GatewayKeyPrincipal> {
  return async (hash) => {
    const row = await db.apiKey.findUnique({ where: { hash } });
    return row ? toKeyPrincipal(row) : null;
  };
}

export function organizationDataLoader(db: Db, loadSettings: (organizationId: string) => Promise<OrganizationSettings | null>, secrets: SecretBox): KeyLoader<OrganizationGatewayData> {
  return async (organizationId) => {
    const [settings, blocked, tags, vendorKeys, projects, customers, policies, guardrails, piOverrides] = await Promise.all([
      loadSettings(organizationId),
      db.blockedModel.findMany({ where: { organizationId } }),
      db.tag.findMany({ where: { organizationId } }),
      db.vendorKey.findMany({ where: { organizationId } }),
      db.project.findMany({ where: { organizationId } }),
      db.customer.findMany({ where: { organizationId } }),
      db.routingPolicy.findMany({ where: { organizationId }, orderBy: { createdAt: 'asc' } }),
      db.guardrailSettings.findUnique({ where: { organizationId } }),
      db.customerPiOverride.findMany({ where: { organizationId } }),
    ]);
    if (!settings) return null;
    return {
      keyId: organizationId,
      organizationId,
      expiresAt: null,
      settings,
      blocklist: blocked.map((b) => b.pattern),
      tags: new Set(tags.map((t) => tagId(t.key, t.value))),
      vendorKeys: new Map(vendorKeys.map((k) => [k.vendor, { apiKey: secrets.open(k.sealedKey, vendorKeyContext(organizationId, k.vendor)), baseUrl: k.baseUrl }])),
      projects: new Map(projects.map((p) => [p.id, { id: p.id, budgetMicros: p.budgetMicros === null ? null : Number(p.budgetMicros) }])),
      customers: new Map(customers.map((c) => [c.id, { id: c.id, budgetMicros: c.budgetMicros === null ? null : Number(c.budgetMicros), active: c.active }])),
      routingPolicies: policies.map(toRoutingPolicy),
      guardrails: loadGuardrails(guardrails, piOverrides),
    };
  };
}

/** The gateway's two caches (keys; organization data), both invalidated over the access keys channel. */
export interface GatewayCaches {
  keys: KeyVerifier<GatewayKeyPrincipal>;
  organizations: KeyVerifier<OrganizationGatewayData>;
}

/** The transaction client an organization change runs in. */
export type OrganizationChangeTx = Prisma.TransactionClient;

/** How long a change's answer waits for its invalidation to be published (it is kept and sent later if Redis is slower). */
const PUBLISH_WAIT_MS = 1_000;

/**
 * After a change: every replica drops the key (or all of the organization's entries) within a second.
 * The invalidation goes through the outbox, so one Redis does not take is published as soon as it
 * answers (the relay has the invalidation publisher) instead of being lost. A change records it in its
 * own transaction, so a crash between the change's commit and the record cannot lose it: a key change
 * with `stageKey` then `keyCommitted`, a change to the organization's gateway data (projects, customers,
 * vendor keys, tags, the blocklist, routing policies, guardrails) through `organizationChange`.
 */
export class Invalidator {
  constructor(
    private readonly db: Db,
    private readonly relay: Pick<OutboxRelay, 'kickWithin'>,
    private readonly caches: GatewayCaches,
  ) {}

  /** Inside the transaction that changes or deletes a key: its invalidation commits with it. */
  async stageKey(tx: OutboxWriter, hash: string): Promise<void> {
    await addKeyInvalidationToOutbox(tx, { keyHash: hash });
  }

  /** After the transaction that staged the key's invalidation committed. */
  async keyCommitted(hash: string): Promise<void> {
    this.caches.keys.invalidate({ keyHash: hash });
    await this.relay.kickWithin(PUBLISH_WAIT_MS);
  }

  /**
   * Runs a change to the organization's gateway data in one transaction with its invalidation (and the
   * invalidations of `keyHashes` the change removes); once committed, this replica drops the entries at
   * once and every other one within a second. A change that throws commits neither.
   */
  async organizationChange<T>(organizationId: string, change: (tx: OrganizationChangeTx) => Promise<T>, keyHashes: readonly string[] = []): Promise<T> {
    const result = await this.db.$transaction(async (tx) => {
      const value = await change(tx);
      for (const keyHash of keyHashes) await addKeyInvalidationToOutbox(tx, { keyHash });
      await addKeyInvalidationToOutbox(tx, { organizationId });
      return value;
    });
    for (const keyHash of keyHashes) this.caches.keys.invalidate({ keyHash });
    this.caches.organizations.invalidate({ organizationId });
    this.caches.keys.invalidate({ organizationId });
    await this.relay.kickWithin(PUBLISH_WAIT_MS);
    return result;
  }
}
