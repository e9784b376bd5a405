import type { IncomingMessage } from 'node:http';
import type { VendorHttp, VendorTarget } from '@patchbay/model-wire';
import type { Catalog, CatalogModel, CatalogRoute, Price } from '../catalog/catalog';
import type { Caller } from '../keys/callers';
import type { VendorCredential } from '../vendors/platform-vendors';

/** What building a route with credentials needs (the pipeline's ModelDeps has all of it). */
export interface RouteDeps {
  catalog: Catalog;
  platformVendors: Map<string, VendorCredential>;
  /** Operator base URLs (trusted, may be local). */
  vendorHttp: VendorHttp;
  /** BYOK base URLs the organization supplied: through the outbound guard. */
  guardedHttp: VendorHttp;
}

/** A (model, vendor) route with the credentials to call it: what a vendor call needs. */
export interface Route {
  model: CatalogModel;
  route: CatalogRoute;
  target: VendorTarget;
  price: Price;
  byok: boolean;
  http: VendorHttp;
}

/**
 * One (model, vendor) route with the organization's credentials (its own key first, then the
 * platform's) at a service tier; null when neither has a key for the vendor. `standard`, `auto` and
 * `default` are the standard price and send no tier to the vendor.
 */
export function routeFor(deps: RouteDeps, caller: Caller, model: CatalogModel, route: CatalogRoute, tier: string): Route | null {
  const own = caller.org.vendorKeys.get(route.vendor);
  const platform = deps.platformVendors.get(route.vendor);
  const credential = own ? { apiKey: own.apiKey, baseUrl: own.baseUrl ?? platform?.baseUrl ?? deps.catalog.vendors.get(route.vendor)!.defaultBaseUrl } : platform;
  if (!credential) return null;
  const standard = tier === 'standard' || tier === 'auto' || tier === 'default';
  const price = (standard ? route.pricing.standard : route.pricing[tier]) ?? route.pricing.standard!;
  return {
    model,
    route,
    price,
    byok: own !== undefined,
    // An organization's own base URL is user-supplied: it goes through the outbound guard.
    http: own?.baseUrl ? deps.guardedHttp : deps.vendorHttp,
    target: {
      dialect: route.dialect,
      vendor: route.vendor,
      baseUrl: credential.baseUrl,
      apiKey: credential.apiKey,
      vendorModel: route.vendorModel,
      model: model.id,
      ...(standard ? {} : { serviceTier: tier }),
      maxOutputTokens: model.maxOutputTokens || undefined,
      capabilities: model.routeCapabilities,
    },
  };
}

function header(req: Pick<IncomingMessage, 'headers'>, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** X-Svc-Routing-Policy-Id, X-Svc-Customer and X-Project-Id, as routing reads them. */
export function scopeHeaders(req: Pick<IncomingMessage, 'headers'>): { routingPolicyId: string | null; customer: string | null; projectId: string | null } {
  return { routingPolicyId: header(req, 'x-svc-routing-policy-id'), customer: header(req, 'x-svc-customer'), projectId: header(req, 'x-project-id') };
}

