import { AsyncLocalStorage } from 'node:async_hooks';
import { Writable } from 'node:stream';
import request from 'supertest';
import { createLogger } from './logger';
import { createServiceApp, finishServiceApp, healthHandler, requestIdOf, startHttpService } from './http';

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

  it('stops even when a shutdown hook never finishes, and still runs the hooks after it', async () => {
    const app = createServiceApp({ logger });
    finishServiceApp(app, logger);
    const hooks: string[] = [];
    // Hooks run in reverse: the one that hangs (a client waiting on a Redis that is gone) runs first.
    const onShutdown = [async () => { hooks.push('after'); }, () => new Promise<void>(() => undefined)];
    const svc = await startHttpService({ name: 't', app, port: 0, host: '127.0.0.1', logger, handleSignals: false, drainMs: 50, hookTimeoutMs: 200, onShutdown });
    let bound: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([svc.stop().then(() => 'stopped'), new Promise((resolve) => (bound = setTimeout(resolve, 5_000, 'still stopping after 5 s')))]);
    clearTimeout(bound);
    expect(outcome).toBe('stopped');
    expect(hooks).toEqual(['after']);
  });
});

describe('request ids in log lines', () => {
  function capturingLogger() {
    const lines: Array<Record<string, unknown>> = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
        cb();
      },
    });
    return { lines, logger: createLogger('svc', 'info', stream) };
  }

  function appWith(options: { requestIdInEveryLine?: boolean }) {
    const { lines, logger: log } = capturingLogger();
    const app = createServiceApp({ logger: log, ...options });
    app.get('/work', (_req, res) => {
      log.warn('inside the handler');
      res.json({ id: res.locals.requestId as unknown, fromHeader: requestIdOf(res) ?? null });
    });
    app.get('/boom', () => {
      throw new Error('broken');
    });
    finishServiceApp(app, log);
    return { app, lines };
  }

  afterEach(() => jest.restoreAllMocks());

  it('by default every line written while a request is served carries its request_id', async () => {
    const { app, lines } = appWith({});
    const res = await request(app).get('/work').set('X-Request-Id', 'req-every-1');
    expect(res.body).toEqual({ id: 'req-every-1', fromHeader: 'req-every-1' });
    expect(lines.find((l) => l.msg === 'inside the handler')).toMatchObject({ request_id: 'req-every-1' });
    expect(lines.find((l) => l.msg === 'request')).toMatchObject({ request_id: 'req-every-1', path: '/work', status: 200 });
  });

  it('with requestIdInEveryLine false no AsyncLocalStorage is entered, and the access and error lines still name the request', async () => {
    const run = jest.spyOn(AsyncLocalStorage.prototype, 'run');
    const enterWith = jest.spyOn(AsyncLocalStorage.prototype, 'enterWith');
    const { app, lines } = appWith({ requestIdInEveryLine: false });
    const ok = await request(app).get('/work').set('X-Request-Id', 'req-lean-1');
    expect(ok.body).toEqual({ id: 'req-lean-1', fromHeader: 'req-lean-1' });
    const failed = await request(app).get('/boom').set('X-Request-Id', 'req-lean-2');
    expect(failed.status).toBe(500);
    expect(run).not.toHaveBeenCalled();
    expect(enterWith).not.toHaveBeenCalled();
    // A line the handler writes itself has no context to read the id from: it names it (res.locals.requestId).
    expect(lines.find((l) => l.msg === 'inside the handler')?.request_id).toBeUndefined();
    expect(lines.find((l) => l.msg === 'request' && l.path === '/work')).toMatchObject({ request_id: 'req-lean-1', status: 200 });
    expect(lines.find((l) => l.msg === 'request failed')).toMatchObject({ request_id: 'req-lean-2', path: '/boom' });
    expect(lines.find((l) => l.msg === 'request' && l.path === '/boom')).toMatchObject({ request_id: 'req-lean-2', status: 500 });
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
