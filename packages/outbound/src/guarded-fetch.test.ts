import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BlockedDestinationError } from './blocked-destination-error';
import type { HostLookup } from './check-url';
import { createGuardedFetch } from './guarded-fetch';

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
      const to = url.searchParams.get('to');
      if (url.pathname === '/redirect' && to) {
        res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: to });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: url.pathname }));
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

/** Expects the fetch to be refused and returns the BlockedDestinationError given as its cause. */
async function refused(promise: Promise<unknown>): Promise<BlockedDestinationError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(TypeError);
    const cause = (err as TypeError).cause;
    expect(cause).toBeInstanceOf(BlockedDestinationError);
    return cause as BlockedDestinationError;
  }
  throw new Error('expected the fetch to be refused');
}

const loopbackDns: HostLookup = async () => [{ address: '127.0.0.1', family: 4 }];

describe('createGuardedFetch', () => {
  it('refuses 127.0.0.1 by default, before any connection is made', async () => {
    const guarded = createGuardedFetch({ allowPrivateNetwork: false }, { requireHttps: false });
    const err = await refused(guarded(`http://127.0.0.1:${port}/secret`));
    expect(err.reason).toBe('private_address');
    expect((await refused(guarded(`http://localhost:${port}/secret`))).reason).toBe('private_address');
    expect(seen).toHaveLength(0);
  });

  it('refuses http:// by default and https:// to a private address', async () => {
    const guarded = createGuardedFetch({ allowPrivateNetwork: false });
    expect((await refused(guarded(`http://127.0.0.1:${port}/`))).reason).toBe('scheme');
    expect((await refused(guarded(`https://127.0.0.1:${port}/`))).reason).toBe('private_address');
    expect((await refused(guarded(`https://user:pw@127.0.0.1:${port}/`))).reason).toBe('credentials_in_url');
    expect(seen).toHaveLength(0);
  });

  it('reaches 127.0.0.1 with allowPrivateNetwork (local development)', async () => {
    const guarded = createGuardedFetch({ allowPrivateNetwork: true });
    const res = await guarded(`http://127.0.0.1:${port}/hello`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path: '/hello' });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/hello', body: '{"a":1}' });
  });

  it('accepts a Request as input', async () => {
    const guarded = createGuardedFetch({ allowPrivateNetwork: true });
    const res = await guarded(new Request(`http://127.0.0.1:${port}/from-request`, { method: 'PUT', body: 'x', headers: { 'x-test': '1' } }));
    expect(res.status).toBe(200);
    expect(seen[0]).toMatchObject({ method: 'PUT', url: '/from-request', body: 'x', headers: expect.objectContaining({ 'x-test': '1' }) });
    await expect(createGuardedFetch({ allowPrivateNetwork: false })(new Request(`http://127.0.0.1:${port}/`))).rejects.toThrow('fetch failed');
  });

  it('defeats DNS rebinding: the address is checked again when the connection is opened', async () => {
    // The first answer (for the check) is public; every later one (at connection time) is loopback.
    let calls = 0;
    const rebinding: HostLookup = async () => (++calls === 1 ? [{ address: '93.184.215.14', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]);
    const guarded = createGuardedFetch({ allowPrivateNetwork: false }, { requireHttps: false, lookup: rebinding });
    const err = await refused(guarded(`http://rebind.example.com:${port}/secret`));
    expect(err.reason).toBe('private_address');
    expect(err.host).toBe('rebind.example.com');
    expect(calls).toBe(2);
    expect(seen).toHaveLength(0);
  });

  it('connects to the address its own lookup answered at connection time', async () => {
    // rebind.example.com exists only in this lookup: reaching the server proves the connection used it.
    const guarded = createGuardedFetch({ allowPrivateNetwork: true }, { lookup: loopbackDns });
    const res = await guarded(`http://rebind.example.com:${port}/via-lookup`);
    expect(res.status).toBe(200);
    expect(seen[0]?.headers.host).toBe(`rebind.example.com:${port}`);
  });

  it('keeps connections alive and reuses them', async () => {
    const guarded = createGuardedFetch({ allowPrivateNetwork: true });
    await (await guarded(`http://127.0.0.1:${port}/one`)).text();
    // undici returns the socket to the pool just after the body ends; one event-loop turn lets it.
    await new Promise(setImmediate);
    await (await guarded(`http://127.0.0.1:${port}/two`)).text();
    expect(seen).toHaveLength(2);
    expect(seen[1]?.remotePort).toBe(seen[0]?.remotePort);
  });

  it('follows redirects, checking every hop, and drops credentials when the origin changes', async () => {
    const guarded = createGuardedFetch({ allowPrivateNetwork: true }, { lookup: loopbackDns });
    const to = encodeURIComponent(`http://other.example.com:${port}/landed`);
    const res = await guarded(`http://127.0.0.1:${port}/redirect?status=303&to=${to}`, { method: 'POST', body: 'payload', headers: { authorization: 'Bearer secret', 'content-type': 'text/plain' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path: '/landed' });
    expect(seen.map((s) => [s.method, s.url])).toEqual([
      ['POST', `/redirect?status=303&to=${to}`],
      ['GET', '/landed'],
    ]);
    expect(seen[1]?.headers.authorization).toBeUndefined();
    expect(seen[1]?.headers['content-type']).toBeUndefined();
    expect(seen[1]?.body).toBe('');
  });

  it('keeps the method and body on a 307 to the same origin', async () => {
    const guarded = createGuardedFetch({ allowPrivateNetwork: true });
    const to = encodeURIComponent('/kept');
    await guarded(`http://127.0.0.1:${port}/redirect?status=307&to=${to}`, { method: 'PUT', body: 'same', headers: { authorization: 'Bearer secret' } });
    expect(seen[1]).toMatchObject({ method: 'PUT', url: '/kept', body: 'same', headers: expect.objectContaining({ authorization: 'Bearer secret' }) });
  });

  it('refuses a redirect to a blocked destination', async () => {
    const guarded = createGuardedFetch({ allowPrivateNetwork: true });
    const toCredentials = encodeURIComponent(`http://admin:pw@127.0.0.1:${port}/landed`);
    expect((await refused(guarded(`http://127.0.0.1:${port}/redirect?to=${toCredentials}`))).reason).toBe('credentials_in_url');
    const toFile = encodeURIComponent('file:///etc/passwd');
    expect((await refused(guarded(`http://127.0.0.1:${port}/redirect?to=${toFile}`))).reason).toBe('scheme');
    expect(seen.map((s) => new URL(s.url, 'http://x').pathname)).toEqual(['/redirect', '/redirect']);
  });

  it('returns the redirect itself with redirect: manual, and fails with redirect: error', async () => {
    const guarded = createGuardedFetch({ allowPrivateNetwork: true });
    const to = encodeURIComponent('http://169.254.169.254/latest/meta-data');
    const res = await guarded(`http://127.0.0.1:${port}/redirect?to=${to}`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('http://169.254.169.254/latest/meta-data');
    await expect(guarded(`http://127.0.0.1:${port}/redirect?to=${to}`, { redirect: 'error' })).rejects.toThrow('fetch failed');
    expect(seen).toHaveLength(2);
  });
});
