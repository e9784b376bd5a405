import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import { Catalog, type CatalogFile } from '../src/catalog/catalog';
import { createPrisma } from '../src/db';
import { TEST_DATABASE_URL } from '@patchbay/testing';
import { call, createKey, createOrg, eventually, startHarness, type Harness, type TestOrg } from './harness';

/**
 * Routing policies and failover through the real gateway (issue 10 §1-2): the policy management
 * routes, aliases, the resolution order, and failover between vendor fakes. The test catalog has
 * openai/gpt-4o on two vendors (the OpenAI fake, and the Groq fake serving the same model) and
 * anthropic/claude-sonnet-4, so a policy can fail over between vendors and between models. Groq is
 * the one zero-data-retention vendor, Anthropic the one in the `eu` region, and meta-llama runs only
 * on `vllm`, a self-hosted vendor an organization reaches through its own vendor key and base_url.
 */
const price = (input: number, output: number) => ({ input_per_million: input, output_per_million: output });
const caps = { input: ['text' as const, 'image' as const], output: ['text', 'tool_use'], supports_tool_calling: true, supports_tool_choice: true, supports_structured_outputs: true, streaming: true };
const catalogFile: CatalogFile = {
  vendors: {
    openai: { name: 'OpenAI', dialect: 'openai', default_base_url: 'https://api.openai.com/v1', supports_byok: true, region: 'us' },
    anthropic: { name: 'Anthropic', dialect: 'anthropic', default_base_url: 'https://api.anthropic.com', supports_byok: true, region: 'eu' },
    groq: { name: 'Groq', dialect: 'openai-compatible', default_base_url: 'https://api.groq.com/openai/v1', supports_byok: true, region: 'us', supports_zdr: true },
    vllm: { name: 'Self-hosted', dialect: 'openai-compatible', default_base_url: 'http://localhost:8000/v1', supports_byok: true, self_hosted: true },
  },
  models: [
    { id: 'openai/gpt-4o', display_name: 'GPT-4o', type: 'chat', context_window: 128000, max_output_tokens: 16384, capabilities: caps, created_at: '2024-05-13', vendors: [{ vendor: 'openai', vendor_model: 'gpt-4o', pricing: { standard: price(2.5, 10), flex: price(1.25, 5) } }, { vendor: 'groq', vendor_model: 'gpt-4o', pricing: { standard: price(3, 12) } }] },
    { id: 'anthropic/claude-sonnet-4', display_name: 'Claude Sonnet 4', type: 'chat', context_window: 200000, max_output_tokens: 8192, capabilities: caps, created_at: '2025-05-22', vendors: [{ vendor: 'anthropic', vendor_model: 'claude-sonnet-4', pricing: { standard: price(3, 15) } }] },
    { id: 'meta-llama/llama-3.3-70b', display_name: 'Llama 3.3 70B', type: 'chat', context_window: 128000, max_output_tokens: 8192, capabilities: caps, created_at: '2024-12-06', vendors: [{ vendor: 'vllm', vendor_model: 'meta-llama/Llama-3.3-70B-Instruct' }] },
    { id: 'openai/text-embedding-3-small', display_name: 'Embedding 3 small', type: 'embedding', context_window: 8192, max_output_tokens: 0, capabilities: { ...caps, input: ['text'], output: ['embedding'], supports_tool_calling: false, supports_tool_choice: false, supports_structured_outputs: false, streaming: false }, created_at: '2024-01-25', vendors: [{ vendor: 'openai', vendor_model: 'text-embedding-3-small', pricing: { standard: price(0.02, 0) } }] },
  ],
};

let h: Harness;
let org: TestOrg;
let key: string;
let policyId: string;
const db = createPrisma(TEST_DATABASE_URL, 2);
const messages = [{ role: 'user', content: 'hi' }];

beforeAll(async () => {
  h = await startHarness({ GATEWAY_FIRST_TOKEN_TIMEOUT_MS: '800', GATEWAY_ROUTE_HEALTH_PREFIX: `patchbay:test:routing:${randomUUID()}:`, GATEWAY_BREAKER_FAILURES: '1000' }, { catalog: new Catalog(catalogFile) });
  org = await createOrg(h);
  key = (await createKey(h, org)).key;
  const created = await call(h.gatewayUrl, org.mgmtKey, 'POST', '/v1/routing-policies', {
    name: 'Support agent',
    strategy: 'priority',
    targets: [{ model: 'openai/gpt-4o', vendors: ['openai', 'groq'] }, { model: 'anthropic/claude-sonnet-4' }],
  });
  expect(created.status).toBe(201);
  policyId = created.body.id;
}, 120_000);

afterAll(async () => {
  await h?.close();
  await db.$disconnect();
});

beforeEach(() => {
  h.openai.reset();
  h.groq.reset();
  h.anthropic.reset();
});

const chat = (body: Record<string, unknown>, headers: Record<string, string> = {}, k = key) => call(h.gatewayUrl, k, 'POST', '/v1/chat/completions', { messages, ...body }, headers);

describe('routing policy management', () => {
  test('create mints the alias from the name; the first organization policy becomes the default', async () => {
    const res = await call(h.gatewayUrl, org.mgmtKey, 'GET', `/v1/routing-policies/${policyId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: policyId, object: 'routing_policy', name: 'Support agent', slug: 'support-agent', model: '@alias/support-agent', strategy: 'priority', is_default: true });
    const second = await call(h.gatewayUrl, org.mgmtKey, 'POST', '/v1/routing-policies', { name: 'Support agent', strategy: 'lowest_cost', targets: [{ model: 'anthropic/claude-sonnet-4' }] });
    expect(second.body).toMatchObject({ slug: 'support-agent-2', is_default: false });
    const list = await call(h.gatewayUrl, org.mgmtKey, 'GET', '/v1/routing-policies');
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual(expect.arrayContaining([policyId, second.body.id]));
    expect((await call(h.gatewayUrl, org.mgmtKey, 'DELETE', `/v1/routing-policies/${second.body.id}`)).status).toBe(200);
    expect((await call(h.gatewayUrl, org.mgmtKey, 'GET', `/v1/routing-policies/${second.body.id}`)).status).toBe(404);
  });

  test('update keeps omitted fields; set-default moves the organization default', async () => {
    const other = await call(h.gatewayUrl, org.mgmtKey, 'POST', '/v1/routing-policies', { name: 'Cheap', strategy: 'lowest_cost', targets: [{ model: 'openai/gpt-4o' }] });
    const patched = await call(h.gatewayUrl, org.mgmtKey, 'PATCH', `/v1/routing-policies/${other.body.id}`, { description: 'cheapest first' });
    expect(patched.body).toMatchObject({ name: 'Cheap', description: 'cheapest first', strategy: 'lowest_cost' });
    const set = await call(h.gatewayUrl, org.mgmtKey, 'POST', `/v1/routing-policies/${other.body.id}/set-default`);
    expect(set.body.is_default).toBe(true);
    expect((await call(h.gatewayUrl, org.mgmtKey, 'GET', `/v1/routing-policies/${policyId}`)).body.is_default).toBe(false);
    await call(h.gatewayUrl, org.mgmtKey, 'POST', `/v1/routing-policies/${policyId}/set-default`);
    await call(h.gatewayUrl, org.mgmtKey, 'DELETE', `/v1/routing-policies/${other.body.id}`);
  });

  test('a bad policy is 400 with a detail naming each field and what to send', async () => {
    const res = await call(h.gatewayUrl, org.mgmtKey, 'POST', '/v1/routing-policies', { name: 'x', strategy: 'fastest', targets: [{ model: 'openai/gpt-9' }] });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('strategy');
    expect(res.body.detail).toContain('targets[0].model');
  });

  test('writes need manage_routing; reads take view_routing or an organization gateway key', async () => {
    const viewer = await createOrg(h, { scopes: ['view_routing'] });
    expect((await call(h.gatewayUrl, viewer.mgmtKey, 'POST', '/v1/routing-policies', { name: 'x', strategy: 'priority', targets: [{ model: 'openai/gpt-4o' }] })).status).toBe(403);
    expect((await call(h.gatewayUrl, viewer.mgmtKey, 'GET', '/v1/routing-policies')).status).toBe(200);
    const keysOnly = await createOrg(h, { scopes: ['manage_api_keys'] });
    expect((await call(h.gatewayUrl, keysOnly.mgmtKey, 'GET', '/v1/routing-policies')).status).toBe(403);
    expect((await call(h.gatewayUrl, key, 'GET', `/v1/routing-policies/${policyId}`)).status).toBe(200);
    // Another organization's policy does not exist for this one.
    expect((await call(h.gatewayUrl, viewer.mgmtKey, 'GET', `/v1/routing-policies/${policyId}`)).status).toBe(404);
  });
});

describe('resolution through the server', () => {
  test('the organization default routes a request without a model; an alias on the chat surfaces and /v1/responses', async () => {
    h.openai.script({ text: 'from the default' });
    const res = await chat({});
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('openai/gpt-4o');
    expect((await chat({ model: '@alias/support-agent' })).status).toBe(200);
    const native = await call(h.gatewayUrl, key, 'POST', '/v1/responses', { model: '@alias/support-agent', input: 'hi' });
    expect(native.status).toBe(200);
    expect(native.body).toMatchObject({ model: 'openai/gpt-4o', vendor: 'openai' });
  });

  test('alias_not_supported on the embeddings endpoint', async () => {
    const res = await call(h.gatewayUrl, key, 'POST', '/v1/embeddings', { model: '@alias/support-agent', input: 'hi' });
    expect([res.status, res.body.error.code]).toEqual([400, 'alias_not_supported']);
    const counted = await call(h.gatewayUrl, key, 'POST', '/v1/messages/count_tokens', { model: '@alias/support-agent', messages: [{ role: 'user', content: 'hi' }] });
    expect([counted.status, counted.body.error.code]).toEqual([400, 'alias_not_supported']);
  });

  test('a key bound to a policy routes by it; the embeddings endpoint ignores the binding', async () => {
    const anthropicOnly = await call(h.gatewayUrl, org.mgmtKey, 'POST', '/v1/routing-policies', { name: 'Claude', strategy: 'priority', targets: [{ model: 'anthropic/claude-sonnet-4' }] });
    const bound = await createKey(h, org, { routing_policy_id: anthropicOnly.body.id });
    const res = await chat({}, {}, bound.key);
    expect([res.status, res.body.model]).toEqual([200, 'anthropic/claude-sonnet-4']);
    const embeddings = await call(h.gatewayUrl, bound.key, 'POST', '/v1/embeddings', { input: 'hi' });
    expect([embeddings.status, embeddings.body.error.code]).toEqual([400, 'model_required']);
  });

  test('a key binds only to a policy of its own organization', async () => {
    const res = await call(h.gatewayUrl, org.mgmtKey, 'POST', '/v1/keys', { routing_policy_id: randomUUID() });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('routing_policy_id');
  });

  test('routing_policy_id of another organization is 404 routing_policy_not_found', async () => {
    const res = await chat({ routing_policy_id: randomUUID() });
    expect([res.status, res.body.error.code]).toEqual([404, 'routing_policy_not_found']);
  });

  test('include_routing_metadata returns how the route was chosen', async () => {
    h.openai.script({ fault: { kind: 'overloaded' } });
    const res = await call(h.gatewayUrl, key, 'POST', '/v1/responses', { model: '@alias/support-agent', input: 'hi', include_routing_metadata: true });
    expect(res.status).toBe(200);
    expect(res.body.routing).toMatchObject({
      policy_id: policyId,
      policy_name: 'Support agent',
      strategy: 'priority',
      resolved_by: 'alias',
      model_requested: '@alias/support-agent',
      model_used: 'openai/gpt-4o',
      vendor_used: 'groq',
      attempts: [
        { vendor: 'openai', outcome: 'provider_overloaded', cost_usd: 0 },
        { vendor: 'groq', outcome: 'ok' },
      ],
    });
    expect(res.body.routing.latency.routing_decision_ms).toBeGreaterThanOrEqual(0);
  });
});

describe('failover through the server', () => {
  test('the openai SDK sees a failed-over answer as a normal one', async () => {
    h.openai.setFault({ kind: 'overloaded' });
    h.groq.script({ text: 'answered by the second route' });
    const client = new OpenAI({ apiKey: key, baseURL: `${h.edgeUrl}/v1/openai`, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: '@alias/support-agent', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]!.message.content).toBe('answered by the second route');
    expect(h.openai.requests).toHaveLength(1);
  });

  test('a stream fails over before the first token and the native stream marks the restart', async () => {
    h.openai.script({ fault: { kind: 'slow_first_token', delayMs: 2000 } });
    h.groq.script({ fault: { kind: 'rate_limit' } });
    h.anthropic.script({ text: 'from the last route' });
    const res = await fetch(`${h.gatewayUrl}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: '@alias/support-agent', input: 'hi', stream: true }) });
    expect(res.status).toBe(200);
    const frames = (await res.text()).split('\n\n').filter((f) => f.startsWith('data: ')).map((f) => JSON.parse(f.slice(6)));
    expect(frames[0]).toEqual({ fallback_restart: true, model: 'anthropic/claude-sonnet-4', vendor: 'anthropic' });
    expect(frames.at(-1)).toMatchObject({ object: 'response.done', model: 'anthropic/claude-sonnet-4', vendor: 'anthropic' });
  });

  test('a context-length 400 is not failed over', async () => {
    h.openai.script({ fault: { kind: 'context_length' } });
    const res = await chat({ model: '@alias/support-agent' });
    expect([res.status, res.body.error.code]).toEqual([400, 'context_length_exceeded']);
    expect(h.groq.requests).toHaveLength(0);
  });

  test('a content-filter refusal fails over to another model, never to the same model on another vendor', async () => {
    h.openai.script({ fault: { kind: 'content_filter', form: 'error' } });
    const res = await chat({ model: '@alias/support-agent' });
    expect([res.status, res.body.model]).toEqual([200, 'anthropic/claude-sonnet-4']);
    expect(h.groq.requests).toHaveLength(0);
  });

  test('when every route fails the last response is returned', async () => {
    h.openai.setFault({ kind: 'overloaded' });
    h.groq.setFault({ kind: 'server_error' });
    h.anthropic.setFault({ kind: 'rate_limit' });
    const res = await chat({ model: '@alias/support-agent' });
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ type: 'rate_limit_error', source: 'provider', provider: 'anthropic' });
  });

  test('each attempt is recorded at its route; a failed attempt that cost nothing bills nothing', async () => {
    const tagged = await createOrg(h);
    const k = (await createKey(h, tagged)).key;
    await call(h.gatewayUrl, tagged.mgmtKey, 'POST', '/v1/routing-policies', { name: 'Fallback', strategy: 'priority', targets: [{ model: 'openai/gpt-4o', vendors: ['openai', 'groq'] }] });
    h.openai.script({ fault: { kind: 'overloaded' } });
    const res = await chat({}, {}, k);
    expect(res.status).toBe(200);
    await eventually(async () => {
      const records = await db.usageRecord.findMany({ where: { organizationId: tagged.organizationId }, orderBy: { createdAt: 'asc' } });
      expect(records.map((r) => [r.vendor, r.outcome, Number(r.costMicros)])).toEqual([
        ['openai', 'failed', 0],
        ['groq', 'finished', expect.any(Number)],
      ]);
      expect(Number(records[1]!.costMicros)).toBeGreaterThan(0);
    }, 5000);
  });

  test('service_tier_fallback: a flex request retries once at standard on a vendor 429', async () => {
    h.openai.setFault({ kind: 'rate_limit' }, { serviceTier: 'flex' });
    const res = await chat({ model: 'openai/gpt-4o', service_tier: 'flex', service_tier_fallback: true });
    expect(res.status).toBe(200);
    expect(h.openai.requests.map((r) => (r.json as { service_tier?: string }).service_tier)).toEqual(['flex', undefined]);
  });
});

describe('400 codes of vendor restrictions', () => {
  const policy = async (body: Record<string, unknown>, mgmtKey = org.mgmtKey): Promise<string> => {
    const res = await call(h.gatewayUrl, mgmtKey, 'POST', '/v1/routing-policies', { strategy: 'priority', ...body });
    expect(res.status).toBe(201);
    return res.body.id;
  };
  const codeOf = (res: { status: number; body: any }) => [res.status, res.body?.error?.code, res.body?.error?.type];

  test('zdr_vendor_unavailable', async () => {
    const none = await policy({ name: 'ZDR claude', zero_data_retention: true, targets: [{ model: 'anthropic/claude-sonnet-4' }] });
    expect(codeOf(await chat({ routing_policy_id: none }))).toEqual([400, 'zdr_vendor_unavailable', 'invalid_request_error']);
    expect(h.anthropic.requests).toHaveLength(0);
    // With zero data retention on, only the retaining-nothing vendor of a model is tried.
    const some = await policy({ name: 'ZDR gpt', zero_data_retention: true, targets: [{ model: 'openai/gpt-4o', vendors: ['openai', 'groq'] }] });
    const res = await chat({ routing_policy_id: some });
    expect(res.status).toBe(200);
    expect([h.openai.requests.length, h.groq.requests.length]).toEqual([0, 1]);
  });

  test('vendor_restrictions_unavailable', async () => {
    const eu = await policy({ name: 'EU gpt', allowed_regions: ['eu'], targets: [{ model: 'openai/gpt-4o' }] });
    expect(codeOf(await chat({ routing_policy_id: eu }))).toEqual([400, 'vendor_restrictions_unavailable', 'invalid_request_error']);
    const denied = await policy({ name: 'No gpt vendors', denied_vendors: ['openai', 'groq'], targets: [{ model: 'openai/gpt-4o' }] });
    expect(codeOf(await chat({ routing_policy_id: denied }))).toEqual([400, 'vendor_restrictions_unavailable', 'invalid_request_error']);
    const allowed = await policy({ name: 'Only anthropic', allowed_vendors: ['anthropic'], targets: [{ model: 'openai/gpt-4o' }] });
    expect(codeOf(await chat({ routing_policy_id: allowed }))).toEqual([400, 'vendor_restrictions_unavailable', 'invalid_request_error']);
    expect(h.openai.requests).toHaveLength(0);
    // A region restriction filters: the policy's next model runs in the allowed region.
    const euThenClaude = await policy({ name: 'EU any', allowed_regions: ['eu'], targets: [{ model: 'openai/gpt-4o' }, { model: 'anthropic/claude-sonnet-4' }] });
    const res = await chat({ routing_policy_id: euThenClaude });
    expect([res.status, res.body.model]).toEqual([200, 'anthropic/claude-sonnet-4']);
    expect(h.openai.requests).toHaveLength(0);
  });

  test('self_hosted_unsupported_strategy', async () => {
    const own = await createOrg(h);
    const ownKey = (await createKey(h, own)).key;
    // A self-hosted vendor is reached only through the organization's own endpoint.
    expect((await call(h.gatewayUrl, own.mgmtKey, 'PUT', '/v1/vendor-keys/vllm', { api_key: 'sk-own' })).status).toBe(400);
    expect((await call(h.gatewayUrl, own.mgmtKey, 'PUT', '/v1/vendor-keys/vllm', { api_key: h.groq.apiKeys.valid, base_url: h.groq.baseUrl })).status).toBe(200);
    const cheapest = await policy({ name: 'Cheapest llama', strategy: 'lowest_cost', targets: [{ model: 'meta-llama/llama-3.3-70b' }] }, own.mgmtKey);
    await eventually(async () => expect(codeOf(await chat({ routing_policy_id: cheapest }, {}, ownKey))).toEqual([400, 'self_hosted_unsupported_strategy', 'invalid_request_error']), 2000);
    expect(h.groq.requests).toHaveLength(0);
    // The same model under the priority strategy runs on the organization's endpoint.
    const ordered = await policy({ name: 'Own llama', targets: [{ model: 'meta-llama/llama-3.3-70b' }] }, own.mgmtKey);
    const res = await chat({ routing_policy_id: ordered }, {}, ownKey);
    expect([res.status, res.body.model]).toEqual([200, 'meta-llama/llama-3.3-70b']);
    expect((h.groq.requests.at(-1)!.json as { model: string }).model).toBe('meta-llama/Llama-3.3-70B-Instruct');
  });
});
