import { randomUUID } from 'node:crypto';
import { parseSurfaceRequest, type ChatSurface, type GatewayFields, type Surface } from '@patchbay/model-wire';
import {
  catalogFromModels,
  routeNeeds,
  type CatalogModel,
  type CatalogVendorRoute,
  type PolicyDirectory,
  type RouteNeeds,
  type RoutingCaller,
  type RoutingInput,
  type RoutingPolicy,
} from '../../src';

type Caps = CatalogVendorRoute['capabilities'];
const CHAT: Caps = { tools: true, structuredOutputs: true, streaming: true, input: ['text', 'image', 'document'] };

function vendor(name: string, vendorModel: string, inPrice: number, outPrice: number, extra: Partial<CatalogVendorRoute> = {}): CatalogVendorRoute {
  return {
    vendor: name,
    vendorModel,
    available: true,
    zdr: false,
    region: 'us',
    contextWindow: 128_000,
    maxOutputTokens: 16_384,
    capabilities: CHAT,
    prices: { standard: { inputPerMillion: inPrice, outputPerMillion: outPrice } },
    ...extra,
  };
}

function model(id: string, vendors: CatalogVendorRoute[], extra: Partial<CatalogModel> = {}): CatalogModel {
  return { id, provider: id.slice(0, id.indexOf('/')), endpoint: 'chat', active: true, vendors, ...extra };
}

/** A catalog with the shapes every routing code needs: several vendors per model, tiers, ZDR, regions, self-hosted, an embedding model. */
export const MODELS: CatalogModel[] = [
  model('openai/gpt-4o', [
    vendor('openai', 'gpt-4o', 2.5, 10, {
      prices: { standard: { inputPerMillion: 2.5, cachedInputPerMillion: 1.25, outputPerMillion: 10 }, flex: { inputPerMillion: 1.25, outputPerMillion: 5 }, priority: { inputPerMillion: 4.25, outputPerMillion: 17 } },
    }),
    vendor('azure', 'gpt-4o', 2.75, 11, { zdr: true, region: 'eu' }),
  ]),
  model('openai/gpt-4o-mini', [vendor('openai', 'gpt-4o-mini', 0.15, 0.6)]),
  model('anthropic/claude-sonnet-4', [
    vendor('anthropic', 'claude-sonnet-4', 3, 15, { zdr: true }),
    vendor('bedrock', 'anthropic.claude-sonnet-4', 3.3, 16.5),
  ]),
  model('anthropic/claude-haiku-4-5', [vendor('anthropic', 'claude-haiku-4-5', 1, 5, { zdr: true })]),
  model('google/gemini-2.5-flash', [vendor('google', 'gemini-2.5-flash', 0.3, 2.5, { capabilities: { ...CHAT, input: ['text', 'image', 'document', 'audio', 'video'] } })]),
  model('meta/llama-3.3-70b', [vendor('groq', 'llama-3.3-70b-versatile', 0.59, 0.79, { capabilities: { ...CHAT, input: ['text'] } }), vendor('together', 'meta-llama/Llama-3.3-70B-Instruct-Turbo', 0.88, 0.88, { capabilities: { ...CHAT, input: ['text'] } })]),
  model('nvidia/llama-3.3-70b', [vendor('nvidia', 'llama-3.3-70b', 0.6, 0.6, { capabilities: { ...CHAT, input: ['text'] } })]),
  model('openai/gpt-3.5-turbo', [vendor('openai', 'gpt-3.5-turbo', 0.5, 1.5)], { active: false }),
  model('openai/o1-pro', [vendor('openai', 'o1-pro', 150, 600, { capabilities: { ...CHAT, streaming: false } })]),
  model('selfhosted/qwen-7b', [vendor('vllm', 'qwen2.5-7b', 0, 0, { selfHosted: true, capabilities: { ...CHAT, input: ['text'] } })]),
  model('selfhosted/mistral-7b', [vendor('ollama', 'mistral:7b', 0, 0, { selfHosted: true, capabilities: { ...CHAT, input: ['text'] } })]),
  model('openai/text-embedding-3-small', [vendor('openai', 'text-embedding-3-small', 0.02, 0, { capabilities: { tools: false, structuredOutputs: false, streaming: false, input: ['text'] } })], { endpoint: 'embeddings' }),
  model('openai/gpt-retired-vendor', [vendor('openai', 'gpt-retired', 1, 1, { available: false })]),
  // Media models (issue 27 §2): priced per image in the app, so their token prices are 0 here.
  model('openai/gpt-image-1', [vendor('openai', 'gpt-image-1', 0, 0, { capabilities: { tools: false, structuredOutputs: false, streaming: false, input: ['text', 'image'] } })], { endpoint: 'images' }),
  model('google/gemini-2.5-flash-image', [vendor('google', 'gemini-2.5-flash-image', 0, 0, { capabilities: { tools: false, structuredOutputs: false, streaming: false, input: ['text', 'image'] } })], { endpoint: 'images' }),
  model('openai/tts-1', [vendor('openai', 'tts-1', 0, 0, { capabilities: { tools: false, structuredOutputs: false, streaming: false, input: ['text'] } })], { endpoint: 'speech' }),
];

export const catalog = catalogFromModels(MODELS);
export const ORG = '00000000-0000-4000-8000-000000000001';

export function policy(partial: Partial<RoutingPolicy> & Pick<RoutingPolicy, 'targets'>): RoutingPolicy {
  return {
    id: randomUUID(),
    organizationId: ORG,
    name: 'Test policy',
    description: null,
    slug: null,
    scope: { type: 'organization' },
    strategy: 'priority',
    vendorRules: { allow: null, deny: [], zeroDataRetention: false, regions: null },
    isDefault: false,
    ...partial,
  };
}

export function directory(policies: RoutingPolicy[], defaults: { org?: RoutingPolicy; customers?: Record<string, RoutingPolicy>; projects?: Record<string, RoutingPolicy> } = {}): PolicyDirectory {
  return {
    byId: (id) => policies.find((p) => p.id === id),
    bySlug: (slug) => policies.find((p) => p.slug === slug),
    customerDefault: (c) => defaults.customers?.[c],
    projectDefault: (p) => defaults.projects?.[p],
    organizationDefault: () => defaults.org,
  };
}

export function caller(partial: Partial<RoutingCaller> = {}): RoutingCaller {
  return { keyPolicyId: null, keyProjectId: null, keyCustomerId: null, allowedModels: null, ...partial };
}

/**
 * A routing input from a real request body, parsed by model-wire as the app does.
 * `surface` defaults to the OpenAI chat surface.
 */
export function input(body: Record<string, unknown>, options: { surface?: Surface; headers?: RoutingInput['headers']; caller?: RoutingCaller; policies?: PolicyDirectory; random?: () => number } = {}): RoutingInput {
  const surface = options.surface ?? 'openai-chat';
  let fields: GatewayFields;
  let needs: RouteNeeds;
  if (surface === 'openai-embeddings') {
    fields = parseSurfaceRequest('openai-embeddings', { input: 'hello', ...body }).gateway;
    needs = { tools: false, structuredOutputs: false, input: ['text'], stream: false, estimate: { inputTokens: 10, outputTokens: 0 } };
  } else {
    const base = surface === 'native-responses' ? { input: [{ type: 'message', role: 'user', content: 'hi' }] } : surface === 'openai-responses' ? { input: 'hi' } : surface === 'anthropic-messages' ? { max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] } : { messages: [{ role: 'user', content: 'hi' }] };
    const parsed = parseSurfaceRequest(surface as ChatSurface, { ...base, ...body });
    fields = parsed.gateway;
    needs = routeNeeds(parsed.request, { inputTokens: 1000, outputTokens: 500 });
  }
  return {
    surface,
    fields,
    headers: options.headers ?? {},
    needs,
    caller: options.caller ?? caller(),
    policies: options.policies ?? directory([]),
    catalog,
    random: options.random,
  };
}
