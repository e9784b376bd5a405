import { FakeRoutes, bearerToken, startFakeServer } from './fake-server';

describe('fake server', () => {
  it('routes by method and path, with :name and *rest parameters, and records every request', async () => {
    const routes = new FakeRoutes()
      .route('GET', '/repos/:owner/:repo', (req) => ({ body: { owner: req.params.owner, repo: req.params.repo } }))
      .route('GET', '/files/*path', (req) => ({ body: { path: req.params.path } }))
      .route('POST', '/echo', (req) => ({ status: 201, body: req.json }));
    const server = await startFakeServer({ routes });
    try {
      expect(await (await fetch(`${server.url}/repos/octo/hello`)).json()).toEqual({ owner: 'octo', repo: 'hello' });
      expect(await (await fetch(`${server.url}/files/a/b/c.txt`)).json()).toEqual({ path: 'a/b/c.txt' });
      const echoed = await fetch(`${server.url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":1}' });
      expect(echoed.status).toBe(201);
      expect(await echoed.json()).toEqual({ x: 1 });
      const wrongMethod = await fetch(`${server.url}/echo`);
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.headers.get('allow')).toBe('POST');
      expect((await fetch(`${server.url}/nowhere`)).status).toBe(404);
      expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /repos/octo/hello', 'GET /files/a/b/c.txt', 'POST /echo', 'GET /echo', 'GET /nowhere']);
    } finally {
      await server.close();
    }
  });

  it('lets `before` answer first, for authentication and rate limits', async () => {
    const server = await startFakeServer({ routes: new FakeRoutes().route('GET', '/x', () => ({ body: 'ok' })), before: (req) => (bearerToken(req) === 'good' ? undefined : { status: 401, body: { message: 'Bad credentials' } }) });
    try {
      expect((await fetch(`${server.url}/x`)).status).toBe(401);
      expect((await fetch(`${server.url}/x`, { headers: { authorization: 'Bearer good' } })).status).toBe(200);
      expect((await fetch(`${server.url}/x`, { headers: { authorization: 'token good' } })).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('holds every answer until its latency has passed', async () => {
    // The latency is a gate the test opens itself, so nothing here depends on the clock.
    const gates: Array<() => void> = [];
    const server = await startFakeServer({ routes: new FakeRoutes().route('GET', '/x', () => ({ body: 'ok' })), latency: () => new Promise<void>((resolve) => gates.push(resolve)) });
    try {
      let answered = false;
      const pending = fetch(`${server.url}/x`).then(async (res) => {
        answered = true;
        return res.text();
      });
      while (gates.length === 0) await new Promise(setImmediate);
      // Turns of the event loop in which an answer sent without waiting would have arrived.
      for (let turn = 0; turn < 20; turn += 1) await new Promise(setImmediate);
      expect(answered).toBe(false);
      gates[0]!();
      expect(await pending).toBe('ok');
    } finally {
      await server.close();
    }
  });
});
