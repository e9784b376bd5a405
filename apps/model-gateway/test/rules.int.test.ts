import { AsyncLocalStorage } from 'node:async_hooks';
import { request } from 'node:http';
import { call, createKey, createOrg, eventually, startHarness, type Harness, type TestOrg } from './harness';

/** Every 400 code of this features, and the other rejections, each named after its code. */
let h: Harness;
let org: TestOrg;
let key: string;

const messages = [{ role: 'user', content: 'hi' }];
const chat = (body: Record<string, unknown>, headers: Record<string, string> = {}, k = key) => call(h.edgeUrl, k, 'POST', '/v1/chat/completions', { model: 'openai/gpt-4o-mini', messages, ...body }, headers);
const customerA = '11111111-1111-4111-8111-111111111111';

beforeAll(async () => {
  h = await startHarness();
  org = await createOrg(h);
  key = (await createKey(h, org)).key;
  await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/customers', { id: customerA, name: 'A' });
  await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/tags', { key: 'team', value: 'support' });
}, 60_000);

afterAll(async () => {
  await h?.close();
});

beforeEach(() => h.openai.reset());

function expectCode(res: { status: number; body: any }, status: number, code: string, type = 'invalid_request_error'): void {
  expect({ status: res.status, code: res.body?.error?.code, type: res.body?.error?.type }).toEqual({ status, code, type });
}

describe('400 codes', () => {
  test('model_required', async () => expectCode(await chat({ model: undefined }), 400, 'model_required'));
  test('invalid_model_format', async () => expectCode(await chat({ model: 'nope/not-a-model' }), 400, 'invalid_model_format'));
  test('a bare model name that only one provider has is accepted', async () => expect((await chat({ model: 'gpt-4o-mini' })).status).toBe(200));
  test('unsupported_endpoint_for_model', async () => expectCode(await chat({ model: 'openai/text-embedding-3-small' }), 400, 'unsupported_endpoint_for_model'));
  test('model_unavailable (no vendor of the model configured)', async () => expectCode(await chat({ model: 'mistral/mistral-large' }), 400, 'model_unavailable'));
  test('vendor_unavailable', async () => expectCode(await chat({ model: 'meta-llama/llama-3.3-70b', vendor: 'together' }), 400, 'vendor_unavailable'));
  test('a vendor pin that can serve runs there', async () => {
    const res = await chat({ model: 'meta-llama/llama-3.3-70b', vendor: 'groq' });
    expect(res.status).toBe(200);
  });
  test('unsupported_params (a service tier the route does not offer)', async () => expectCode(await chat({ service_tier: 'priority' }), 400, 'unsupported_params'));
  test('empty_messages', async () => expectCode(await chat({ messages: [] }), 400, 'empty_messages'));
  test('empty_input', async () => expectCode(await call(h.edgeUrl, key, 'POST', '/v1/openai/responses', { model: 'openai/gpt-4o', input: [] }), 400, 'empty_input'));
  test('invalid_request_body', async () => expectCode(await call(h.edgeUrl, key, 'POST', '/v1/chat/completions', '{"model": '), 400, 'invalid_request_body'));
  test('unknown_tags', async () => {
    expect((await call(h.edgeUrl, key, 'POST', '/v1/responses', { model: 'openai/gpt-4o', input: 'hi', tags: [{ key: 'team', value: 'support' }] })).status).toBe(200);
    expectCode(await call(h.edgeUrl, key, 'POST', '/v1/responses', { model: 'openai/gpt-4o', input: 'hi', tags: [{ key: 'team', value: 'sales' }] }), 400, 'unknown_tags');
  });
  test('invalid_customer', async () => expectCode(await chat({}, { 'X-Svc-Customer': 'acme' }), 400, 'invalid_customer'));
  test('customer_mismatch', async () => expectCode(await chat({ customer: customerA }, { 'X-Svc-Customer': '22222222-2222-4222-8222-222222222222' }), 400, 'customer_mismatch'));
  test('customer_project_conflict', async () => {
    const project = await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/projects', { name: 'P' });
    await eventually(async () => expectCode(await chat({}, { 'X-Svc-Customer': customerA, 'X-Project-Id': project.body.id }), 400, 'customer_project_conflict'));
  });
  test('project_mismatch', async () => expectCode(await chat({}, { 'X-Project-Id': '33333333-3333-4333-8333-333333333333' }), 400, 'project_mismatch'));
  test('invalid_routing_policy_id', async () => expectCode(await chat({}, { 'X-Svc-Routing-Policy-Id': 'fast' }), 400, 'invalid_routing_policy_id'));
  test('routing_policy_mismatch', async () =>
    expectCode(await call(h.edgeUrl, key, 'POST', '/v1/responses', { model: 'openai/gpt-4o', input: 'hi', routing_policy_id: '44444444-4444-4444-8444-444444444444' }, { 'X-Svc-Routing-Policy-Id': '55555555-5555-4555-8555-555555555555' }), 400, 'routing_policy_mismatch'));
  test('invalid_date', async () => {
    const res = await call(h.edgeUrl, org.mgmtKey, 'GET', '/v1/usage?start_date=2026-13-01');
    expect(res.status).toBe(400);
    expect(res.body.detail.code).toBe('invalid_date');
    expect((await call(h.edgeUrl, org.mgmtKey, 'GET', '/v1/usage?end_date=24-11-2026')).body.detail.code).toBe('invalid_date');
  });
});

describe('model access', () => {
  test('allowed_models: 403 model_not_allowed; a trailing * is a prefix; [] allows nothing; it applies on every endpoint', async () => {
    const limited = await createKey(h, org, { allowed_models: ['anthropic/*', 'openai/gpt-4o'] });
    expect((await chat({ model: 'openai/gpt-4o' }, {}, limited.key)).status).toBe(200);
    expectCode(await chat({ model: 'openai/gpt-4o-mini' }, {}, limited.key), 403, 'model_not_allowed', 'permission_error');
    expectCode(await call(h.edgeUrl, limited.key, 'POST', '/v1/embeddings', { model: 'openai/text-embedding-3-small', input: 'x' }), 403, 'model_not_allowed', 'permission_error');
    const none = await createKey(h, org, { allowed_models: [] });
    expectCode(await chat({ model: 'openai/gpt-4o' }, {}, none.key), 403, 'model_not_allowed', 'permission_error');
  });

  test("the organization's blocklist: blocked_by_policy on every endpoint, lifted at once", async () => {
    const blocker = await createOrg(h);
    const k = (await createKey(h, blocker)).key;
    expect((await call(h.edgeUrl, blocker.mgmtKey, 'PUT', '/v1/blocklist', { models: ['openai/gpt-4o*'] })).status).toBe(200);
    const res = await chat({ model: 'openai/gpt-4o-mini' }, {}, k);
    expect(res.status).toBe(403);
    expect(res.body.error.type).toBe('blocked_by_policy');
    expect((await call(h.edgeUrl, k, 'POST', '/v1/messages', { model: 'openai/gpt-4o', max_tokens: 10, messages })).body.error.type).toBe('blocked_by_policy');
    await call(h.edgeUrl, blocker.mgmtKey, 'PUT', '/v1/blocklist', { models: [] });
    expect((await chat({ model: 'openai/gpt-4o-mini' }, {}, k)).status).toBe(200);
  });
});

describe('413 payload_too_large', () => {
  test('inline base64 image over 20 MB, in the surface envelope; a URL is fine', async () => {
    const data = 'A'.repeat(28 * 1024 * 1024); // 21 MB decoded
    const res = await chat({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } }] }] });
    expectCode(res, 413, 'payload_too_large');
    const byUrl = await chat({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }] });
    expect(byUrl.status).toBe(200);
  });

  test('the edge refuses a gateway body over EDGE_GATEWAY_BODY_LIMIT_BYTES in the gateway envelope', async () => {
    // Declared over the limit: refused from the headers, before the body is sent.
    const url = new URL('/v1/chat/completions', h.edgeUrl);
    const res = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': String(64 * 1024 * 1024 + 10) } }, (r) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString()));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.write('{"model": "openai/gpt-4o"');
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });
});

describe('errors in each surface envelope', () => {
  test('authentication: missing and invalid keys', async () => {
    const missing = await call(h.edgeUrl, null, 'POST', '/v1/chat/completions', { model: 'openai/gpt-4o', messages });
    expect(missing.status).toBe(401);
    expect(missing.body.error.type).toBe('authentication_error');
    const invalid = await call(h.edgeUrl, 'pbgw_nope', 'POST', '/v1/messages', { model: 'openai/gpt-4o', max_tokens: 5, messages });
    expect(invalid.status).toBe(401);
    expect(invalid.body.type).toBe('error'); // Anthropic's envelope
  });

  test('a key refused before its body is read still gets its answer through the edge, whatever the body size or framing', async () => {
    const big = JSON.stringify({ model: 'openai/text-embedding-3-small', input: 'x'.repeat(900 * 1024) });
    for (const chunked of [false, true]) {
      for (const auth of [`Bearer ${org.mgmtKey}`, 'Bearer pbgw_nope']) {
        const res = await new Promise<{ status: number; body: any }>((resolve, reject) => {
          const headers: Record<string, string> = { authorization: auth, 'content-type': 'application/json' };
          if (!chunked) headers['content-length'] = String(Buffer.byteLength(big));
          const req = request(new URL('/v1/embeddings', h.edgeUrl), { method: 'POST', headers }, (r) => {
            let text = '';
            r.on('data', (c: Buffer) => (text += c.toString()));
            r.on('end', () => resolve({ status: r.statusCode ?? 0, body: JSON.parse(text) }));
          });
          req.on('error', reject);
          // Sent in pieces, so the answer can come while the body is still on its way.
          for (let i = 0; i < big.length; i += 64 * 1024) req.write(big.slice(i, i + 64 * 1024));
          req.end();
        });
        expect([chunked, auth.slice(0, 12), res.status, typeof res.body.error?.message]).toEqual([chunked, auth.slice(0, 12), 401, 'string']);
      }
    }
  });

  test('a rejection of a streaming request, or an error in the first frame, is the same status and body as without streaming, and no stream', async () => {
    h.openai.setFault({ kind: 'overloaded' });
    const plain = await chat({});
    const streamed = await chat({ stream: true });
    expect(streamed.status).toBe(plain.status);
    expect(streamed.headers.get('content-type')).toContain('application/json');
    expect(streamed.body).toEqual(plain.body);
    h.openai.setFault({ kind: 'stream_error', afterTokens: 0 });
    const firstFrame = await chat({ stream: true });
    expect(firstFrame.headers.get('content-type')).toContain('application/json');
    expect(firstFrame.status).toBeGreaterThanOrEqual(500);
  });

  test('a stream the vendor cuts is an error frame, never a clean finish', async () => {
    h.openai.script({ text: 'one two three four five six', fault: { kind: 'stream_cut', afterTokens: 2 } });
    const res = await fetch(`${h.edgeUrl}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'openai/gpt-4o', stream: true, messages }) });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"error"');
    expect(text).not.toContain('[DONE]');
  });

  test('a stall after the first token ends the native stream with response.error', async () => {
    h.anthropic.setFault({ kind: 'stall', afterTokens: 1 });
    const res = await fetch(`${h.edgeUrl}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'anthropic/claude-haiku-4-5', stream: true, input: 'hi' }) });
    const text = await res.text();
    h.anthropic.clearFaults();
    expect(text).toContain('response.error');
    expect(text).toContain('provider_stream_stalled');
  });
});

describe('request ids without promise hooks', () => {
  afterEach(() => jest.restoreAllMocks());

  // Entering an AsyncLocalStorage turns on Node 20's promise hooks for the whole process, for good:
  // every promise of every model request would pay one (README, "The hot path").
  test('model requests, streams, refusals and management calls never enter an AsyncLocalStorage, and each answer names its request id', async () => {
    const run = jest.spyOn(AsyncLocalStorage.prototype, 'run');
    const enterWith = jest.spyOn(AsyncLocalStorage.prototype, 'enterWith');
    const answers = [
      await call(h.gatewayUrl, key, 'POST', '/v1/chat/completions', { model: 'openai/gpt-4o-mini', messages }, { 'X-Request-Id': 'hooks-free-1' }),
      await call(h.gatewayUrl, key, 'POST', '/v1/chat/completions', { model: 'openai/gpt-4o-mini', messages, stream: true }),
      await call(h.gatewayUrl, key, 'POST', '/v1/chat/completions', { messages }),
      await call(h.gatewayUrl, org.mgmtKey, 'GET', '/v1/keys'),
      await call(h.gatewayUrl, null, 'GET', '/v1/batches'),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 400, 200, 401]);
    expect(answers[0]!.headers.get('x-request-id')).toBe('hooks-free-1');
    for (const answer of answers) expect(answer.headers.get('x-request-id')).toBeTruthy();
    expect(run).not.toHaveBeenCalled();
    expect(enterWith).not.toHaveBeenCalled();
  });
});
