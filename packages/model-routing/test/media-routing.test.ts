import { WireError, type GatewayFields } from '@patchbay/model-wire';
import { policyEndpoint, resolveRoutes, validatePolicyInput, type RoutingInput } from '../src';
import { caller, catalog, directory, policy } from './support/catalog';

/**
 * Issue 27 §2: "routing policies and failover apply as for chat" on the media endpoints. A media
 * request names its endpoint (images, speech, transcription), since no model-wire surface says it.
 */
function fields(partial: Partial<GatewayFields>): GatewayFields {
  return {
    model: null,
    routing_policy_id: null,
    priority_order: null,
    vendor: null,
    vendors: null,
    tags: [],
    project_id: null,
    customer: null,
    include_routing_metadata: false,
    include_guardrails_metadata: false,
    service_tier: null,
    service_tier_fallback: false,
    user: null,
    stream: false,
    store: null,
    metadata: null,
    ...partial,
  };
}

function media(partial: Partial<GatewayFields>, options: Partial<RoutingInput> = {}): RoutingInput {
  return {
    surface: 'openai-chat',
    endpoint: 'images',
    fields: fields(partial),
    headers: {},
    needs: { tools: false, structuredOutputs: false, input: [], stream: false, estimate: { inputTokens: 0, outputTokens: 0 } },
    caller: caller(),
    policies: directory([]),
    catalog,
    ...options,
  };
}

function refusal(make: () => RoutingInput): WireError {
  try {
    resolveRoutes(make());
  } catch (err) {
    if (err instanceof WireError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

const images = policy({ name: 'Images', targets: [{ model: 'openai/gpt-image-1', vendors: null, weight: null }, { model: 'google/gemini-2.5-flash-image', vendors: null, weight: null }] });
const chat = policy({ name: 'Chat', isDefault: true, targets: [{ model: 'openai/gpt-4o', vendors: ['openai'], weight: null }] });

describe('routing policies on the media endpoints', () => {
  test('a policy of image models named by routing_policy_id routes an image request over its targets, with failover', () => {
    const decision = resolveRoutes(media({ routing_policy_id: images.id }, { policies: directory([images, chat], { org: chat }) }));
    expect(decision.routes.map((r) => `${r.model}@${r.vendor}`)).toEqual(['openai/gpt-image-1@openai', 'google/gemini-2.5-flash-image@google']);
    expect([decision.via, decision.failover]).toEqual(['routing_policy_id', true]);
  });

  test('bindings and defaults route the endpoint their policy serves: a chat default is skipped by an image request, an image binding by a chat one', () => {
    const policies = directory([images, chat], { org: chat });
    expect(refusal(() => media({}, { policies })).code).toBe('model_required');
    expect(resolveRoutes(media({}, { policies, caller: caller({ keyPolicyId: images.id }) })).via).toBe('key_binding');
    const chatRequest = media({}, { policies, caller: caller({ keyPolicyId: images.id }), endpoint: undefined, needs: { tools: false, structuredOutputs: false, input: ['text'], stream: false, estimate: { inputTokens: 10, outputTokens: 10 } } });
    const decision = resolveRoutes(chatRequest);
    expect([decision.via, decision.routes[0]!.model]).toEqual(['organization_default', 'openai/gpt-4o']);
  });

  test('unsupported_endpoint_for_model: a chat policy named on an image request, an image policy on chat, a speech model in an image priority_order', () => {
    const policies = directory([images, chat]);
    const onImages = refusal(() => media({ routing_policy_id: chat.id }, { policies }));
    expect([onImages.code, onImages.param]).toEqual(['unsupported_endpoint_for_model', 'routing_policy_id']);
    expect(onImages.message).toContain('chat models');
    expect(refusal(() => media({ routing_policy_id: images.id }, { policies, endpoint: 'chat' })).code).toBe('unsupported_endpoint_for_model');
    expect(refusal(() => media({ priority_order: [{ model: 'openai/gpt-image-1' }, { model: 'openai/tts-1' }] })).code).toBe('unsupported_endpoint_for_model');
    expect(refusal(() => media({ model: 'openai/gpt-4o' })).code).toBe('unsupported_endpoint_for_model');
  });

  test('priority_order of image models fails over in order; alias_not_supported for @alias/ on a media endpoint', () => {
    const decision = resolveRoutes(media({ priority_order: [{ model: 'google/gemini-2.5-flash-image' }, { model: 'openai/gpt-image-1' }] }));
    expect(decision.routes.map((r) => r.model)).toEqual(['google/gemini-2.5-flash-image', 'openai/gpt-image-1']);
    expect(decision.failover).toBe(true);
    const aliased = policy({ name: 'Aliased', slug: 'pics', targets: images.targets });
    expect(refusal(() => media({ model: '@alias/pics' }, { policies: directory([aliased]) })).code).toBe('alias_not_supported');
  });

  test('validation: a policy routes one kind of request, never embeddings', () => {
    const ok = validatePolicyInput({ name: 'Pictures', strategy: 'priority', targets: [{ model: 'openai/gpt-image-1' }, { model: 'google/gemini-2.5-flash-image' }] }, catalog);
    expect(policyEndpoint({ ...images, targets: ok.targets }, catalog)).toBe('images');
    const mixed = () => validatePolicyInput({ name: 'Mixed', strategy: 'priority', targets: [{ model: 'openai/gpt-image-1' }, { model: 'openai/gpt-4o' }] }, catalog);
    expect(mixed).toThrow(expect.objectContaining({ fieldErrors: [expect.objectContaining({ field: 'targets[1].model' })] }));
    const embeddings = () => validatePolicyInput({ name: 'Vectors', strategy: 'priority', targets: [{ model: 'openai/text-embedding-3-small' }] }, catalog);
    expect(embeddings).toThrow(expect.objectContaining({ fieldErrors: [expect.objectContaining({ field: 'targets[0].model' })] }));
  });
});
