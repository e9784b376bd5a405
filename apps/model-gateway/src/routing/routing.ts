import {
  catalogFromModels,
  resolveRoutes,
  routeNeeds,
  type CatalogModel as RoutingModel,
  type RouteDecision,
  type RouteHealth,
  type Route as RoutingRoute,
  type RoutingCatalog,
} from '@patchbay/model-routing';
import type { CanonicalRequest, GatewayFields, Surface } from '@patchbay/model-wire';
import type { IncomingMessage } from 'node:http';
import { tokenPrices, type Catalog } from '../catalog/catalog';
import { modelMatches, type Caller } from '../keys/callers';
import { routeFor, scopeHeaders, type Route, type RouteDeps } from './vendor-route';
import { policyDirectory } from './policies';

/** What the model endpoints need for routing, built once at boot. */
export interface RoutingDeps {
  catalog: RoutingCatalog;
  /** The shared circuit breaker and latency figures (Redis); null turns both off. */
  health: RouteHealth | null;
}

/** What deciding a request's routes reads (the pipeline's ModelDeps has all of it). */
export type DecideDeps = RouteDeps & { routing: RoutingDeps };

/**
 * The app's catalog as routing reads it, converted once: each route's zero data retention, region
 * and self-hosted flag come from the catalog's vendor table (overridable per model), so a policy's
 * zero_data_retention, allowed_regions and strategy filter on them.
 */
export function routingCatalog(catalog: Catalog): RoutingCatalog {
  return catalogFromModels(
    catalog.models.map(
      (m): RoutingModel => ({
        id: m.id,
        provider: m.provider,
        endpoint: m.type === 'embedding' ? 'embeddings' : m.type === 'chat' ? 'chat' : m.type === 'image' ? 'images' : m.type,
        active: true,
        vendors: m.routes.map((r) => ({
          vendor: r.vendor,
          vendorModel: r.vendorModel,
          available: true,
          zdr: r.zdr,
          region: r.region,
          selfHosted: r.selfHosted,
          contextWindow: m.contextWindow,
          maxOutputTokens: m.maxOutputTokens,
          capabilities: { tools: m.capabilities.supports_tool_calling, structuredOutputs: m.capabilities.supports_structured_outputs, streaming: m.capabilities.streaming, input: m.capabilities.input },
          prices: Object.fromEntries(Object.entries(r.pricing).map(([tier, price]) => [tier, tokenPrices(price)])) as RoutingModel['vendors'][number]['prices'],
        })),
      }),
    ),
  );
}

/**
 * The request's routes, first match wins (model, priority_order, @alias/, routing_policy_id, the
 * key's binding, customer, project and organization defaults), or the spec's 400/403/404.
 */
export function decideRoutes(deps: DecideDeps, req: Pick<IncomingMessage, 'headers'>, caller: Caller, surface: Surface, gateway: GatewayFields, request: CanonicalRequest | null, estimate: { inputTokens: number; outputTokens: number }): RouteDecision {
  const { key, org } = caller;
  return resolveRoutes({
    surface,
    fields: gateway,
    headers: scopeHeaders(req),
    needs: request ? routeNeeds(request, estimate) : { tools: false, structuredOutputs: false, input: ['text'], stream: false, estimate },
    caller: {
      keyPolicyId: key.routingPolicyId,
      keyProjectId: key.projectId,
      keyCustomerId: key.customerId,
      allowedModels: key.allowedModels,
      isBlocked: org.blocklist.length === 0 ? undefined : (model) => modelMatches(org.blocklist, model),
      vendorAvailable: (vendor) => org.vendorKeys.has(vendor) || deps.platformVendors.has(vendor),
    },
    policies: policyDirectory(org.routingPolicies),
    catalog: deps.routing.catalog,
  });
}

/**
 * The routes of a media request (issue 27 §2): the same resolution as chat (model, priority_order,
 * routing_policy_id, bindings and defaults whose policy serves this endpoint), on the media endpoint.
 * Media routes are filtered by what the endpoint itself checks (character limits, audio formats), not
 * by input kinds.
 */
export function decideMediaRoutes(deps: DecideDeps, req: Pick<IncomingMessage, 'headers'>, caller: Caller, gateway: GatewayFields, endpoint: 'images' | 'speech' | 'transcription'): RouteDecision {
  const { key, org } = caller;
  return resolveRoutes({
    surface: 'openai-chat',
    endpoint,
    fields: gateway,
    headers: scopeHeaders(req),
    needs: { tools: false, structuredOutputs: false, input: [], stream: false, estimate: { inputTokens: 0, outputTokens: 0 } },
    caller: {
      keyPolicyId: key.routingPolicyId,
      keyProjectId: key.projectId,
      keyCustomerId: key.customerId,
      allowedModels: key.allowedModels,
      isBlocked: org.blocklist.length === 0 ? undefined : (model) => modelMatches(org.blocklist, model),
      vendorAvailable: (vendor) => org.vendorKeys.has(vendor) || deps.platformVendors.has(vendor),
    },
    policies: policyDirectory(org.routingPolicies),
    catalog: deps.routing.catalog,
  });
}

/** A routing route with this organization's credentials for its vendor: what the vendor call needs. */
export function appRoute(deps: RouteDeps, caller: Caller, route: RoutingRoute): Route {
  const model = deps.catalog.get(route.model)!;
  const catalogRoute = model.routes.find((r) => r.vendor === route.vendor)!;
  const resolved = routeFor(deps, caller, model, catalogRoute, route.serviceTier);
  if (!resolved) throw new Error(`routing chose ${route.model} on ${route.vendor}, which has no credentials for this organization`);
  return resolved;
}
