import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BlockedDestinationError } from './blocked-destination-error';
import type { HostLookup } from './check-url';
import { createGuardedRequest, discard, OutboundError, readBody, type OutboundRequest } from './guarded-request';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  remotePort: number | undefined;
}

let server: Server;
let port: number;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString(), remotePort: req.socket.remotePort });
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/redirect') {
        res.writeHead(302, { location: '/landed' });
        res.end();
      } else if (url.pathname === '/slow') {
        // Headers only long after the client has given up (undici's timers tick about every half second).
        const timer = setTimeout(() => res.writeHead(200).end('late'), 5_000);
        res.on('close', () => clearTimeout(timer));
      } else if (url.pathname === '/cut') {
        // Headers and half the declared body, then the connection drops.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"half":');
        setTimeout(() => res.destroy(), 20);
      } else if (url.pathname === '/trickle') {
        // Headers and the start of the body, the rest long after the client has given up.
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('start');
        const timer = setTimeout(() => res.end('end'), 5_000);
        res.on('close', () => clearTimeout(timer));
      } else if (url.pathname === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        // No content-length: the size is only known while reading.
        res.write('a'.repeat(600));
        res.end('b'.repeat(600));
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'x-twice': ['one', 'two'] });
        res.end(JSON.stringify({ path: url.pathname, method: req.method }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterEach(() => {
  seen.length = 0;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const GET: OutboundRequest = { method: 'GET', headers: {}, timeoutMs: 5_000 };
const loopbackDns: HostLookup = async () => [{ address: '127.0.0.1', family: 4 }];

async function refused(promise: Promise<unknown>): Promise<BlockedDestinationError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BlockedDestinationError);
  return err as BlockedDestinationError;
}

describe('createGuardedRequest', () => {
  it('refuses 127.0.0.1 and http:// by default, before any connection is made', async () => {
    const request = createGuardedRequest({ allowPrivateNetwork: false });
    expect((await refused(request(new URL(`https://127.0.0.1:${port}/`), GET))).reason).toBe('private_address');
    expect((await refused(request(new URL(`http://example.com:${port}/`), GET))).reason).toBe('scheme');
    expect(seen).toHaveLength(0);
  });

  it('sends method, headers and body, and answers status, headers and body', async () => {
    const request = createGuardedRequest({ allowPrivateNetwork: true });
    const res = await request(new URL(`http://127.0.0.1:${port}/items?q=1`), { method: 'POST', headers: { 'content-type': 'text/plain', authorization: 'Bearer t' }, body: 'payload', timeoutMs: 5_000 });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/json');
    expect(res.headers.get('x-twice')).toBe('one, two');
    expect(res.headers.get('x-missing')).toBeNull();
    const { bytes, truncated } = await readBody(res, 1_000, 'error');
    expect(JSON.parse(bytes.toString())).toEqual({ path: '/items', method: 'POST' });
    expect(truncated).toBe(false);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/items?q=1', body: 'payload', headers: expect.objectContaining({ authorization: 'Bearer t' }) });
  });

  it('defeats DNS rebinding: the address is checked again when the connection is opened', async () => {
    let calls = 0;
    const rebinding: HostLookup = async () => (++calls === 1 ? [{ address: '93.184.215.14', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]);
    const request = createGuardedRequest({ allowPrivateNetwork: false }, { requireHttps: false, lookup: rebinding });
    const err = await refused(request(new URL(`http://rebind.example.com:${port}/secret`), GET));
    expect(err.reason).toBe('private_address');
    expect(calls).toBe(2);
    expect(seen).toHaveLength(0);
  });

  it('keeps connections alive and reuses them', async () => {
    const request = createGuardedRequest({ allowPrivateNetwork: true }, { lookup: loopbackDns });
    await readBody(await request(new URL(`http://127.0.0.1:${port}/one`), GET), 1_000, 'error');
    await new Promise(setImmediate);
    await readBody(await request(new URL(`http://127.0.0.1:${port}/two`), GET), 1_000, 'error');
    expect(seen).toHaveLength(2);
    expect(seen[1]?.remotePort).toBe(seen[0]?.remotePort);
  });

  it('returns a redirect as it is, without following it', async () => {
    const request = createGuardedRequest({ allowPrivateNetwork: true });
    const res = await request(new URL(`http://127.0.0.1:${port}/redirect`), GET);
    discard(res);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/landed');
    expect(seen.map((s) => s.url)).toEqual(['/redirect']);
  });

  it('fails with kind timeout when the headers do not come in time, and aborted when the signal fires', async () => {
    const request = createGuardedRequest({ allowPrivateNetwork: true });
    const late = await request(new URL(`http://127.0.0.1:${port}/slow`), { ...GET, timeoutMs: 50 }).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(OutboundError);
    expect((late as OutboundError).kind).toBe('timeout');
    const controller = new AbortController();
    const pending = request(new URL(`http://127.0.0.1:${port}/slow`), { ...GET, signal: controller.signal });
    controller.abort();
    expect(((await pending.catch((e: unknown) => e)) as OutboundError).kind).toBe('aborted');
  });

  it('fails with kind network and the error code when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = (await createGuardedRequest({ allowPrivateNetwork: true })(new URL(`http://127.0.0.1:${freePort}/`), GET).catch((e: unknown) => e)) as OutboundError;
    expect(err).toBeInstanceOf(OutboundError);
    expect(err).toMatchObject({ kind: 'network', code: 'ECONNREFUSED' });
  });

  it('readBody stops at maxBytes: too_large with overflow error, the first maxBytes with truncate', async () => {
    const request = createGuardedRequest({ allowPrivateNetwork: true });
    const tooLarge = await readBody(await request(new URL(`http://127.0.0.1:${port}/big`), GET), 1_000, 'error').catch((e: unknown) => e);
    expect(tooLarge).toMatchObject({ kind: 'too_large' });
    const cut = await readBody(await request(new URL(`http://127.0.0.1:${port}/big`), GET), 1_000, 'truncate');
    expect(cut.truncated).toBe(true);
    expect(cut.bytes.toString()).toBe(`${'a'.repeat(600)}${'b'.repeat(400)}`);
  });
});

describe('a body collected by the request (collectUpTo)', () => {
  const request = createGuardedRequest({ allowPrivateNetwork: true }, { lookup: loopbackDns });
  const at = (path: string) => new URL(`http://127.0.0.1:${port}${path}`);

  it('answers status, headers by name in any case (repeated ones joined) and the whole body, read or streamed', async () => {
    const res = await request(at('/collected'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}', timeoutMs: 5_000, collectUpTo: 1_000 });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/json');
    expect(res.headers.get('x-twice')).toBe('one, two');
    expect(res.headers.get('x-absent')).toBeNull();
    const { bytes, truncated } = await readBody(res, 1_000, 'error');
    expect(truncated).toBe(false);
    expect(JSON.parse(bytes.toString())).toEqual({ path: '/collected', method: 'POST' });
    const streamed: Buffer[] = [];
    for await (const chunk of res.body as AsyncIterable<Buffer>) streamed.push(chunk);
    expect(Buffer.concat(streamed).toString()).toBe(bytes.toString());
    expect(seen[0]).toMatchObject({ method: 'POST', body: '{"a":1}' });
  });

  it('keeps the connection for the next request', async () => {
    // undici takes a connection back one event-loop turn after an answer ends (so another test's may still be busy).
    await new Promise(setImmediate);
    await readBody(await request(at('/one'), { ...GET, collectUpTo: 1_000 }), 1_000, 'error');
    await new Promise(setImmediate);
    await readBody(await request(at('/two'), { ...GET, collectUpTo: 1_000 }), 1_000, 'error');
    expect(seen[1]?.remotePort).toBe(seen[0]?.remotePort);
  });

  it('keeps at most collectUpTo bytes: readBody says too_large, or gives the first maxBytes with truncate', async () => {
    const tooLarge = await readBody(await request(at('/big'), { ...GET, collectUpTo: 1_000 }), 1_000, 'error').catch((e: unknown) => e);
    expect(tooLarge).toMatchObject({ kind: 'too_large' });
    const cut = await readBody(await request(at('/big'), { ...GET, collectUpTo: 1_000 }), 1_000, 'truncate');
    expect(cut).toMatchObject({ truncated: true });
    expect(cut.bytes.toString()).toBe(`${'a'.repeat(600)}${'b'.repeat(400)}`);
    // A smaller limit than the one collected with applies to what was kept.
    const small = await readBody(await request(at('/big'), { ...GET, collectUpTo: 5_000 }), 700, 'truncate');
    expect(small.bytes.toString()).toBe(`${'a'.repeat(600)}${'b'.repeat(100)}`);
    expect(await readBody(await request(at('/big'), { ...GET, collectUpTo: 5_000 }), 700, 'error').catch((e: unknown) => e)).toMatchObject({ kind: 'too_large' });
  });

  it('a body cut after its headers fails readBody with kind network, as a streamed one does', async () => {
    const res = await request(at('/cut'), { ...GET, collectUpTo: 1_000 });
    expect(res.status).toBe(200);
    const err = await readBody(res, 1_000, 'error').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as OutboundError).kind).toBe('network');
  });

  it('times out on headers (rejects) and on the body (readBody), and a fired signal aborts before or after the headers', async () => {
    expect(await request(at('/slow'), { ...GET, timeoutMs: 50, collectUpTo: 1_000 }).catch((e: unknown) => e)).toMatchObject({ kind: 'timeout' });
    const slowBody = await request(at('/trickle'), { ...GET, timeoutMs: 600, collectUpTo: 1_000 });
    expect(await readBody(slowBody, 1_000, 'error').catch((e: unknown) => e)).toMatchObject({ kind: 'timeout' });

    const early = new AbortController();
    const pending = request(at('/slow'), { ...GET, signal: early.signal, collectUpTo: 1_000 });
    setTimeout(() => early.abort(), 30);
    expect(await pending.catch((e: unknown) => e)).toMatchObject({ kind: 'aborted' });

    const late = new AbortController();
    const trickling = request(at('/trickle'), { ...GET, signal: late.signal, collectUpTo: 1_000 });
    setTimeout(() => late.abort(), 100);
    const res = await trickling;
    expect(await readBody(res, 1_000, 'error').catch((e: unknown) => e)).toMatchObject({ kind: 'aborted' });

    const already = new AbortController();
    already.abort();
    expect(await request(at('/one'), { ...GET, signal: already.signal, collectUpTo: 1_000 }).catch((e: unknown) => e)).toMatchObject({ kind: 'aborted' });
  });
});
