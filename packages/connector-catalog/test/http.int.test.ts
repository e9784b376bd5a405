import { JSON_API_FAKE_TOKENS, startFakeJsonApi } from '@patchbay/provider-fakes';
import { createGuardedRequest } from '@patchbay/outbound';
import { createServer } from 'node:http';
import { findTool, getBuiltinConnector } from '../src/catalog';
import { DEFAULT_TOOL_LIMITS } from '../src/core/types';
import { expectOutputMatchesSchema } from './output-schema';
import { expectToolError, runTool } from './run-tool';

let fake: Awaited<ReturnType<typeof startFakeJsonApi>>;
const cred = (token: string = JSON_API_FAKE_TOKENS.valid, baseUrl = `${fake.url}/api`) => ({
  auth_type: 'api_key' as const,
  values: { base_url: baseUrl, auth_header_name: 'Authorization', auth_header_value: `Bearer ${token}` },
});
// The base URL argument is the deployment override; the credential's base_url wins, as in production.
const run = async (tool: string, input: unknown, credential = cred(), limits = {}) => {
  const output = await runTool('http', tool, { input }, { credential, baseUrl: 'https://unused.invalid', limits });
  expectOutputMatchesSchema('http', tool, output);
  return output as { ok: boolean; status: number; headers: Record<string, string>; body: any; body_truncated: boolean };
};
const last = () => fake.requests.at(-1)!;

const savedFlag = process.env.PATCHBAY_ALLOW_PRIVATE_NETWORK;
beforeAll(async () => {
  fake = await startFakeJsonApi({ items: 25 });
  // The fake listens on 127.0.0.1: reaching it needs the local-development flag.
  process.env.PATCHBAY_ALLOW_PRIVATE_NETWORK = 'true';
});
afterAll(async () => {
  if (savedFlag === undefined) delete process.env.PATCHBAY_ALLOW_PRIVATE_NETWORK;
  else process.env.PATCHBAY_ALLOW_PRIVATE_NETWORK = savedFlag;
  await fake.close();
});

describe('http connector', () => {
  it('http_get calls the path under the base URL with the query and the stored auth header, and returns status, safe headers and parsed JSON', async () => {
    const res = await run('http_get', { path: '/items', query: { limit: 10, offset: 0 } });
    expect(res).toMatchObject({ ok: true, status: 200, body_truncated: false });
    expect(res.body.items).toHaveLength(10);
    expect(res.body.next_offset).toBe(10);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.headers['x-total-count']).toBe('25');
    expect(res.headers['set-cookie']).toBeUndefined();
    const sent = last();
    expect(sent.method).toBe('GET');
    expect(sent.path).toBe('/api/items');
    expect(sent.query.get('limit')).toBe('10');
    expect(sent.headers.authorization).toBe(`Bearer ${JSON_API_FAKE_TOKENS.valid}`);
    expect(sent.headers['user-agent']).toBe('patchbay');
  });

  it('http_get pages through a list by passing the API\'s own offset back', async () => {
    const seen: number[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page = await run('http_get', { path: 'items', query: { limit: 10, offset } });
      seen.push(...(page.body.items as Array<{ id: number }>).map((i) => i.id));
      offset = page.body.next_offset;
    }
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  });

  it('http_get keeps a query string written in the path and repeats array parameters', async () => {
    await run('http_get', { path: '/echo?fields=id,name', query: { tag: ['a', 'b'] } });
    expect(last().query.get('fields')).toBe('id,name');
    expect(last().query.getAll('tag')).toEqual(['a', 'b']);
  });

  it('http_get returns text bodies as text and describes binary bodies instead of returning them', async () => {
    const text = await run('http_get', { path: '/readme' });
    expect(text.body).toBe('# Items API\n\nHello.');
    const binary = await run('http_get', { path: '/logo' });
    expect(binary.body).toMatch(/bytes of image\/png not shown/);
  });

  it('http_get returns 404 from the user\'s API as a result with ok: false, not an error', async () => {
    const res = await run('http_get', { path: '/items/999' });
    expect(res).toMatchObject({ ok: false, status: 404, body: { error: 'not_found', message: 'No item 999.' } });
  });

  it('returns redirects as results instead of following them', async () => {
    const res = await run('http_get', { path: '/moved' });
    expect(res).toMatchObject({ ok: false, status: 301, headers: { location: '/api/items' } });
    expect(last().path).toBe('/api/moved');
  });

  it('caps the body at limits.maxResponseBytes and says so', async () => {
    const res = await run('http_get', { path: '/big', query: { count: 1000 } }, cred(), { maxResponseBytes: 2000 });
    expect(res.body_truncated).toBe(true);
    expect(typeof res.body).toBe('string');
    expect(Buffer.byteLength(res.body as string)).toBeLessThanOrEqual(2000);
  });

  it('http_request POSTs a JSON body with extra headers', async () => {
    const res = await run('http_request', { method: 'POST', path: '/items', json: { name: 'New thing', tags: ['x'] }, headers: { 'Idempotency-Key': 'k-1' } });
    expect(res).toMatchObject({ ok: true, status: 201, headers: { location: expect.stringMatching(/^\/api\/items\/\d+$/) }, body: { name: 'New thing', tags: ['x'] } });
    const sent = last();
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/api/items');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.headers['idempotency-key']).toBe('k-1');
    expect(sent.headers.authorization).toBe(`Bearer ${JSON_API_FAKE_TOKENS.valid}`);
    expect(sent.json).toEqual({ name: 'New thing', tags: ['x'] });
  });

  it('http_request sends PUT, PATCH and DELETE', async () => {
    expect(await run('http_request', { method: 'PUT', path: '/items/1', json: { name: 'Renamed' } })).toMatchObject({ ok: true, body: { id: 1, name: 'Renamed' } });
    expect(last()).toMatchObject({ method: 'PUT', path: '/api/items/1' });
    expect(await run('http_request', { method: 'PATCH', path: '/items/1', json: { done: true } })).toMatchObject({ ok: true, body: { id: 1, done: true } });
    expect(last()).toMatchObject({ method: 'PATCH', path: '/api/items/1' });
    expect(await run('http_request', { method: 'DELETE', path: '/items/1' })).toEqual({ ok: true, status: 204, headers: expect.any(Object), body: null, body_truncated: false });
    expect(last()).toMatchObject({ method: 'DELETE', path: '/api/items/1' });
  });

  it('http_request returns the API\'s 422 as a result the model can read', async () => {
    const res = await run('http_request', { method: 'POST', path: '/items', json: { tags: [] } });
    expect(res).toMatchObject({ ok: false, status: 422, body: { error: 'validation_failed', message: 'name is required' } });
  });

  it('never lets a call override the stored auth header or set Host', async () => {
    const before = fake.requests.length;
    const auth = await expectToolError(run('http_request', { method: 'GET', path: '/items', headers: { authorization: 'Bearer stolen' } }), 'invalid_input');
    expect(auth.message).toContain('stored credential');
    await expectToolError(run('http_request', { method: 'GET', path: '/items', headers: { Host: 'internal.example' } }), 'invalid_input');
    await expectToolError(run('http_request', { method: 'GET', path: '/items', json: { a: 1 } }), 'invalid_input');
    expect(fake.requests.length).toBe(before);
  });

  it('keeps paths under the base URL', async () => {
    const before = fake.requests.length;
    for (const path of ['../admin', '/%2e%2e/admin', 'items/../../admin']) {
      const err = await expectToolError(run('http_get', { path }), 'invalid_input');
      expect(err.message).toContain('must stay under the base URL');
    }
    // A path that looks like another host stays a path on the configured host.
    const res = await run('http_get', { path: '//evil.example/items' });
    expect(res.status).toBe(404);
    expect(last().path).toBe('/api/evil.example/items');
    expect(fake.requests.length).toBe(before + 1);
  });

  it('refuses input that fails the schema before calling the API', async () => {
    const before = fake.requests.length;
    const err = await expectToolError(run('http_request', { method: 'TRACE', path: '' }), 'invalid_input');
    expect(err.message).toContain('input.method: must be one of');
    await expectToolError(run('http_get', { query: { a: 1 } }), 'invalid_input');
    expect(fake.requests.length).toBe(before);
  });

  it('maps 401 to a rejected credential without echoing it', async () => {
    const err = await expectToolError(run('http_get', { path: '/items' }, cred('wrong-secret-token')), 'credential_rejected');
    expect(err.message).toContain('Invalid or missing bearer token');
    expect(err.message).not.toContain('wrong-secret-token');
  });

  it('maps 403 to forbidden, 429 to rate_limited with Retry-After, and 5xx to a provider error', async () => {
    await expectToolError(run('http_request', { method: 'DELETE', path: '/items/2' }, cred(JSON_API_FAKE_TOKENS.readOnly)), 'forbidden');
    const limited = await expectToolError(run('http_get', { path: '/items' }, cred(JSON_API_FAKE_TOKENS.rateLimited)), 'rate_limited');
    expect(limited.retryAfterSeconds).toBe(12);
    const failing = await expectToolError(run('http_get', { path: '/items' }, cred(JSON_API_FAKE_TOKENS.failing)), 'provider_error');
    expect(failing.message).toContain('HTTP 503');
  });

  it('maps an API that never answers to a timeout', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      await expectToolError(runTool('http', 'http_get', { input: { path: '/x' } }, { credential: cred(JSON_API_FAKE_TOKENS.valid, `http://127.0.0.1:${port}`), baseUrl: 'https://unused.invalid', limits: { timeoutMs: 200 } }), 'timeout');
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('works through the runtime\'s guarded client', async () => {
    const tool = findTool(getBuiltinConnector('http')!, 'http_get')!;
    const ctx = { credential: cred(), baseUrl: `${fake.url}/api`, signal: new AbortController().signal, limits: DEFAULT_TOOL_LIMITS };
    const allowed = await tool.execute({ ...ctx, http: createGuardedRequest({ allowPrivateNetwork: true }) }, { path: '/items/3' });
    expect(allowed).toMatchObject({ ok: true, status: 200, body: { id: 3 } });
  });

  it('refuses private addresses and http:// by default (without PATCHBAY_ALLOW_PRIVATE_NETWORK)', async () => {
    const before = fake.requests.length;
    delete process.env.PATCHBAY_ALLOW_PRIVATE_NETWORK;
    try {
      const http = await expectToolError(run('http_get', { path: '/items' }), 'blocked_destination');
      expect(http.message).toContain('https://');
      const port = new URL(fake.url).port;
      for (const base of [`https://127.0.0.1:${port}/api`, `https://localhost:${port}/api`, 'https://169.254.169.254/latest', 'https://[::1]/api', 'https://10.0.0.1/api']) {
        const err = await expectToolError(run('http_get', { path: '/items' }, cred(JSON_API_FAKE_TOKENS.valid, base)), 'blocked_destination');
        expect(err.message).toContain('PATCHBAY_ALLOW_PRIVATE_NETWORK=true');
      }
      await expectToolError(run('http_get', { path: '/items' }, cred(JSON_API_FAKE_TOKENS.valid, 'https://user:pw@api.example.com')), 'blocked_destination');
    } finally {
      process.env.PATCHBAY_ALLOW_PRIVATE_NETWORK = 'true';
    }
    expect(fake.requests.length).toBe(before);
  });
});
