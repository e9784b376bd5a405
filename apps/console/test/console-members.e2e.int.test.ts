/// <reference lib="dom" />
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH, chromiumAvailable, freePort, startAccessKeysService, startServiceProcess, type RunningAccessKeys, type ServiceProcess } from '@patchbay/testing';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createConsoleHandler } from '../src/server';
import { createStaticSite } from '../src/static-site';
import { expectPageAccessible } from './browser';

/**
 * The console against the real suite as a browser reaches it: the edge router in front of the real
 * access-keys-and-audit (members, sessions) and the console's own server, in Debian's Chromium. The
 * organization is made with the real admin CLI, whose output carries the one-time owner-setup link.
 */
const WEB_DIR = path.join(__dirname, '..', 'dist', 'web');
const PASSWORD = 'correct horse battery staple';

const describeInBrowser = chromiumAvailable() || process.env.CI ? describe : describe.skip;

describeInBrowser('the console with the real suite behind the edge router', () => {
  let accessKeys: RunningAccessKeys;
  let edge: ServiceProcess;
  let consoleServer: Server;
  let browser: Browser;
  let publicUrl: string;

  beforeAll(async () => {
    const edgePort = await freePort();
    publicUrl = `http://127.0.0.1:${edgePort}`;
    accessKeys = await startAccessKeysService({ env: { PATCHBAY_PUBLIC_URL: publicUrl } });
    consoleServer = createServer(createConsoleHandler(createStaticSite(WEB_DIR, { basePath: '/console/', apiBasePath: '/' })));
    await new Promise<void>((resolve) => consoleServer.listen(0, '127.0.0.1', resolve));
    edge = await startServiceProcess('edge-router', path.dirname(require.resolve('@patchbay/edge-router/package.json')), {
      ...process.env,
      PORT: String(edgePort),
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
  });

  async function newPage(context?: BrowserContext): Promise<{ page: Page; problems: string[] }> {
    const page = await (context ?? (await browser.newContext())).newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    // A 401 from GET /api/v1/session is how the app learns it has no session: expected, not a problem.
    page.on('console', (msg) => {
      // 503: the edge router's "not deployed" for the overview's figures from services this test does not start.
      if (msg.type() === 'error' && !/status of (401|503)/.test(msg.text())) problems.push(msg.text());
    });
    return { page, problems };
  }

  async function ownerOfNewOrganization(): Promise<{ page: Page; problems: string[]; email: string; context: BrowserContext }> {
    const org = (await accessKeys.createOrganization({ name: `Console ${Date.now()}` })) as { owner_setup_url?: string };
    expect(org.owner_setup_url).toMatch(new RegExp(`^${publicUrl}/console/setup#token=`));
    const context = await browser.newContext();
    const { page, problems } = await newPage(context);
    await page.goto(org.owner_setup_url!);
    await page.getByRole('heading', { name: 'Set up your organization' }).waitFor();
    await expectPageAccessible(page);
    const email = `owner-${Date.now()}@example.com`;
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Name').fill('Olive Owner');
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Become the owner' }).click();
    await page.getByRole('heading', { name: 'Welcome, Olive Owner' }).waitFor();
    return { page, problems, email, context };
  }

  it('first-run owner setup: the one-time link makes the owner, signed in with every permission, and the session is an HttpOnly cookie no script can read', async () => {
    const { page, problems, context } = await ownerOfNewOrganization();
    expect(new URL(page.url()).pathname).toBe('/console/');
    expect(new URL(page.url()).hash).toBe(''); // the token left the address bar and history
    await page.getByRole('listitem').filter({ hasText: 'manage_members' }).waitFor();
    await expectPageAccessible(page);
    const [cookie] = (await context.cookies()).filter((c) => c.name === 'patchbay_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(await page.evaluate(() => [document.cookie, localStorage.length, sessionStorage.length])).toEqual(['', 0, 0]);
    await page.reload();
    await page.getByRole('heading', { name: 'Welcome, Olive Owner' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('a used setup link cannot be used again, and says so', async () => {
    const org = (await accessKeys.createOrganization({ name: `Once ${Date.now()}` })) as unknown as { owner_setup_url: string };
    const context = await browser.newContext();
    const { page } = await newPage(context);
    for (const [attempt, expectHome] of [[1, true], [2, false]] as const) {
      await page.goto('about:blank');
      await page.goto(org.owner_setup_url);
      await page.getByLabel('Email').fill(`twice-${attempt}-${Date.now()}@example.com`);
      await page.getByLabel('Name').fill('Twice');
      await page.getByLabel(/^Password/).fill(PASSWORD);
      await page.getByRole('button', { name: 'Become the owner' }).click();
      if (expectHome) await page.getByRole('heading', { name: 'Welcome, Twice' }).waitFor();
      else await page.getByRole('alert').filter({ hasText: /unknown, used, replaced or expired|not valid|no longer/i }).waitFor();
    }
    await context.close();
  });

  it('sign out, then sign in with the password; a wrong password shows the server\'s message and no session', async () => {
    const { page, email, context } = await ownerOfNewOrganization();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Patchbay' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    expect((await context.cookies()).filter((c) => c.name === 'patchbay_session')).toEqual([]);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Welcome, Olive Owner' }).waitFor();
    await context.close();
  });

  it('an ended session goes to sign-in once, and signing in returns to the page the member was on', async () => {
    const { page, email, context } = await ownerOfNewOrganization();
    // The same person signs in elsewhere and signs out everywhere else: this browser's session ends.
    const other = await browser.newContext();
    const { page: elsewhere } = await newPage(other);
    await elsewhere.goto(`${publicUrl}/console/sign-in`);
    await elsewhere.getByLabel('Email').fill(email);
    await elsewhere.getByLabel('Password').fill(PASSWORD);
    await elsewhere.getByRole('button', { name: 'Sign in' }).click();
    await elsewhere.getByRole('heading', { name: 'Welcome, Olive Owner' }).waitFor();
    const csrf = await elsewhere.evaluate(async () => ((await (await fetch('/api/v1/session')).json()) as { csrf_token: string }).csrf_token);
    const ended = await elsewhere.evaluate(async (token) => (await fetch('/api/v1/session/all', { method: 'DELETE', headers: { 'x-csrf-token': token } })).status, csrf);
    expect(ended).toBeLessThan(300);

    await page.goto(`${publicUrl}/console/?from=report`);
    await page.getByRole('heading', { name: 'Sign in to Patchbay' }).waitFor();
    expect(new URL(page.url()).searchParams.get('next')).toBe('/?from=report');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Welcome, Olive Owner' }).waitFor();
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/console/?from=report');
    await other.close();
    await context.close();
  });

  it('a state-changing request with the session cookie but without the anti-forgery token is refused by the service, even from the console\'s own origin', async () => {
    const { page, context } = await ownerOfNewOrganization();
    const status = await page.evaluate(async () => (await fetch('/api/v1/session/environment', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ environment: 'test' }) })).status);
    expect(status).toBe(403);
    await context.close();
  });
});
