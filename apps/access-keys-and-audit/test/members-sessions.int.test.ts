import { randomUUID } from 'node:crypto';
import { KeyVerifier } from '@patchbay/auth';
import { createLogger, createRedis, createRedisSubscriber } from '@patchbay/service-kit';
import { PERMISSION_CODENAMES } from '@patchbay/permissions';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../src/app';
import { SESSION_INVALIDATION_CHANNEL, loadSessionByHash, type SessionPrincipal } from '../src/domain/members/session-principal';
import { MemberService } from '../src/domain/members/members';
import { TEST_REDIS_URL, TEST_SERVICE_TOKEN } from './env';
import { newOrganization, startHarness, waitFor, type Harness } from './harness';

const ORIGIN = 'http://patchbay.test';
const PASSWORD = 'correct horse battery';

/** A browser: its cookie jar (the session cookie), the anti-forgery token, and a client address of its own. */
class Browser {
  cookie: string | undefined;
  csrf: string | undefined;
  readonly address = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
  constructor(private readonly app: Express) {}

  private headers(extra: Record<string, string | undefined> = {}): Record<string, string> {
    const h: Record<string, string | undefined> = { 'X-Forwarded-For': this.address, Origin: ORIGIN, 'X-CSRF-Token': this.csrf, Cookie: this.cookie ? `patchbay_session=${this.cookie}` : undefined, ...extra };
    return Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>;
  }

  private keep(res: request.Response): request.Response {
    const set = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    for (const c of set) {
      const m = /^patchbay_session=([^;]*)/.exec(c);
      if (m) this.cookie = m[1] === '' ? undefined : m[1];
    }
    if (res.body?.csrf_token) this.csrf = res.body.csrf_token as string;
    return res;
  }

  async get(path: string, extra?: Record<string, string | undefined>) {
    return this.keep(await request(this.app).get(path).set(this.headers(extra)));
  }
  async post(path: string, body: object = {}, extra?: Record<string, string | undefined>) {
    return this.keep(await request(this.app).post(path).set(this.headers(extra)).send(body));
  }
  async patch(path: string, body: object, extra?: Record<string, string | undefined>) {
    return this.keep(await request(this.app).patch(path).set(this.headers(extra)).send(body));
  }
  async delete(path: string, extra?: Record<string, string | undefined>) {
    return this.keep(await request(this.app).delete(path).set(this.headers(extra)));
  }
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ publicBaseUrl: ORIGIN, signInThrottle: { maxFailuresPerAccount: 3, maxFailuresPerAddress: 50, failureWindowSeconds: 600, lockoutSeconds: 900 }, sessionSettings: { idleTimeoutSeconds: 3600, absoluteTimeoutSeconds: 86_400 } });
});
afterAll(async () => {
  await h.close();
});

function members(): MemberService {
  return (h.app.locals.services as { members: MemberService }).members;
}

const email = (label: string) => `${label}-${randomUUID().slice(0, 8)}@Example.com`;

/** A new organization with an owner signed in through the owner-setup link. */
async function orgWithOwner(): Promise<{ orgId: string; owner: Browser; ownerEmail: string }> {
  const org = await newOrganization(h.db);
  const link = await members().ownerSetupLink(org.organization_id, ORIGIN);
  const owner = new Browser(h.app);
  const ownerEmail = email('owner');
  const res = await owner.post('/api/v1/invitations/accept', { token: link.token, name: 'Olive Owner', password: PASSWORD, email: ownerEmail });
  expect(res.status).toBe(200);
  return { orgId: org.organization_id, owner, ownerEmail };
}

/** Invites a person with roles through the API and has them accept; returns their signed-in browser. */
async function inviteAndJoin(owner: Browser, roleIds: string[], name = 'Dev Eloper'): Promise<{ browser: Browser; memberId: string; email: string }> {
  const address = email('member');
  const invited = await owner.post('/api/v1/members', { email: address, role_ids: roleIds });
  expect(invited.status).toBe(201);
  const browser = new Browser(h.app);
  const joined = await browser.post('/api/v1/invitations/accept', { token: invited.body.invitation.token, name, password: PASSWORD });
  expect(joined.status).toBe(200);
  return { browser, memberId: invited.body.member.id as string, email: address };
}

describe('owner setup and invitations', () => {
  test('the owner-setup link makes its user the owner, signed in with every permission; it works once', async () => {
    const org = await newOrganization(h.db);
    const link = await members().ownerSetupLink(org.organization_id, ORIGIN);
    expect(link.url).toBe(`${ORIGIN}/console/setup#token=${link.token}`);
    const browser = new Browser(h.app);
    const accepted = await browser.post('/api/v1/invitations/accept', { token: link.token, name: 'Olive', password: PASSWORD, email: email('first') });
    expect(accepted.status).toBe(200);
    expect(accepted.body.member.is_owner).toBe(true);
    expect(accepted.body.organization.id).toBe(org.organization_id);
    expect(accepted.body.permissions).toEqual([...PERMISSION_CODENAMES]);
    const again = await new Browser(h.app).post('/api/v1/invitations/accept', { token: link.token, name: 'Mallory', password: PASSWORD, email: email('second') });
    expect(again.status).toBe(404);
    expect(again.body.detail).toMatch(/already used/);
    await expect(members().ownerSetupLink(org.organization_id, ORIGIN)).rejects.toThrow(/already has its owner/);
  });

  test('an invitation expires after 7 days', async () => {
    const { owner } = await orgWithOwner();
    const invited = await owner.post('/api/v1/members', { email: email('late'), role_ids: ['developer'] });
    h.clock.advance(7 * 86_400_000 + 1000);
    try {
      const res = await new Browser(h.app).post('/api/v1/invitations/accept', { token: invited.body.invitation.token, name: 'Late', password: PASSWORD });
      expect(res.status).toBe(404);
      expect(res.body.detail).toMatch(/expired/);
    } finally {
      h.clock.advance(-(7 * 86_400_000 + 1000));
    }
  });

  test('invitations are stored as SHA-256 hashes only', async () => {
    const { owner, orgId } = await orgWithOwner();
    const invited = await owner.post('/api/v1/members', { email: email('hash'), role_ids: ['read_only'] });
    const rows = await h.db.invitation.findMany({ where: { organizationId: orgId } });
    expect(rows.some((r) => r.tokenHash === invited.body.invitation.token)).toBe(false);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.tokenHash))).toBe(true);
  });
});

describe('sign-in and the session cookie', () => {
  test('sign-in sets an HttpOnly, SameSite=Lax, Path=/ cookie, Secure when the edge says https', async () => {
    const { ownerEmail } = await orgWithOwner();
    const plain = await new Browser(h.app).post('/api/v1/session', { email: ownerEmail, password: PASSWORD });
    expect(plain.status).toBe(200);
    const cookie = ([] as string[]).concat(plain.headers['set-cookie'] ?? []).find((c) => c.startsWith('patchbay_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/);
    const secure = await new Browser(h.app).post('/api/v1/session', { email: ownerEmail.toUpperCase(), password: PASSWORD }, { 'X-Forwarded-Proto': 'https' });
    expect(secure.status).toBe(200);
    expect(([] as string[]).concat(secure.headers['set-cookie'] ?? []).find((c) => c.startsWith('patchbay_session='))).toMatch(/; Secure/);
    // The token is in the cookie only, never in the body a script reads.
    expect(JSON.stringify(secure.body)).not.toContain(cookie.slice('patchbay_session='.length, cookie.indexOf(';')));
  });

  test('sign-in rotates the session: a cookie planted before sign-in is never the signed-in session (no fixation)', async () => {
    const { ownerEmail } = await orgWithOwner();
    const victim = new Browser(h.app);
    const attacker = new Browser(h.app);
    const planted = await attacker.post('/api/v1/session', { email: ownerEmail, password: PASSWORD });
    expect(planted.status).toBe(200);
    victim.cookie = attacker.cookie;
    const signedIn = await victim.post('/api/v1/session', { email: ownerEmail, password: PASSWORD });
    expect(signedIn.status).toBe(200);
    expect(victim.cookie).not.toBe(attacker.cookie);
    expect((await attacker.get('/api/v1/session')).status).toBe(401);
    expect((await victim.get('/api/v1/session')).status).toBe(200);
    expect(await h.db.session.count({ where: { tokenHash: victim.cookie! } })).toBe(0);
  });

  test('a wrong password and an unknown email get the same 401', async () => {
    const { ownerEmail } = await orgWithOwner();
    const wrong = await new Browser(h.app).post('/api/v1/session', { email: ownerEmail, password: 'not the password' });
    const unknown = await new Browser(h.app).post('/api/v1/session', { email: email('nobody'), password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.detail).toBe(unknown.body.detail);
  });

  test('repeated failures lock the account with a 429 that says when to retry, and audit member.locked_out', async () => {
    const { ownerEmail, orgId } = await orgWithOwner();
    const browser = new Browser(h.app);
    expect((await browser.post('/api/v1/session', { email: ownerEmail, password: 'wrong one!!' })).status).toBe(401);
    expect((await browser.post('/api/v1/session', { email: ownerEmail, password: 'wrong two!!' })).status).toBe(401);
    const third = await browser.post('/api/v1/session', { email: ownerEmail, password: 'wrong three' });
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBe('900');
    expect(third.body.detail).toMatch(/locked until \d\d:\d\d UTC \(in 15 minutes\)/);
    // Even the right password waits, from another address too.
    const right = await new Browser(h.app).post('/api/v1/session', { email: ownerEmail, password: PASSWORD });
    expect(right.status).toBe(429);
    const failures = () => h.db.auditEvent.findMany({ where: { organizationId: orgId, eventType: { in: ['member.sign_in_failed', 'member.locked_out'] } } });
    // Recorded after the answer, so a known email answers as fast as an unknown one.
    await waitFor(async () => (await failures()).length === 4);
    const events = await failures();
    expect(events.filter((e) => e.eventType === 'member.sign_in_failed')).toHaveLength(3);
    expect(events.filter((e) => e.eventType === 'member.locked_out')).toHaveLength(1);
  });

  test('repeated failures from one address lock that address out', async () => {
    const local = await startHarness({ publicBaseUrl: ORIGIN, signInThrottle: { maxFailuresPerAccount: 100, maxFailuresPerAddress: 2, failureWindowSeconds: 600, lockoutSeconds: 60 } });
    try {
      const browser = new Browser(local.app);
      expect((await browser.post('/api/v1/session', { email: email('a'), password: 'whatever!!' })).status).toBe(401);
      const second = await browser.post('/api/v1/session', { email: email('b'), password: 'whatever!!' });
      expect(second.status).toBe(429);
      expect(second.body.detail).toMatch(/your address/);
    } finally {
      await local.close();
    }
  });

  test('GET /api/v1/session without a session is 401; sign-out ends the session', async () => {
    const { owner } = await orgWithOwner();
    expect((await new Browser(h.app).get('/api/v1/session')).status).toBe(401);
    const session = await owner.get('/api/v1/session');
    expect(session.status).toBe(200);
    expect(session.body.csrf_token).toEqual(expect.any(String));
    const token = owner.cookie;
    expect((await owner.delete('/api/v1/session')).status).toBe(204);
    owner.cookie = token;
    expect((await owner.get('/api/v1/session')).status).toBe(401);
  });

  test('a session idle past its idle timeout ends', async () => {
    const { owner } = await orgWithOwner();
    h.clock.advance(3600_000 + 1000);
    try {
      const res = await owner.get('/api/v1/session');
      expect(res.status).toBe(401);
      expect(res.body.detail).toMatch(/inactivity/);
    } finally {
      h.clock.advance(-(3600_000 + 1000));
    }
  });

  test('activity keeps a session alive, the absolute timeout ends it anyway', async () => {
    const { owner } = await orgWithOwner();
    let moved = 0;
    try {
      for (let i = 0; i < 30; i += 1) {
        h.clock.advance(3000_000);
        moved += 3000_000;
        const res = await owner.get('/api/v1/session');
        if (moved < 86_400_000) expect(res.status).toBe(200);
        else expect(res.status).toBe(401);
      }
      expect(moved).toBeGreaterThan(86_400_000);
    } finally {
      h.clock.advance(-moved);
    }
  });
});

describe('cross-site request forgery', () => {
  test('a state-changing request needs the anti-forgery token and the console\'s Origin', async () => {
    const { owner } = await orgWithOwner();
    const noToken = await owner.delete('/api/v1/session', { 'X-CSRF-Token': undefined });
    expect(noToken.status).toBe(403);
    expect(noToken.body.detail).toMatch(/X-CSRF-Token/);
    const wrongToken = await owner.delete('/api/v1/session', { 'X-CSRF-Token': 'x'.repeat(43) });
    expect(wrongToken.status).toBe(403);
    const crossSite = await owner.delete('/api/v1/session', { Origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.detail).toMatch(/Cross-site request refused/);
    const noOrigin = await owner.delete('/api/v1/session', { Origin: undefined });
    expect(noOrigin.status).toBe(403);
    const sameOriginFetch = await owner.post('/api/v1/session/environment', { environment: 'test' }, { Origin: undefined, 'Sec-Fetch-Site': 'same-origin' });
    expect(sameOriginFetch.status).toBe(200);
    expect(sameOriginFetch.body.environment).toBe('test');
  });

  test('a cross-site sign-in POST is refused', async () => {
    const { ownerEmail } = await orgWithOwner();
    const res = await new Browser(h.app).post('/api/v1/session', { email: ownerEmail, password: PASSWORD }, { Origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
  });
});

describe('sessions of a member', () => {
  test('a member lists their sessions and signs out everywhere else', async () => {
    const { owner, ownerEmail } = await orgWithOwner();
    const laptop = new Browser(h.app);
    expect((await laptop.post('/api/v1/session', { email: ownerEmail, password: PASSWORD }, { 'User-Agent': 'Laptop/1.0' })).status).toBe(200);
    const list = await owner.get('/api/v1/session/all');
    expect(list.status).toBe(200);
    expect(list.body.results).toHaveLength(2);
    expect(list.body.results.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    expect(list.body.results.some((s: { user_agent: string }) => s.user_agent === 'Laptop/1.0')).toBe(true);
    const ended = await owner.delete('/api/v1/session/all');
    expect(ended.status).toBe(200);
    expect(ended.body.sessions_ended).toBe(1);
    expect((await laptop.get('/api/v1/session')).status).toBe(401);
    expect((await owner.get('/api/v1/session')).status).toBe(200);
  });

  test('switching environment and organization', async () => {
    const { owner, ownerEmail } = await orgWithOwner();
    const second = await newOrganization(h.db);
    await members().invite({ kind: 'admin_cli' }, second.organization_id, { email: ownerEmail, role_ids: ['read_only'] }, ORIGIN);
    const env = await owner.post('/api/v1/session/environment', { environment: 'test' });
    expect(env.body.environment).toBe('test');
    expect((await owner.post('/api/v1/session/environment', { environment: 'staging' })).status).toBe(400);
    // Not yet a member there (invited only): 404.
    expect((await owner.post('/api/v1/session/organization', { organization_id: second.organization_id })).status).toBe(404);
  });
});

describe('members and roles', () => {
  test('a Developer may view members but not manage them: 403 naming the permission', async () => {
    const { owner } = await orgWithOwner();
    const dev = await inviteAndJoin(owner, ['developer']);
    const list = await dev.browser.get('/api/v1/members');
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(2);
    const invite = await dev.browser.post('/api/v1/members', { email: email('x'), role_ids: ['admin'] });
    expect(invite.status).toBe(403);
    expect(invite.body.detail).toMatch(/manage_members \(Manage members\)/);
    const role = await dev.browser.post('/api/v1/roles', { name: 'Mine', permissions: [] });
    expect(role.status).toBe(403);
    expect(role.body.detail).toMatch(/manage_roles/);
    expect((await dev.browser.get('/api/v1/roles')).status).toBe(200);
  });

  test('members are listed with search and page-number pagination', async () => {
    const { owner } = await orgWithOwner();
    await owner.post('/api/v1/members', { email: email('zed'), role_ids: ['read_only'] });
    await owner.post('/api/v1/members', { email: email('yan'), role_ids: ['read_only'] });
    const page = await owner.get('/api/v1/members?page_size=2');
    expect(page.body.count).toBe(3);
    expect(page.body.results).toHaveLength(2);
    expect(page.body.next).toContain(`${ORIGIN}/api/v1/members?page_size=2&page=2`);
    const search = await owner.get('/api/v1/members?search=ZED');
    expect(search.body.count).toBe(1);
    expect(search.body.results[0].status).toBe('invited');
  });

  test('disabling a member ends their sessions, in another process too, within a second', async () => {
    const { owner } = await orgWithOwner();
    const dev = await inviteAndJoin(owner, ['developer']);
    // A second replica of the service with its own session cache, fed by pub/sub.
    const logger = createLogger('test', 'silent');
    const otherVerifier = new KeyVerifier<SessionPrincipal>({ loader: (hash) => loadSessionByHash(h.db, hash), channel: SESSION_INVALIDATION_CHANNEL, now: h.clock.now });
    await otherVerifier.subscribe(createRedisSubscriber(TEST_REDIS_URL));
    const redis = createRedis(TEST_REDIS_URL);
    const other = createApp({ db: h.db, redis, logger, serviceToken: TEST_SERVICE_TOKEN, sessionVerifier: otherVerifier, publicBaseUrl: ORIGIN });
    try {
      const replica = new Browser(other.app);
      replica.cookie = dev.browser.cookie;
      expect((await replica.get('/api/v1/session')).status).toBe(200);
      expect(otherVerifier.size).toBe(1);
      const disabled = await owner.patch(`/api/v1/members/${dev.memberId}`, { status: 'disabled' });
      expect(disabled.status).toBe(200);
      expect(disabled.body.status).toBe('disabled');
      expect((await dev.browser.get('/api/v1/session')).status).toBe(401);
      await waitFor(() => otherVerifier.size === 0, 1000);
      expect((await replica.get('/api/v1/session')).status).toBe(401);
      // And they cannot sign in again while disabled.
      expect((await new Browser(h.app).post('/api/v1/session', { email: dev.email, password: PASSWORD })).status).toBe(403);
    } finally {
      await otherVerifier.close();
      redis.disconnect();
    }
  });

  test('removing a member ends their sessions and is audited with the member as actor', async () => {
    const { owner, orgId } = await orgWithOwner();
    const me = (await owner.get('/api/v1/session')).body.member.id as string;
    const dev = await inviteAndJoin(owner, ['developer']);
    expect((await owner.delete(`/api/v1/members/${dev.memberId}`)).status).toBe(204);
    expect((await dev.browser.get('/api/v1/session')).status).toBe(401);
    const removed = await h.db.auditEvent.findFirst({ where: { organizationId: orgId, eventType: 'member.removed' } });
    expect(removed).toMatchObject({ actorType: 'member', actorMemberId: me, resourceId: dev.memberId });
    const invited = await h.db.auditEvent.findFirst({ where: { organizationId: orgId, eventType: 'member.invited' } });
    expect(invited).toMatchObject({ actorType: 'member', actorMemberId: me });
    const signedIn = await h.db.auditEvent.findMany({ where: { organizationId: orgId, eventType: 'member.signed_in' } });
    expect(signedIn.length).toBeGreaterThanOrEqual(2);
  });

  test('the owner cannot be removed, disabled or demoted', async () => {
    const { owner } = await orgWithOwner();
    const ownerId = (await owner.get('/api/v1/session')).body.member.id as string;
    const admin = await inviteAndJoin(owner, ['admin']);
    const removed = await admin.browser.delete(`/api/v1/members/${ownerId}`);
    expect(removed.status).toBe(400);
    expect(removed.body.detail).toMatch(/owner cannot be removed/);
    expect((await admin.browser.patch(`/api/v1/members/${ownerId}`, { status: 'disabled' })).status).toBe(400);
    const demoted = await admin.browser.patch(`/api/v1/members/${ownerId}`, { role_ids: ['read_only'] });
    expect(demoted.status).toBe(400);
    expect(demoted.body.detail).toMatch(/owner cannot be demoted/);
  });

  test('a role change takes effect on the member\'s next request', async () => {
    const { owner } = await orgWithOwner();
    const member = await inviteAndJoin(owner, ['read_only']);
    expect((await member.browser.post('/api/v1/members', { email: email('y'), role_ids: ['read_only'] })).status).toBe(403);
    const changed = await owner.patch(`/api/v1/members/${member.memberId}`, { role_ids: ['admin'] });
    expect(changed.status).toBe(200);
    expect(changed.body.roles).toEqual([{ id: 'admin', name: 'Admin', built_in: true }]);
    expect((await member.browser.post('/api/v1/members', { email: email('y'), role_ids: ['read_only'] })).status).toBe(201);
  });

  test('custom roles: made of catalog permissions only, grant them to members, deleted roles are dropped', async () => {
    const { owner } = await orgWithOwner();
    const bad = await owner.post('/api/v1/roles', { name: 'Bad', permissions: ['view_members', 'fly_to_moon'] });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/fly_to_moon/);
    expect((await owner.post('/api/v1/roles', { name: 'admin', permissions: [] })).status).toBe(400);
    const role = await owner.post('/api/v1/roles', { name: 'Recruiter', permissions: ['manage_members', 'view_members', 'manage_keys'] });
    expect(role.status).toBe(201);
    expect(role.body.permissions).toEqual(['view_members', 'manage_members', 'manage_api_keys']);
    expect((await owner.post('/api/v1/roles', { name: 'RECRUITER', permissions: [] })).status).toBe(409);
    const recruiter = await inviteAndJoin(owner, [role.body.id]);
    expect((await recruiter.browser.post('/api/v1/members', { email: email('r'), role_ids: [role.body.id] })).status).toBe(201);
    expect((await owner.patch(`/api/v1/roles/${role.body.id}`, { permissions: ['view_members'] })).status).toBe(200);
    const after403 = await recruiter.browser.post('/api/v1/members', { email: email('r'), role_ids: [role.body.id] });
    expect(after403.status).toBe(403);
    expect(after403.body.detail).toMatch(/manage_members/);
    expect((await owner.delete(`/api/v1/roles/${role.body.id}`)).status).toBe(204);
    const after = await owner.get(`/api/v1/members/${recruiter.memberId}`);
    expect(after.body.roles).toEqual([]);
    expect((await owner.patch('/api/v1/roles/admin', { permissions: [] })).status).toBe(400);
    const list = await owner.get('/api/v1/roles');
    expect(list.body.results.map((r: { id: string }) => r.id).slice(0, 4)).toEqual(['admin', 'developer', 'security', 'read_only']);
  });

  test('the permission catalog is served for the console\'s matrix', async () => {
    const { owner } = await orgWithOwner();
    const res = await owner.get('/api/v1/permissions');
    expect(res.status).toBe(200);
    expect(res.body.results.map((p: { codename: string }) => p.codename)).toEqual([...PERMISSION_CODENAMES]);
    expect(res.body.results.find((p: { codename: string }) => p.codename === 'manage_access_keys').display_name).toBe('Manage organization API keys');
  });

  test('bad input is a 400 that names the field', async () => {
    const { owner } = await orgWithOwner();
    const noRole = await owner.post('/api/v1/members', { email: email('n'), role_ids: [] });
    expect(noRole.status).toBe(400);
    const badEmail = await owner.post('/api/v1/members', { email: 'not-an-email', role_ids: ['admin'] });
    expect(badEmail.status).toBe(400);
    const unknownRole = await owner.post('/api/v1/members', { email: email('n'), role_ids: ['superuser'] });
    expect(unknownRole.status).toBe(400);
    expect(JSON.stringify(unknownRole.body)).toMatch(/superuser/);
    const shortPassword = await owner.post('/api/v1/members', { email: email('p'), role_ids: ['admin'] });
    const accept = await new Browser(h.app).post('/api/v1/invitations/accept', { token: shortPassword.body.invitation.token, name: 'P', password: 'short' });
    expect(accept.status).toBe(400);
    expect(JSON.stringify(accept.body)).toMatch(/at least 10 characters/);
    expect((await owner.get('/api/v1/members/not-a-uuid')).status).toBe(404);
  });
});

describe('the last member able to manage members', () => {
  test('cannot remove that ability from themselves; once another holds it, they can', async () => {
    // An organization whose members were invited by the CLI before any owner: nobody holds every permission.
    const org = await newOrganization(h.db);
    const joinByCli = async (roleIds: string[]) => {
      const invited = await members().invite({ kind: 'admin_cli' }, org.organization_id, { email: email('cli'), role_ids: roleIds }, ORIGIN);
      const browser = new Browser(h.app);
      expect((await browser.post('/api/v1/invitations/accept', { token: invited.invitation.token, name: 'Member', password: PASSWORD })).status).toBe(200);
      return { browser, memberId: invited.member.id, email: invited.member.email };
    };
    const admin = await joinByCli(['admin']);
    const reader = await joinByCli(['read_only']);
    const demoteSelf = await admin.browser.patch(`/api/v1/members/${admin.memberId}`, { role_ids: ['read_only'] });
    expect(demoteSelf.status).toBe(400);
    expect(demoteSelf.body.detail).toMatch(/no active member able to manage members \(manage_members\)/);
    expect((await admin.browser.patch(`/api/v1/members/${reader.memberId}`, { role_ids: ['admin'] })).status).toBe(200);
    expect((await admin.browser.patch(`/api/v1/members/${admin.memberId}`, { role_ids: ['read_only'] })).status).toBe(200);

    // The owner-setup link still works while there is no owner, also for someone already a member.
    const link = await members().ownerSetupLink(org.organization_id, ORIGIN);
    const owner = await new Browser(h.app).post('/api/v1/invitations/accept', { token: link.token, password: PASSWORD, email: reader.email });
    expect(owner.status).toBe(200);
    expect(owner.body.member).toMatchObject({ id: reader.memberId, is_owner: true });
  });
});

describe('ended sessions', () => {
  test('a sign-in deletes the person\'s sessions that ended by time', async () => {
    const { owner, ownerEmail } = await orgWithOwner();
    const userId = (await owner.get('/api/v1/session')).body.member.user_id as string;
    h.clock.advance(3600_000 + 1000);
    try {
      expect((await new Browser(h.app).post('/api/v1/session', { email: ownerEmail, password: PASSWORD })).status).toBe(200);
      expect(await h.db.session.count({ where: { userId } })).toBe(1);
    } finally {
      h.clock.advance(-(3600_000 + 1000));
    }
  });
});

describe('the audit log for members', () => {
  test('a member with view_audit_log reads it, with members named as actors; without it, 403 naming it', async () => {
    const { owner } = await orgWithOwner();
    const me = (await owner.get('/api/v1/session')).body.member.id as string;
    const invited = await owner.post('/api/v1/members', { email: email('audit'), role_ids: ['read_only'] });
    const log = await owner.get('/api/v1/audit-log?event_type=member.invited');
    expect(log.status).toBe(200);
    expect(log.body.results).toEqual([expect.objectContaining({ actor_type: 'member', actor_member_id: me, actor_key_id: null, resource_type: 'member', resource_id: invited.body.member.id })]);
    const role = await owner.post('/api/v1/roles', { name: 'No audit', permissions: ['view_members'] });
    const member = await inviteAndJoin(owner, [role.body.id]);
    const denied = await member.browser.get('/api/v1/audit-log');
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toMatch(/view_audit_log \(View audit log\)/);
    // A key decides when one is sent, whatever cookie comes along.
    const withBadKey = await owner.get('/api/v1/audit-log', { Authorization: 'Bearer pb_live_not_a_key' });
    expect(withBadKey.status).toBe(401);
    expect(withBadKey.body.detail).toMatch(/access key/i);
    // Neither a key nor a session: the key's 401.
    const none = await request(h.app).get('/api/v1/audit-log');
    expect(none.status).toBe(401);
  });
});

describe('no escalation', () => {
  test('a member grants only permissions they hold, and acts only on members whose permissions they hold', async () => {
    const { owner } = await orgWithOwner();
    const role = await owner.post('/api/v1/roles', { name: 'People and roles', permissions: ['view_members', 'manage_members', 'view_roles', 'manage_roles'] });
    const manager = await inviteAndJoin(owner, [role.body.id]);
    const admin = await inviteAndJoin(owner, ['admin']);
    // Not themselves, not a second account, to Admin.
    const self = await manager.browser.patch(`/api/v1/members/${manager.memberId}`, { role_ids: ['admin'] });
    expect(self.status).toBe(403);
    expect(self.body.detail).toMatch(/Granting these roles needs permissions your roles do not grant: view_org_settings/);
    expect((await manager.browser.post('/api/v1/members', { email: email('alt'), role_ids: ['admin'] })).status).toBe(403);
    // Nor through a custom role wider than themselves.
    const wide = await manager.browser.post('/api/v1/roles', { name: 'Wide', permissions: ['manage_billing'] });
    expect(wide.status).toBe(403);
    expect(wide.body.detail).toMatch(/manage_billing/);
    expect((await manager.browser.patch(`/api/v1/roles/${role.body.id}`, { permissions: ['view_members', 'manage_members', 'view_roles', 'manage_roles', 'manage_billing'] })).status).toBe(403);
    // Nor disable or remove an Admin.
    expect((await manager.browser.patch(`/api/v1/members/${admin.memberId}`, { status: 'disabled' })).status).toBe(403);
    expect((await manager.browser.delete(`/api/v1/members/${admin.memberId}`)).status).toBe(403);
    // Within their own permissions, they may.
    expect((await manager.browser.post('/api/v1/members', { email: email('peer'), role_ids: [role.body.id] })).status).toBe(201);
  });
});
