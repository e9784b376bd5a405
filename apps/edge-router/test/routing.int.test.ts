import { FakeService, type RunningEdge, send, startEdge } from './harness';

const TOOL_PACK = '3f1b7c1e-8a6d-4d2b-9f5e-2a1c0b9d8e7f';
const USER = 'b6a7c8d9-1e2f-4a3b-8c4d-5e6f7a8b9c0d';

describe('edge routing', () => {
  const services = {
    accessKeys: new FakeService('access-keys-and-audit'),
    connectorRegistry: new FakeService('connector-registry'),
    mcpRuntime: new FakeService('mcp-runtime'),
    modelGateway: new FakeService('model-gateway'),
    unifiedData: new FakeService('unified-data'),
    console: new FakeService('console'),
  };
  const all = Object.values(services);
  let edge: RunningEdge;

  beforeAll(async () => {
    await Promise.all(all.map((s) => s.start()));
    edge = await startEdge({
      ACCESS_KEYS_URL: services.accessKeys.url,
      CONNECTOR_REGISTRY_URL: services.connectorRegistry.url,
      MCP_RUNTIME_URL: services.mcpRuntime.url,
      MODEL_GATEWAY_URL: services.modelGateway.url,
      UNIFIED_DATA_URL: services.unifiedData.url,
      CONSOLE_URL: services.console.url,
    });
  });

  afterAll(async () => {
    await edge.stop();
    await Promise.all(all.map((s) => s.stop()));
  });

  beforeEach(() => all.forEach((s) => s.reset()));

  const owners: Array<[string, string, string]> = [
    ['POST', `/api/v1/tool-packs/${TOOL_PACK}/registered-users/${USER}/mcp`, 'mcp-runtime'],
    ['POST', `/api/v1/tool-packs/${TOOL_PACK}/registered-users/${USER}/search`, 'mcp-runtime'],
    ['POST', `/api/v1/tool-packs/${TOOL_PACK}/registered-users/${USER}/tools/list`, 'mcp-runtime'],
    ['GET', '/api/v1/tool-call-records/', 'mcp-runtime'],
    ['GET', '/api/v1/security-rules/', 'mcp-runtime'],
    ['GET', '/api/v1/usage/', 'mcp-runtime'],
    ['GET', '/api/v1/access-keys/', 'access-keys-and-audit'],
    ['POST', `/api/v1/access-keys/${USER}/revoke/`, 'access-keys-and-audit'],
    ['GET', '/api/v1/audit-log/', 'access-keys-and-audit'],
    ['POST', '/api/v1/session', 'access-keys-and-audit'],
    ['POST', '/api/v1/invitations/accept', 'access-keys-and-audit'],
    ['GET', '/api/v1/members', 'access-keys-and-audit'],
    ['GET', '/api/v1/roles', 'access-keys-and-audit'],
    ['GET', '/api/v1/permissions', 'access-keys-and-audit'],
    ['PUT', '/api/v1/account/password', 'access-keys-and-audit'],
    ['GET', '/api/v1/sso/callback', 'access-keys-and-audit'],
    ['GET', '/api/v1/two-factor-policy', 'access-keys-and-audit'],
    ['GET', '/api/v1/connectors/github/', 'connector-registry'],
    ['GET', '/api/v1/application-credentials/', 'connector-registry'],
    ['DELETE', `/api/v1/credentials/registered-users/${USER}/connectors/github/`, 'connector-registry'],
    ['GET', '/api/v1/registered-users/', 'connector-registry'],
    ['POST', `/api/v1/registered-users/${USER}/link-token/`, 'connector-registry'],
    ['GET', '/api/v1/connections/', 'connector-registry'],
    ['GET', '/api/v1/tool-packs/', 'connector-registry'],
    ['PATCH', `/api/v1/tool-packs/${TOOL_PACK}/`, 'connector-registry'],
    ['GET', `/api/v1/tool-packs/${TOOL_PACK}/registered-users/${USER}/`, 'connector-registry'],
    ['GET', '/link/abc123', 'connector-registry'],
    ['POST', '/v1/responses', 'model-gateway'],
    ['GET', '/v1/models', 'model-gateway'],
    ['GET', '/api/mktg/v1/events', 'unified-data'],
    ['GET', '/console/', 'console'],
    ['GET', '/console/members/abc', 'console'],
  ];

  it.each(owners)('routes %s %s to %s', async (method, path, owner) => {
    const res = await send(edge.port, path, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' || method === 'DELETE' ? undefined : '{}' });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ service: owner, method, url: path });
    for (const service of all) expect(service.requests).toHaveLength(service.name === owner ? 1 : 0);
  });

  it('never asks the console for an OpenAPI document: it serves pages, not an API', async () => {
    const res = await send(edge.port, '/openapi.json');
    expect(res.json()['x-patchbay-unavailable']).not.toContain('console');
    expect(services.console.requests).toHaveLength(0);
  });

  it('routes without a trailing slash too', async () => {
    const res = await send(edge.port, '/api/v1/access-keys');
    expect(res.json()).toMatchObject({ service: 'access-keys-and-audit', url: '/api/v1/access-keys' });
  });

  it('preserves the query string exactly', async () => {
    const res = await send(edge.port, '/api/v1/audit-log/?created_after=2024-01-01T00%3A00%3A00Z&page=2&event_type=a&event_type=b');
    expect(res.json().url).toBe('/api/v1/audit-log/?created_after=2024-01-01T00%3A00%3A00Z&page=2&event_type=a&event_type=b');
  });

  it('matches whole path segments only', async () => {
    for (const path of ['/api/v1/access-keysX', '/api/v1/access-keys-old/', '/v1x/models', '/linked/x', '/api/v1/tool-packsX/']) {
      const res = await send(edge.port, path);
      expect(res.status).toBe(404);
    }
    expect(all.every((s) => s.requests.length === 0)).toBe(true);
  });

  it('answers an unknown route with the JSON 404 of the platform', async () => {
    const res = await send(edge.port, '/x?secret=1');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ detail: 'No route matches GET /x.', code: 'not_found' });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('is case-sensitive, so differently cased paths are unknown routes', async () => {
    const res = await send(edge.port, '/API/V1/ACCESS-KEYS/');
    expect(res.status).toBe(404);
    expect(all.every((s) => s.requests.length === 0)).toBe(true);
  });

  it('forwards a path with harmless escapes in canonical form', async () => {
    const res = await send(edge.port, '/api/v1/connectors/git%68ub/?q=%2F');
    expect(res.json()).toMatchObject({ service: 'connector-registry', url: '/api/v1/connectors/github/?q=%2F' });
    const spaced = await send(edge.port, '/api/v1/connectors/a%20b%c3%a9/');
    expect(spaced.json()).toMatchObject({ url: '/api/v1/connectors/a%20b%C3%A9/' });
  });

  describe('internal routes are never proxied', () => {
    const disguised = [
      '/internal/v1/verify',
      '/internal',
      '/Internal/v1/verify',
      '/%2Finternal/v1/verify',
      '/%2finternal/v1/verify',
      '/%69nternal/v1/verify',
      '/%49NTERNAL/v1/verify',
      '//internal/v1/verify',
      '///internal/v1/verify',
      '/./internal/v1/verify',
      '/%2E/internal/v1/verify',
      '/api/../internal/v1/verify',
      '/api/v1/access-keys/../../../internal/v1/verify',
      '/api/v1/access-keys/%2E%2E/%2e%2e/%2E./internal/v1/verify',
      '/api/v1/access-keys/..%2F..%2F..%2Finternal%2Fv1%2Fverify',
      '/api/v1/access-keys/%252E%252E/%252E%252E/internal',
      '/api/v1/access-keys%2F..%2F..%2F..%2Finternal',
      '/\\internal/v1/verify',
      '/api/v1/access-keys/..\\..\\..\\internal/v1/verify',
      '/api/v1/access-keys/%5C..%5C..%5Cinternal',
      '/api/v1/access-keys//internal/v1/verify',
      '/v1/%00/internal',
      '/internal%2Fv1%2Fverify',
      '/api/v1/access-keys/%zz/internal',
    ];

    it.each(disguised)('%s is a JSON 404 that reaches no service', async (path) => {
      const res = await send(edge.port, path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not_found' });
      expect(res.json().detail).toMatch(/^No route matches POST /);
      expect(res.headers['x-request-id']).toBeDefined();
      for (const service of all) expect(service.requests).toHaveLength(0);
    });
  });

  it('keeps a well-formed inbound X-Request-Id and forwards it', async () => {
    const res = await send(edge.port, '/api/v1/access-keys/', { headers: { 'x-request-id': 'client-req.42:a_b' } });
    expect(res.headers['x-request-id']).toBe('client-req.42:a_b');
    expect(services.accessKeys.requests[0]!.headers['x-request-id']).toBe('client-req.42:a_b');
  });

  it('replaces a malformed inbound X-Request-Id with a new UUID', async () => {
    const res = await send(edge.port, '/api/v1/access-keys/', { headers: { 'x-request-id': 'bad id with spaces' } });
    const id = res.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(services.accessKeys.requests[0]!.headers['x-request-id']).toBe(id);
    const tooLong = await send(edge.port, '/nowhere', { headers: { 'x-request-id': 'a'.repeat(129) } });
    expect(tooLong.headers['x-request-id']).not.toBe('a'.repeat(129));
  });

  it('gives the response the edge request id even when a service answers with another', async () => {
    services.accessKeys.on('/api/v1/access-keys/', (_req, res) => {
      res.writeHead(200, { 'x-request-id': 'service-made-its-own', 'content-type': 'application/json' });
      res.end('[]');
    });
    const res = await send(edge.port, '/api/v1/access-keys/', { headers: { 'x-request-id': 'edge-id-1' } });
    expect(res.headers['x-request-id']).toBe('edge-id-1');
  });

  it('answers methods other than GET and HEAD on its own endpoints with 405', async () => {
    const res = await send(edge.port, '/healthz', { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.json().code).toBe('method_not_allowed');
  });

  it('answers an unparsable request with a JSON 400 carrying a request id', async () => {
    const net = await import('node:net');
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(edge.port, '127.0.0.1', () => socket.write('GET /api/v1/access-keys/ HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    expect(raw).toMatch(/x-request-id: [0-9a-f-]{36}/);
    expect(raw).toContain('"code":"invalid_request"');
  });
});

describe('edge routing to services that are not deployed', () => {
  const accessKeys = new FakeService('access-keys-and-audit');
  let edge: RunningEdge;

  beforeAll(async () => {
    await accessKeys.start();
    edge = await startEdge({ ACCESS_KEYS_URL: accessKeys.url, CONNECTOR_REGISTRY_URL: '' });
  });

  afterAll(async () => {
    await edge.stop();
    await accessKeys.stop();
  });

  it.each([
    ['/api/v1/connectors/', 'connector-registry'],
    [`/api/v1/tool-packs/${TOOL_PACK}/registered-users/${USER}/mcp`, 'mcp-runtime'],
    ['/v1/models', 'model-gateway'],
    ['/api/mktg/v1/events', 'unified-data'],
    ['/console/', 'console'],
  ])('%s answers 503: the %s service is not deployed', async (path, service) => {
    const res = await send(edge.port, path, { headers: { 'x-request-id': 'nd-1' } });
    expect(res.status).toBe(503);
    expect(res.json()).toEqual({ detail: `The ${service} service is not deployed on this Patchbay installation.`, code: 'service_unavailable' });
    expect(res.headers['x-request-id']).toBe('nd-1');
  });
});
