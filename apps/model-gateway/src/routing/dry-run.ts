import { orderByHealth, policyEndpoint, resolveRoutes, routeNeeds, type CatalogVendorRoute, type Route, type RouteDecision, type RouteHealth, type RouteHealthSnapshot, type RouteNeeds, type RoutingCatalog, type RoutingPolicy } from '@patchbay/model-routing';
import { estimateInputTokens, parseSurfaceRequest, requestedMaxOutputTokens, WireError, type ChatSurface, type GatewayFields } from '@patchbay/model-wire';
import { ManagementError } from '../http/errors';
import type { OrganizationGatewayData } from '../keys/principals';
import { modelMatches } from '../keys/callers';
import { policyDirectory } from './policies';

/** The chat surfaces a dry run reads a request in (the paths they answer on). */
export const DRY_RUN_SURFACES: Record<string, ChatSurface> = {
  native: 'native-responses',
  openai_chat: 'openai-chat',
  openai_responses: 'openai-responses',
  anthropic: 'anthropic-messages',
};

export interface DryRunDeps {
  catalog: RoutingCatalog;
  /** Breaker state and measured latency (read, never claimed); null when routing health is off. */
  health: RouteHealth | null;
  platformVendors: ReadonlySet<string> | ReadonlyMap<string, unknown>;
}

interface RouteView {
  position: number;
  model: string;
  vendor: string;
  vendor_model: string;
  service_tier: string;
  target_index: number;
  estimated_cost_usd: number | null;
  price: { input_per_million: number; output_per_million: number } | null;
  breaker: RouteHealthSnapshot['state'];
  latency_ms: number | null;
  zero_data_retention: boolean;
  self_hosted: boolean;
  reason: string;
}

/**
 * POST /v1/routing-policies/{id}/dry-run: which routes a request would take under this policy, in the
 * order the gateway would try them, and why; with the routes the policy names that the request could
 * not take and why not. The real resolution (`resolveRoutes`, `orderByHealth`) on the organization's
 * cached data, with the breakers and latencies read without claiming a probe; no vendor is called,
 * nothing is admitted, billed or recorded.
 */
export async function dryRunPolicy(deps: DryRunDeps, org: OrganizationGatewayData, policy: RoutingPolicy, body: unknown): Promise<Record<string, unknown>> {
  const input = (body ?? {}) as { surface?: unknown; request?: unknown };
  if (typeof input !== 'object' || Array.isArray(input)) throw new ManagementError(400, 'The body must be an object {surface?, request}.', 'invalid_request_body');
  const surfaceName = input.surface ?? 'native';
  const surface = typeof surfaceName === 'string' ? DRY_RUN_SURFACES[surfaceName] : undefined;
  if (!surface) throw new ManagementError(400, `surface must be one of ${Object.keys(DRY_RUN_SURFACES).join(', ')}.`, 'invalid_surface');
  if (typeof input.request !== 'object' || input.request === null || Array.isArray(input.request)) {
    throw new ManagementError(400, 'request must be the model request body as the surface takes it, e.g. {"input": "Hello"} on native or {"messages": [...]} on openai_chat.', 'invalid_request_body');
  }
  const notes: string[] = [];
  const request = { ...(input.request as Record<string, unknown>) };
  // The policy decides here: a model in the body would win first (resolution step 1) and is set aside.
  const named = typeof request.model === 'string' ? request.model : null;
  if (named && named !== `@alias/${policy.slug}`) notes.push(`The request's model "${named.slice(0, 100)}" was set aside: a real request naming a concrete model is routed to it directly, not through a policy.`);
  delete request.model;
  if (surface === 'anthropic-messages' && request.max_tokens === undefined) request.max_tokens = 1024;
  let parsed;
  try {
    parsed = parseSurfaceRequest(surface, { ...request, model: '@alias/dry-run' });
  } catch (err) {
    throw new ManagementError(400, `request: ${err instanceof Error ? err.message : 'not a valid request body for this surface'}`, 'invalid_request_body');
  }
  const fields: GatewayFields = { ...parsed.gateway, model: null, priority_order: null, routing_policy_id: policy.id };
  // A project's or customer's policy routes only that scope's requests: the dry run speaks as one when the request names none.
  if (policy.scope.type === 'customer' && fields.customer === null && fields.project_id === null) {
    fields.customer = policy.scope.customerId;
    notes.push(`As a request of the policy's customer ${policy.scope.customerId}.`);
  }
  if (policy.scope.type === 'project' && fields.project_id === null && fields.customer === null) {
    fields.project_id = policy.scope.projectId;
    notes.push(`As a request of the policy's project ${policy.scope.projectId}.`);
  }
  const inputTokens = estimateInputTokens(parsed.request);
  const outputTokens = requestedMaxOutputTokens(parsed.request) ?? 1024;
  // A policy of media models routes its media endpoint: the request is judged as one (no input kinds, tools or stream).
  const endpoint = policyEndpoint(policy, deps.catalog);
  const needs: RouteNeeds = endpoint === 'chat' ? routeNeeds(parsed.request, { inputTokens, outputTokens }) : { tools: false, structuredOutputs: false, input: [], stream: false, estimate: { inputTokens: 0, outputTokens: 0 } };
  if (endpoint !== 'chat') notes.push(`The policy routes ${endpoint} requests: the dry run resolves the request as one (its chat fields are read for attribution and tier only).`);
  const vendorAvailable = (vendor: string) => org.vendorKeys.has(vendor) || deps.platformVendors.has(vendor);
  const isBlocked = (model: string) => org.blocklist.length > 0 && modelMatches(org.blocklist, model);
  const summary = {
    surface: surfaceName,
    estimated_input_tokens: inputTokens,
    expected_output_tokens: outputTokens,
    needs: { tools: needs.tools, structured_outputs: needs.structuredOutputs, input: needs.input, stream: needs.stream },
    service_tier: fields.service_tier ?? 'standard',
    customer: fields.customer,
    project_id: fields.project_id,
  };
  const head = { object: 'routing.dry_run', policy: { id: policy.id, name: policy.name, strategy: policy.strategy, model: policy.slug === null ? null : `@alias/${policy.slug}` }, request: summary, vendor_called: false };

  let decision: RouteDecision;
  try {
    decision = resolveRoutes({
      surface,
      endpoint,
      fields,
      headers: {},
      needs,
      caller: { keyPolicyId: null, keyProjectId: null, keyCustomerId: null, allowedModels: null, isBlocked, vendorAvailable },
      policies: policyDirectory(org.routingPolicies.some((p) => p.id === policy.id) ? org.routingPolicies : [...org.routingPolicies, policy]),
      catalog: deps.catalog,
    });
  } catch (err) {
    if (!(err instanceof WireError)) throw err;
    // The answer a real request would get, with what the policy's routes lacked.
    return { ...head, outcome: 'refused', refusal: { status: err.status, code: err.code, message: err.message }, resolved_by: 'routing_policy_id', routes: [], skipped_unhealthy: [], excluded: excludedRoutes(deps.catalog, policy, [], needs, fields, vendorAvailable, isBlocked), notes };
  }
  const snapshots = deps.health && decision.routes.length > 0 ? await deps.health.peek(decision.routes) : decision.routes.map((): RouteHealthSnapshot => ({ state: 'closed', latencyMs: null }));
  const health = new Map(decision.routes.map((r, i) => [`${r.model}|${r.vendor}`, snapshots[i]!]));
  const ordered = deps.health && decision.routes.length > 1 ? orderByHealth(decision, snapshots) : { routes: decision.routes, skipped: [] };
  if (policy.strategy === 'weighted') notes.push('weighted draws the order anew for every request: this is one draw; each target\'s chance to be tried first is its weight over the total.');
  if (decision.routes.length > 1 && ordered.skipped.length === 0 && snapshots.every((s) => s.state === 'open')) notes.push('Every route\'s circuit breaker is open: all are tried in order rather than none.');
  const routes: RouteView[] = ordered.routes.map((route, i) => view(route, i + 1, health.get(`${route.model}|${route.vendor}`)!, reasonFor(route, policy, needs, health.get(`${route.model}|${route.vendor}`)!), needs));
  return {
    ...head,
    outcome: 'routed',
    resolved_by: decision.via,
    strategy: decision.strategy,
    failover: decision.failover,
    routes,
    skipped_unhealthy: ordered.skipped.map((r) => ({ model: r.model, vendor: r.vendor, reason: 'circuit breaker open: recent failures; tried again once its cooldown ends' })),
    excluded: excludedRoutes(deps.catalog, policy, decision.routes, needs, fields, vendorAvailable, isBlocked),
    notes,
  };
}

function estimatedUsd(route: Route, needs: RouteNeeds): number | null {
  if (route.selfHosted) return null;
  // Prices are USD per million tokens; rounded to a billionth of a dollar.
  return Math.round((route.price.inputPerMillion * needs.estimate.inputTokens + route.price.outputPerMillion * needs.estimate.outputTokens) * 1e3) / 1e9;
}

function view(route: Route, position: number, health: RouteHealthSnapshot, reason: string, needs: RouteNeeds): RouteView {
  return {
    position,
    model: route.model,
    vendor: route.vendor,
    vendor_model: route.vendorModel,
    service_tier: route.serviceTier,
    target_index: route.targetIndex,
    estimated_cost_usd: estimatedUsd(route, needs),
    price: route.selfHosted ? null : { input_per_million: route.price.inputPerMillion, output_per_million: route.price.outputPerMillion },
    breaker: health.state,
    latency_ms: health.latencyMs === null ? null : Math.round(health.latencyMs),
    zero_data_retention: route.zdr,
    self_hosted: route.selfHosted,
    reason,
  };
}

function reasonFor(route: Route, policy: RoutingPolicy, needs: RouteNeeds, health: RouteHealthSnapshot): string {
  const target = policy.targets[route.targetIndex];
  const targetName = `target ${route.targetIndex + 1} (${route.model})`;
  const usd = estimatedUsd(route, needs);
  const cost = usd === null ? 'self-hosted, no price' : `about $${usd.toFixed(6)} for ~${needs.estimate.inputTokens} input and ${needs.estimate.outputTokens} output tokens`;
  let reason: string;
  switch (policy.strategy) {
    case 'priority':
      reason = target?.vendors ? `${targetName}, vendor ${target.vendors.indexOf(route.vendor) + 1} of the vendors it lists` : `${targetName}; its vendors cheapest first: ${cost}`;
      break;
    case 'weighted': {
      const total = policy.targets.reduce((sum, t) => sum + (t.weight ?? 1), 0);
      const weight = target?.weight ?? 1;
      reason = `${targetName}, weight ${weight} of ${total} (${Math.round((weight / total) * 100)}% chance to be tried first); its vendors cheapest first`;
      break;
    }
    case 'lowest_cost':
      reason = `cheapest first: ${cost}`;
      break;
    case 'lowest_latency':
      reason = health.latencyMs === null ? `not measured yet: after the measured routes, cheapest first (${cost})` : `fastest first: ${Math.round(health.latencyMs)} ms measured (moving average)`;
      break;
  }
  if (health.state === 'probe') reason += '; its circuit breaker cooled down, so the next request probes it';
  if (route.serviceTier !== 'standard') reason += `; at service tier ${route.serviceTier}`;
  return reason;
}

/** Why a route the policy names is not among the candidates: the filters of @patchbay/model-routing, in its order. */
function excludedRoutes(
  catalog: RoutingCatalog,
  policy: RoutingPolicy,
  chosen: Route[],
  needs: RouteNeeds,
  fields: GatewayFields,
  vendorAvailable: (vendor: string) => boolean,
  isBlocked: (model: string) => boolean,
): Array<{ model: string; vendor: string | null; reason: string }> {
  const taken = new Set(chosen.map((r) => `${r.model}|${r.vendor}`));
  const out: Array<{ model: string; vendor: string | null; reason: string }> = [];
  const rules = policy.vendorRules;
  const tier = fields.service_tier === null || fields.service_tier === 'auto' || fields.service_tier === 'default' ? 'standard' : fields.service_tier;
  for (const target of policy.targets) {
    const model = catalog.model(target.model);
    if (!model) {
      out.push({ model: target.model, vendor: null, reason: 'not in the model catalog (GET /v1/models)' });
      continue;
    }
    if (!model.active) {
      out.push({ model: target.model, vendor: null, reason: 'the model is inactive' });
      continue;
    }
    if (isBlocked(model.id)) {
      out.push({ model: target.model, vendor: null, reason: "blocked by the organization's blocklist" });
      continue;
    }
    for (const v of model.vendors) {
      if (taken.has(`${model.id}|${v.vendor}`)) continue;
      out.push({ model: model.id, vendor: v.vendor, reason: whyNot(v, target.vendors, rules, needs, fields, tier, vendorAvailable) });
    }
  }
  return out;
}

function whyNot(v: CatalogVendorRoute, targetVendors: string[] | null, rules: RoutingPolicy['vendorRules'], needs: RouteNeeds, fields: GatewayFields, tier: string, vendorAvailable: (vendor: string) => boolean): string {
  if (!v.available || !vendorAvailable(v.vendor)) return `no credentials for ${v.vendor} (the platform has none and the organization set no vendor key)`;
  if (targetVendors && !targetVendors.includes(v.vendor)) return `the target lists only ${targetVendors.join(', ')}`;
  if (rules.allow && !rules.allow.includes(v.vendor)) return `not among the policy's allowed vendors (${rules.allow.join(', ')})`;
  if (rules.deny.includes(v.vendor)) return "among the policy's denied vendors";
  if (rules.regions && !(v.region && rules.regions.includes(v.region))) return `runs in ${v.region ?? 'no stated region'}, outside the allowed regions (${rules.regions.join(', ')})`;
  if (rules.zeroDataRetention && !v.zdr) return 'keeps data: the policy requires zero data retention';
  const missing = needs.input.filter((kind) => !v.capabilities.input.includes(kind));
  if (missing.length > 0) return `cannot take ${missing.join(' and ')} input`;
  if (needs.stream && !v.capabilities.streaming) return 'cannot stream';
  if (!v.prices[tier] && !fields.service_tier_fallback) return `no price for service tier ${tier} (service_tier_fallback is off)`;
  if (needs.tools && !v.capabilities.tools) return 'no tool calling, and another route has it (tool-capable routes are preferred)';
  if (needs.structuredOutputs && !v.capabilities.structuredOutputs) return 'no structured outputs, and another route has them (preferred)';
  return 'filtered out by the organization\'s vendor restrictions';
}
