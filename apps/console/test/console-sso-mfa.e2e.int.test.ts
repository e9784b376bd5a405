/// <reference lib="dom" />
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH, chromiumAvailable, startAccessKeysService, startServiceProcess, type RunningAccessKeys, type ServiceProcess } from '@patchbay/testing';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createConsoleHandler } from '../src/server';
import { createStaticSite } from '../src/static-site';
import { expectPageAccessible } from './browser';

/**
 * Single sign-on and two-factor sign-in in Debian's Chromium, against the real suite behind the edge
 * router and a real OpenID provider (oidc-provider, run locally with its own login and consent pages).
 */
const WEB_DIR = path.join(__dirname, '..', 'dist', 'web');
const ACCESS_KEYS_DIR = path.dirname(require.resolve('@patchbay/access-keys-and-audit/package.json'));
const PASSWORD = 'correct horse battery staple';
// The edge and the OpenID provider are processes this file starts, and each must know the other's URL first, so their
// ports are picked here: 15000-15499, below Linux's ephemeral range (32768 and up), where the outgoing connections of
// tests running beside this one take their local ports (a port picked there can be in use already).
const EDGE_PORT = 15_000 + (process.pid % 200);
const PROVIDER_PORT = 15_250 + (process.pid % 200);
const PUBLIC_URL = `http://127.0.0.1:${EDGE_PORT}`;
const CLIENT_ID = 'patchbay-console';
const CLIENT_SECRET = randomBytes(18).toString('base64url');

/** RFC 6238 TOTP (SHA-1, 6 digits, 30 s), what an authenticator app computes from the secret shown. */
function totp(secretBase32: string, atMs: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const ch of secretBase32.replace(/\s/g, '')) bits += alphabet.indexOf(ch).toString(2).padStart(5, '0');
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(atMs / 30_000)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[19]! & 15;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

const describeInBrowser = chromiumAvailable() || process.env.CI ? describe : describe.skip;

describeInBrowser('single sign-on and two-factor sign-in in the console', () => {
  let provider: ChildProcess;
  let accessKeys: RunningAccessKeys;
  let edge: ServiceProcess;
  let consoleServer: Server;
  let browser: Browser;

  beforeAll(async () => {
    provider = spawn(process.execPath, [path.join(ACCESS_KEYS_DIR, 'test', 'oidc', 'provider.mjs'), String(PROVIDER_PORT), CLIENT_ID, CLIENT_SECRET, `${PUBLIC_URL}/api/v1/sso/callback`], { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      provider.stdout!.on('data', (chunk: Buffer) => { if (chunk.toString().includes('ready')) resolve(); });
      provider.once('exit', (code) => reject(new Error(`the OpenID provider exited with ${code}`)));
    });
    accessKeys = await startAccessKeysService({
      env: {
        PATCHBAY_PUBLIC_URL: PUBLIC_URL,
        PATCHBAY_ENCRYPTION_KEYS: `e2e:${randomBytes(32).toString('base64')}`,
        // The identity provider runs on this machine: the outbound guard lets a test reach it.
        PATCHBAY_ALLOW_PRIVATE_NETWORK: 'true',
      },
    });
    consoleServer = createServer(createConsoleHandler(createStaticSite(WEB_DIR, { basePath: '/console/', apiBasePath: '/' })));
    await new Promise<void>((resolve) => consoleServer.listen(0, '127.0.0.1', resolve));
    edge = await startServiceProcess('edge-router', path.dirname(require.resolve('@patchbay/edge-router/package.json')), {
      ...process.env,
      PORT: String(EDGE_PORT),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ACCESS_KEYS_URL: accessKeys.url,
      CONSOLE_URL: `http://127.0.0.1:${(consoleServer.address() as AddressInfo).port}`,
    });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await edge?.stop();
    await new Promise((resolve) => consoleServer?.close(resolve));
    await accessKeys?.stop();
    provider?.kill('SIGTERM');
  });

  async function newPage(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    return { page, problems };
  }

  async function ownerOfNewOrganization(): Promise<{ page: Page; email: string; context: BrowserContext }> {
    const org = (await accessKeys.createOrganization({ name: `SSO ${Date.now()}` })) as { owner_setup_url?: string };
    const context = await browser.newContext();
    const { page } = await newPage(context);
    await page.goto(org.owner_setup_url!);
    const email = `owner-${Date.now()}@example.com`;
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Name').fill('Olive Owner');
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Become the owner' }).click();
    await page.getByRole('heading', { name: 'Welcome, Olive Owner' }).waitFor();
    return { page, email, context };
  }

  /** A call the page makes with its session, as the console does (same origin, anti-forgery token). */
  async function callApi(page: Page, method: string, url: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    return page.evaluate(
      async ({ method, url, body }) => {
        const csrf = ((await (await fetch('/api/v1/session')).json()) as { csrf_token: string }).csrf_token;
        const res = await fetch(url, { method, headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body: body === undefined ? undefined : JSON.stringify(body) });
        return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
      },
      { method, url, body },
    );
  }

  /** At the identity provider's own pages: its login form, then its consent page. */
  async function signInAtProvider(page: Page, login: string): Promise<void> {
    await page.waitForURL(new RegExp(`^http://127\\.0\\.0\\.1:${PROVIDER_PORT}/`));
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
  }

  it('sets up SSO on its page, and an invited member signs in through the local OpenID provider, back on the page they asked for', async () => {
    const { page, context } = await ownerOfNewOrganization();
    const domain = `sso-${Date.now()}.example.com`;
    await page.goto(`${PUBLIC_URL}/console/sso`);
    await page.getByRole('heading', { name: 'Single sign-on (OpenID Connect)' }).waitFor();
    await expectPageAccessible(page);
    await page.getByLabel('Discovery URL').fill(`http://127.0.0.1:${PROVIDER_PORT}/.well-known/openid-configuration`);
    await page.getByLabel('Client id').fill(CLIENT_ID);
    await page.getByLabel(/^Client secret/).fill(CLIENT_SECRET);
    await page.getByLabel(/^Allowed email domains/).fill(domain);
    await page.getByRole('button', { name: 'Set up single sign-on' }).click();
    await page.getByRole('status').filter({ hasText: 'Single sign-on settings saved.' }).waitFor();
    await page.getByText(`${PUBLIC_URL}/api/v1/sso/callback`).waitFor();
    expect(await page.content()).not.toContain(CLIENT_SECRET);
    await expectPageAccessible(page);

    const memberEmail = `sam@${domain}`;
    expect((await callApi(page, 'POST', '/api/v1/members', { email: memberEmail, role_ids: ['developer'] })).status).toBe(201);

    const memberContext = await browser.newContext();
    const { page: member, problems } = await newPage(memberContext);
    await member.goto(`${PUBLIC_URL}/console/account`);
    await member.waitForURL(/\/console\/sign-in\?next=/);
    await member.getByLabel('Email').fill(memberEmail);
    await member.getByRole('button', { name: 'Continue with SSO' }).click();
    await signInAtProvider(member, memberEmail);
    await member.getByRole('heading', { name: 'Your account' }).waitFor();
    expect(new URL(member.url()).pathname).toBe('/console/account');
    const [cookie] = (await memberContext.cookies()).filter((c) => c.name === 'patchbay_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    expect(await member.evaluate(() => [document.cookie, localStorage.length, sessionStorage.length])).toEqual(['', 0, 0]);
    expect(problems).toEqual([]);

    // Someone of the domain who was never invited is refused, with the reason, on the sign-in page.
    const strangerContext = await browser.newContext();
    const { page: stranger } = await newPage(strangerContext);
    await stranger.goto(`${PUBLIC_URL}/console/sign-in`);
    await stranger.getByLabel('Email').fill(`nobody@${domain}`);
    await stranger.getByRole('button', { name: 'Continue with SSO' }).click();
    await signInAtProvider(stranger, `nobody@${domain}`);
    await stranger.getByRole('alert').filter({ hasText: /not a member of this organization/ }).waitFor();
    expect((await strangerContext.cookies()).filter((c) => c.name === 'patchbay_session')).toEqual([]);
    for (const c of [context, memberContext, strangerContext]) await c.close();
  }, 150_000);

  it('two-factor: enrol on the account page (recovery codes shown once), then sign-in asks for the code', async () => {
    const { page, email, context } = await ownerOfNewOrganization();
    await page.goto(`${PUBLIC_URL}/console/account`);
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await expectPageAccessible(page);
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const secret = (await page.getByLabel('Secret key').getAttribute('data-secret'))!;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await page.getByLabel('Code from the authenticator app').fill(totp(secret, Date.now()));
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await codes.first().waitFor();
    expect(await codes.count()).toBe(10);
    await page.getByRole('button', { name: 'Copy recovery codes' }).waitFor();
    await expectPageAccessible(page);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await page.getByText(/unused recovery codes/).waitFor();
    expect(await page.getByRole('list', { name: 'Recovery codes' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in to Patchbay' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    expect((await context.cookies()).filter((c) => c.name === 'patchbay_session')).toEqual([]);
    await expectPageAccessible(page);
    await page.getByLabel(/^Code from your authenticator app/).fill('000000' === totp(secret, Date.now() + 30_000) ? '111111' : '000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('alert').filter({ hasText: /tries left/ }).waitFor();
    // The enrolment spent the current step; the authenticator's next code is accepted (one step of clock skew).
    await page.getByLabel(/^Code from your authenticator app/).fill(totp(secret, Date.now() + 30_000));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Welcome, Olive Owner' }).waitFor();
    await context.close();
  }, 150_000);

  it('an ended session returns to sign-in once and back to the page after signing in; sign out everywhere ends the other browser\'s session', async () => {
    const { page, email, context } = await ownerOfNewOrganization();
    await page.goto(`${PUBLIC_URL}/console/account`);
    await page.getByRole('heading', { name: 'Your account' }).waitFor();

    const otherContext = await browser.newContext();
    const { page: other } = await newPage(otherContext);
    await other.goto(`${PUBLIC_URL}/console/sign-in`);
    await other.getByLabel('Email').fill(email);
    await other.getByLabel('Password').fill(PASSWORD);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await other.getByRole('heading', { name: 'Welcome, Olive Owner' }).waitFor();
    await other.goto(`${PUBLIC_URL}/console/account`);
    await other.getByRole('table').getByRole('row').nth(2).waitFor();
    expect(await other.getByRole('table').getByRole('row').count()).toBe(3); // header and two sessions
    await other.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await other.getByRole('status').filter({ hasText: '1 other session was signed out.' }).waitFor();

    // The first browser's session has ended: its next call lands on sign-in once, remembering the page.
    const visited: string[] = [];
    page.on('framenavigated', (frame) => { if (frame === page.mainFrame()) visited.push(frame.url()); });
    await page.getByLabel('Current password').fill('x'); // any action: the page refetches on focus or reload
    await page.reload();
    await page.waitForURL(/\/console\/sign-in\?next=/);
    await page.getByRole('heading', { name: 'Sign in to Patchbay' }).waitFor();
    await page.waitForTimeout(500);
    const signInVisits = visited.filter((u) => u.includes('/console/sign-in'));
    expect(signInVisits.length).toBeLessThanOrEqual(1);
    expect(new URL(page.url()).searchParams.get('next')).toBe('/account');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/account');
    await context.close();
    await otherContext.close();
  }, 150_000);
});
