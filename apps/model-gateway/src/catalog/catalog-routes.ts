import { sessionTokenOf } from '@patchbay/auth';
import { Router, type Request, type Response } from 'express';
import { GatewayError, sendModelError } from '../http/errors';
import type { ManagementAuth } from '../keys/management-auth';
import { authenticateModelCaller, rawKeyOf } from '../keys/callers';
import { MEDIA_BILLING_UNITS, type Catalog, type CatalogModel } from './catalog';

/** A model as /v1/models shows it: OpenAI's model object fields plus the catalog's (vendors, prices, capabilities). */
export function renderModel(model: CatalogModel, offered: (vendor: string) => boolean, zdrOnly = false): Record<string, unknown> | null {
  const routes = model.routes.filter((r) => offered(r.vendor) && (!zdrOnly || r.zdr));
  if (routes.length === 0) return null;
  return {
    id: model.id,
    object: 'model',
    created: Math.floor(Date.parse(model.createdAt) / 1000),
    owned_by: model.provider,
    model: model.id,
    provider: model.provider,
    display_name: model.displayName,
    type: model.type,
    // What the model reads and makes (image and audio models included), as OpenRouter-style clients filter on them.
    input_modalities: model.capabilities.input,
    output_modalities: model.capabilities.output.filter((o) => o !== 'tool_use'),
    pricing_unit: model.type === 'chat' || model.type === 'embedding' ? 'per_million_tokens' : MEDIA_BILLING_UNITS[model.type],
    availability_status: 'available',
    created_at: model.createdAt,
    updated_at: model.createdAt,
    context_window: model.contextWindow,
    max_output_tokens: model.maxOutputTokens,
    vendors: Object.fromEntries(
      routes.map((r) => {
        const { standard, ...tiers } = r.pricing;
        return [
          r.vendor,
          {
            vendor_model: r.vendorModel,
            context_window: model.contextWindow,
            max_output_tokens: model.maxOutputTokens,
            availability_status: 'available',
            capabilities: model.capabilities,
            pricing: { currency: 'USD', unit: model.type === 'chat' || model.type === 'embedding' ? 'per_million_tokens' : MEDIA_BILLING_UNITS[model.type], ...standard, ...tiers },
            service_tiers: Object.keys(r.pricing),
            zero_data_retention: r.zdr,
            region: r.region,
            self_hosted: r.selfHosted,
          },
        ];
      }),
    ),
  };
}

/** GET /v1/models, /v1/models/{provider/model} (the slash may be sent encoded), and the same under /v1/openai. */
export function catalogRouter(catalog: Catalog, platformVendors: ReadonlyMap<string, unknown>, auth: ManagementAuth): Router {
  const router = Router();
  // The catalog is a model endpoint: gateway API keys (organization and customer keys) only. A
  // management key is refused here as on every other model endpoint (401 management_key_not_allowed).
  // A member's console session (no key sent) reads /v1/models too: the catalog as the organization's
  // keys see it. The OpenAI SDK's paths (/v1/openai/…) stay for keys.
  const offeredFor = async (req: Request): Promise<(vendor: string) => boolean> => {
    const sessionToken = rawKeyOf(req) || !req.path.startsWith('/v1/models') ? undefined : sessionTokenOf(req);
    const org = sessionToken !== undefined && auth.sessions ? await sessionOrganization(sessionToken) : (await authenticateModelCaller(req, auth.caches)).org;
    return (vendor) => platformVendors.has(vendor) || org.vendorKeys.has(vendor);
  };
  const sessionOrganization = async (token: string) => {
    let organizationId: string;
    try {
      organizationId = (await auth.sessions!.verify(token)).organizationId;
    } catch (err) {
      throw new GatewayError(401, 'authentication_error', err instanceof Error ? err.message : 'Your session has ended; sign in again.', 'invalid_session');
    }
    const org = await auth.caches.organizations.lookup(organizationId);
    if (!org) throw new GatewayError(401, 'authentication_error', 'The session belongs to no organization the gateway knows.', 'invalid_session');
    return org;
  };
  const list = async (req: Request, res: Response) => {
    try {
      const offered = await offeredFor(req);
      const provider = typeof req.query.provider === 'string' ? req.query.provider : null;
      // zero_data_retention=true keeps only the vendors (and so the models) that retain nothing.
      const zdrOnly = req.query.zero_data_retention === 'true';
      const data = catalog.models.filter((m) => !provider || m.provider === provider).map((m) => renderModel(m, offered, zdrOnly)).filter((m) => m !== null);
      res.json({ object: 'list', data, has_more: false, next_cursor: null });
    } catch (err) {
      sendModelError(res, 'openai-chat', err);
    }
  };
  const one = async (req: Request, res: Response) => {
    try {
      const offered = await offeredFor(req);
      const segments = req.params.model as unknown as string[] | string;
      const id = Array.isArray(segments) ? segments.join('/') : segments;
      const model = catalog.get(id);
      const rendered = model ? renderModel(model, offered) : null;
      if (!rendered) throw new GatewayError(404, 'not_found_error', `No model ${id} is offered; GET /v1/models lists them.`, 'model_not_found');
      res.json(rendered);
    } catch (err) {
      sendModelError(res, 'openai-chat', err);
    }
  };
  router.get(['/v1/models', '/v1/openai/models', '/v1/openai/v1/models'], list);
  router.get(['/v1/models/*model', '/v1/openai/models/*model', '/v1/openai/v1/models/*model'], one);
  return router;
}
