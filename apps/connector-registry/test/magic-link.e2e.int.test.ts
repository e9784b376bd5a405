import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { CHROMIUM_ARGS, CHROMIUM_PATH, chromiumAvailable, type TestOrganization } from '@patchbay/testing';
import { chromium, type Browser, type Page } from 'playwright-core';
import { pkceChallenge } from '@patchbay/oauth';
import { connectionSecretContext, type StoredSecret } from '../src/domain/store-credential';
import { startFakeOAuthProvider, type FakeOAuthProvider } from './fake-oauth-provider';
import { bearer, request, startHarness, type Harness } from './harness';

/**
 * The magic link end to end in a real headless browser (Debian's chromium driven by
 * playwright-core), against the app on a real port, a local OAuth 2.0 provider and a local
 * callback server standing for the organization's application.
 */
const haveChromium = chromiumAvailable();
if (!haveChromium) {
  console.warn(`magic-link browser tests skipped: ${CHROMIUM_PATH} is missing (install it with: apt-get update && apt-get install -y chromium)`);
}
const describeInBrowser = haveChromium ? describe : describe.skip;

interface CallbackServer {
  url: string;
  hits: URL[];
  close(): Promise<void>;
}

async function startCallbackServer(): Promise<CallbackServer> {
  const hits: URL[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/favicon.ico') {
      res.writeHead(404).end();
      return;
    }
    hits.push(url);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><h1 id="app">Back in the application</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const CLIENT_ID = 'patchbay-test-app';
const CLIENT_SECRET = 'test-app-secret';

let h: Harness;
let appServer: Server;
let provider: FakeOAuthProvider;
let callback: CallbackServer;
let browser: Browser;

describeInBrowser('magic link in a real browser', () => {
  beforeAll(async () => {
    h = await startHarness();
    provider = await startFakeOAuthProvider({ [CLIENT_ID]: CLIENT_SECRET });
    callback = await startCallbackServer();
    appServer = await new Promise<Server>((resolve) => {
      const s = h.app.listen(0, '127.0.0.1', () => resolve(s));
    });
    h.services.config.PATCHBAY_PUBLIC_URL = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;
    h.services.oauthOverrides = { github: { authorize_url: provider.authorizeUrl, token_url: provider.tokenUrl } };
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    if (appServer) {
      appServer.closeAllConnections();
      await new Promise<void>((resolve) => appServer.close(() => resolve()));
    }
    await callback?.close();
    await provider?.close();
    await h?.close();
  });

  async function orgWithUser(options: { clientSecret?: string } = {}): Promise<{ org: TestOrganization; userId: string }> {
    const org = await h.newOrganization({ callbackOrigins: [callback.url] });
    const user = await h.db.registeredUser.create({
      data: { organizationId: org.organization_id, environment: 'production', originUserId: `u-${randomUUID()}`, originUserName: 'Grace Hopper', originCompanyId: 'navy', originCompanyName: 'US Navy' },
    });
    const app = await request(h.app)
      .post('/api/v1/application-credentials/')
      .set(bearer(org.master_key))
      .send({ connector: 'github', client_id: CLIENT_ID, client_secret: options.clientSecret ?? CLIENT_SECRET });
    expect(app.status).toBe(201);
    return { org, userId: user.id };
  }

  async function magicLink(org: TestOrganization, userId: string, state: string): Promise<string> {
    const res = await request(h.app)
      .post(`/api/v1/registered-users/${userId}/link-token/`)
      .set(bearer(org.master_key))
      .send({ connector: 'github', callback_url: `${callback.url}/integrations/done`, state });
    expect(res.status).toBe(201);
    return res.body.magic_link_url as string;
  }

  async function withPage<T>(run: (page: Page) => Promise<T>): Promise<T> {
    const context = await browser.newContext();
    try {
      return await run(await context.newPage());
    } finally {
      await context.close();
    }
  }

  const landedOnCallback = (url: URL) => url.toString().startsWith(`${callback.url}/integrations/done`);

  it('Connect runs OAuth 2.0 with PKCE: the user approves, the browser lands on callback_url with state, and the connection is ACTIVE with its tokens sealed', async () => {
    const { org, userId } = await orgWithUser();
    const state = `state-${randomUUID()}`;
    const url = await magicLink(org, userId, state);

    await withPage(async (page) => {
      const opened = await page.goto(url);
      expect(opened?.status()).toBe(200);
      expect(await page.locator('h1').textContent()).toBe('GitHub');
      await page.click('#connect');
      await page.waitForURL((u) => u.toString().startsWith(provider.authorizeUrl));
      expect(await page.locator('h1').textContent()).toBe('Authorize application');
      await page.click('#approve');
      await page.waitForURL(landedOnCallback);
      expect(await page.locator('#app').textContent()).toBe('Back in the application');
    });

    const hit = callback.hits.find((u) => u.searchParams.get('state') === state);
    expect(hit && Object.fromEntries(hit.searchParams)).toEqual({ state, connector: 'github', status: 'success' });

    const authorize = provider.authorizeRequests[0] as Record<string, string>;
    expect(authorize).toMatchObject({ client_id: CLIENT_ID, code_challenge_method: 'S256', scope: 'repo read:user', redirect_uri: `${h.services.config.PATCHBAY_PUBLIC_URL}/link/oauth/callback` });
    const exchange = provider.tokenRequests.at(-1);
    // GitHub takes the client secret in the body and answers form-encoded unless asked for JSON.
    expect(exchange).toMatchObject({ status: 200, accept: 'application/json', clientAuth: 'post' });

    const connection = await h.db.connection.findFirstOrThrow({ where: { organizationId: org.organization_id } });
    expect(connection).toMatchObject({ connectorSlug: 'github', authType: 'oauth2', authScope: 'INDIVIDUAL', registeredUserId: userId, status: 'ACTIVE' });
    expect(connection.accessTokenExpiresAt).not.toBeNull();
    const secret = h.services.box.openJson<StoredSecret>(connection.credentialSealed, connectionSecretContext(connection.id));
    const issued = provider.issued.get(secret.access_token ?? '');
    expect(issued).toBeDefined();
    expect(secret).toEqual({ values: {}, access_token: expect.stringMatching(/^at_/), refresh_token: issued?.refresh_token, token_type: 'bearer', scope: 'repo read:user', expires_in: 28800 });
    const rawRow = JSON.stringify(connection);
    expect(rawRow).not.toContain(secret.access_token);
    expect(rawRow).not.toContain(issued?.refresh_token);

    // Single use: the same link now explains it was used.
    await withPage(async (page) => {
      const again = await page.goto(url);
      expect(again?.status()).toBe(410);
      expect(await page.locator('#message').textContent()).toContain('This link was already used');
    });
  });

  it('a form-based credential (personal access token) goes through the browser to callback_url with state', async () => {
    const { org, userId } = await orgWithUser();
    const state = `form-${randomUUID()}`;
    const url = await magicLink(org, userId, state);
    await withPage(async (page) => {
      await page.goto(url);
      await page.fill('input[name="token"]', 'ghp_browser_token');
      await page.click('#save');
      await page.waitForURL(landedOnCallback);
    });
    const hit = callback.hits.find((u) => u.searchParams.get('state') === state);
    expect(hit?.searchParams.get('status')).toBe('success');
    const connection = await h.db.connection.findFirstOrThrow({ where: { organizationId: org.organization_id } });
    expect(connection).toMatchObject({ authType: 'bearer_token', status: 'ACTIVE' });
    expect(connection.credentialSealed).not.toContain('ghp_browser_token');
    expect(h.services.box.openJson(connection.credentialSealed, connectionSecretContext(connection.id))).toEqual({ values: { token: 'ghp_browser_token' } });
  });

  it('when the user denies access the page says so and the callback gets error=access_denied with state; nothing is stored', async () => {
    const { org, userId } = await orgWithUser();
    const state = `deny-${randomUUID()}`;
    const url = await magicLink(org, userId, state);
    await withPage(async (page) => {
      await page.goto(url);
      await page.click('#connect');
      await page.waitForURL((u) => u.toString().startsWith(provider.authorizeUrl));
      await page.click('#deny');
      await page.waitForURL((u) => u.pathname === '/link/oauth/callback');
      expect(await page.locator('#message').textContent()).toContain('Access was denied');
      await page.click('#return');
      await page.waitForURL(landedOnCallback);
    });
    const hit = callback.hits.find((u) => u.searchParams.get('state') === state);
    expect(hit?.searchParams.get('error')).toBe('access_denied');
    expect(hit?.searchParams.get('error_description')).toContain('Access was denied');
    expect(await h.db.connection.count({ where: { organizationId: org.organization_id } })).toBe(0);
    const row = await h.db.linkToken.findFirstOrThrow({ where: { organizationId: org.organization_id } });
    expect(row).toMatchObject({ usedAt: null, oauthState: null });
  });

  it('when the token exchange fails the page says so and the callback gets error=token_exchange_failed', async () => {
    const { org, userId } = await orgWithUser({ clientSecret: 'wrong-secret' });
    const state = `fail-${randomUUID()}`;
    const url = await magicLink(org, userId, state);
    await withPage(async (page) => {
      await page.goto(url);
      await page.click('#connect');
      await page.waitForURL((u) => u.toString().startsWith(provider.authorizeUrl));
      await page.click('#approve');
      await page.waitForURL((u) => u.pathname === '/link/oauth/callback');
      const message = await page.locator('#message').textContent();
      expect(message).toContain('could not be finished');
      expect(message).toContain('invalid_client');
      expect(message).not.toContain('wrong-secret');
      await page.click('#return');
      await page.waitForURL(landedOnCallback);
    });
    const hit = callback.hits.find((u) => u.searchParams.get('state') === state);
    expect(hit?.searchParams.get('error')).toBe('token_exchange_failed');
    expect(await h.db.connection.count({ where: { organizationId: org.organization_id } })).toBe(0);
  });

  it('the local provider refuses a code presented with the wrong PKCE verifier', async () => {
    const verifier = 'v'.repeat(43);
    const authorize = new URL(provider.authorizeUrl);
    const redirectUri = `${callback.url}/provider-check`;
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: CLIENT_ID, redirect_uri: redirectUri, state: 's', code_challenge: pkceChallenge(verifier), code_challenge_method: 'S256', decision: 'approve' })) {
      authorize.searchParams.set(k, v);
    }
    const approved = await fetch(authorize, { redirect: 'manual' });
    const code = new URL(approved.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const exchange = (codeVerifier: string) =>
      fetch(provider.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: codeVerifier }).toString(),
      });
    const wrong = await exchange('w'.repeat(43));
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_grant', error_description: 'PKCE verification failed' });
    expect((await exchange(verifier)).status).toBe(200);
  });
});
