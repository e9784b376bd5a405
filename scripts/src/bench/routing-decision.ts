import { catalogFromModels, resolveRoutes, routeNeeds, type RoutingInput, type RoutingPolicy } from '@patchbay/model-routing';
import { parseSurfaceRequest } from '@patchbay/model-wire';
import { measureSync } from './micro';

/** Issue 10 §5: the routing decision adds at most this much per request. */
export const ROUTING_DECISION_TARGET_US = 50;

/**
 * The routing decision's cost, in process: @patchbay/model-routing's resolveRoutes (what the gateway
 * runs per request, on its in-memory catalog and policies) over many iterations, per resolution
 * path, next to model-wire parsing the same body. A catalog of 5 models on 3 vendors each; the
 * policy lists 3 of them (9 candidate routes). Rows: [case, routing µs, parse µs, verdict].
 */
export function routingDecisionCost(): string[][] {
  const models = ['openai/gpt-4o', 'openai/gpt-4o-mini', 'anthropic/claude-sonnet-4', 'anthropic/claude-haiku-4-5', 'google/gemini-2.5-flash'];
  const caps = { tools: true, structuredOutputs: true, streaming: true, input: ['text' as const, 'image' as const] };
  const catalog = catalogFromModels(
    models.map((id, i) => ({
      id,
      provider: id.split('/')[0]!,
      endpoint: 'chat' as const,
      active: true,
      vendors: ['a', 'b', 'c'].map((v, j) => ({ vendor: `${v}${i}`, vendorModel: id, available: true, zdr: j === 0, region: 'us', contextWindow: 128000, maxOutputTokens: 8192, capabilities: caps, prices: { standard: { inputPerMillion: 1 + j, outputPerMillion: 4 + j } } })),
    })),
  );
  const policy: RoutingPolicy = { id: '6a1c2f6e-9a54-4b0e-8d1a-3d0e4b6c7f80', organizationId: 'o', name: 'p', description: null, slug: 'p', scope: { type: 'organization' }, strategy: 'priority', targets: models.slice(0, 3).map((model) => ({ model, vendors: null, weight: null })), vendorRules: { allow: null, deny: [], zeroDataRetention: false, regions: null }, isDefault: true };
  const zdrPolicy: RoutingPolicy = { ...policy, id: '7b2d3f7e-0b65-4c1f-9e2b-4e1f5c7d8091', slug: 'zdr', vendorRules: { allow: null, deny: ['c0'], zeroDataRetention: true, regions: ['us'] } };
  const policies = {
    byId: (id: string) => [policy, zdrPolicy].find((p) => p.id === id),
    bySlug: (s: string) => [policy, zdrPolicy].find((p) => p.slug === s),
    customerDefault: () => undefined,
    projectDefault: () => undefined,
    organizationDefault: () => policy,
  };
  const caller = { keyPolicyId: null, keyProjectId: null, keyCustomerId: null, allowedModels: ['openai/*', 'anthropic/*'] };
  const cases: Array<[string, Record<string, unknown>]> = [
    ['concrete model', { model: 'openai/gpt-4o' }],
    ['organization default policy (3 models x 3 vendors)', {}],
    ['@alias/ policy', { model: '@alias/p' }],
    ['@alias/ policy with zero data retention, deny list, region', { model: '@alias/zdr' }],
    ['priority_order (3 entries)', { priority_order: models.slice(0, 3).map((model) => ({ model })) }],
  ];
  return cases.map(([name, extra]) => {
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'Say hello to the team and summarise the week.' }], ...extra });
    const parsed = parseSurfaceRequest('openai-chat', JSON.parse(body));
    const input: RoutingInput = { surface: 'openai-chat', fields: parsed.gateway, headers: {}, needs: routeNeeds(parsed.request, { inputTokens: 40, outputTokens: 1024 }), caller, policies, catalog };
    const options = { warmupIterations: 20_000, rounds: 5, iterationsPerRound: 50_000 };
    const routing = measureSync(() => resolveRoutes(input), options);
    const parse = measureSync(() => parseSurfaceRequest('openai-chat', JSON.parse(body)), options);
    const us = routing.nsPerOp / 1000;
    return [name, us.toFixed(2), (parse.nsPerOp / 1000).toFixed(2), us <= ROUTING_DECISION_TARGET_US ? 'met' : 'NOT met'];
  });
}
