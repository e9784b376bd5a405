import { ValidationError, type FieldError } from '@patchbay/errors';
import type { ModelEndpoint, RoutingCatalog } from './catalog';

/**
 * How a policy orders its routes.
 * - priority: the targets in the order given; each model's vendors in the order given, or cheapest
 *   first when none are named (as Merge's priority policies do), then the next model.
 * - weighted: load balancing; the first route is drawn by weight, the rest follow in a weighted
 *   draw without replacement, so a failure still falls through to every other target.
 * - lowest_cost: every route of every target, cheapest first for the request's own token estimate.
 * - lowest_latency: every route, fastest first by the gateway's own measured time to first token
 *   (an exponentially weighted moving average kept in Redis, shared by replicas); routes never
 *   measured come after measured ones, cheapest first.
 */
export const ROUTING_STRATEGIES = ['priority', 'weighted', 'lowest_cost', 'lowest_latency'] as const;
export type RoutingStrategy = (typeof ROUTING_STRATEGIES)[number];

/** One model of a policy; `vendors` restricts (and for priority, orders) who serves it. */
export interface PolicyTarget {
  model: string;
  vendors: string[] | null;
  /** weighted only: a positive integer share. */
  weight: number | null;
}

export type PolicyScope = { type: 'organization' } | { type: 'project'; projectId: string } | { type: 'customer'; customerId: string };

/** Vendor restrictions a policy adds to the organization's. */
export interface VendorRules {
  /** Only these vendors (null: any). */
  allow: string[] | null;
  deny: string[];
  /** Only vendors with zero data retention. */
  zeroDataRetention: boolean;
  /** Only vendors running the model in these regions (null: any). */
  regions: string[] | null;
}

export interface RoutingPolicy {
  id: string;
  organizationId: string;
  name: string;
  description: string | null;
  /** Organization policies only: the alias is `@alias/<slug>`. Project and customer policies have none. */
  slug: string | null;
  scope: PolicyScope;
  strategy: RoutingStrategy;
  targets: PolicyTarget[];
  vendorRules: VendorRules;
  /** The scope's default: the organization's, the project's or the customer's. */
  isDefault: boolean;
}

/** What a create or update body holds once checked (the fields the app stores). */
export interface PolicyDraft {
  name: string;
  description: string | null;
  scope: PolicyScope;
  strategy: RoutingStrategy;
  targets: PolicyTarget[];
  vendorRules: VendorRules;
  isDefault: boolean;
  /** The slug asked for (null: minted from the name). */
  slug: string | null;
}

export const MAX_POLICY_TARGETS = 20;
export const MAX_ALIASES_PER_ORGANIZATION = 200;
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** "Support agent" → `support-agent`, as Merge mints aliases from policy names. */
export function slugFromName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/g, '');
  return slug === '' ? 'policy' : slug;
}

/** The first free slug: `fast`, then `fast-2`, `fast-3`… (collisions are suffixed, as Merge does). */
export function uniqueSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base.slice(0, 60)}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class Checker {
  readonly errors: FieldError[] = [];

  fail(field: string, message: string): void {
    this.errors.push({ field, message });
  }

  stringList(value: unknown, field: string): string[] | null {
    if (value === undefined || value === null) return null;
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v.trim() === '')) {
      this.fail(field, 'must be a list of non-empty strings');
      return null;
    }
    return [...new Set(value as string[])];
  }
}

const KNOWN_FIELDS = new Set([
  'name',
  'description',
  'strategy',
  'targets',
  'allowed_vendors',
  'denied_vendors',
  'zero_data_retention',
  'allowed_regions',
  'project_id',
  'customer_id',
  'is_default',
  'slug',
]);

/**
 * Checks a create body (or, with `existing`, a PATCH body: omitted fields keep their value; scope
 * cannot change) against the catalog. Throws @patchbay/errors' ValidationError (400, `{detail,
 * errors}`) naming every field at fault and what to send instead.
 */
export function validatePolicyInput(body: unknown, catalog: RoutingCatalog, existing?: RoutingPolicy): PolicyDraft {
  const c = new Checker();
  if (!isObject(body)) throw new ValidationError([{ field: 'body', message: 'must be a JSON object' }]);
  for (const key of Object.keys(body)) if (!KNOWN_FIELDS.has(key)) c.fail(key, `is not a routing policy field (known: ${[...KNOWN_FIELDS].join(', ')})`);

  let name = existing?.name ?? '';
  if (body.name !== undefined || !existing) {
    if (typeof body.name !== 'string' || body.name.trim() === '' || body.name.length > 200) c.fail('name', 'is required: a non-empty string of at most 200 characters');
    else name = body.name.trim();
  }

  let description = existing?.description ?? null;
  if (body.description !== undefined) {
    if (body.description !== null && (typeof body.description !== 'string' || body.description.length > 2000)) c.fail('description', 'must be a string of at most 2000 characters, or null');
    else description = (body.description as string | null) ?? null;
  }

  let strategy: RoutingStrategy = existing?.strategy ?? 'priority';
  if (body.strategy !== undefined || !existing) {
    if (typeof body.strategy !== 'string' || !(ROUTING_STRATEGIES as readonly string[]).includes(body.strategy)) {
      c.fail('strategy', `must be one of ${ROUTING_STRATEGIES.join(', ')}`);
    } else strategy = body.strategy as RoutingStrategy;
  }

  let scope: PolicyScope = existing?.scope ?? { type: 'organization' };
  if (existing) {
    if (body.project_id !== undefined || body.customer_id !== undefined) c.fail(body.project_id !== undefined ? 'project_id' : 'customer_id', 'cannot change after creation; create a new policy for another scope');
  } else {
    const project = body.project_id;
    const customer = body.customer_id;
    if (project !== undefined && project !== null && customer !== undefined && customer !== null) c.fail('customer_id', 'a policy belongs to a project or to a customer, not both');
    else if (project !== undefined && project !== null) {
      if (typeof project !== 'string' || !isUuid(project)) c.fail('project_id', 'must be a project id (UUID)');
      else scope = { type: 'project', projectId: project.toLowerCase() };
    } else if (customer !== undefined && customer !== null) {
      if (typeof customer !== 'string' || customer === '') c.fail('customer_id', 'must be a customer id');
      else scope = { type: 'customer', customerId: customer };
    }
  }

  let slug: string | null = existing?.slug ?? null;
  if (body.slug !== undefined && body.slug !== null) {
    if (scope.type !== 'organization') c.fail('slug', 'only organization policies have an alias; project and customer policies have none');
    else if (typeof body.slug !== 'string' || !SLUG.test(body.slug)) c.fail('slug', 'must be 1 to 64 lowercase letters, digits and inner hyphens (the alias becomes @alias/<slug>)');
    else slug = body.slug;
  }

  let targets = existing?.targets ?? [];
  if (body.targets !== undefined || !existing) targets = checkTargets(body.targets, strategy, catalog, c);
  else if (body.strategy !== undefined) checkWeights(targets, strategy, c);

  const rules: VendorRules = existing ? { ...existing.vendorRules } : { allow: null, deny: [], zeroDataRetention: false, regions: null };
  if (body.allowed_vendors !== undefined) rules.allow = c.stringList(body.allowed_vendors, 'allowed_vendors');
  if (body.denied_vendors !== undefined) rules.deny = c.stringList(body.denied_vendors, 'denied_vendors') ?? [];
  if (body.allowed_regions !== undefined) rules.regions = c.stringList(body.allowed_regions, 'allowed_regions');
  if (body.zero_data_retention !== undefined) {
    if (typeof body.zero_data_retention !== 'boolean') c.fail('zero_data_retention', 'must be true or false');
    else rules.zeroDataRetention = body.zero_data_retention;
  }
  if (rules.allow && rules.allow.length === 0) c.fail('allowed_vendors', 'an empty list allows no vendor at all; leave it out (or null) to allow every vendor');
  if (rules.allow && rules.deny.some((v) => rules.allow!.includes(v))) c.fail('denied_vendors', 'names a vendor allowed_vendors also names');

  let isDefault = existing?.isDefault ?? false;
  if (body.is_default !== undefined) {
    if (typeof body.is_default !== 'boolean') c.fail('is_default', 'must be true or false');
    else isDefault = body.is_default;
  }

  if (c.errors.length > 0) throw new ValidationError(c.errors);
  return { name, description, scope, strategy, targets, vendorRules: rules, isDefault, slug };
}

function checkTargets(value: unknown, strategy: RoutingStrategy, catalog: RoutingCatalog, c: Checker): PolicyTarget[] {
  if (!Array.isArray(value) || value.length === 0) {
    c.fail('targets', 'is required: a non-empty list of {"model": "provider/model", "vendors"?: [...], "weight"?: n}');
    return [];
  }
  if (value.length > MAX_POLICY_TARGETS) c.fail('targets', `holds at most ${MAX_POLICY_TARGETS} models; got ${value.length}`);
  const seen = new Set<string>();
  const targets: PolicyTarget[] = [];
  let endpoint: ModelEndpoint | undefined;
  value.forEach((entry, i) => {
    const field = `targets[${i}]`;
    if (!isObject(entry) || typeof entry.model !== 'string' || entry.model === '') return c.fail(`${field}.model`, 'is required: a model id as provider/model');
    const model = catalog.model(entry.model);
    if (!model) return c.fail(`${field}.model`, `"${entry.model}" is not in the catalog; use a full provider/model id from GET /v1/models`);
    // A policy routes one endpoint: chat, or one of the media endpoints (images, speech, transcription).
    if (model.endpoint === 'embeddings') return c.fail(`${field}.model`, `"${entry.model}" is an embedding model; routing policies route chat and media requests (the embeddings endpoint takes one model)`);
    endpoint ??= model.endpoint;
    if (model.endpoint !== endpoint) return c.fail(`${field}.model`, `"${entry.model}" serves ${model.endpoint} and the policy's first model serves ${endpoint}; a policy routes one kind of request, so make one policy per kind`);
    const vendors = c.stringList(entry.vendors, `${field}.vendors`);
    if (vendors && vendors.length === 0) c.fail(`${field}.vendors`, 'must name at least one vendor, or be left out (every vendor of the model)');
    for (const vendor of vendors ?? []) {
      if (!model.vendors.some((v) => v.vendor === vendor)) c.fail(`${field}.vendors`, `"${vendor}" does not serve ${model.id} (vendors: ${model.vendors.map((v) => v.vendor).join(', ')})`);
    }
    const key = `${model.id}|${(vendors ?? []).join(',')}`;
    if (seen.has(key)) c.fail(field, `repeats ${model.id} with the same vendors`);
    seen.add(key);
    let weight: number | null = null;
    if (entry.weight !== undefined && entry.weight !== null) {
      if (typeof entry.weight !== 'number' || !Number.isInteger(entry.weight) || entry.weight < 1 || entry.weight > 1_000_000) c.fail(`${field}.weight`, 'must be a positive integer');
      else weight = entry.weight;
    }
    targets.push({ model: model.id, vendors, weight });
  });
  checkWeights(targets, strategy, c);
  return targets;
}

function checkWeights(targets: PolicyTarget[], strategy: RoutingStrategy, c: Checker): void {
  if (strategy === 'weighted') {
    targets.forEach((t, i) => {
      const field = `targets[${i}].weight`;
      if (t.weight === null && !c.errors.some((e) => e.field === field)) c.fail(field, 'is required by the weighted strategy: a positive integer share');
    });
  } else {
    targets.forEach((t, i) => {
      if (t.weight !== null) c.fail(`targets[${i}].weight`, `only the weighted strategy takes weights (this policy's strategy is ${strategy})`);
    });
  }
}

/** The policy as the management API shows it. */
export function policyView(policy: RoutingPolicy): Record<string, unknown> {
  return {
    id: policy.id,
    object: 'routing_policy',
    name: policy.name,
    description: policy.description,
    slug: policy.slug,
    model: policy.slug === null ? null : `@alias/${policy.slug}`,
    strategy: policy.strategy,
    targets: policy.targets.map((t) => ({ model: t.model, vendors: t.vendors, weight: t.weight })),
    allowed_vendors: policy.vendorRules.allow,
    denied_vendors: policy.vendorRules.deny,
    zero_data_retention: policy.vendorRules.zeroDataRetention,
    allowed_regions: policy.vendorRules.regions,
    project_id: policy.scope.type === 'project' ? policy.scope.projectId : null,
    customer_id: policy.scope.type === 'customer' ? policy.scope.customerId : null,
    is_default: policy.isDefault,
  };
}
