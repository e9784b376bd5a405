import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { SecretBox } from '@patchbay/secrets';
import type { Express } from 'express';
import request from 'supertest';
import { MemberService } from '../src/domain/members/members';
import { totpCode } from '../src/domain/members/totp';
import { SsoService } from '../src/domain/sso/sso';
import { newOrganization, startHarness, type Harness } from './harness';

const ORIGIN = 'http://patchbay.test';
const PASSWORD = 'correct horse battery';
const REDIRECT_URI = `${ORIGIN}/api/v1/sso/callback`;
// The provider is a process this file starts and the issuer URL is known before it listens, so its port is picked
// here: 15500-15899, below Linux's ephemeral range (32768 and up), where the outgoing connections of tests running
// beside this one take their local ports (a port picked there can be in use already).
const PROVIDER_PORT = 15_500 + (process.pid % 400);
const ISSUER = `http://127.0.0.1:${PROVIDER_PORT}`;
const DISCOVERY_URL = `${ISSUER}/.well-known/openid-configuration`;
const CLIENT_ID = 'patchbay-console';
const CLIENT_SECRET = `secret-${randomUUID()}`;

/** A browser against the service: cookies by name (any path), the anti-forgery token, an address of its own. */
class Browser {
  readonly cookies = new Map<string, string>();
  csrf: string | undefined;
  readonly address = `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
  constructor(private readonly app: Express) {}
  private headers(): Record<string, string> {
    const h: Record<string, string> = { 'X-Forwarded-For': this.address, Origin: ORIGIN };
    if (this.csrf) h['X-CSRF-Token'] = this.csrf;
    if (this.cookies.size > 0) h.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return h;
  }
  private keep(res: request.Response): request.Response {
    for (const c of ([] as string[]).concat(res.headers['set-cookie'] ?? [])) {
      const m = /^([^=]+)=([^;]*)/.exec(c);
      if (!m) continue;
      if (m[2] === '' || /Expires=Thu, 01 Jan 1970/i.test(c)) this.cookies.delete(m[1]!);
      else this.cookies.set(m[1]!, m[2]!);
    }
    if (res.body?.csrf_token) this.csrf = res.body.csrf_token as string;
    return res;
  }
  async get(p: string) {
    return this.keep(await request(this.app).get(p).set(this.headers()));
  }
  async post(p: string, body: object = {}) {
    return this.keep(await request(this.app).post(p).set(this.headers()).send(body));
  }
  async put(p: string, body: object) {
    return this.keep(await request(this.app).put(p).set(this.headers()).send(body));
  }
  async delete(p: string) {
    return this.keep(await request(this.app).delete(p).set(this.headers()));
  }
}

/** Signs in at the OpenID provider's own login and consent pages (HTML forms) and returns the redirect back to Patchbay. */
async function signInAtProvider(authorizationUrl: string, login: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = authorizationUrl;
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(url, {
      method: body ? 'POST' : 'GET',
      body,
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    });
    for (const c of res.headers.getSetCookie()) {
      const m = /^([^=]+)=([^;]*)/.exec(c);
      if (m) jar.set(m[1]!, m[2]!);
    }
    body = undefined;
    if (res.status >= 300 && res.status < 400) {
      const next = new URL(res.headers.get('location')!, url);
      if (next.href.startsWith(REDIRECT_URI)) return next;
      url = next.href;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`the provider answered ${res.status} without a form: ${html.slice(0, 300)}`);
    body = html.includes('name="login"') ? new URLSearchParams({ prompt: 'login', login, password: 'anything' }) : new URLSearchParams({ prompt: 'consent' });
    url = new URL(action, url).href;
  }
  throw new Error('too many hops at the provider');
}

let h: Harness;
let provider: ChildProcess;
beforeAll(async () => {
  provider = spawn(process.execPath, [path.join(__dirname, 'oidc', 'provider.mjs'), String(PROVIDER_PORT), CLIENT_ID, CLIENT_SECRET, REDIRECT_URI], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    provider.stdout!.on('data', (chunk: Buffer) => { if (chunk.toString().includes('ready')) resolve(); });
    provider.once('exit', (code) => reject(new Error(`the OpenID provider exited with ${code}`)));
  });
  h = await startHarness({
    publicBaseUrl: ORIGIN,
    secrets: new SecretBox({ k1: Buffer.alloc(32, 7) }, 'k1'),
    outboundPolicy: { allowPrivateNetwork: true },
    signInThrottle: { maxFailuresPerAccount: 8, maxFailuresPerAddress: 100, failureWindowSeconds: 600, lockoutSeconds: 900 },
    sessionSettings: { idleTimeoutSeconds: 3600, absoluteTimeoutSeconds: 86_400 },
  });
}, 30_000);
afterAll(async () => {
  await h?.close();
  provider?.kill('SIGTERM');
});

const members = () => (h.app.locals.services as { members: MemberService }).members;
const domainOf = () => `sso-${randomUUID().slice(0, 8)}.example.com`;

async function orgWithOwner(): Promise<{ orgId: string; owner: Browser; ownerEmail: string }> {
  const org = await newOrganization(h.db);
  const link = await members().ownerSetupLink(org.organization_id, ORIGIN);
  const owner = new Browser(h.app);
  const ownerEmail = `owner-${randomUUID().slice(0, 8)}@example.org`;
  const res = await owner.post('/api/v1/invitations/accept', { token: link.token, name: 'Olive Owner', password: PASSWORD, email: ownerEmail });
  expect(res.status).toBe(200);
  return { orgId: org.organization_id, owner, ownerEmail };
}

async function setUpSso(owner: Browser, domain: string, extra: object = {}) {
  const res = await owner.put('/api/v1/sso', { discovery_url: DISCOVERY_URL, client_id: CLIENT_ID, client_secret: CLIENT_SECRET, allowed_domains: [domain], ...extra });
  expect(res.status).toBe(200);
  return res;
}

/** The whole browser round trip: start at Patchbay, sign in at the provider, come back to the callback. */
async function ssoSignIn(browser: Browser, login: string, returnTo = '/console/keys?sort=name') {
  const started = await browser.post('/api/v1/sso/start', { email: login, return_to: returnTo });
  expect(started.status).toBe(200);
  const back = await signInAtProvider(started.body.authorization_url as string, login);
  return browser.get(back.pathname + back.search);
}

describe('single sign-on over OpenID Connect, against a real OpenID provider', () => {
  test('settings: the client secret is stored encrypted and never returned; the redirect URI to register is given', async () => {
    const { owner, orgId } = await orgWithOwner();
    const res = await setUpSso(owner, domainOf());
    expect(JSON.stringify(res.body)).not.toContain(CLIENT_SECRET);
    expect(res.body).toMatchObject({ client_id: CLIENT_ID, client_secret_last4: CLIENT_SECRET.slice(-4), redirect_uri: REDIRECT_URI, require_sso: false, jit_role_id: null });
    const row = await h.db.ssoConnection.findUniqueOrThrow({ where: { organizationId: orgId } });
    expect(row.clientSecretSealed).not.toContain(CLIENT_SECRET);
    const got = await owner.get('/api/v1/sso');
    expect(JSON.stringify(got.body)).not.toContain(CLIENT_SECRET);
    const audit = await h.db.auditEvent.findFirstOrThrow({ where: { organizationId: orgId, eventType: 'sso.configured' } });
    expect(JSON.stringify(audit.details)).not.toContain(CLIENT_SECRET);
  });

  test('a discovery URL that is not an OpenID issuer\'s is refused with the reason; a private one is refused by the outbound guard', async () => {
    const { owner } = await orgWithOwner();
    const res = await owner.put('/api/v1/sso', { discovery_url: `http://127.0.0.1:${PROVIDER_PORT}/nothing/.well-known/openid-configuration`, client_id: 'x', client_secret: 'y', allowed_domains: [domainOf()] });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('discovery_url');
    const guarded = new SsoService(h.db, h.redis, new SecretBox({ k1: Buffer.alloc(32, 7) }, 'k1'), { allowPrivateNetwork: false });
    const principal = { organizationId: (await newOrganization(h.db)).organization_id, memberId: randomUUID() } as never;
    await expect(guarded.put(principal, { discovery_url: `https://127.0.0.1:${PROVIDER_PORT}/.well-known/openid-configuration`, client_id: 'x', client_secret: 'y', allowed_domains: [domainOf()] }, REDIRECT_URI)).rejects.toMatchObject({ status: 400 });
  });

  test('an invited member signs in through the provider, joins, and lands where they were going; the session is new', async () => {
    const { owner, orgId } = await orgWithOwner();
    const domain = domainOf();
    await setUpSso(owner, domain);
    const email = `bea@${domain}`;
    const invited = await owner.post('/api/v1/members', { email, role_ids: ['developer'] });
    expect(invited.status).toBe(201);
    const browser = new Browser(h.app);
    browser.cookies.set('patchbay_session', 'a-fixated-token-from-an-attacker');
    const back = await ssoSignIn(browser, email);
    expect(back.status).toBe(302);
    expect(back.headers.location).toBe('/console/keys?sort=name');
    const token = browser.cookies.get('patchbay_session');
    expect(token).toBeDefined();
    expect(token).not.toBe('a-fixated-token-from-an-attacker');
    expect(([] as string[]).concat(back.headers['set-cookie'] ?? []).find((c) => c.startsWith('patchbay_session='))).toMatch(/HttpOnly/i);
    const session = await browser.get('/api/v1/session');
    expect(session.status).toBe(200);
    expect(session.body.member.email).toBe(email);
    expect(session.body.organization.id).toBe(orgId);
    expect(session.body.permissions).toContain('manage_tool_packs');
    const member = await h.db.membership.findUniqueOrThrow({ where: { id: invited.body.member.id } });
    expect(member.status).toBe('active');
    const signedIn = await h.db.auditEvent.findFirstOrThrow({ where: { organizationId: orgId, eventType: 'member.signed_in', resourceId: member.id } });
    expect(signedIn.details).toMatchObject({ method: 'sso' });
  }, 20_000);

  test('unknown emails of an allowed domain are refused unless the organization sets a role for them; other domains and unverified emails are refused', async () => {
    const { owner, orgId } = await orgWithOwner();
    const domain = domainOf();
    await setUpSso(owner, domain);
    const stranger = new Browser(h.app);
    const refused = await ssoSignIn(stranger, `carl@${domain}`);
    expect(refused.status).toBe(302);
    expect(new URL(String(refused.headers.location), ORIGIN).pathname).toBe('/console/sign-in');
    expect(new URL(String(refused.headers.location), ORIGIN).searchParams.get('sso_error')).toMatch(/not a member of this organization.*invitation/);
    expect(stranger.cookies.get('patchbay_session')).toBeUndefined();

    const unverified = await ssoSignIn(new Browser(h.app), `unverified-dan@${domain}`);
    expect(new URL(String(unverified.headers.location), ORIGIN).searchParams.get('sso_error')).toMatch(/not verified/);

    await owner.put('/api/v1/sso', { jit_role_id: 'read_only' });
    const joined = new Browser(h.app);
    const res = await ssoSignIn(joined, `carl@${domain}`);
    expect(res.headers.location).toBe('/console/keys?sort=name');
    const session = await joined.get('/api/v1/session');
    expect(session.body.permissions.every((p: string) => p.startsWith('view_'))).toBe(true);
    expect(session.body.member.name).toBe('carl (from the provider)');
    const m = await h.db.membership.findFirstOrThrow({ where: { organizationId: orgId, id: session.body.member.id } });
    expect(m.roleIds).toEqual(['read_only']);
  }, 30_000);

  test('the callback needs the state cookie of the browser that started (no login CSRF), and a state is used once', async () => {
    const { owner } = await orgWithOwner();
    const domain = domainOf();
    await setUpSso(owner, domain);
    await owner.post('/api/v1/members', { email: `eve@${domain}`, role_ids: ['developer'] });
    const attacker = new Browser(h.app);
    const started = await attacker.post('/api/v1/sso/start', { email: `eve@${domain}` });
    const back = await signInAtProvider(started.body.authorization_url as string, `eve@${domain}`);
    const victim = new Browser(h.app);
    const forged = await victim.get(back.pathname + back.search);
    expect(new URL(String(forged.headers.location), ORIGIN).searchParams.get('sso_error')).toMatch(/not belong to a sign-in started in this browser/);
    expect(victim.cookies.get('patchbay_session')).toBeUndefined();
    const first = await attacker.get(back.pathname + back.search);
    expect(first.headers.location).toBe('/console/');
    attacker.cookies.set('patchbay_sso_state', new URL(back.href).searchParams.get('state')!);
    const replay = await attacker.get(back.pathname + back.search);
    expect(new URL(String(replay.headers.location), ORIGIN).searchParams.get('sso_error')).toMatch(/already used/);
  }, 20_000);

  test('"require SSO" turns password sign-in off for members (the owner keeps it); a cross-site start is refused', async () => {
    const { owner, ownerEmail } = await orgWithOwner();
    const domain = domainOf();
    await setUpSso(owner, domain);
    const invited = await owner.post('/api/v1/members', { email: `fay@${domain}`, role_ids: ['developer'] });
    const fay = new Browser(h.app);
    expect((await fay.post('/api/v1/invitations/accept', { token: invited.body.invitation.token, name: 'Fay', password: PASSWORD })).status).toBe(200);
    await owner.put('/api/v1/sso', { require_sso: true });
    const refused = await new Browser(h.app).post('/api/v1/session', { email: `fay@${domain}`, password: PASSWORD });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/requires single sign-on/);
    expect((await new Browser(h.app).post('/api/v1/session', { email: ownerEmail, password: PASSWORD })).status).toBe(200);
    const crossSite = await request(h.app).post('/api/v1/sso/start').set('Origin', 'https://evil.example').send({ email: `fay@${domain}` });
    expect(crossSite.status).toBe(403);
  }, 20_000);

  test('settings need manage_sso to change and view_sso to read', async () => {
    const { owner } = await orgWithOwner();
    const invited = await owner.post('/api/v1/members', { email: `dev-${randomUUID().slice(0, 6)}@example.org`, role_ids: ['developer'] });
    const dev = new Browser(h.app);
    await dev.post('/api/v1/invitations/accept', { token: invited.body.invitation.token, name: 'Dev', password: PASSWORD });
    const put = await dev.put('/api/v1/sso', { discovery_url: DISCOVERY_URL, client_id: 'x', client_secret: 'y', allowed_domains: [domainOf()] });
    expect(put.status).toBe(403);
    expect(put.body.detail).toContain('manage_sso');
  });
});

describe('TOTP two-factor sign-in', () => {
  async function enrol(browser: Browser): Promise<{ secret: string; recoveryCodes: string[] }> {
    const started = await browser.post('/api/v1/account/two-factor/enrolment');
    expect(started.status).toBe(200);
    const secret = started.body.secret as string;
    expect(started.body.otpauth_uri).toContain(`secret=${secret}`);
    const wrong = await browser.post('/api/v1/account/two-factor/confirmation', { code: '000000' === totpCode(secret, Date.now()) ? '111111' : '000000' });
    expect(wrong.status).toBe(400);
    const confirmed = await browser.post('/api/v1/account/two-factor/confirmation', { code: totpCode(secret, Date.now()) });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.recovery_codes).toHaveLength(10);
    return { secret, recoveryCodes: confirmed.body.recovery_codes as string[] };
  }

  test('enrolment, then sign-in needs the code as a second step; a code works once; a recovery code works once; the secret is encrypted at rest', async () => {
    const { owner, ownerEmail, orgId } = await orgWithOwner();
    const { secret, recoveryCodes } = await enrol(owner);
    const user = await h.db.user.findFirstOrThrow({ where: { emailNormalized: ownerEmail.toLowerCase() } });
    expect(user.totpSecret).not.toContain(secret);
    expect(user.recoveryCodeHashes).not.toContain(recoveryCodes[0]);
    expect((await owner.get('/api/v1/account/two-factor')).body).toMatchObject({ enabled: true, recovery_codes_left: 10 });

    const browser = new Browser(h.app);
    const first = await browser.post('/api/v1/session', { email: ownerEmail, password: PASSWORD });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ two_factor_required: true, enrol: false });
    expect(browser.cookies.get('patchbay_session')).toBeUndefined();
    expect((await browser.get('/api/v1/session')).status).toBe(401);
    const wrong = await browser.post('/api/v1/session/two-factor', { code: '12345' });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.body)).toMatch(/tries left/);
    // The code the enrolment used: already spent (each time step once).
    expect((await browser.post('/api/v1/session/two-factor', { code: totpCode(secret, Date.now()) })).status).toBe(400);

    const viaRecovery = await browser.post('/api/v1/session/two-factor', { code: recoveryCodes[0]!.toUpperCase() });
    expect(viaRecovery.status).toBe(200);
    expect(viaRecovery.body.member.email).toBe(ownerEmail);
    expect(browser.cookies.get('patchbay_session')).toBeDefined();
    expect(browser.cookies.get('patchbay_pending_sign_in')).toBeUndefined();

    const again = new Browser(h.app);
    await again.post('/api/v1/session', { email: ownerEmail, password: PASSWORD });
    expect((await again.post('/api/v1/session/two-factor', { code: recoveryCodes[0]! })).status).toBe(400);
    expect((await again.post('/api/v1/session/two-factor', { code: recoveryCodes[1]! })).status).toBe(200);
    const types = (await h.db.auditEvent.findMany({ where: { organizationId: orgId }, select: { eventType: true } })).map((e) => e.eventType);
    expect(types).toEqual(expect.arrayContaining(['member.two_factor_enabled', 'member.two_factor_failed', 'member.recovery_code_used']));
  }, 20_000);

  test('a pending sign-in ends after five wrong codes', async () => {
    const { owner, ownerEmail } = await orgWithOwner();
    await enrol(owner);
    const browser = new Browser(h.app);
    await browser.post('/api/v1/session', { email: ownerEmail, password: PASSWORD });
    for (let i = 0; i < 4; i++) expect((await browser.post('/api/v1/session/two-factor', { code: 'wrong-code' })).status).toBe(400);
    expect((await browser.post('/api/v1/session/two-factor', { code: 'wrong-code' })).status).toBe(401);
    expect((await browser.post('/api/v1/session/two-factor', { code: 'wrong-code' })).status).toBe(401);
  });

  test('an organization that requires two-factor makes a member without it enrol at sign-in; an admin reset is audited', async () => {
    const { owner, orgId } = await orgWithOwner();
    const addr = `gus-${randomUUID().slice(0, 6)}@example.org`;
    const invited = await owner.post('/api/v1/members', { email: addr, role_ids: ['developer'] });
    await new Browser(h.app).post('/api/v1/invitations/accept', { token: invited.body.invitation.token, name: 'Gus', password: PASSWORD });
    expect((await owner.put('/api/v1/two-factor-policy', { require_two_factor: true })).body).toEqual({ require_two_factor: true });

    const gus = new Browser(h.app);
    const first = await gus.post('/api/v1/session', { email: addr, password: PASSWORD });
    expect(first.body).toMatchObject({ two_factor_required: true, enrol: true });
    const enrolment = await gus.post('/api/v1/session/two-factor/enrolment');
    expect(enrolment.status).toBe(200);
    const done = await gus.post('/api/v1/session/two-factor', { code: totpCode(enrolment.body.secret as string, Date.now()) });
    expect(done.status).toBe(200);
    expect(done.body.recovery_codes).toHaveLength(10);
    expect((await gus.get('/api/v1/session')).status).toBe(200);
    // Required by the organization: the member cannot turn it off.
    expect((await gus.post('/api/v1/account/two-factor/disable', { code: (done.body.recovery_codes as string[])[0] })).status).toBe(409);

    expect((await owner.get(`/api/v1/members/${invited.body.member.id}`)).body.two_factor_enabled).toBe(true);
    const reset = await owner.delete(`/api/v1/members/${invited.body.member.id}/two-factor`);
    expect(reset.status).toBe(204);
    const event = await h.db.auditEvent.findFirstOrThrow({ where: { organizationId: orgId, eventType: 'member.two_factor_reset' } });
    expect(event.actorType).toBe('member');
    expect(event.resourceId).toBe(invited.body.member.id);
    expect((await owner.get(`/api/v1/members/${invited.body.member.id}`)).body.two_factor_enabled).toBe(false);
    expect((await owner.delete(`/api/v1/members/${invited.body.member.id}/two-factor`)).status).toBe(409);
    // Reset: at the next sign-in the member enrols again.
    expect((await new Browser(h.app).post('/api/v1/session', { email: addr, password: PASSWORD })).body).toMatchObject({ two_factor_required: true, enrol: true });
  }, 20_000);
});

describe('invitations under the sign-in rules', () => {
  test('an invitation to an organization that requires two-factor is used, and the sign-in continues with enrolment, not a session', async () => {
    const { owner } = await orgWithOwner();
    await owner.put('/api/v1/two-factor-policy', { require_two_factor: true });
    const invited = await owner.post('/api/v1/members', { email: `hal-${randomUUID().slice(0, 6)}@example.org`, role_ids: ['developer'] });
    const hal = new Browser(h.app);
    const accepted = await hal.post('/api/v1/invitations/accept', { token: invited.body.invitation.token, name: 'Hal', password: PASSWORD });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ two_factor_required: true, enrol: true });
    expect(hal.cookies.get('patchbay_session')).toBeUndefined();
    const enrolment = await hal.post('/api/v1/session/two-factor/enrolment');
    const done = await hal.post('/api/v1/session/two-factor', { code: totpCode(enrolment.body.secret as string, Date.now()) });
    expect(done.status).toBe(200);
    expect(done.body.member.id).toBe(invited.body.member.id);
  });

  test('an organization that requires SSO refuses joining with a password; the invited person joins through SSO', async () => {
    const { owner } = await orgWithOwner();
    const domain = domainOf();
    await setUpSso(owner, domain, { require_sso: true });
    const invited = await owner.post('/api/v1/members', { email: `ida@${domain}`, role_ids: ['developer'] });
    const refused = await new Browser(h.app).post('/api/v1/invitations/accept', { token: invited.body.invitation.token, name: 'Ida', password: PASSWORD });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/requires single sign-on.*Continue with SSO/);
    const ida = new Browser(h.app);
    expect((await ssoSignIn(ida, `ida@${domain}`)).headers.location).toBe('/console/keys?sort=name');
    expect((await ida.get('/api/v1/session')).body.member.id).toBe(invited.body.member.id);
  }, 20_000);
});

describe('two-factor on the account', () => {
  test('new recovery codes replace the old ones; turning off needs a code and is audited', async () => {
    const { owner, ownerEmail, orgId } = await orgWithOwner();
    const started = await owner.post('/api/v1/account/two-factor/enrolment');
    const secret = started.body.secret as string;
    const first = (await owner.post('/api/v1/account/two-factor/confirmation', { code: totpCode(secret, Date.now()) })).body.recovery_codes as string[];
    expect((await owner.post('/api/v1/account/two-factor/recovery-codes', { code: 'nope' })).status).toBe(400);
    const renewed = await owner.post('/api/v1/account/two-factor/recovery-codes', { code: first[0] });
    expect(renewed.status).toBe(200);
    const second = renewed.body.recovery_codes as string[];
    expect(second).toHaveLength(10);
    expect((await owner.post('/api/v1/account/two-factor/disable', { code: first[1] })).status).toBe(400);
    expect((await owner.post('/api/v1/account/two-factor/disable', {})).status).toBe(400);
    expect((await owner.post('/api/v1/account/two-factor/disable', { code: second[0] })).status).toBe(204);
    expect((await owner.get('/api/v1/account/two-factor')).body).toMatchObject({ enabled: false, recovery_codes_left: 0 });
    expect((await new Browser(h.app).post('/api/v1/session', { email: ownerEmail, password: PASSWORD })).body.csrf_token).toBeDefined();
    const types = (await h.db.auditEvent.findMany({ where: { organizationId: orgId }, select: { eventType: true } })).map((e) => e.eventType);
    expect(types).toEqual(expect.arrayContaining(['member.recovery_codes_regenerated', 'member.two_factor_disabled']));
  });

  test('without encryption keys, two-factor and SSO say what to set (503), never a 500', async () => {
    const bare = await startHarness({ publicBaseUrl: ORIGIN });
    try {
      const org = await newOrganization(bare.db);
      const link = await (bare.app.locals.services as { members: MemberService }).members.ownerSetupLink(org.organization_id, ORIGIN);
      const b = new Browser(bare.app);
      await b.post('/api/v1/invitations/accept', { token: link.token, name: 'No Keys', password: PASSWORD, email: `nokeys-${randomUUID().slice(0, 6)}@example.org` });
      const res = await b.post('/api/v1/account/two-factor/enrolment');
      expect(res.status).toBe(503);
      expect(res.body.detail).toMatch(/PATCHBAY_ENCRYPTION_KEYS/);
    } finally {
      await bare.close();
    }
  });
});

describe('account: password and sessions', () => {
  test('changing the password needs the current one and ends every other session', async () => {
    const { owner, ownerEmail } = await orgWithOwner();
    const other = new Browser(h.app);
    expect((await other.post('/api/v1/session', { email: ownerEmail, password: PASSWORD })).status).toBe(200);
    expect((await owner.get('/api/v1/session/all')).body.results).toHaveLength(2);
    const wrong = await owner.put('/api/v1/account/password', { current_password: 'not it at all', new_password: 'a brand new password' });
    expect(wrong.status).toBe(400);
    const changed = await owner.put('/api/v1/account/password', { current_password: PASSWORD, new_password: 'a brand new password' });
    expect(changed.status).toBe(200);
    expect(changed.body.sessions_ended).toBe(1);
    expect((await other.get('/api/v1/session')).status).toBe(401);
    expect((await owner.get('/api/v1/session')).status).toBe(200);
    expect((await new Browser(h.app).post('/api/v1/session', { email: ownerEmail, password: PASSWORD })).status).toBe(401);
    expect((await new Browser(h.app).post('/api/v1/session', { email: ownerEmail, password: 'a brand new password' })).status).toBe(200);
  });
});
