import { randomBytes } from 'node:crypto';
import { hashAccessKey } from '@patchbay/auth';
import { z } from 'zod';
import type { Db } from '../db';
import type { ApiKey } from '../generated/prisma/client';
import { ManagementError } from '../http/errors';
import { parsePaging } from '../http/params';
import type { Invalidator } from '../keys/principals';
import { usageInWindow } from '@patchbay/gateway-spend';
import type { SpendControl } from '../spend/spend-control';

/** Gateway keys look like `pbgw_<43 base64url characters>` (256 random bits). */
export const GATEWAY_KEY_PREFIX = 'pbgw_';
export const ORG_KEY_LIMIT = 1000;

export function generateGatewayKey(): { key: string; hash: string; label: string } {
  const key = GATEWAY_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, hash: hashAccessKey(key), label: `${key.slice(0, 9)}...${key.slice(-4)}` };
}

const usd = z.number().min(0).max(1e9);
const modelPattern = z.string().min(1).max(200);
export const createKeySchema = z
  .object({
    name: z.string().max(255).nullable().optional(),
    limit: usd.nullable().optional(),
    limit_reset: z.enum(['daily', 'weekly', 'monthly']).nullable().optional(),
    allowed_models: z.array(modelPattern).max(500).nullable().optional(),
    routing_policy_id: z.string().uuid().nullable().optional(),
    disabled: z.boolean().optional(),
    project_id: z.string().uuid().nullable().optional(),
    expires_at: z.string().datetime({ offset: true }).nullable().optional(),
  })
  .strict();
export const updateKeySchema = createKeySchema.omit({ project_id: true }).strict();
export const customerKeySchema = z
  .object({
    name: z.string().max(255).nullable().optional(),
    limit: usd.nullable().optional(),
    limit_reset: z.enum(['daily', 'weekly', 'monthly']).nullable().optional(),
    allowed_models: z.array(modelPattern).max(500).nullable().optional(),
    rate_limit_rpm: z.number().int().min(1).max(1_000_000).nullable().optional(),
    expires_at: z.string().datetime({ offset: true }).nullable().optional(),
  })
  .strict();

/** zod issues as one message naming each field. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const message = result.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.code === 'unrecognized_keys' ? `unknown field(s) ${(i as { keys?: string[] }).keys?.join(', ')}` : i.message}`).join('; ');
  throw new ManagementError(400, message);
}

function micros(value: number | null | undefined): bigint | null | undefined {
  return value === undefined ? undefined : value === null ? null : BigInt(Math.round(value * 1e6));
}

function usdOf(micros: number): number {
  return micros / 1e6;
}

/** The key object of the spec's table (money in USD). */
export async function renderKey(row: ApiKey, spend: SpendControl): Promise<Record<string, unknown>> {
  const u = await spend.keyUsage(row.organizationId, row.hash);
  const inWindow = usageInWindow(u, row.limitReset);
  const limit = row.limitMicros === null ? null : Number(row.limitMicros);
  return {
    hash: row.hash,
    name: row.name,
    label: row.label,
    limit: limit === null ? null : usdOf(limit),
    limit_reset: row.limitReset,
    usage: usdOf(inWindow.usage),
    usage_daily: usdOf(u.daily),
    usage_weekly: usdOf(u.weekly),
    usage_monthly: usdOf(u.monthly),
    byok_usage: usdOf(inWindow.byokUsage),
    byok_usage_daily: usdOf(u.byok.daily),
    byok_usage_weekly: usdOf(u.byok.weekly),
    byok_usage_monthly: usdOf(u.byok.monthly),
    limit_remaining: limit === null ? null : usdOf(Math.max(0, limit - inWindow.usage)),
    allowed_models: row.allowedModelsSet ? row.allowedModels : null,
    routing_policy_id: row.routingPolicyId,
    disabled: row.disabled,
    creator_user_id: row.creatorUserId,
    project_id: row.projectId,
    customer_id: row.customerId,
    rate_limit_rpm: row.rateLimitRpm,
    expires_at: row.expiresAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export class KeyService {
  constructor(
    private readonly db: Db,
    private readonly invalidate: Invalidator,
    private readonly spend: SpendControl,
  ) {}

  /** 409 org_api_key_limit_reached at 1,000 keys; 403 payment_method_required for a paid org without one. */
  private async checkCanCreate(organizationId: string, plan: 'free' | 'paid', paymentMethodOnFile: boolean): Promise<void> {
    if (plan === 'paid' && !paymentMethodOnFile) {
      throw new ManagementError(403, 'The organization is on a paid plan and has no payment method on file; add one (patchbay org update <id> --payment-method true) before creating keys.', 'payment_method_required');
    }
    const count = await this.db.apiKey.count({ where: { organizationId } });
    if (count >= ORG_KEY_LIMIT) throw new ManagementError(409, `The organization already holds ${ORG_KEY_LIMIT} keys; delete unused keys first.`, 'org_api_key_limit_reached');
  }

  /** A key binds only to a routing policy of its own organization. */
  private async checkRoutingPolicy(organizationId: string, policyId: string | null | undefined): Promise<void> {
    if (!policyId) return;
    if (!(await this.db.routingPolicy.findFirst({ where: { id: policyId, organizationId }, select: { id: true } }))) {
      throw new ManagementError(400, `routing_policy_id: no routing policy ${policyId} in this organization (GET /v1/routing-policies lists them).`);
    }
  }

  async create(
    organizationId: string,
    settings: { plan: 'free' | 'paid'; paymentMethodOnFile: boolean },
    input: z.infer<typeof createKeySchema> & { customer_id?: string; rate_limit_rpm?: number | null },
  ): Promise<Record<string, unknown>> {
    await this.checkCanCreate(organizationId, settings.plan, settings.paymentMethodOnFile);
    if (input.project_id) {
      const project = await this.db.project.findFirst({ where: { id: input.project_id, organizationId } });
      if (!project) throw new ManagementError(400, `project_id: no project ${input.project_id} in this organization.`);
    }
    await this.checkRoutingPolicy(organizationId, input.routing_policy_id);
    if (input.limit !== undefined && input.limit !== null && !input.limit_reset) input.limit_reset = null;
    const material = generateGatewayKey();
    const row = await this.db.apiKey.create({
      data: {
        hash: material.hash,
        organizationId,
        name: input.name ?? null,
        label: material.label,
        limitMicros: micros(input.limit) ?? null,
        limitReset: input.limit_reset ?? null,
        allowedModels: input.allowed_models ?? [],
        allowedModelsSet: input.allowed_models !== undefined && input.allowed_models !== null,
        routingPolicyId: input.routing_policy_id ?? null,
        disabled: input.disabled ?? false,
        creatorUserId: null,
        projectId: input.project_id ?? null,
        customerId: input.customer_id ?? null,
        rateLimitRpm: input.rate_limit_rpm ?? null,
        expiresAt: input.expires_at ? new Date(input.expires_at) : null,
      },
    });
    return { ...(await renderKey(row, this.spend)), key: material.key };
  }

  /**
   * GET /v1/keys: the organization's keys filtered, sorted and paged in PostgreSQL (indexes on the
   * organization with created_at, name, expires_at, project and customer), so a page costs the same at
   * 100,000 keys as at 10. Spend (sort and min_spend) is this UTC month's, from key_month_spend (kept by the usage records' INSERT).
   */
  async search(organizationId: string, query: KeyQuery): Promise<{ data: Record<string, unknown>[]; total: number }> {
    const params: unknown[] = [organizationId];
    const arg = (value: unknown, cast = '') => {
      params.push(value);
      return `$${params.length}${cast}`;
    };
    const where = ['k.organization_id = $1::uuid'];
    if (query.search) {
      const pattern = arg(`%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`(k.name ILIKE ${pattern} OR k.label ILIKE ${pattern})`);
    }
    if (query.projectId) where.push(`k.project_id = ${arg(query.projectId, '::uuid')}`);
    if (query.customerId === 'none') where.push('k.customer_id IS NULL');
    else if (query.customerId) where.push(`k.customer_id = ${arg(query.customerId, '::uuid')}`);
    if (query.disabled !== undefined) where.push(`k.disabled = ${arg(query.disabled)}`);
    if (query.expiry === 'expired') where.push('k.expires_at <= now()');
    else if (query.expiry === 'active') where.push('(k.expires_at IS NULL OR k.expires_at > now())');
    else if (query.expiry === 'never') where.push('k.expires_at IS NULL');
    const bySpend = query.sort === 'spend' || query.sort === '-spend' || query.minSpend !== undefined;
    let from = 'api_keys k';
    if (bySpend) {
      const month = new Date().toISOString().slice(0, 8) + '01';
      const on = `s.key_hash = k.hash AND s.organization_id = $1::uuid AND s.month = ${arg(month, '::date')}`;
      // A spend floor above zero keeps only keys with spend this month: an inner join the planner starts from the spend side.
      const floor = Math.round((query.minSpend ?? 0) * 1e6);
      from = floor > 0 ? `api_keys k JOIN key_month_spend s ON ${on} AND s.cost_micros >= ${arg(floor)}` : `api_keys k LEFT JOIN key_month_spend s ON ${on}`;
    }
    const order = KEY_SORTS[query.sort];
    const filter = where.join(' AND ');
    const [page, counted] = await Promise.all([
      this.db.$queryRawUnsafe<Array<{ hash: string }>>(`SELECT k.hash FROM ${from} WHERE ${filter} ORDER BY ${order} LIMIT ${query.limit} OFFSET ${query.offset}`, ...params),
      this.db.$queryRawUnsafe<Array<{ total: number }>>(`SELECT count(*)::int AS total FROM ${from} WHERE ${filter}`, ...params),
    ]);
    const rows = await this.db.apiKey.findMany({ where: { hash: { in: page.map((r) => r.hash) } } });
    const byHash = new Map(rows.map((r) => [r.hash, r]));
    const ordered = page.map((r) => byHash.get(r.hash)).filter((r): r is ApiKey => r !== undefined);
    return { data: await Promise.all(ordered.map((r) => renderKey(r, this.spend))), total: counted[0]?.total ?? 0 };
  }

  async row(organizationId: string, hash: string): Promise<ApiKey> {
    const row = /^[0-9a-f]{64}$/.test(hash) ? await this.db.apiKey.findUnique({ where: { hash } }) : null;
    if (!row || row.organizationId !== organizationId) throw new ManagementError(404, `No key with hash ${hash} in this organization.`);
    return row;
  }

  async get(organizationId: string, hash: string): Promise<Record<string, unknown>> {
    return renderKey(await this.row(organizationId, hash), this.spend);
  }

  async update(organizationId: string, hash: string, body: unknown): Promise<Record<string, unknown>> {
    if (body && typeof body === 'object' && 'project_id' in body) {
      throw new ManagementError(400, 'project_id cannot change after a key is created; create a new key in the other project.', 'project_id_immutable');
    }
    const input = parseBody(updateKeySchema, body);
    await this.row(organizationId, hash);
    await this.checkRoutingPolicy(organizationId, input.routing_policy_id);
    const data = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      // Changing the limit never resets usage: usage lives in the spend counters, not on the key.
      ...(input.limit !== undefined ? { limitMicros: micros(input.limit) } : {}),
      ...(input.limit_reset !== undefined ? { limitReset: input.limit_reset } : {}),
      ...(input.allowed_models !== undefined ? { allowedModels: input.allowed_models ?? [], allowedModelsSet: input.allowed_models !== null } : {}),
      ...(input.routing_policy_id !== undefined ? { routingPolicyId: input.routing_policy_id } : {}),
      ...(input.disabled !== undefined ? { disabled: input.disabled } : {}),
      ...(input.expires_at !== undefined ? { expiresAt: input.expires_at === null ? null : new Date(input.expires_at) } : {}),
    };
    const row = await this.db.$transaction(async (tx) => {
      const updated = await tx.apiKey.update({ where: { hash }, data });
      await this.invalidate.stageKey(tx, hash);
      return updated;
    });
    await this.invalidate.keyCommitted(hash);
    return renderKey(row, this.spend);
  }

  /**
   * A new secret for the key's settings (name, limit and window, models, routing policy, project,
   * customer, rate limit, expiry): the new key replaces the old one in one transaction and the old one
   * stops working on every replica within a second. The hash is the key's id, so the id changes, and
   * its spend starts again from zero (usage records keep the old hash); stored responses go with the old key.
   */
  async rotate(organizationId: string, hash: string): Promise<Record<string, unknown>> {
    const old = await this.row(organizationId, hash);
    const material = generateGatewayKey();
    const { hash: _oldHash, label: _oldLabel, createdAt: _created, updatedAt: _updated, ...settings } = old;
    const row = await this.db.$transaction(async (tx) => {
      const made = await tx.apiKey.create({ data: { ...settings, hash: material.hash, label: material.label } });
      await tx.apiKey.delete({ where: { hash } });
      await this.invalidate.stageKey(tx, hash);
      return made;
    });
    await this.invalidate.keyCommitted(hash);
    return { ...(await renderKey(row, this.spend)), key: material.key };
  }

  async delete(organizationId: string, hash: string): Promise<void> {
    await this.row(organizationId, hash);
    await this.db.$transaction(async (tx) => {
      await tx.apiKey.delete({ where: { hash } });
      await this.invalidate.stageKey(tx, hash);
    });
    await this.invalidate.keyCommitted(hash);
  }
}

/** Sort orders of GET /v1/keys (PostgreSQL's default null placement, so the indexes serve them). */
const KEY_SORTS = {
  created_at: 'k.created_at ASC, k.hash ASC',
  '-created_at': 'k.created_at DESC, k.hash ASC',
  name: 'k.name ASC, k.hash ASC',
  '-name': 'k.name DESC, k.hash ASC',
  expires_at: 'k.expires_at ASC, k.hash ASC',
  '-expires_at': 'k.expires_at DESC, k.hash ASC',
  spend: 'coalesce(s.cost_micros, 0) ASC, k.created_at DESC, k.hash ASC',
  '-spend': 'coalesce(s.cost_micros, 0) DESC, k.created_at DESC, k.hash ASC',
} as const;

export interface KeyQuery {
  search?: string;
  projectId?: string;
  customerId?: string;
  disabled?: boolean;
  expiry?: 'expired' | 'active' | 'never';
  minSpend?: number;
  sort: keyof typeof KEY_SORTS;
  offset: number;
  limit: number;
}

const keyQuerySchema = z
  .object({
    search: z.string().max(200).optional(),
    project_id: z.string().uuid('must be a project id (a UUID)').optional(),
    customer_id: z.union([z.literal('none'), z.string().uuid('must be a customer id (a UUID) or none')]).optional(),
    disabled: z.enum(['true', 'false']).optional(),
    expiry: z.enum(['expired', 'active', 'never']).optional(),
    min_spend: z.coerce.number().min(0).max(1e9).optional(),
    sort: z.enum(Object.keys(KEY_SORTS) as [keyof typeof KEY_SORTS, ...(keyof typeof KEY_SORTS)[]]).optional(),
    offset: z.unknown().optional(),
    limit: z.unknown().optional(),
  })
  .strict();

/** The query of GET /v1/keys; an unknown parameter or a bad value is 400 naming it. */
export function parseKeyQuery(query: Record<string, unknown>): KeyQuery {
  const input = parseBody(keyQuerySchema, query);
  return {
    ...parsePaging(query),
    ...(input.search ? { search: input.search } : {}),
    ...(input.project_id ? { projectId: input.project_id } : {}),
    ...(input.customer_id ? { customerId: input.customer_id } : {}),
    ...(input.disabled ? { disabled: input.disabled === 'true' } : {}),
    ...(input.expiry ? { expiry: input.expiry } : {}),
    ...(input.min_spend !== undefined ? { minSpend: input.min_spend } : {}),
    sort: input.sort ?? '-created_at',
  };
}
