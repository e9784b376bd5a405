import request from 'supertest';
import { createLogger } from './logger';
import { createServiceApp, finishServiceApp, healthHandler, startHttpService } from './http';

const logger = createLogger('test', 'silent');

describe('service app', () => {
  it('echoes a well-formed X-Request-Id and makes one otherwise', async () => {
    const app = createServiceApp({ logger });
    app.get('/x', (_req, res) => {
      res.json({ ok: true });
    });
    finishServiceApp(app, logger);
    const given = await request(app).get('/x').set('X-Request-Id', 'abc-123');
    expect(given.headers['x-request-id']).toBe('abc-123');
    const made = await request(app).get('/x').set('X-Request-Id', 'bad id with spaces');
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers /healthz 503 naming the dependency that is down', async () => {
    const app = createServiceApp({ logger });
    app.get('/healthz', healthHandler('svc', [
      { name: 'postgres', check: async () => undefined },
      { name: 'redis', check: async () => Promise.reject(new Error('down')) },
    ]));
    const res = await request(app).get('/healthz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'unavailable', service: 'svc', checks: { postgres: 'ok', redis: 'unavailable' } });
  });

  it('lets an in-flight request finish on shutdown, then runs the hooks', async () => {
    const app = createServiceApp({ logger });
    let release: () => void = () => undefined;
    app.get('/slow', (_req, res) => {
      release = () => res.json({ done: true });
    });
    const hooks: string[] = [];
    const svc = await startHttpService({ name: 't', app, port: 0, host: '127.0.0.1', logger, handleSignals: false, onShutdown: [async () => { hooks.push('closed'); }] });
    const pending = fetch(`http://127.0.0.1:${svc.port}/slow`).then((r) => r.json());
    await new Promise((r) => setTimeout(r, 50));
    const stopped = svc.stop();
    release();
    await expect(pending).resolves.toEqual({ done: true });
    await stopped;
    expect(hooks).toEqual(['closed']);
  });
});

describe('requests node:http cannot parse', () => {
  it('get the JSON envelope with a request id, not a bare status line', async () => {
    const app = createServiceApp({ logger });
    finishServiceApp(app, logger);
    const svc = await startHttpService({ name: 't', app, port: 0, host: '127.0.0.1', logger, handleSignals: false, drainMs: 50 });
    const { connect } = await import('node:net');
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(svc.port, '127.0.0.1');
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString()));
      socket.on('close', () => resolve(text));
      socket.write('GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n');
    });
    await svc.stop();
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toMatch(/x-request-id: [0-9a-f-]{36}/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ detail: 'The request could not be parsed as HTTP.', code: 'invalid_request' });
  });
});

describe('a HEAD request node:http cannot parse', () => {
  it('gets the status line and headers without a body', async () => {
    const app = createServiceApp({ logger });
    finishServiceApp(app, logger);
    const svc = await startHttpService({ name: 't', app, port: 0, host: '127.0.0.1', logger, handleSignals: false, drainMs: 50 });
    const { connect } = await import('node:net');
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(svc.port, '127.0.0.1');
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
      socket.on('close', () => resolve(text));
      socket.write(Buffer.concat([Buffer.from('HEAD /a'), Buffer.from([0xfc]), Buffer.from(' HTTP/1.1\r\nHost: a\r\n\r\n')]));
    });
    await svc.stop();
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer.endsWith('\r\n\r\n')).toBe(true);
  });
});
