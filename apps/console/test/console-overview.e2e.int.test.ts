/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { GITHUB_FAKE_TOKENS, startFakeGithub, startFakeOpenAI, type FakeServer } from '@patchbay/provider-fakes';
import { CHROMIUM_ARGS, CHROMIUM_PATH, chromiumAvailable } from '@patchbay/testing';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expectPageAccessible } from './browser';
import { startSuite, type RunningSuite } from './suite';

/**
 * The overview (/) against the whole suite with the GitHub and OpenAI fakes: after tool calls made
 * through the MCP endpoint (two that succeed, one that fails) and model calls through a gateway key,
 * it shows those figures from the services' aggregates in a handful of API requests, each figure links
 * to its page, and it passes axe. Screenshot: docs/overview.png.
 */
const DOCS_DIR = path.join(__dirname, '..', 'docs');
const PASSWORD = 'correct horse battery staple';

const describeInBrowser = chromiumAvailable() || process.env.CI ? describe : describe.skip;

describeInBrowser('the overview with the real suite and the provider fakes', () => {
  let suite: RunningSuite;
  let github: FakeServer;
  let openai: Awaited<ReturnType<typeof startFakeOpenAI>>;
  let browser: Browser;
  let page: Page;
  let masterKey: string;
  const problems: string[] = [];

  async function call(method: string, apiPath: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${suite.publicUrl}${apiPath}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
  }

  async function waitUntil<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after 30 s`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  beforeAll(async () => {
    github = await startFakeGithub({ owner: 'octo-org', repo: 'hello', issues: 3 });
    openai = await startFakeOpenAI();
    suite = await startSuite({
      slot: 6,
      env: {
        PATCHBAY_CONNECTOR_BASE_URL_GITHUB: github.url,
        PATCHBAY_VENDOR_OPENAI_BASE_URL: openai.baseUrl,
        PATCHBAY_VENDOR_OPENAI_API_KEY: openai.apiKeys.valid,
        PATCHBAY_ALLOW_PRIVATE_NETWORK: 'true',
      },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
    mkdirSync(DOCS_DIR, { recursive: true });
  }, 480_000);

  afterAll(async () => {
    await browser?.close();
    await suite?.stop();
    await openai?.close();
    await github?.close();
  });

  it('tool calls and model calls made through the API appear on the overview, each figure linking to its page', async () => {
    const org = (await suite.cli(['org', 'create', '--name', `Overview ${Date.now()}`, '--plan', 'paid', '--credits', '1000'])) as { organization_id: string; master_key: string; owner_setup_url: string };
    masterKey = org.master_key;

    // Three tool calls through the MCP endpoint: two read an issue, one asks for an issue the repository does not have.
    const user = (await call('POST', '/api/v1/registered-users', masterKey, { origin_user_id: 'overview-user', origin_user_name: 'Ada', shared_credential_group: { origin_company_id: 'acme', origin_company_name: 'Acme', custom_groupings: {} } })).body as { id: string };
    const connectors = (await call('GET', '/api/v1/connectors/?search=github', masterKey)).body as { results: Array<{ id: string }> };
    const pack = (await call('POST', '/api/v1/tool-packs/', masterKey, { name: 'Triage', description: 'Issue tools', connectors: [{ connector_id: connectors.results[0]!.id, auth_scope: 'INDIVIDUAL', tool_names: ['get_issue'] }] })).body as { id: string };
    const link = (await call('POST', `/api/v1/registered-users/${user.id}/link-token/`, masterKey, { connector: 'github' })).body as { link_token: string };
    const linked = await fetch(`${suite.publicUrl}/link/${link.link_token}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: GITHUB_FAKE_TOKENS.valid }), redirect: 'manual' });
    expect(linked.status).toBeLessThan(400);
    const mcp = `/api/v1/tool-packs/${pack.id}/registered-users/${user.id}/mcp`;
    for (const [i, issue] of [1, 2, 404].entries()) {
      const res = await call('POST', mcp, masterKey, { jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'github__get_issue', arguments: { input: { owner: 'octo-org', repo: 'hello', issue_number: issue } } } });
      expect(res.status).toBe(200);
      const result = (res.body as { result?: { isError?: boolean; content?: unknown } }).result;
      // The content says why when the call that should succeed did not.
      expect({ issue, isError: Boolean(result?.isError), content: Boolean(result?.isError) === (issue === 404) ? null : result?.content }).toEqual({ issue, isError: issue === 404, content: null });
    }

    // Two model calls through a gateway key on the OpenAI fake.
    const mgmt = (await suite.cli(['mgmt-key', 'create', '--org', org.organization_id])) as { key: string };
    const gatewayKey = (await call('POST', '/v1/keys', mgmt.key, { name: 'overview', limit: 5, limit_reset: 'monthly' })).body as { key: string };
    for (let i = 0; i < 2; i++) {
      const res = await call('POST', '/v1/openai/chat/completions', gatewayKey.key, { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: `Say hello ${i}` }] });
      expect(res.status).toBe(200);
    }

    // Records reach the services' stores through their queues: wait for both aggregates to count them.
    const today = new Date().toISOString().slice(0, 10);
    await waitUntil('tool calls counted', async () => ((await call('GET', `/api/v1/usage/daily?start=${today}&end=${today}`, masterKey)).body as { totals?: { tool_calls: number } }).totals?.tool_calls, (n) => n === 3);
    await waitUntil('model requests counted', async () => ((await call('GET', `/v1/usage?start_date=${today}&end_date=${today}`, mgmt.key)).body as { data?: Array<{ requests: number }> }).data?.reduce((n, r) => n + r.requests, 0), (n) => n === 2);

    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !/status of 401/.test(msg.text())) problems.push(`${msg.text()} ${msg.location().url}`);
    });
    // The admin CLI builds links on the default public URL; this suite's edge router is elsewhere.
    const setup = new URL(org.owner_setup_url);
    await page.goto(`${suite.publicUrl}${setup.pathname}${setup.hash}`);
    await page.getByLabel('Email').fill(`owner-${Date.now()}@example.com`);
    await page.getByLabel('Name').fill('Olive Owner');
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Become the owner' }).click();
    await page.getByRole('heading', { name: 'Welcome, Olive Owner' }).waitFor();

    // A fresh load of the overview: its API requests counted.
    const apiRequests: string[] = [];
    page.on('request', (req) => {
      const { pathname } = new URL(req.url());
      if (pathname.startsWith('/api/') || pathname.startsWith('/v1/')) apiRequests.push(`${req.method()} ${pathname}`);
    });
    await page.goto(`${suite.publicUrl}/console/`);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const figure = (name: string) => page.getByRole('link', { name, exact: true });
    await figure('Tool calls, last day: 3').waitFor();
    await figure('Tool calls, last 30 days: 3').waitFor();
    await figure('Tool-call failures, last day: 1').waitFor();
    await figure('Credits used, last day: 3').waitFor();
    await figure('Gateway requests, last day: 2').waitFor();
    await figure('Gateway requests, last 30 days: 2').waitFor();
    // The spend shown is the gateway's own total for the day (two small calls: a fraction of a cent).
    const daily = (await call('GET', `/v1/usage/daily?from=${today}&to=${today}&limit=1`, mgmt.key)).body as { totals: { cost_usd: number } };
    expect(daily.totals.cost_usd).toBeGreaterThan(0);
    const spend = await page.getByRole('link', { name: /^Gateway spend, last day: \$/ }).textContent();
    expect(Number(spend!.replace(/[$,]/g, ''))).toBeCloseTo(daily.totals.cost_usd, 6);
    await figure('Failing connections now: 0').waitFor();
    await figure('Syncs in error now: 0').waitFor();
    await page.waitForLoadState('networkidle');
    expect(apiRequests.length).toBeLessThanOrEqual(7);
    // The member stays in a corner.
    await page.getByRole('complementary', { name: 'Signed in' }).getByText(/Your permissions/).waitFor();

    await expectPageAccessible(page);
    await page.screenshot({ path: path.join(DOCS_DIR, 'overview.png'), fullPage: true });

    // Each figure links to its page.
    const hrefOf = async (name: string) => new URL((await figure(name).getAttribute('href'))!, suite.publicUrl);
    expect((await hrefOf('Tool calls, last day: 3')).pathname).toBe('/console/tool-call-records');
    const failures = await hrefOf('Tool-call failures, last day: 1');
    expect([failures.pathname, failures.searchParams.get('status')]).toEqual(['/console/tool-call-records', 'error']);
    expect((await hrefOf('Credits used, last day: 3')).pathname).toBe('/console/credits');
    const requests = await hrefOf('Gateway requests, last day: 2');
    expect([requests.pathname, requests.searchParams.get('from'), requests.searchParams.get('to'), requests.searchParams.get('show')]).toEqual(['/console/usage', today, today, 'requests']);
    expect((await hrefOf('Failing connections now: 0')).pathname).toBe('/console/connections');
    expect((await hrefOf('Syncs in error now: 0')).pathname).toBe('/console/linked-accounts');
    await figure('Tool calls, last day: 3').click();
    await page.waitForURL(`${suite.publicUrl}/console/tool-call-records`);
    // The failures figure opens the records filtered to the failed call, the filter shown in the form.
    await page.goBack();
    await figure('Tool-call failures, last day: 1').click();
    await page.waitForURL(`${suite.publicUrl}/console/tool-call-records?status=error`);
    expect(await page.getByLabel('Status').inputValue()).toBe('error');
    await page.locator('tbody tr .badge.status-error').first().waitFor();
    expect(await page.locator('tbody tr').count()).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  }, 240_000);
});
