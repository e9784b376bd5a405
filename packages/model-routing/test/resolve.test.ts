import { randomUUID } from 'node:crypto';
import { WireError, renderError } from '@patchbay/model-wire';
import { orderByHealth, resolveRoutes, type RouteDecision, type RoutingInput } from '../src';
import { caller, directory, input, policy } from './support/catalog';

function refusal(make: () => RoutingInput): WireError {
  try {
    const decision = resolveRoutes(make());
    throw new Error(`expected a refusal, got routes ${decision.routes.map((r) => `${r.model}@${r.vendor}`).join(', ')}`);
  } catch (err) {
    if (!(err instanceof WireError)) throw err;
    return err;
  }
}

/** Parsing (model-wire) or resolving: whichever refuses first, as the app runs them. */
function refusalOfRequest(make: () => RoutingInput): WireError {
  try {
    return refusal(make);
  } catch (err) {
    if (err instanceof WireError) return err;
    throw err;
  }
}

function routesOf(decision: RouteDecision): string[] {
  return decision.routes.map((r) => `${r.model}@${r.vendor}`);
}

const CUSTOMER = '7b0c3a55-0f8e-4b8e-9d8f-2a9f1c2d3e4f';
const OTHER_CUSTOMER = '0c2b1a55-1f8e-4b8e-9d8f-2a9f1c2d3e40';
const PROJECT = '5d6e7f80-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
const OTHER_PROJECT = '6d6e7f80-1a2b-4c3d-8e9f-0a1b2c3d4e5f';

describe('resolution order: first match wins', () => {
  const named = policy({ name: 'Named', targets: [{ model: 'anthropic/claude-haiku-4-5', vendors: null, weight: null }] });
  const aliased = policy({ name: 'Support agent', slug: 'support-agent', targets: [{ model: 'google/gemini-2.5-flash', vendors: null, weight: null }] });
  const bound = policy({ name: 'Bound', targets: [{ model: 'openai/gpt-4o-mini', vendors: null, weight: null }] });
  const customerDefault = policy({ name: 'Customer', scope: { type: 'customer', customerId: CUSTOMER }, targets: [{ model: 'meta/llama-3.3-70b', vendors: null, weight: null }] });
  const projectDefault = policy({ name: 'Project', scope: { type: 'project', projectId: PROJECT }, targets: [{ model: 'anthropic/claude-sonnet-4', vendors: ['anthropic'], weight: null }] });
  const orgDefault = policy({ name: 'Default', slug: 'default', isDefault: true, targets: [{ model: 'openai/gpt-4o', vendors: ['openai'], weight: null }] });
  const policies = directory([named, aliased, bound, customerDefault, projectDefault, orgDefault], { org: orgDefault, customers: { [CUSTOMER]: customerDefault }, projects: { [PROJECT]: projectDefault } });
  const keyBound = caller({ keyPolicyId: bound.id });

  test('a concrete model wins over everything and ignores routing_policy_id and the key binding', () => {
    const decision = resolveRoutes(input({ model: 'openai/gpt-4o-mini', routing_policy_id: named.id }, { policies, caller: keyBound }));
    expect(decision.via).toBe('model');
    expect(routesOf(decision)).toEqual(['openai/gpt-4o-mini@openai']);
    expect(decision.failover).toBe(false);
  });

  test('priority_order comes next, in its order, each entry cheapest vendor first', () => {
    const decision = resolveRoutes(input({ priority_order: [{ model: 'anthropic/claude-sonnet-4' }, { model: 'openai/gpt-4o', vendors: ['azure', 'openai'] }] }, { policies, caller: keyBound }));
    expect(decision.via).toBe('priority_order');
    expect(routesOf(decision)).toEqual(['anthropic/claude-sonnet-4@anthropic', 'anthropic/claude-sonnet-4@bedrock', 'openai/gpt-4o@azure', 'openai/gpt-4o@openai']);
    expect(decision.failover).toBe(true);
  });

  test('an @alias/ model routes through the organization policy of that slug', () => {
    const decision = resolveRoutes(input({ model: '@alias/support-agent' }, { policies, caller: keyBound }));
    expect(decision.via).toBe('alias');
    expect(decision.policy?.id).toBe(aliased.id);
  });

  test('routing_policy_id in the body, then the X-Svc-Routing-Policy-Id header', () => {
    expect(resolveRoutes(input({ routing_policy_id: named.id }, { policies, caller: keyBound })).via).toBe('routing_policy_id');
    const viaHeader = resolveRoutes(input({}, { policies, caller: keyBound, headers: { routingPolicyId: named.id.toUpperCase() } }));
    expect(viaHeader.via).toBe('routing_policy_id');
    expect(viaHeader.policy?.id).toBe(named.id);
  });

  test("the key's binding comes before the customer, project and organization defaults", () => {
    const decision = resolveRoutes(input({ customer: CUSTOMER }, { policies, caller: keyBound }));
    expect(decision.via).toBe('key_binding');
    expect(routesOf(decision)).toEqual(['openai/gpt-4o-mini@openai']);
  });

  test('the embeddings endpoint ignores key bindings (and defaults): model is required there', () => {
    expect(refusal(() => input({ model: undefined }, { surface: 'openai-embeddings', policies, caller: keyBound })).code).toBe('model_required');
    expect(resolveRoutes(input({ model: 'openai/text-embedding-3-small' }, { surface: 'openai-embeddings', policies, caller: keyBound })).via).toBe('model');
  });

  test("the customer's default, then the project's default, then the organization's default", () => {
    expect(resolveRoutes(input({ customer: CUSTOMER }, { policies })).via).toBe('customer_default');
    expect(resolveRoutes(input({}, { policies, headers: { customer: CUSTOMER } })).via).toBe('customer_default');
    expect(resolveRoutes(input({ project_id: PROJECT }, { policies })).via).toBe('project_default');
    expect(resolveRoutes(input({}, { policies, caller: caller({ keyProjectId: PROJECT }) })).via).toBe('project_default');
    expect(resolveRoutes(input({}, { policies })).via).toBe('organization_default');
    expect(resolveRoutes(input({ model: 'default_routing' }, { policies })).via).toBe('organization_default');
  });

  test('a customer without a default policy falls through to the organization default', () => {
    expect(resolveRoutes(input({ customer: OTHER_CUSTOMER }, { policies })).via).toBe('organization_default');
  });
});

describe('strategies', () => {
  test('priority: each model with its vendors (listed order, else cheapest first), then the next model', () => {
    const p = policy({ targets: [{ model: 'anthropic/claude-sonnet-4', vendors: ['bedrock', 'anthropic'], weight: null }, { model: 'openai/gpt-4o', vendors: null, weight: null }] });
    expect(routesOf(resolveRoutes(input({ routing_policy_id: p.id }, { policies: directory([p]) })))).toEqual([
      'anthropic/claude-sonnet-4@bedrock',
      'anthropic/claude-sonnet-4@anthropic',
      'openai/gpt-4o@openai',
      'openai/gpt-4o@azure',
    ]);
  });

  test('lowest_cost: every route cheapest first for the request', () => {
    const p = policy({ strategy: 'lowest_cost', targets: [{ model: 'anthropic/claude-sonnet-4', vendors: null, weight: null }, { model: 'openai/gpt-4o-mini', vendors: null, weight: null }, { model: 'openai/gpt-4o', vendors: null, weight: null }] });
    expect(routesOf(resolveRoutes(input({ routing_policy_id: p.id }, { policies: directory([p]) })))).toEqual([
      'openai/gpt-4o-mini@openai',
      'openai/gpt-4o@openai',
      'openai/gpt-4o@azure',
      'anthropic/claude-sonnet-4@anthropic',
      'anthropic/claude-sonnet-4@bedrock',
    ]);
  });

  test('weighted: the first route is drawn by weight and every other target still follows', () => {
    const p = policy({ strategy: 'weighted', targets: [{ model: 'openai/gpt-4o-mini', vendors: null, weight: 3 }, { model: 'anthropic/claude-haiku-4-5', vendors: null, weight: 1 }] });
    const at = (r: number) => routesOf(resolveRoutes(input({ routing_policy_id: p.id }, { policies: directory([p]), random: () => r })));
    expect(at(0.1)).toEqual(['openai/gpt-4o-mini@openai', 'anthropic/claude-haiku-4-5@anthropic']);
    expect(at(0.74)).toEqual(['openai/gpt-4o-mini@openai', 'anthropic/claude-haiku-4-5@anthropic']);
    expect(at(0.76)).toEqual(['anthropic/claude-haiku-4-5@anthropic', 'openai/gpt-4o-mini@openai']);
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    let first = 0;
    for (let i = 0; i < 4000; i++) if (resolveRoutes(input({ routing_policy_id: p.id }, { policies: directory([p]), random })).routes[0]!.model === 'openai/gpt-4o-mini') first++;
    expect(first / 4000).toBeGreaterThan(0.72);
    expect(first / 4000).toBeLessThan(0.78);
  });

  test('a direct call with a vendors list fails over between those vendors, in that order', () => {
    const decision = resolveRoutes(input({ model: 'openai/gpt-4o', vendors: ['azure', 'openai'] }));
    expect(routesOf(decision)).toEqual(['openai/gpt-4o@azure', 'openai/gpt-4o@openai']);
    expect(decision.failover).toBe(true);
  });

  test('a bare model name that one provider serves resolves to it', () => {
    expect(routesOf(resolveRoutes(input({ model: 'gpt-4o' })))).toEqual(['openai/gpt-4o@openai']);
  });

  test('service_tier picks the tier price; a vendor without the tier is not a route', () => {
    const decision = resolveRoutes(input({ model: 'openai/gpt-4o', service_tier: 'flex' }));
    expect(decision.routes[0]).toMatchObject({ vendor: 'openai', serviceTier: 'flex', price: { inputPerMillion: 1.25 }, standardPrice: { inputPerMillion: 2.5 } });
  });
});

describe('allowed_models and the blocklist under a policy', () => {
  const p = policy({ targets: [{ model: 'openai/gpt-4o', vendors: null, weight: null }, { model: 'anthropic/claude-haiku-4-5', vendors: null, weight: null }] });
  test('allowed_models filters the candidates', () => {
    const decision = resolveRoutes(input({ routing_policy_id: p.id }, { policies: directory([p]), caller: caller({ allowedModels: ['anthropic/*'] }) }));
    expect(routesOf(decision)).toEqual(['anthropic/claude-haiku-4-5@anthropic']);
  });
  test('model_not_allowed only when no candidate is allowed (403)', () => {
    const err = refusal(() => input({ routing_policy_id: p.id }, { policies: directory([p]), caller: caller({ allowedModels: ['google/*'] }) }));
    expect([err.status, err.code, err.type]).toEqual([403, 'model_not_allowed', 'permission_error']);
  });
  test('a pinned model outside allowed_models is 403 model_not_allowed', () => {
    const err = refusal(() => input({ model: 'openai/gpt-4o' }, { caller: caller({ allowedModels: [] }) }));
    expect([err.status, err.code]).toEqual([403, 'model_not_allowed']);
  });
  test('blocked_by_policy: a blocked model is type blocked_by_policy; every policy model blocked is a permission_error', () => {
    const blockAll = caller({ isBlocked: () => true });
    const direct = refusal(() => input({ model: 'openai/gpt-4o' }, { caller: blockAll }));
    expect([direct.status, direct.code, direct.type]).toEqual([403, 'blocked_by_policy', 'blocked_by_policy']);
    const viaPolicy = refusal(() => input({ routing_policy_id: p.id }, { policies: directory([p]), caller: blockAll }));
    expect([viaPolicy.status, viaPolicy.code, viaPolicy.type]).toEqual([403, 'blocked_by_policy', 'permission_error']);
    const someBlocked = resolveRoutes(input({ routing_policy_id: p.id }, { policies: directory([p]), caller: caller({ isBlocked: (m) => m === 'openai/gpt-4o' }) }));
    expect(routesOf(someBlocked)).toEqual(['anthropic/claude-haiku-4-5@anthropic']);
  });
});

describe('every 400 code of the spec about policies, priority order, aliases, vendors, customers and projects', () => {
  const org = policy({ name: 'Org', slug: 'org', targets: [{ model: 'openai/gpt-4o', vendors: null, weight: null }] });
  const policies = directory([org]);

  test('model_required', () => {
    const err = refusal(() => input({}));
    expect([err.status, err.code, err.param]).toEqual([400, 'model_required', 'model']);
    expect(renderError('openai-chat', err).body).toEqual({ error: expect.objectContaining({ type: 'invalid_request_error', code: 'model_required', source: 'gateway' }) });
  });

  test('invalid_model_format', () => {
    expect(refusal(() => input({ model: 'openai/gpt-9000' })).code).toBe('invalid_model_format');
    expect(refusal(() => input({ model: 'not-a-model' })).code).toBe('invalid_model_format');
    expect(refusal(() => input({ model: '@alias/nobody' }, { policies })).code).toBe('invalid_model_format');
  });

  test('ambiguous_base_model', () => {
    const err = refusal(() => input({ model: 'llama-3.3-70b' }));
    expect(err.code).toBe('ambiguous_base_model');
    expect(err.message).toContain('meta/llama-3.3-70b');
    expect(err.message).toContain('nvidia/llama-3.3-70b');
  });

  test('model_unavailable', () => {
    expect(refusal(() => input({ model: 'openai/gpt-3.5-turbo' })).code).toBe('model_unavailable');
    expect(refusal(() => input({ model: 'openai/gpt-retired-vendor' })).code).toBe('model_unavailable');
    const inactive = policy({ targets: [{ model: 'openai/gpt-3.5-turbo', vendors: null, weight: null }] });
    expect(refusal(() => input({ routing_policy_id: inactive.id }, { policies: directory([inactive]) })).code).toBe('model_unavailable');
  });

  test('unsupported_endpoint_for_model', () => {
    expect(refusal(() => input({ model: 'openai/text-embedding-3-small' })).code).toBe('unsupported_endpoint_for_model');
    expect(refusal(() => input({ model: 'openai/gpt-4o' }, { surface: 'openai-embeddings' })).code).toBe('unsupported_endpoint_for_model');
    expect(refusal(() => input({ routing_policy_id: org.id }, { surface: 'openai-embeddings', policies })).code).toBe('unsupported_endpoint_for_model');
  });

  test('alias_not_supported', () => {
    const err = refusal(() => input({ model: '@alias/org' }, { surface: 'openai-embeddings', policies }));
    expect([err.status, err.code]).toEqual([400, 'alias_not_supported']);
    for (const surface of ['native-responses', 'openai-chat', 'openai-responses', 'anthropic-messages'] as const) {
      expect(resolveRoutes(input({ model: '@alias/org' }, { surface, policies })).via).toBe('alias');
    }
  });

  test('alias_routing_policy_conflict', () => {
    expect(refusal(() => input({ model: '@alias/org', routing_policy_id: org.id }, { policies })).code).toBe('alias_routing_policy_conflict');
    expect(refusal(() => input({ model: '@alias/org' }, { policies, headers: { routingPolicyId: org.id } })).code).toBe('alias_routing_policy_conflict');
  });

  test('routing_policy_mismatch', () => {
    expect(refusal(() => input({ routing_policy_id: org.id }, { policies, headers: { routingPolicyId: randomUUID() } })).code).toBe('routing_policy_mismatch');
  });

  test('routing_policy_requires_customer', () => {
    const p = policy({ scope: { type: 'customer', customerId: CUSTOMER }, targets: [{ model: 'openai/gpt-4o', vendors: null, weight: null }] });
    expect(refusal(() => input({ routing_policy_id: p.id }, { policies: directory([p]) })).code).toBe('routing_policy_requires_customer');
    expect(refusal(() => input({ routing_policy_id: p.id, customer: OTHER_CUSTOMER }, { policies: directory([p]) })).code).toBe('routing_policy_requires_customer');
    expect(resolveRoutes(input({ routing_policy_id: p.id, customer: CUSTOMER }, { policies: directory([p]) })).policy?.id).toBe(p.id);
  });

  test('routing_policy_requires_project', () => {
    const p = policy({ scope: { type: 'project', projectId: PROJECT }, targets: [{ model: 'openai/gpt-4o', vendors: null, weight: null }] });
    expect(refusal(() => input({ routing_policy_id: p.id }, { policies: directory([p]) })).code).toBe('routing_policy_requires_project');
    expect(refusal(() => input({ routing_policy_id: p.id, project_id: OTHER_PROJECT }, { policies: directory([p]) })).code).toBe('routing_policy_requires_project');
    expect(resolveRoutes(input({ routing_policy_id: p.id }, { policies: directory([p]), headers: { projectId: PROJECT } })).policy?.id).toBe(p.id);
  });

  test('self_hosted_unsupported_strategy', () => {
    const p = policy({ strategy: 'lowest_cost', targets: [{ model: 'selfhosted/qwen-7b', vendors: null, weight: null }, { model: 'selfhosted/mistral-7b', vendors: null, weight: null }] });
    expect(refusal(() => input({ routing_policy_id: p.id }, { policies: directory([p]) })).code).toBe('self_hosted_unsupported_strategy');
    const mixed = policy({ strategy: 'lowest_cost', targets: [{ model: 'selfhosted/qwen-7b', vendors: null, weight: null }, { model: 'openai/gpt-4o-mini', vendors: null, weight: null }] });
    expect(routesOf(resolveRoutes(input({ routing_policy_id: mixed.id }, { policies: directory([mixed]) })))).toEqual(['openai/gpt-4o-mini@openai', 'selfhosted/qwen-7b@vllm']);
  });

  test('invalid_priority_order (400 on the compatible surfaces, 422 with a detail array on the native endpoint)', () => {
    const tooMany = Array.from({ length: 11 }, () => ({ model: 'openai/gpt-4o' }));
    const chat = refusalOfRequest(() => input({ priority_order: tooMany }));
    expect([chat.status, chat.code]).toEqual([400, 'invalid_priority_order']);
    const native = refusalOfRequest(() => input({ priority_order: [] }, { surface: 'native-responses' }));
    expect(native.status).toBe(422);
    expect(native.detail?.[0]).toMatchObject({ type: 'invalid_priority_order', loc: ['body', 'priority_order'] });
    expect(refusalOfRequest(() => input({ priority_order: [{ model: 'openai/gpt-4o', vendors: [] }] })).code).toBe('invalid_priority_order');
    expect(refusalOfRequest(() => input({ priority_order: [{ model: 'openai/gpt-4o' }], vendor: 'openai' })).code).toBe('invalid_priority_order');
    expect(refusalOfRequest(() => input({ priority_order: [{ model: 'openai/gpt-4o' }], routing_policy_id: org.id }, { policies })).code).toBe('invalid_priority_order');
  });

  test('priority_order_model_conflict (422 on the native endpoint)', () => {
    const chat = refusalOfRequest(() => input({ model: 'openai/gpt-4o-mini', priority_order: [{ model: 'openai/gpt-4o' }] }));
    expect([chat.status, chat.code]).toEqual([400, 'priority_order_model_conflict']);
    const native = refusalOfRequest(() => input({ model: 'openai/gpt-4o-mini', priority_order: [{ model: 'openai/gpt-4o' }] }, { surface: 'native-responses' }));
    expect(native.status).toBe(422);
    expect(native.detail?.[0]?.type).toBe('priority_order_model_conflict');
  });

  test('priority_order_routing_policy_conflict', () => {
    const err = refusal(() => input({ priority_order: [{ model: 'openai/gpt-4o' }] }, { policies, headers: { routingPolicyId: org.id } }));
    expect([err.status, err.code]).toEqual([400, 'priority_order_routing_policy_conflict']);
  });

  test('vendor_unavailable', () => {
    expect(refusal(() => input({ model: 'openai/gpt-4o', vendor: 'anthropic' })).code).toBe('vendor_unavailable');
    expect(refusal(() => input({ model: 'openai/gpt-4o', vendors: ['groq', 'together'] })).param).toBe('vendors');
    expect(refusal(() => input({ routing_policy_id: org.id, vendor: 'bedrock' }, { policies })).code).toBe('vendor_unavailable');
  });

  test('capability_unavailable', () => {
    const audio = { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }] };
    const p = policy({ targets: [{ model: 'openai/gpt-4o', vendors: null, weight: null }, { model: 'anthropic/claude-sonnet-4', vendors: null, weight: null }] });
    expect(refusal(() => input({ ...audio, routing_policy_id: p.id }, { policies: directory([p]) })).code).toBe('capability_unavailable');
    expect(refusal(() => input({ ...audio, model: 'openai/gpt-4o' })).code).toBe('capability_unavailable');
    const withGemini = policy({ targets: [...p.targets, { model: 'google/gemini-2.5-flash', vendors: null, weight: null }] });
    expect(routesOf(resolveRoutes(input({ ...audio, routing_policy_id: withGemini.id }, { policies: directory([withGemini]) })))).toEqual(['google/gemini-2.5-flash@google']);
  });

  test('vendor_restrictions_unavailable', () => {
    const denyAll = caller({ vendorRules: { allow: null, deny: ['openai', 'azure'], zeroDataRetention: false, regions: null } });
    expect(refusal(() => input({ model: 'openai/gpt-4o' }, { caller: denyAll })).code).toBe('vendor_restrictions_unavailable');
    const euOnly = policy({ targets: [{ model: 'anthropic/claude-sonnet-4', vendors: null, weight: null }], vendorRules: { allow: null, deny: [], zeroDataRetention: false, regions: ['eu'] } });
    expect(refusal(() => input({ routing_policy_id: euOnly.id }, { policies: directory([euOnly]) })).code).toBe('vendor_restrictions_unavailable');
    const allowAzure = caller({ vendorRules: { allow: ['azure'], deny: [], zeroDataRetention: false, regions: null } });
    expect(routesOf(resolveRoutes(input({ model: 'openai/gpt-4o' }, { caller: allowAzure })))).toEqual(['openai/gpt-4o@azure']);
  });

  test('zdr_vendor_unavailable', () => {
    const zdr = policy({ targets: [{ model: 'openai/gpt-4o-mini', vendors: null, weight: null }], vendorRules: { allow: null, deny: [], zeroDataRetention: true, regions: null } });
    expect(refusal(() => input({ routing_policy_id: zdr.id }, { policies: directory([zdr]) })).code).toBe('zdr_vendor_unavailable');
    const zdrCaller = caller({ vendorRules: { allow: null, deny: [], zeroDataRetention: true, regions: null } });
    expect(routesOf(resolveRoutes(input({ model: 'openai/gpt-4o' }, { caller: zdrCaller })))).toEqual(['openai/gpt-4o@azure']);
    expect(refusal(() => input({ model: 'openai/gpt-4o-mini' }, { caller: zdrCaller })).code).toBe('zdr_vendor_unavailable');
  });

  test('unsupported_params', () => {
    const tier = refusal(() => input({ model: 'anthropic/claude-haiku-4-5', service_tier: 'flex' }));
    expect([tier.code, tier.param]).toEqual(['unsupported_params', 'service_tier']);
    const stream = refusal(() => input({ model: 'openai/o1-pro', stream: true }));
    expect([stream.code, stream.param]).toEqual(['unsupported_params', 'stream']);
    const image = refusal(() => input({ model: 'meta/llama-3.3-70b', vendor: 'groq', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }] }));
    expect([image.code, image.param]).toEqual(['unsupported_params', 'input']);
  });

  test('project_mismatch', () => {
    expect(refusal(() => input({ model: 'openai/gpt-4o', project_id: OTHER_PROJECT }, { caller: caller({ keyProjectId: PROJECT }) })).code).toBe('project_mismatch');
    expect(refusal(() => input({ model: 'openai/gpt-4o', project_id: PROJECT }, { headers: { projectId: OTHER_PROJECT } })).code).toBe('project_mismatch');
    expect(resolveRoutes(input({ model: 'openai/gpt-4o', project_id: PROJECT }, { caller: caller({ keyProjectId: PROJECT }) })).projectId).toBe(PROJECT);
  });

  test('customer_mismatch', () => {
    expect(refusal(() => input({ model: 'openai/gpt-4o', customer: CUSTOMER }, { headers: { customer: OTHER_CUSTOMER } })).code).toBe('customer_mismatch');
    expect(refusal(() => input({ model: 'openai/gpt-4o', customer: OTHER_CUSTOMER }, { caller: caller({ keyCustomerId: CUSTOMER }) })).code).toBe('customer_mismatch');
    expect(resolveRoutes(input({ model: 'openai/gpt-4o' }, { caller: caller({ keyCustomerId: CUSTOMER }) })).customerId).toBe(CUSTOMER);
  });

  test('customer_project_conflict', () => {
    expect(refusal(() => input({ model: 'openai/gpt-4o', customer: CUSTOMER, project_id: PROJECT })).code).toBe('customer_project_conflict');
    expect(refusal(() => input({ model: 'openai/gpt-4o' }, { headers: { customer: CUSTOMER }, caller: caller({ keyProjectId: PROJECT }) })).code).toBe('customer_project_conflict');
    expect(refusal(() => input({ model: 'openai/gpt-4o' }, { headers: { projectId: PROJECT }, caller: caller({ keyCustomerId: CUSTOMER }) })).code).toBe('customer_project_conflict');
  });

  test('invalid_customer', () => {
    const err = refusal(() => input({ model: 'openai/gpt-4o' }, { headers: { customer: 'acme' } }));
    expect([err.code, err.param]).toEqual(['invalid_customer', 'X-Svc-Customer']);
    expect(refusal(() => input({ model: 'openai/gpt-4o', customer: 'acme' })).code).toBe('invalid_customer');
  });

  test('invalid_routing_policy_id', () => {
    expect(refusal(() => input({ routing_policy_id: 'fast' }, { policies })).code).toBe('invalid_routing_policy_id');
    expect(refusal(() => input({}, { policies, headers: { routingPolicyId: '123' } })).param).toBe('X-Svc-Routing-Policy-Id');
  });

  test('unknown_tags', () => {
    const tagged = caller({ isTagDefined: (key, value) => key === 'team' && value === 'search' });
    expect(resolveRoutes(input({ model: 'openai/gpt-4o', tags: [{ key: 'team', value: 'search' }] }, { surface: 'native-responses', caller: tagged })).routes).toHaveLength(1);
    const err = refusal(() => input({ model: 'openai/gpt-4o', tags: [{ key: 'team', value: 'ads' }] }, { surface: 'native-responses', caller: tagged }));
    expect([err.status, err.code, err.param]).toEqual([400, 'unknown_tags', 'tags']);
    expect(err.message).toContain('team=ads');
  });

  test('a routing_policy_id of no policy of the organization is 404 routing_policy_not_found', () => {
    const err = refusal(() => input({ routing_policy_id: randomUUID() }, { policies }));
    expect([err.status, err.code, err.type]).toEqual([404, 'routing_policy_not_found', 'not_found_error']);
  });
});

describe('health ordering', () => {
  const p = policy({ strategy: 'lowest_latency', targets: [{ model: 'openai/gpt-4o', vendors: null, weight: null }, { model: 'anthropic/claude-haiku-4-5', vendors: null, weight: null }] });
  const decision = () => resolveRoutes(input({ routing_policy_id: p.id }, { policies: directory([p]) }));

  test('lowest_latency: measured routes fastest first, unmeasured after in cost order', () => {
    const d = decision();
    expect(routesOf(d)).toEqual(['anthropic/claude-haiku-4-5@anthropic', 'openai/gpt-4o@openai', 'openai/gpt-4o@azure']);
    const ordered = orderByHealth(d, [
      { state: 'closed', latencyMs: 900 },
      { state: 'closed', latencyMs: null },
      { state: 'closed', latencyMs: 120 },
    ]);
    expect(ordered.routes.map((r) => r.vendor)).toEqual(['azure', 'anthropic', 'openai']);
  });

  test('open routes are skipped, unless every route is open', () => {
    const d = decision();
    const some = orderByHealth(d, [{ state: 'open', latencyMs: 10 }, { state: 'closed', latencyMs: null }, { state: 'probe', latencyMs: null }]);
    expect(some.routes.map((r) => r.vendor)).toEqual(['openai', 'azure']);
    expect(some.skipped.map((r) => r.vendor)).toEqual(['anthropic']);
    const all = orderByHealth(d, d.routes.map(() => ({ state: 'open' as const, latencyMs: null })));
    expect(all.routes).toHaveLength(3);
  });
});
