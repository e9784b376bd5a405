import express from 'express';
import Redis from 'ioredis';
import request from 'supertest';
import { SESSION_VERIFIER_LOCAL, VERIFIER_LOCAL, authenticate, principalOf } from './express';
import { hashAccessKey } from './keys';
import { SESSION_INVALIDATION_CHANNEL, SessionVerifier, csrfTokenFor, type MemberSessionPrincipal } from './session';
import { KEY_INVALIDATION_CHANNEL, KeyVerifier, publishKeyInvalidation } from './verifier';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ORIGIN = 'http://patchbay.test';

function session(overrides: Partial<MemberSessionPrincipal> = {}): MemberSessionPrincipal {
  return {
    keyId: '00000000-0000-4000-8000-000000000001',
    organizationId: '00000000-0000-4000-8000-0000000000aa',
    environment: 'test',
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    memberId: '00000000-0000-4000-8000-0000000000bb',
    userId: '00000000-0000-4000-8000-0000000000cc',
    email: 'ada@example.com',
    permissions: ['view_tool_packs'],
    organization: { id: '00000000-0000-4000-8000-0000000000aa', plan: 'free', monthlyCredits: 100, environmentMatching: false, mcpRateLimitPerMinute: 30, callbackOrigins: [] },
    lastSeenAtMs: Date.now(),
    idleTimeoutSeconds: 3600,
    ...overrides,
  };
}

/** A service's app with one read and one write route, as services wire them. */
function app(sessions: SessionVerifier) {
  const a = express();
  a.locals[VERIFIER_LOCAL] = new KeyVerifier({ loader: async () => null });
  a.locals[SESSION_VERIFIER_LOCAL] = sessions;
  a.get('/packs', authenticate('management:all', { permission: 'view_tool_packs' }), (req, res) => {
    const p = principalOf(req);
    res.json({ organizationId: p.organizationId, environment: p.environment, member: p.member?.memberId });
  });
  a.post('/packs', authenticate('management:all', { permission: 'manage_tool_packs' }), (_req, res) => res.status(201).end());
  a.post('/keys-only', authenticate('runtime:all'), (_req, res) => res.status(200).end());
  a.use((err: { status?: number; message: string }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(err.status ?? 500).json({ detail: err.message });
  });
  return a;
}

describe('members\' sessions in packages/auth', () => {
  const token = 'session-token-of-ada';
  const cookie = `patchbay_session=${token}`;

  it('a session acts as a key of its organization and environment, with the member named', async () => {
    const verifier = new SessionVerifier({ loader: async (hash) => (hash === hashAccessKey(token) ? session() : null), publicBaseUrl: ORIGIN });
    const res = await request(app(verifier)).get('/packs').set('Cookie', cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ organizationId: session().organizationId, environment: 'test', member: session().memberId });
    expect((await request(app(verifier)).get('/packs').set('Cookie', 'patchbay_session=unknown')).status).toBe(401);
  });

  it('answers 403 naming the permission and its display name when the roles lack it', async () => {
    const verifier = new SessionVerifier({ loader: async () => session(), publicBaseUrl: ORIGIN });
    const res = await request(app(verifier)).post('/packs').set({ Cookie: cookie, Origin: ORIGIN, 'X-CSRF-Token': csrfTokenFor(token) });
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe('This needs the permission manage_tool_packs (Manage tool packs), which your roles do not grant. Ask an admin of the organization.');
  });

  it('a state-changing request needs the anti-forgery token and Patchbay\'s own Origin; a read needs neither', async () => {
    const verifier = new SessionVerifier({ loader: async () => session({ permissions: ['manage_tool_packs', 'view_tool_packs'] }), publicBaseUrl: ORIGIN });
    const a = app(verifier);
    expect((await request(a).post('/packs').set({ Cookie: cookie, Origin: ORIGIN, 'X-CSRF-Token': csrfTokenFor(token) })).status).toBe(201);
    expect((await request(a).post('/packs').set({ Cookie: cookie, Origin: ORIGIN })).status).toBe(403);
    expect((await request(a).post('/packs').set({ Cookie: cookie, Origin: ORIGIN, 'X-CSRF-Token': csrfTokenFor('another session') })).status).toBe(403);
    expect((await request(a).post('/packs').set({ Cookie: cookie, Origin: 'https://evil.example', 'X-CSRF-Token': csrfTokenFor(token) })).status).toBe(403);
    expect((await request(a).post('/packs').set({ Cookie: cookie, 'X-CSRF-Token': csrfTokenFor(token) })).status).toBe(403);
    expect((await request(a).get('/packs').set({ Cookie: cookie })).status).toBe(200);
  });

  it('a route that names no permission takes keys only; a bearer key decides over a cookie', async () => {
    const verifier = new SessionVerifier({ loader: async () => session({ permissions: ['manage_tool_packs'] }), publicBaseUrl: ORIGIN });
    const keysOnly = await request(app(verifier)).post('/keys-only').set({ Cookie: cookie, Origin: ORIGIN, 'X-CSRF-Token': csrfTokenFor(token) });
    expect(keysOnly.status).toBe(401);
    expect(keysOnly.body.detail).toMatch(/console sessions cannot call it/);
    const withKey = await request(app(verifier)).get('/packs').set({ Cookie: cookie, Authorization: 'Bearer pb_live_unknown' });
    expect(withKey.status).toBe(401);
  });

  it('asks again when the cached last use is older than the touch interval, so the idle timeout counts every service', async () => {
    let now = Date.now();
    let loads = 0;
    const verifier = new SessionVerifier({ loader: async () => { loads += 1; return session({ lastSeenAtMs: now - 1000 }); }, now: () => now });
    await verifier.verify(token);
    await verifier.verify(token);
    expect(loads).toBe(1);
    now += 61_000;
    await verifier.verify(token);
    expect(loads).toBe(2);
  });

  it('drops a session on the sessions channel and an organization\'s sessions on the keys\' channel, within a second', async () => {
    const subscriber = new Redis(redisUrl);
    const publisher = new Redis(redisUrl);
    let permissions = ['view_tool_packs'];
    const verifier = new SessionVerifier({ loader: async () => session({ permissions }) });
    try {
      await verifier.subscribe(subscriber);
      expect((await verifier.verify(token)).permissions).toEqual(['view_tool_packs']);
      permissions = [];
      expect((await verifier.verify(token)).permissions).toEqual(['view_tool_packs']);
      await publishKeyInvalidation(publisher, { keyId: session().keyId }, SESSION_INVALIDATION_CHANNEL);
      const published = Date.now();
      while ((await verifier.verify(token)).permissions.length > 0) {
        if (Date.now() - published > 1000) throw new Error('the session was not dropped within a second');
        await new Promise((r) => setTimeout(r, 10));
      }
      permissions = ['view_members'];
      await publishKeyInvalidation(publisher, { organizationId: session().organizationId }, KEY_INVALIDATION_CHANNEL);
      const orgPublished = Date.now();
      while (!(await verifier.verify(token)).permissions.includes('view_members')) {
        if (Date.now() - orgPublished > 1000) throw new Error("the organization's sessions were not dropped within a second");
        await new Promise((r) => setTimeout(r, 10));
      }
    } finally {
      await verifier.close();
      publisher.disconnect();
    }
  });
});
