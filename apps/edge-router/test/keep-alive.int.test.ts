import http from 'node:http';
import net from 'node:net';
import { createLogger, createServiceApp, finishServiceApp, startHttpService, type RunningService } from '@patchbay/service-kit';
import { type RunningEdge, startEdge } from './harness';

/**
 * A pooled (keep-alive) client, as an agent's HTTP library uses: one socket, reused for every
 * request. Every answer must arrive, on the same connection, whatever the previous request was.
 */
interface Reply {
  status: number;
  text: string;
  reusedSocket: boolean;
}

function pooledRequest(agent: http.Agent, port: number, options: { method?: string; path: string; headers?: Record<string, string>; body?: Buffer | string; chunks?: Array<string | Buffer> }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, agent, method: options.method ?? 'GET', path: options.path, headers: options.headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, reusedSocket: req.reusedSocket }));
    });
    req.on('error', reject);
    // A stall fails the test quickly instead of at the 30 s a pooled client would wait.
    req.setTimeout(5_000, () => req.destroy(new Error(`no answer to ${options.method ?? 'GET'} ${options.path} within 5 s`)));
    if (options.chunks) {
      for (const chunk of options.chunks) req.write(chunk);
      req.end();
    } else req.end(options.body);
  });
}

describe('the edge never stalls a keep-alive connection', () => {
  let service: RunningService;
  let edge: RunningEdge;
  let agent: http.Agent;
  let sockets = 0;

  beforeAll(async () => {
    const logger = createLogger('svc', 'silent');
    const app = createServiceApp({ logger });
    // Refuses before reading the body, as a route does for a wrong content type.
    app.post('/api/v1/access-keys/refuse/', (_req, res) => {
      res.status(415).json({ detail: 'Send JSON.', code: 'unsupported_media_type' });
    });
    app.get('/api/v1/access-keys/', (_req, res) => {
      res.json({ ok: true });
    });
    app.put('/api/v1/access-keys/echo/', (req, res) => {
      res.json({ got: req.body as unknown });
    });
    finishServiceApp(app, logger);
    service = await startHttpService({ name: 'svc', app, port: 0, host: '127.0.0.1', logger, handleSignals: false, drainMs: 100 });
    edge = await startEdge({ ACCESS_KEYS_URL: `http://127.0.0.1:${service.port}` });
  });

  beforeEach(() => {
    sockets = 0;
    agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const createConnection = agent.createConnection.bind(agent);
    agent.createConnection = ((...args: Parameters<typeof createConnection>) => {
      sockets += 1;
      return createConnection(...args);
    }) as typeof agent.createConnection;
  });
  afterEach(() => agent.destroy());

  afterAll(async () => {
    await edge.stop();
    await service.stop();
  });

  it('after a 900 KB body the service refused early (415), the next request on the connection is answered', async () => {
    for (let round = 0; round < 5; round++) {
      const refused = await pooledRequest(agent, edge.port, { method: 'POST', path: '/api/v1/access-keys/refuse/', headers: { 'content-type': 'text/plain', 'content-length': String(900 * 1024) }, body: Buffer.alloc(900 * 1024, 0x61) });
      expect(refused.status).toBe(415);
      const next = await pooledRequest(agent, edge.port, { path: '/api/v1/access-keys/' });
      expect(next).toEqual({ status: 200, text: '{"ok":true}', reusedSocket: true });
    }
    expect(sockets).toBe(1);
  });

  it('after a body too large for the service (413), the next request on the connection is answered', async () => {
    const big = JSON.stringify({ a: 'x'.repeat(1_100_000) });
    const refused = await pooledRequest(agent, edge.port, { method: 'PUT', path: '/api/v1/access-keys/echo/', headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(big)) }, body: big });
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.text).code).toBe('payload_too_large');
    const next = await pooledRequest(agent, edge.port, { path: '/api/v1/access-keys/' });
    expect(next.status).toBe(200);
  });

  it.each(['GET', 'DELETE', 'HEAD'])('a %s with a chunked body gets a framed answer, and so does the next request', async (method) => {
    const res = await pooledRequest(agent, edge.port, { method, path: '/api/v1/access-keys/', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, chunks: ['{"a":', '1}'] });
    if (method === 'GET') expect(res).toMatchObject({ status: 200, text: '{"ok":true}' });
    else if (method === 'HEAD') expect(res.status).toBe(200);
    else expect(JSON.parse(res.text)).toMatchObject({ code: 'not_found' });
    const next = await pooledRequest(agent, edge.port, { path: '/api/v1/access-keys/' });
    expect(next).toEqual({ status: 200, text: '{"ok":true}', reusedSocket: true });
    expect(sockets).toBe(1);
  });

  it('a GET with a 1 MiB chunked body gets the JSON envelope or an answer, never a reset, and the connection goes on', async () => {
    const res = await pooledRequest(agent, edge.port, { method: 'GET', path: '/api/v1/access-keys/', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, chunks: ['"', 'x'.repeat(1024 * 1024), '"'] });
    expect(res.status).toBeLessThan(500);
    expect(() => JSON.parse(res.text)).not.toThrow();
    const next = await pooledRequest(agent, edge.port, { path: '/api/v1/access-keys/' });
    expect(next.status).toBe(200);
  });
});

describe('a pooled upstream connection the service closed', () => {
  // Answers the first request on each connection with keep-alive, then drops the connection when
  // a second request arrives on it: what a restarting or idle-closing service does.
  const connections: net.Socket[] = [];
  const bodies: string[] = [];
  const server = net.createServer((socket) => {
    connections.push(socket);
    let buffered = '';
    let answered = 0;
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const body = buffered.slice(end + 4, end + 4 + length);
        buffered = buffered.slice(end + 4 + length);
        if (answered++ > 0) {
          socket.resetAndDestroy();
          return;
        }
        bodies.push(body);
        const answer = JSON.stringify({ body });
        socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${answer.length}\r\nConnection: keep-alive\r\n\r\n${answer}`);
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

  it('a 49-byte PUT is sent again on a fresh connection, not answered 503', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const body = JSON.stringify({ name: 'renamed key', description: 'x'.repeat(10) });
      expect(body.length).toBe(49);
      const first = await pooledRequest(agent, edge.port, { path: '/api/v1/access-keys/' });
      expect(first.status).toBe(200);
      const put = await pooledRequest(agent, edge.port, { method: 'PUT', path: '/api/v1/access-keys/x/', headers: { 'content-type': 'application/json', 'content-length': String(body.length) }, body });
      expect(put.status).toBe(200);
      expect(JSON.parse(put.text)).toEqual({ body });
      expect(put.reusedSocket).toBe(true);
      expect(connections).toHaveLength(2);
    } finally {
      agent.destroy();
    }
  });
});
