import type { CanonicalRequest, GatewayFields, PriorityOrderEntry, Surface } from '@patchbay/model-wire';
import type { CatalogModel, CatalogVendorRoute, InputKind, ModelEndpoint, RoutingCatalog, TokenPrices } from './catalog';
import { routingError } from './errors';
import { isUuid, type RoutingPolicy, type RoutingStrategy, type VendorRules } from './policy';

/** The steps of the resolution order (first match wins), as `include_routing_metadata` names them. */
export type ResolutionStep =
  | 'model'
  | 'priority_order'
  | 'alias'
  | 'routing_policy_id'
  | 'key_binding'
  | 'customer_default'
  | 'project_default'
  | 'organization_default';

/** The standard tier and the premium ones service_tier_fallback retries at standard. */
export const STANDARD_TIER = 'standard';
export const FALLBACK_TIERS: ReadonlySet<string> = new Set(['flex', 'priority', 'ultrafast']);

/** One way to run the request: a model, the vendor serving it, the tier and the price it bills at. */
export interface Route {
  model: string;
  vendor: string;
  vendorModel: string;
  serviceTier: string;
  price: TokenPrices;
  /** The standard tier's price, for a service_tier_fallback retry. */
  standardPrice: TokenPrices;
  selfHosted: boolean;
  zdr: boolean;
  contextWindow: number;
  maxOutputTokens: number;
  capabilities: CatalogVendorRoute['capabilities'];
  /** The policy target (or priority_order entry) the route came from; -1 for a direct call. */
  targetIndex: number;
}

/** What the request needs from a route, read from the parsed request. */
export interface RouteNeeds {
  tools: boolean;
  structuredOutputs: boolean;
  input: InputKind[];
  stream: boolean;
  /** Input and output tokens to rank routes by cost (lowest_cost, and cheapest-vendor-first). */
  estimate: { inputTokens: number; outputTokens: number };
}

/** Where the policies of one organization are (the app keeps them in memory, invalidated on change). */
export interface PolicyDirectory {
  byId(id: string): RoutingPolicy | undefined;
  bySlug(slug: string): RoutingPolicy | undefined;
  customerDefault(customerId: string): RoutingPolicy | undefined;
  projectDefault(projectId: string): RoutingPolicy | undefined;
  organizationDefault(): RoutingPolicy | undefined;
}

/** Who is calling, as the app's authentication resolved it. */
export interface RoutingCaller {
  /** The key's bound policy (null: none). */
  keyPolicyId: string | null;
  /** A project-scoped key's project. */
  keyProjectId: string | null;
  /** A customer API key's customer. */
  keyCustomerId: string | null;
  /** null: every model; `[]`: none; a trailing `*` is a prefix. */
  allowedModels: string[] | null;
  /** The organization's blocklist. */
  isBlocked?(model: string): boolean;
  /** Whether a vendor can be called for this organization (platform credentials or its own key). Absent: every vendor. */
  vendorAvailable?(vendor: string): boolean;
  /** The organization's own vendor restrictions (every request, every policy). */
  vendorRules?: VendorRules | null;
  /** Whether a tag pair is defined for the organization (unknown_tags). Absent: tags are not checked here. */
  isTagDefined?(key: string, value: string): boolean;
}

export interface RoutingInput {
  surface: Surface;
  fields: GatewayFields;
  /** X-Svc-Routing-Policy-Id, X-Svc-Customer, X-Project-Id. */
  headers: { routingPolicyId?: string | null; customer?: string | null; projectId?: string | null };
  needs: RouteNeeds;
  caller: RoutingCaller;
  policies: PolicyDirectory;
  catalog: RoutingCatalog;
  /**
   * The endpoint the request is for, when the surface alone does not say it: the media endpoints
   * (images, speech, transcription) have no model-wire surface. Absent: chat, or embeddings on the
   * embeddings surface.
   */
  endpoint?: ModelEndpoint;
  /** Random number in [0, 1), for weighted draws (tests pass a fixed sequence). */
  random?: () => number;
}

export interface RouteDecision {
  routes: Route[];
  via: ResolutionStep;
  policy: RoutingPolicy | null;
  strategy: RoutingStrategy | 'direct';
  /** Whether a failed route moves on to the next (under a policy, priority_order or a `vendors` list). */
  failover: boolean;
  /** The model the client asked for, as sent (`null` when a default policy resolved). */
  modelRequested: string | null;
  customerId: string | null;
  projectId: string | null;
  serviceTier: string;
  serviceTierFallback: boolean;
}

const ALIAS_PREFIX = '@alias/';

/** The request's needs from its canonical form (model-wire's parse). */
export function routeNeeds(request: CanonicalRequest, estimate: { inputTokens: number; outputTokens: number }): RouteNeeds {
  const input = new Set<InputKind>(['text']);
  for (const message of request.messages) {
    for (const block of message.content) {
      if (block.type === 'image' || block.type === 'document' || block.type === 'audio' || block.type === 'video') input.add(block.type);
      else if (block.type === 'tool_result') for (const inner of block.content) if (inner.type !== 'text') input.add(inner.type);
    }
  }
  return {
    tools: request.tools.length > 0 && request.toolChoice?.type !== 'none',
    structuredOutputs: request.responseFormat?.type === 'json_schema',
    input: [...input],
    stream: request.stream,
    estimate,
  };
}

/** Whether `model` passes an allowed_models list (trailing `*` is a prefix). */
export function modelAllowed(model: string, allowed: string[] | null): boolean {
  if (allowed === null) return true;
  return allowed.some((entry) => (entry.endsWith('*') ? model.startsWith(entry.slice(0, -1)) : entry === model));
}

function tierOf(fields: GatewayFields): string {
  const tier = fields.service_tier;
  if (tier === null || tier === 'auto' || tier === 'default' || tier === STANDARD_TIER) return STANDARD_TIER;
  return tier;
}

function estimatedCost(price: TokenPrices, needs: RouteNeeds): number {
  return price.inputPerMillion * needs.estimate.inputTokens + price.outputPerMillion * needs.estimate.outputTokens;
}

/** What attribution and the request-level checks read of a routing input. */
export type AttributionInput = Pick<RoutingInput, 'fields' | 'headers'> & { caller: Pick<RoutingCaller, 'keyCustomerId' | 'keyProjectId' | 'isTagDefined'> };

/**
 * Attribution: which customer and project the request belongs to (ids lowercased), with the spec's
 * conflicts: invalid_customer (not a UUID), customer_mismatch, customer_project_conflict, project_mismatch.
 * Whether they exist in the organization is the caller's to check: this package holds no organization data.
 */
export function resolveAttribution(input: AttributionInput): { customerId: string | null; projectId: string | null } {
  const { fields, headers, caller } = input;
  const headerCustomer = headers.customer ?? null;
  if (headerCustomer !== null && !isUuid(headerCustomer)) throw routingError('invalid_customer', `X-Svc-Customer must be a customer id (UUID); got "${headerCustomer.slice(0, 64)}".`, 'X-Svc-Customer');
  if (fields.customer !== null && !isUuid(fields.customer)) throw routingError('invalid_customer', `customer must be a customer id (UUID); got "${fields.customer.slice(0, 64)}".`, 'customer');
  const named = [fields.customer, headerCustomer, caller.keyCustomerId].filter((c): c is string => c !== null).map((c) => c.toLowerCase());
  if (new Set(named).size > 1) {
    throw routingError('customer_mismatch', caller.keyCustomerId !== null ? 'customer names another customer than the customer API key belongs to; leave it out.' : 'The body\'s customer and the X-Svc-Customer header name different customers; send one.', 'customer');
  }
  const customerId = named[0] ?? null;

  const projects = [fields.project_id, headers.projectId ?? null, caller.keyProjectId].filter((p): p is string => p !== null).map((p) => p.toLowerCase());
  if (customerId !== null && projects.length > 0) {
    throw routingError('customer_project_conflict', 'A customer request cannot also name a project (project_id, X-Project-Id or a project API key); customers and projects are separate scopes.', 'customer');
  }
  if (new Set(projects).size > 1) {
    throw routingError('project_mismatch', caller.keyProjectId !== null ? 'project_id names another project than the API key is scoped to; leave it out.' : 'The body\'s project_id and the X-Project-Id header name different projects; send one.', 'project_id');
  }
  return { customerId, projectId: projects[0] ?? null };
}

/** unknown_tags when the request carries a tag pair the organization has not defined (when the caller says which are). */
export function checkTags(input: AttributionInput): void {
  const check = input.caller.isTagDefined;
  if (!check) return;
  const unknown = input.fields.tags.filter((t) => !check(t.key, t.value));
  if (unknown.length > 0) {
    throw routingError('unknown_tags', `Tags not defined for the organization: ${unknown.map((t) => `${t.key}=${t.value}`).join(', ')}. Define them first (GET /v1/tags lists the defined ones).`, 'tags');
  }
}

/** The policy id named on the request (body or header), checked: invalid_routing_policy_id, routing_policy_mismatch. */
export function namedPolicyId(input: Pick<RoutingInput, 'fields' | 'headers'>): string | null {
  const body = input.fields.routing_policy_id;
  const header = input.headers.routingPolicyId ?? null;
  if (body !== null && !isUuid(body)) throw routingError('invalid_routing_policy_id', `routing_policy_id must be a routing policy id (UUID); got "${body.slice(0, 64)}".`, 'routing_policy_id');
  if (header !== null && !isUuid(header)) throw routingError('invalid_routing_policy_id', `X-Svc-Routing-Policy-Id must be a routing policy id (UUID); got "${header.slice(0, 64)}".`, 'X-Svc-Routing-Policy-Id');
  if (body !== null && header !== null && body.toLowerCase() !== header.toLowerCase()) {
    throw routingError('routing_policy_mismatch', 'The body\'s routing_policy_id and the X-Svc-Routing-Policy-Id header name different policies; send one.', 'routing_policy_id');
  }
  return (body ?? header)?.toLowerCase() ?? null;
}

/** A model named by its full id or a unique bare name. */
function lookupModel(name: string, catalog: RoutingCatalog, param: string): CatalogModel {
  if (name.includes('/')) {
    const model = catalog.model(name);
    if (!model) throw routingError('invalid_model_format', `Model "${name}" matched nothing in the catalog; use a provider/model id from GET /v1/models (e.g. openai/gpt-4o).`, param);
    return model;
  }
  const matches = catalog.modelsByBareName(name);
  if (matches.length === 0) throw routingError('invalid_model_format', `Model "${name}" matched nothing in the catalog; use a provider/model id from GET /v1/models (e.g. openai/gpt-4o).`, param);
  if (matches.length > 1) {
    throw routingError('ambiguous_base_model', `Model "${name}" is served under several providers (${matches.map((m) => m.id).join(', ')}); name one as provider/model.`, param);
  }
  return matches[0]!;
}

function requiredEndpoint(input: Pick<RoutingInput, 'surface' | 'endpoint'>): ModelEndpoint {
  return input.endpoint ?? (input.surface === 'openai-embeddings' ? 'embeddings' : 'chat');
}

/** How an endpoint is named in a message: what calls it. */
const ENDPOINT_PATHS: Record<ModelEndpoint, string> = {
  chat: '/v1/responses or a chat surface',
  embeddings: '/v1/embeddings',
  images: '/v1/images/generations or /v1/images/edits',
  speech: '/v1/audio/speech',
  transcription: '/v1/audio/transcriptions',
};

const ENDPOINT_MODELS: Record<ModelEndpoint, string> = {
  chat: 'chat models',
  embeddings: 'embedding models',
  images: 'image models',
  speech: 'speech models',
  transcription: 'transcription models',
};

const ENDPOINT_KINDS: Record<ModelEndpoint, string> = {
  chat: 'a chat model',
  embeddings: 'an embedding model',
  images: 'an image model',
  speech: 'a speech model',
  transcription: 'a transcription model',
};

/**
 * The endpoint a policy routes: its models' (validatePolicyInput keeps every target on one endpoint).
 * A policy whose models have all left the catalog is taken as chat, as every policy was before media.
 */
export function policyEndpoint(policy: RoutingPolicy, catalog: RoutingCatalog): ModelEndpoint {
  for (const target of policy.targets) {
    const model = catalog.model(target.model);
    if (model) return model.endpoint;
  }
  return 'chat';
}

function endpointMismatch(what: string, served: ModelEndpoint, wanted: ModelEndpoint, param: string | null): Error {
  return routingError('unsupported_endpoint_for_model', `${what} is ${ENDPOINT_KINDS[served]} (call ${ENDPOINT_PATHS[served]}); ${ENDPOINT_PATHS[wanted]} needs ${ENDPOINT_KINDS[wanted]}.`, param);
}

interface Candidate {
  model: CatalogModel;
  vendors: string[] | null;
  targetIndex: number;
  weight: number | null;
}

/** Counts of what each filter removed, to name the filter that removed the last route. */
interface FilterTrail {
  total: number;
  afterAvailable: number;
  afterPins: number;
  afterRestrictions: number;
  afterZdr: number;
  afterInput: number;
  afterTier: number;
  /** The request's own pin (`vendor`/`vendors`) removed routes, as opposed to the policy's. */
  requestPinned: boolean;
}

function vendorAllowed(route: CatalogVendorRoute, rules: VendorRules | null | undefined): boolean {
  if (!rules) return true;
  if (rules.allow && !rules.allow.includes(route.vendor)) return false;
  if (rules.deny.includes(route.vendor)) return false;
  if (rules.regions && !(route.region && rules.regions.includes(route.region))) return false;
  return true;
}

function zdrRequired(rules: Array<VendorRules | null | undefined>): boolean {
  return rules.some((r) => r?.zeroDataRetention === true);
}

/**
 * Expands candidates into routes through every filter, in an order that names the most specific
 * cause when nothing survives: availability, pins, allow/deny/region, zero data retention, input
 * kinds and streaming, service tier. Tools and structured outputs prefer routes that support them
 * and fall back to the rest (model-wire then drops them with a warning), so they never refuse.
 */
function expand(candidates: Candidate[], input: RoutingInput, policy: RoutingPolicy | null, tier: string, trail: FilterTrail): Route[] {
  const { fields, needs, caller } = input;
  const requestPins = fields.vendor !== null ? [fields.vendor] : fields.vendors;
  const rules = [caller.vendorRules, policy?.vendorRules];
  const zdr = zdrRequired(rules);
  const routes: Route[] = [];
  for (const candidate of candidates) {
    for (const v of candidate.model.vendors) {
      trail.total++;
      if (!v.available || (caller.vendorAvailable && !caller.vendorAvailable(v.vendor))) continue;
      trail.afterAvailable++;
      if (candidate.vendors && !candidate.vendors.includes(v.vendor)) continue;
      if (requestPins && !requestPins.includes(v.vendor)) {
        trail.requestPinned = true;
        continue;
      }
      trail.afterPins++;
      if (!rules.every((r) => vendorAllowed(v, r))) continue;
      trail.afterRestrictions++;
      if (zdr && !v.zdr) continue;
      trail.afterZdr++;
      if (!needs.input.every((kind) => v.capabilities.input.includes(kind)) || (needs.stream && !v.capabilities.streaming)) continue;
      trail.afterInput++;
      // service_tier_fallback accepts standard: a route without the tier serves the request at standard.
      const routeTier = v.prices[tier] ? tier : fields.service_tier_fallback ? STANDARD_TIER : null;
      if (routeTier === null) continue;
      const price = v.prices[routeTier]!;
      trail.afterTier++;
      routes.push({
        model: candidate.model.id,
        vendor: v.vendor,
        vendorModel: v.vendorModel,
        serviceTier: routeTier,
        price,
        standardPrice: v.prices.standard,
        selfHosted: v.selfHosted === true,
        zdr: v.zdr,
        contextWindow: v.contextWindow,
        maxOutputTokens: v.maxOutputTokens,
        capabilities: v.capabilities,
        targetIndex: candidate.targetIndex,
      });
    }
  }
  let preferred = routes;
  if (needs.tools && preferred.some((r) => r.capabilities.tools)) preferred = preferred.filter((r) => r.capabilities.tools);
  if (needs.structuredOutputs && preferred.some((r) => r.capabilities.structuredOutputs)) preferred = preferred.filter((r) => r.capabilities.structuredOutputs);
  return preferred;
}

function noRouteError(trail: FilterTrail, input: RoutingInput, single: boolean, what: string, tier: string): Error {
  if (trail.afterAvailable === 0) return routingError('model_unavailable', `No vendor offers ${what} right now; try another model.`, 'model');
  if (trail.afterPins === 0) {
    const pins = input.fields.vendor ?? input.fields.vendors?.join(', ');
    return routingError('vendor_unavailable', trail.requestPinned ? `The vendor pin (${pins}) cannot serve ${what}; pin a vendor that serves it (GET /v1/models/{model} lists them) or leave the pin out.` : `No vendor the policy names can serve ${what}.`, trail.requestPinned ? (input.fields.vendor !== null ? 'vendor' : 'vendors') : null);
  }
  if (trail.afterRestrictions === 0) return routingError('vendor_restrictions_unavailable', `No vendor serving ${what} survives the allowed/denied vendor and region restrictions; relax them or choose another model.`, null);
  if (trail.afterZdr === 0) return routingError('zdr_vendor_unavailable', `Zero data retention is on and no vendor with zero data retention serves ${what}; choose another model or turn zero data retention off.`, null);
  if (trail.afterInput === 0) {
    const wanted = input.needs.input.filter((k) => k !== 'text');
    const need = [...wanted.map((k) => `${k} input`), ...(input.needs.stream ? ['streaming'] : [])].join(' and ');
    return single
      ? routingError('unsupported_params', `The route for ${what} cannot serve this request (${need}); remove it or choose a model that supports it.`, wanted.length > 0 ? 'input' : 'stream')
      : routingError('capability_unavailable', `No vendor of ${what} supports the requested capabilities (${need}); choose a model that does.`, null);
  }
  return routingError('unsupported_params', `No route for ${what} offers service_tier "${tier}"; use standard, or set service_tier_fallback.`, 'service_tier');
}

function emptyTrail(): FilterTrail {
  return { total: 0, afterAvailable: 0, afterPins: 0, afterRestrictions: 0, afterZdr: 0, afterInput: 0, afterTier: 0, requestPinned: false };
}

/** Cheapest first (stable: equal prices keep catalog order). */
function byCost(routes: Route[], needs: RouteNeeds): Route[] {
  return routes
    .map((route, i) => ({ route, i, cost: route.selfHosted ? Number.POSITIVE_INFINITY : estimatedCost(route.price, needs) }))
    .sort((a, b) => a.cost - b.cost || a.i - b.i)
    .map((x) => x.route);
}

/** Priority: targets in order; within a target, its listed vendors in order, else cheapest first. */
function byPriority(routes: Route[], candidates: Candidate[], needs: RouteNeeds): Route[] {
  const ordered: Route[] = [];
  for (const candidate of candidates) {
    const mine = routes.filter((r) => r.targetIndex === candidate.targetIndex);
    if (candidate.vendors) ordered.push(...candidate.vendors.flatMap((v) => mine.filter((r) => r.vendor === v)));
    else ordered.push(...byCost(mine, needs));
  }
  return ordered;
}

/** Weighted draw without replacement over targets; each target's routes cheapest first. */
function byWeight(routes: Route[], candidates: Candidate[], needs: RouteNeeds, random: () => number): Route[] {
  const pool = candidates.filter((c) => routes.some((r) => r.targetIndex === c.targetIndex));
  const order: Candidate[] = [];
  while (pool.length > 0) {
    const total = pool.reduce((sum, c) => sum + (c.weight ?? 1), 0);
    let pick = random() * total;
    let index = pool.length - 1;
    for (let i = 0; i < pool.length; i++) {
      pick -= pool[i]!.weight ?? 1;
      if (pick < 0) {
        index = i;
        break;
      }
    }
    order.push(pool.splice(index, 1)[0]!);
  }
  return byPriority(routes, order, needs);
}

function applyStrategy(strategy: RoutingStrategy, routes: Route[], candidates: Candidate[], input: RoutingInput): Route[] {
  switch (strategy) {
    case 'priority':
      return byPriority(routes, candidates, input.needs);
    case 'weighted':
      return byWeight(routes, candidates, input.needs, input.random ?? Math.random);
    case 'lowest_cost':
      if (routes.every((r) => r.selfHosted)) {
        throw routingError('self_hosted_unsupported_strategy', 'This policy ranks routes by price (lowest_cost) but resolves only to self-hosted models, which have no price; use the priority strategy or add a priced model.', null);
      }
      return byCost(routes, input.needs);
    case 'lowest_latency':
      // Ordered by measured latency once the health snapshot is read (orderByHealth); cheapest first until then.
      return byCost(routes, input.needs);
  }
}

/** The allowlist and blocklist over a policy's models: filters, and refuses only when none is left. */
function accessFilter(candidates: Candidate[], caller: RoutingCaller, what: string): Candidate[] {
  const allowed = candidates.filter((c) => modelAllowed(c.model.id, caller.allowedModels));
  if (allowed.length === 0) throw routingError('model_not_allowed', `None of the models of ${what} is in this API key's allowed_models.`, 'model');
  const open = caller.isBlocked ? allowed.filter((c) => !caller.isBlocked!(c.model.id)) : allowed;
  if (open.length === 0) throw routingError('blocked_by_policy', `Every model of ${what} is blocked by the organization's policy.`, 'model', 'permission_error');
  return open;
}

function checkPolicyScope(policy: RoutingPolicy, customerId: string | null, projectId: string | null): void {
  if (policy.scope.type === 'customer' && policy.scope.customerId.toLowerCase() !== customerId) {
    throw routingError('routing_policy_requires_customer', `Routing policy ${policy.id} belongs to a customer this request does not resolve to; send that customer (customer or X-Svc-Customer) or use another policy.`, 'routing_policy_id');
  }
  if (policy.scope.type === 'project' && policy.scope.projectId.toLowerCase() !== projectId) {
    throw routingError('routing_policy_requires_project', `Routing policy ${policy.id} belongs to a project this request does not resolve to; send that project (project_id or X-Project-Id) or use another policy.`, 'routing_policy_id');
  }
}

function fromPolicy(policy: RoutingPolicy, via: ResolutionStep, input: RoutingInput, attr: { customerId: string | null; projectId: string | null }, tier: string): RouteDecision {
  const wanted = requiredEndpoint(input);
  if (wanted === 'embeddings') {
    throw routingError('unsupported_endpoint_for_model', `Routing policy "${policy.name}" routes ${ENDPOINT_MODELS[policyEndpoint(policy, input.catalog)]}; the embeddings endpoint needs an embedding model in "model".`, 'model');
  }
  const served = policyEndpoint(policy, input.catalog);
  if (served !== wanted) {
    throw routingError('unsupported_endpoint_for_model', `Routing policy "${policy.name}" routes ${ENDPOINT_MODELS[served]} (for ${ENDPOINT_PATHS[served]}); ${ENDPOINT_PATHS[wanted]} needs a policy of ${ENDPOINT_MODELS[wanted]}.`, 'routing_policy_id');
  }
  checkPolicyScope(policy, attr.customerId, attr.projectId);
  const what = `routing policy "${policy.name}"`;
  const listed: Candidate[] = [];
  policy.targets.forEach((t, i) => {
    const model = input.catalog.model(t.model);
    if (model) listed.push({ model, vendors: t.vendors, targetIndex: i, weight: t.weight });
  });
  const active = listed.filter((c) => c.model.active);
  if (active.length === 0) throw routingError('model_unavailable', `Every model in ${what} is inactive; update the policy.`, 'model');
  const candidates = accessFilter(active, input.caller, what);
  const trail = emptyTrail();
  const routes = expand(candidates, input, policy, tier, trail);
  if (routes.length === 0) throw noRouteError(trail, input, false, `any model of ${what}`, tier);
  return {
    routes: applyStrategy(policy.strategy, routes, candidates, input),
    via,
    policy,
    strategy: policy.strategy,
    failover: true,
    modelRequested: input.fields.model,
    ...attr,
    serviceTier: tier,
    serviceTierFallback: input.fields.service_tier_fallback,
  };
}

function fromPriorityOrder(entries: PriorityOrderEntry[], input: RoutingInput, attr: { customerId: string | null; projectId: string | null }, tier: string): RouteDecision {
  const invalid = (message: string): Error => routingError('invalid_priority_order', `priority_order: ${message}`, 'priority_order');
  // model-wire checks these shapes while parsing (422 on the native surface); repeated here for callers that build fields themselves.
  if (entries.length === 0 || entries.length > 10) throw invalid(`holds 1 to 10 entries; got ${entries.length}.`);
  if (input.fields.vendor !== null || input.fields.vendors !== null) throw invalid('cannot be combined with vendor or vendors; name vendors per entry instead.');
  if (input.fields.routing_policy_id !== null) throw invalid('cannot be combined with routing_policy_id.');
  if (input.fields.model !== null && input.fields.model !== entries[0]!.model) {
    throw routingError('priority_order_model_conflict', `model "${input.fields.model}" must be the first priority_order entry (or left out).`, 'priority_order');
  }
  if (input.headers.routingPolicyId) {
    throw routingError('priority_order_routing_policy_conflict', 'priority_order cannot be sent with a routing policy id (X-Svc-Routing-Policy-Id); send one or the other.', 'priority_order');
  }
  const wanted = requiredEndpoint(input);
  if (wanted === 'embeddings') throw routingError('unsupported_endpoint_for_model', 'priority_order routes chat and media models; the embeddings endpoint takes one model.', 'priority_order');
  const listed = entries.map((entry, i): Candidate => {
    const model = lookupModel(entry.model, input.catalog, `priority_order[${i}].model`);
    if (model.endpoint !== wanted) throw endpointMismatch(`priority_order[${i}]: "${model.id}"`, model.endpoint, wanted, `priority_order[${i}].model`);
    return { model, vendors: entry.vendors ?? null, targetIndex: i, weight: null };
  });
  const active = listed.filter((c) => c.model.active);
  if (active.length === 0) throw routingError('model_unavailable', 'Every model in priority_order is inactive; choose others.', 'priority_order');
  const candidates = accessFilter(active, input.caller, 'priority_order');
  const trail = emptyTrail();
  const routes = expand(candidates, input, null, tier, trail);
  if (routes.length === 0) throw noRouteError(trail, input, false, 'any model of priority_order', tier);
  return {
    routes: byPriority(routes, candidates, input.needs),
    via: 'priority_order',
    policy: null,
    strategy: 'priority',
    failover: true,
    modelRequested: input.fields.model,
    ...attr,
    serviceTier: tier,
    serviceTierFallback: input.fields.service_tier_fallback,
  };
}

function fromModel(name: string, input: RoutingInput, attr: { customerId: string | null; projectId: string | null }, tier: string): RouteDecision {
  const model = lookupModel(name, input.catalog, 'model');
  const endpoint = requiredEndpoint(input);
  if (model.endpoint !== endpoint) {
    throw routingError('unsupported_endpoint_for_model', endpoint === 'chat' ? `Model "${model.id}" does not serve chat; it is ${model.endpoint === 'embeddings' ? 'an embedding model' : `a${model.endpoint === 'images' ? 'n image' : ` ${model.endpoint}`} model: call its endpoint under /v1/images or /v1/audio`}.` : endpoint === 'embeddings' ? `Model "${model.id}" does not serve embeddings; use an embedding model.` : `Model "${model.id}" is ${ENDPOINT_KINDS[model.endpoint]}; ${ENDPOINT_PATHS[endpoint]} needs ${ENDPOINT_KINDS[endpoint]}.`, 'model');
  }
  if (!model.active) throw routingError('model_unavailable', `Model "${model.id}" is no longer available; choose another model.`, 'model');
  if (!modelAllowed(model.id, input.caller.allowedModels)) throw routingError('model_not_allowed', `This API key may not call "${model.id}" (allowed_models).`, 'model');
  if (input.caller.isBlocked?.(model.id)) throw routingError('blocked_by_policy', `"${model.id}" is blocked by the organization's policy.`, 'model');
  const trail = emptyTrail();
  const candidate: Candidate = { model, vendors: null, targetIndex: -1, weight: null };
  const routes = expand([candidate], input, null, tier, trail);
  const single = (input.fields.vendor !== null ? 1 : (input.fields.vendors?.length ?? model.vendors.length)) === 1;
  if (routes.length === 0) throw noRouteError(trail, input, single, model.id, tier);
  // A `vendors` list is "first available wins": those vendors in that order, failing over between them.
  const pinned = input.fields.vendors;
  const ordered = pinned ? pinned.flatMap((v) => routes.filter((r) => r.vendor === v)) : byCost(routes, input.needs);
  const failover = pinned !== null && ordered.length > 1;
  return {
    routes: failover ? ordered : ordered.slice(0, 1),
    via: 'model',
    policy: null,
    strategy: 'direct',
    failover,
    modelRequested: name,
    ...attr,
    serviceTier: tier,
    serviceTierFallback: input.fields.service_tier_fallback,
  };
}

function requirePolicy(id: string, policies: PolicyDirectory): RoutingPolicy {
  const policy = policies.byId(id);
  if (!policy) throw routingError('routing_policy_not_found', `No routing policy ${id} in this organization; GET /v1/routing-policies lists them.`, 'routing_policy_id');
  return policy;
}

/**
 * Resolves a request to its ordered routes, first match wins: a concrete model; priority_order; an
 * `@alias/` model; routing_policy_id (body or X-Svc-Routing-Policy-Id); the key's binding (not on
 * embeddings); the customer's default; the project's default; the organization's default; else
 * `model_required`. Throws a WireError with the spec's code for every refusal. Pure and in memory:
 * no I/O, so it adds microseconds.
 */
export function resolveRoutes(input: RoutingInput): RouteDecision {
  const { fields } = input;
  const attr = resolveAttribution(input);
  checkTags(input);
  const policyId = namedPolicyId(input);
  const tier = tierOf(fields);
  const endpoint = requiredEndpoint(input);
  const chat = endpoint === 'chat';

  if (fields.priority_order !== null) return fromPriorityOrder(fields.priority_order, input, attr, tier);

  const model = fields.model;
  if (model !== null && model.startsWith(ALIAS_PREFIX)) {
    if (!chat) throw routingError('alias_not_supported', `"${model}" routes through a routing policy alias, which works on /v1/responses and the chat surfaces only; name ${ENDPOINT_KINDS[endpoint]} here as provider/model${endpoint === 'embeddings' ? '' : ', or name a policy of such models with routing_policy_id'}.`, 'model');
    if (policyId !== null) throw routingError('alias_routing_policy_conflict', `"${model}" already names a routing policy; leave routing_policy_id (and X-Svc-Routing-Policy-Id) out.`, 'model');
    const slug = model.slice(ALIAS_PREFIX.length);
    const policy = input.policies.bySlug(slug);
    if (!policy || policy.scope.type !== 'organization') throw routingError('invalid_model_format', `No routing policy has the alias "${model}"; GET /v1/routing-policies lists the organization's aliases.`, 'model');
    return fromPolicy(policy, 'alias', input, attr, tier);
  }
  if (model !== null) {
    if (fields.vendor !== null && fields.vendors !== null) throw routingError('vendor_unavailable', 'Send vendor or vendors, not both.', 'vendors');
    return fromModel(model, input, attr, tier);
  }

  if (policyId !== null) return fromPolicy(requirePolicy(policyId, input.policies), 'routing_policy_id', input, attr, tier);
  if (endpoint !== 'embeddings') {
    // Bindings and defaults route the endpoint their policy's models serve: a key bound to a policy of
    // image models still gets its chat requests routed by the defaults, and the other way round.
    const fits = (policy: RoutingPolicy | undefined): policy is RoutingPolicy => policy !== undefined && policyEndpoint(policy, input.catalog) === endpoint;
    const bound = input.caller.keyPolicyId;
    if (bound !== null) {
      const policy = input.policies.byId(bound);
      if (fits(policy)) return fromPolicy(policy, 'key_binding', input, attr, tier);
    }
    const customer = attr.customerId !== null ? input.policies.customerDefault(attr.customerId) : undefined;
    if (fits(customer)) return fromPolicy(customer, 'customer_default', input, attr, tier);
    const project = attr.projectId !== null ? input.policies.projectDefault(attr.projectId) : undefined;
    if (fits(project)) return fromPolicy(project, 'project_default', input, attr, tier);
    const org = input.policies.organizationDefault();
    if (fits(org)) return fromPolicy(org, 'organization_default', input, attr, tier);
  }
  throw routingError('model_required', 'No model and no routing policy resolved: send "model" (provider/model), or a routing policy (routing_policy_id, @alias/<slug>, or a default policy).', 'model');
}
