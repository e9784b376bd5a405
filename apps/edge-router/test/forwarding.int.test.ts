import { FakeService, type RunningEdge, send, startEdge } from './harness';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

describe('headers the edge sets on the upstream request', () => {
  const accessKeys = new FakeService('access-keys-and-audit');
  let edge: RunningEdge;

  beforeAll(async () => {
    await accessKeys.start();
    edge = await startEdge({ ACCESS_KEYS_URL: accessKeys.url });
  });

  afterAll(async () => {
    await edge.stop();
    await accessKeys.stop();
  });

  beforeEach(() => accessKeys.reset());

  const seen = () => accessKeys.requests[0]!.headers;

  it('never passes a client\'s x-patchbay-trusted-host on, and sets none: the client\'s Host is not trusted for links', async () => {
    await send(edge.port, '/api/v1/access-keys/', { headers: { host: 'evil.example.com', 'x-patchbay-trusted-host': '1' } });
    expect(seen()['x-patchbay-trusted-host']).toBeUndefined();
  });

  it('always strips an inbound x-service-token', async () => {
    await send(edge.port, '/api/v1/access-keys/', { headers: { 'x-service-token': 'forged-internal-credential-123', 'X-Service-Token': 'again' } });
    expect(seen()['x-service-token']).toBeUndefined();
    expect(accessKeys.requests[0]!.rawHeaders.map((h) => h.toLowerCase())).not.toContain('x-service-token');
  });

  it('passes end-to-end headers such as Authorization and Content-Type unchanged', async () => {
    await send(edge.port, '/api/v1/access-keys/', { method: 'POST', headers: { authorization: 'Bearer pb_test_abc', 'content-type': 'application/json', accept: 'application/json' }, body: '{"a":1}' });
    expect(seen()).toMatchObject({ authorization: 'Bearer pb_test_abc', 'content-type': 'application/json', accept: 'application/json', 'content-length': '7' });
    expect(accessKeys.requests[0]!.body.toString()).toBe('{"a":1}');
  });

  it('starts a new trace when the client sent no traceparent', async () => {
    await send(edge.port, '/api/v1/access-keys/');
    const match = TRACEPARENT.exec(String(seen().traceparent));
    expect(match).not.toBeNull();
    expect(match![1]).not.toBe('0'.repeat(32));
    expect(match![3]).toBe('01');
    expect(seen().tracestate).toBeUndefined();
  });

  it('continues an inbound trace under a new parent span id, keeping tracestate', async () => {
    const inbound = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await send(edge.port, '/api/v1/access-keys/', { headers: { traceparent: inbound, tracestate: 'congo=t61rcWkgMzE' } });
    const match = TRACEPARENT.exec(String(seen().traceparent))!;
    expect(match[1]).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(match[2]).not.toBe('00f067aa0ba902b7');
    expect(match[3]).toBe('01');
    expect(seen().tracestate).toBe('congo=t61rcWkgMzE');
  });

  it('starts a new trace, dropping tracestate, when the inbound traceparent is invalid', async () => {
    await send(edge.port, '/api/v1/access-keys/', { headers: { traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01', tracestate: 'a=b' } });
    const match = TRACEPARENT.exec(String(seen().traceparent))!;
    expect(match[1]).not.toBe('0'.repeat(32));
    expect(seen().tracestate).toBeUndefined();
  });

  it('sets X-Forwarded-For/Proto/Host/Port from the connection and the Host the client used', async () => {
    await send(edge.port, '/api/v1/access-keys/', { headers: { host: 'patchbay.example.com:8443' } });
    expect(seen()).toMatchObject({
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-proto': 'http',
      'x-forwarded-host': 'patchbay.example.com:8443',
      'x-forwarded-port': '8443',
    });
    // The service is addressed by its own host; the public one travels in X-Forwarded-Host.
    expect(seen().host).toBe(`127.0.0.1:${accessKeys.port}`);
  });

  it('derives X-Forwarded-Port from the scheme when the Host has no port', async () => {
    await send(edge.port, '/api/v1/access-keys/', { headers: { host: 'patchbay.example.com' } });
    expect(seen()).toMatchObject({ 'x-forwarded-host': 'patchbay.example.com', 'x-forwarded-port': '80' });
  });

  it('replaces client-sent X-Forwarded-* values when they are not trusted', async () => {
    await send(edge.port, '/api/v1/access-keys/', {
      headers: {
        host: 'real.example.com',
        'x-forwarded-for': '6.6.6.6',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'evil.example.com',
        'x-forwarded-port': '443',
        'x-forwarded-prefix': '/evil',
        forwarded: 'for=6.6.6.6;host=evil.example.com;proto=https',
        'x-real-ip': '6.6.6.6',
      },
    });
    expect(seen()).toMatchObject({ 'x-forwarded-for': '127.0.0.1', 'x-forwarded-proto': 'http', 'x-forwarded-host': 'real.example.com', 'x-forwarded-port': '80' });
    expect(seen()['x-forwarded-prefix']).toBeUndefined();
    expect(seen().forwarded).toBeUndefined();
    expect(seen()['x-real-ip']).toBeUndefined();
  });

  it('removes hop-by-hop request headers, including those listed in Connection', async () => {
    await send(edge.port, '/api/v1/access-keys/', {
      method: 'POST',
      headers: {
        connection: 'keep-alive, x-hop-secret',
        'keep-alive': 'timeout=5',
        'x-hop-secret': 'only-for-the-next-hop',
        te: 'trailers',
        trailer: 'x-checksum',
        'proxy-authorization': 'Basic Zm9vOmJhcg==',
        'proxy-connection': 'keep-alive',
        'transfer-encoding': 'chunked',
        'x-end-to-end': 'kept',
      },
      body: 'streamed body',
    });
    const headers = seen();
    for (const name of ['x-hop-secret', 'keep-alive', 'te', 'trailer', 'proxy-authorization', 'proxy-connection', 'upgrade']) {
      expect(headers[name]).toBeUndefined();
    }
    expect(headers.connection).not.toContain('x-hop-secret');
    expect(headers['x-end-to-end']).toBe('kept');
    expect(accessKeys.requests[0]!.body.toString()).toBe('streamed body');
  });

  it('removes hop-by-hop response headers', async () => {
    accessKeys.on('/api/v1/access-keys/', (_req, res) => {
      res.setHeader('connection', 'keep-alive, x-upstream-hop');
      res.setHeader('keep-alive', 'timeout=65');
      res.setHeader('x-upstream-hop', 'private');
      res.setHeader('proxy-authenticate', 'Basic');
      res.setHeader('set-cookie', ['a=1; HttpOnly', 'b=2; Secure']);
      res.setHeader('x-end-to-end', 'kept');
      res.end('ok');
    });
    const res = await send(edge.port, '/api/v1/access-keys/');
    expect(res.text).toBe('ok');
    expect(res.headers['x-upstream-hop']).toBeUndefined();
    expect(res.headers['proxy-authenticate']).toBeUndefined();
    expect(res.headers['keep-alive']).toBeUndefined();
    expect(res.headers['set-cookie']).toEqual(['a=1; HttpOnly', 'b=2; Secure']);
    expect(res.headers['x-end-to-end']).toBe('kept');
  });

  it('passes the service status, including errors, through unchanged', async () => {
    accessKeys.on('/api/v1/access-keys/missing/', (_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"detail":"Resource not in API key scope.","code":"not_in_scope"}');
    });
    const res = await send(edge.port, '/api/v1/access-keys/missing/');
    expect(res.status).toBe(404);
    expect(res.json()).toEqual({ detail: 'Resource not in API key scope.', code: 'not_in_scope' });
  });

  it('writes one JSON access log line per request, without query string or secrets', async () => {
    const res = await send(edge.port, '/api/v1/access-keys/?token=query-secret', { headers: { authorization: 'Bearer pb_live_supersecret', 'x-request-id': 'log-test-1' } });
    expect(res.status).toBe(200);
    const line = await edge.waitForLog((l) => l.request_id === 'log-test-1');
    expect(edge.logs.filter((l) => l.request_id === 'log-test-1')).toHaveLength(1);
    expect(line).toMatchObject({ method: 'GET', path: '/api/v1/access-keys/', status: 200, upstream: 'access-keys-and-audit', request_id: 'log-test-1', service: 'edge-router' });
    expect(line.msg).toBe('request');
    expect(typeof line.duration_ms).toBe('number');
    const everything = JSON.stringify(edge.logs);
    expect(everything).not.toContain('pb_live_supersecret');
    expect(everything).not.toContain('query-secret');
  });

  it('logs requests it answers itself with no upstream', async () => {
    await send(edge.port, '/nowhere', { headers: { 'x-request-id': 'log-test-2' } });
    const line = await edge.waitForLog((l) => l.request_id === 'log-test-2');
    expect(line).toMatchObject({ method: 'GET', path: '/nowhere', status: 404, upstream: null });
  });
});

describe('headers the edge sets when a trusted load balancer is in front', () => {
  const accessKeys = new FakeService('access-keys-and-audit');
  let edge: RunningEdge;

  beforeAll(async () => {
    await accessKeys.start();
    edge = await startEdge({ ACCESS_KEYS_URL: accessKeys.url, EDGE_TRUST_FORWARDED: 'true' });
  });

  afterAll(async () => {
    await edge.stop();
    await accessKeys.stop();
  });

  it('appends the client address to X-Forwarded-For and keeps the balancer’s proto, host and port', async () => {
    await send(edge.port, '/api/v1/access-keys/', {
      headers: { host: 'edge.internal:8080', 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.patchbay.dev', 'x-forwarded-port': '443' },
    });
    expect(accessKeys.requests[0]!.headers).toMatchObject({
      'x-forwarded-for': '203.0.113.7, 127.0.0.1',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'api.patchbay.dev',
      'x-forwarded-port': '443',
      // The services may build links for end users from this host: a trusted balancer named it.
      'x-patchbay-trusted-host': '1',
    });
  });

  it('does not mark a host taken from the client\'s own Host header as trusted', async () => {
    accessKeys.reset();
    await send(edge.port, '/api/v1/access-keys/', { headers: { host: 'evil.example.com' } });
    expect(accessKeys.requests[0]!.headers['x-forwarded-host']).toBe('evil.example.com');
    expect(accessKeys.requests[0]!.headers['x-patchbay-trusted-host']).toBeUndefined();
  });

  it('still strips x-service-token', async () => {
    accessKeys.reset();
    await send(edge.port, '/api/v1/access-keys/', { headers: { 'x-service-token': 'forged-internal-credential-123' } });
    expect(accessKeys.requests[0]!.headers['x-service-token']).toBeUndefined();
  });
});

describe('as main.ts runs it without OTEL_* variables and at LOG_LEVEL=warn (no span, no access line per request)', () => {
  const accessKeys = new FakeService('access-keys-and-audit');
  let edge: RunningEdge;

  beforeAll(async () => {
    await accessKeys.start();
    edge = await startEdge({ ACCESS_KEYS_URL: accessKeys.url }, { tracing: false, logLevel: 'warn' });
  });

  afterAll(async () => {
    await edge.stop();
    await accessKeys.stop();
  });

  beforeEach(() => accessKeys.reset());

  it('still continues the client\'s trace and keeps its request id, on the service\'s request and the answer', async () => {
    const inbound = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const res = await send(edge.port, '/api/v1/access-keys/', { headers: { traceparent: inbound, tracestate: 'congo=t61rcWkgMzE', 'x-request-id': 'quiet-1' } });
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('quiet-1');
    const headers = accessKeys.requests[0]!.headers;
    const match = TRACEPARENT.exec(String(headers.traceparent))!;
    expect(match[1]).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(match[2]).not.toBe('00f067aa0ba902b7');
    expect(headers.tracestate).toBe('congo=t61rcWkgMzE');
    expect(headers['x-request-id']).toBe('quiet-1');
  });

  it('starts a trace when the client sent none, and writes no access line', async () => {
    await send(edge.port, '/api/v1/access-keys/', { headers: { 'x-request-id': 'quiet-2' } });
    expect(TRACEPARENT.test(String(accessKeys.requests[0]!.headers.traceparent))).toBe(true);
    expect(edge.logs.filter((l) => l.request_id === 'quiet-2')).toHaveLength(0);
  });
});
