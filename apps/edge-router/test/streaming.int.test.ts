import { REPLAY_BUFFER_MAX } from '../src/proxy';
import { createHash, randomBytes } from 'node:crypto';
import http, { type IncomingMessage } from 'node:http';
import net from 'node:net';
import { FakeService, type RunningEdge, closedPort, deferred, send, startEdge } from './harness';

const MCP_PATH = '/api/v1/tool-packs/3f1b7c1e-8a6d-4d2b-9f5e-2a1c0b9d8e7f/registered-users/b6a7c8d9-1e2f-4a3b-8c4d-5e6f7a8b9c0d/mcp';

function request(port: number, path: string, method = 'POST', headers: Record<string, string> = {}): http.ClientRequest {
  return http.request({ host: '127.0.0.1', port, path, method, headers, agent: false });
}

function responseOf(req: http.ClientRequest): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
}

describe('streaming through the edge', () => {
  const mcp = new FakeService('mcp-runtime');
  const gateway = new FakeService('model-gateway');
  let edge: RunningEdge;

  beforeAll(async () => {
    await Promise.all([mcp.start(), gateway.start()]);
    edge = await startEdge({ ACCESS_KEYS_URL: mcp.url, MCP_RUNTIME_URL: mcp.url, MODEL_GATEWAY_URL: gateway.url });
  });

  afterAll(async () => {
    await edge.stop();
    await Promise.all([mcp.stop(), gateway.stop()]);
  });

  beforeEach(() => {
    mcp.reset();
    gateway.reset();
  });

  it('passes server-sent events to the client event by event, headers first', async () => {
    const clientHasHeaders = deferred();
    const clientHasFirstEvent = deferred();
    mcp.onStreaming(MCP_PATH, (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      void clientHasHeaders.promise
        .then(() => {
          res.write('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n');
          return clientHasFirstEvent.promise;
        })
        .then(() => {
          res.write('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
          res.end();
        });
    });

    const req = request(edge.port, MCP_PATH, 'POST', { 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
    req.end('{"jsonrpc":"2.0","id":1,"method":"tools/call"}');
    const res = await responseOf(req);
    // The service has written nothing but headers yet: they can only be here if the edge flushed them at once.
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.headers['content-encoding']).toBeUndefined();
    clientHasHeaders.resolve();

    let received = '';
    let beforeSecondEvent = '';
    const ended = new Promise<void>((resolve) => res.on('end', resolve));
    res.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      if (!beforeSecondEvent && received.includes('\n\n')) {
        beforeSecondEvent = received;
        // Only now may the service write its second event: a buffering edge would never get here.
        clientHasFirstEvent.resolve();
      }
    });
    await ended;
    expect(beforeSecondEvent).toContain('notifications/progress');
    expect(beforeSecondEvent).not.toContain('"result"');
    expect(received).toContain('"result"');
  });

  it('streams a large request body to the service while the client is still sending it', async () => {
    const serviceHasFirstBytes = deferred();
    gateway.onStreaming('/v1/files', (req, res) => {
      const hash = createHash('sha256');
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        hash.update(chunk);
        serviceHasFirstBytes.resolve();
      });
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ size, sha256: hash.digest('hex') }));
      });
    });

    const expected = createHash('sha256');
    const req = request(edge.port, '/v1/files', 'POST', { 'content-type': 'application/octet-stream' });
    const answer = responseOf(req);
    const first = randomBytes(64 * 1024);
    expected.update(first);
    req.write(first);
    // The rest is sent only after the service has received the beginning: an edge that buffered
    // the whole body before forwarding it would never let this resolve.
    await serviceHasFirstBytes.promise;
    let total = first.length;
    for (let i = 0; i < 32; i++) {
      const chunk = randomBytes(512 * 1024);
      expected.update(chunk);
      total += chunk.length;
      if (!req.write(chunk)) await new Promise((resolve) => req.once('drain', resolve));
    }
    req.end();
    const res = await answer;
    const body = await new Promise<string>((resolve) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve(text));
    });
    expect(JSON.parse(body)).toEqual({ size: total, sha256: expected.digest('hex') });
  });

  it('streams a large response body through intact', async () => {
    const payload = randomBytes(8 * 1024 * 1024);
    gateway.on('/v1/files/content', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(payload);
    });
    const raw = await new Promise<Buffer>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: edge.port, path: '/v1/files/content', agent: false }, (res) => {
          expect(res.statusCode).toBe(200);
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks)));
        })
        .on('error', reject);
    });
    expect(raw.equals(payload)).toBe(true);
  });

  it('aborts the upstream request when the client goes away before the answer', async () => {
    const serviceHasRequest = deferred();
    const serviceSawClose = deferred();
    mcp.onStreaming(MCP_PATH, (req, res) => {
      req.resume();
      res.on('close', () => serviceSawClose.resolve());
      serviceHasRequest.resolve();
    });
    const req = request(edge.port, MCP_PATH);
    req.on('error', () => undefined);
    req.end('{}');
    await serviceHasRequest.promise;
    req.destroy();
    await serviceSawClose.promise;
  });

  it('aborts the upstream request when the client goes away mid-stream', async () => {
    const serviceSawClose = deferred();
    mcp.onStreaming(MCP_PATH, (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      res.on('close', () => serviceSawClose.resolve());
    });
    const req = request(edge.port, MCP_PATH);
    req.on('error', () => undefined);
    req.end('{}');
    const res = await responseOf(req);
    await new Promise((resolve) => res.once('data', resolve));
    req.destroy();
    await serviceSawClose.promise;
  });

  it('cuts the client connection when the service fails mid-response', async () => {
    mcp.onStreaming(MCP_PATH, (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n', () => {
        // Leave the response unfinished: the connection just dies.
        setImmediate(() => res.socket?.destroy());
      });
    });
    const req = request(edge.port, MCP_PATH);
    req.on('error', () => undefined);
    req.end('{}');
    const res = await responseOf(req);
    res.on('error', () => undefined);
    res.resume();
    await new Promise((resolve) => res.once('close', resolve));
    // A truncated stream must not look like a complete one.
    expect(res.complete).toBe(false);
  });
});

describe('upstream failures', () => {
  const hanging = new FakeService('mcp-runtime');
  let downPort: number;
  let edge: RunningEdge;

  beforeAll(async () => {
    await hanging.start();
    downPort = await closedPort();
    edge = await startEdge({
      ACCESS_KEYS_URL: `http://127.0.0.1:${downPort}`,
      MCP_RUNTIME_URL: hanging.url,
      EDGE_UPSTREAM_TIMEOUT_MS: '200',
    });
  });

  afterAll(async () => {
    await edge.stop();
    await hanging.stop();
  });

  it('answers 503 with Retry-After when a deployed service refuses the connection', async () => {
    const res = await send(edge.port, '/api/v1/access-keys/', { headers: { 'x-request-id': 'down-1' } });
    expect(res.status).toBe(503);
    expect(res.json()).toEqual({ detail: 'The access-keys-and-audit service is unavailable right now; retry shortly.', code: 'service_unavailable' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.headers['x-request-id']).toBe('down-1');
  });

  it('answers 503 when the service resets the connection before answering', async () => {
    hanging.onStreaming('/api/v1/usage/', (req) => {
      req.socket.destroy();
    });
    const res = await send(edge.port, '/api/v1/usage/', { method: 'POST', body: '{}' });
    expect(res.status).toBe(503);
    expect(res.json().code).toBe('service_unavailable');
  });

  it('answers 504 gateway_timeout when the service sends no headers within the configured time', async () => {
    const serviceSawClose = deferred();
    hanging.onStreaming(MCP_PATH, (req, res) => {
      req.resume();
      res.on('close', () => serviceSawClose.resolve());
    });
    const res = await send(edge.port, MCP_PATH, { method: 'POST', body: '{}', headers: { 'x-request-id': 'slow-1' } });
    expect(res.status).toBe(504);
    expect(res.json()).toEqual({ detail: 'The mcp-runtime service did not answer within 200 ms.', code: 'gateway_timeout' });
    expect(res.headers['x-request-id']).toBe('slow-1');
    // The abandoned request is not left running in the service.
    await serviceSawClose.promise;
  });

  it('does not time out a stream that has started, however long it runs', async () => {
    const clientHasFirstEvent = deferred();
    hanging.onStreaming('/api/v1/tool-call-records/', (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      // The second event waits for the client, however long past the 200 ms header timeout that is.
      void clientHasFirstEvent.promise.then(() => new Promise((resolve) => setTimeout(resolve, 400))).then(() => res.end('data: 2\n\n'));
    });
    const req = request(edge.port, '/api/v1/tool-call-records/', 'GET');
    req.end();
    const res = await responseOf(req);
    let text = '';
    res.on('data', (c: Buffer) => {
      text += c.toString();
      clientHasFirstEvent.resolve();
    });
    await new Promise((resolve) => res.on('end', resolve));
    expect(res.complete).toBe(true);
    expect(text).toBe('data: 1\n\ndata: 2\n\n');
  });
});

describe('pooled connections the service has closed', () => {
  // A service that answers the first request on each connection with keep-alive, then drops the
  // connection when a second request arrives on it: what a restarting or idle-closing service does.
  const connections: net.Socket[] = [];
  const server = net.createServer((socket) => {
    connections.push(socket);
    let buffered = '';
    let answered = 0;
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      while (buffered.includes('\r\n\r\n')) {
        buffered = buffered.slice(buffered.indexOf('\r\n\r\n') + 4);
        if (answered++ === 0) {
          socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: keep-alive\r\n\r\n{"ok":true}');
        } else {
          socket.resetAndDestroy();
          return;
        }
      }
    });
    socket.on('error', () => undefined);
  });
  let edge: RunningEdge;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    edge = await startEdge({ ACCESS_KEYS_URL: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}` });
  });

  afterAll(async () => {
    await edge.stop();
    for (const socket of connections) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('sends a request without a body again on a fresh connection', async () => {
    const first = await send(edge.port, '/api/v1/access-keys/');
    expect(first.status).toBe(200);
    const second = await send(edge.port, '/api/v1/access-keys/');
    expect(second.status).toBe(200);
    expect(second.json()).toEqual({ ok: true });
    expect(connections).toHaveLength(2);
  });

  it('does not replay a request whose body streams through (beyond the replay buffer): the client is told to retry', async () => {
    await send(edge.port, '/api/v1/access-keys/');
    const res = await send(edge.port, '/api/v1/access-keys/', { method: 'POST', body: 'x'.repeat(REPLAY_BUFFER_MAX + 1), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBeDefined();
  });
});
