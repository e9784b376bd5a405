/// <reference lib="dom" />
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startFakeOpenAI, type FakeVendor } from '@patchbay/provider-fakes';
import { CHROMIUM_ARGS, CHROMIUM_PATH, chromiumAvailable, memberSession, ownerSession, type MemberSession } from '@patchbay/testing';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expectPageAccessible, watchProblems } from './browser';
import { startSuite, type RunningSuite } from './suite';

/**
 * The model gateway's usage, routing policies and request tester (issue 26 §2) against the whole suite
 * with the OpenAI fake: model calls made with a gateway key created through the API show on the usage
 * chart with the gateway's totals and the CSV holds exactly the chart's numbers; a routing policy made in
 * the browser is dry-run; the request tester shows the answer, the routing metadata and the headers; a
 * member without manage_routing sees saving disabled with the permission named, and the gateway answers
 * 403. Axe on every page. Screenshots: docs/usage.png, docs/routing-policies.png, docs/request-tester.png.
 */
const DOCS_DIR = path.join(__dirname, '..', 'docs');
const describeInBrowser = chromiumAvailable() || process.env.CI ? describe : describe.skip;
jest.setTimeout(240_000);

interface UsageDaily {
  from: string;
  to: string;
  groups: Array<{ id: string; label: string; cost_usd: number; requests: number }>;
  days: Array<{ date: string; cost_usd: number; requests: number; groups: Array<{ id: string; cost_usd: number; requests: number }> }>;
  totals: { cost_usd: number; requests: number };
}

describeInBrowser('gateway usage, routing policies and the request tester in the console', () => {
  let suite: RunningSuite;
  let openai: FakeVendor;
  let browser: Browser;
  let ownerContext: BrowserContext;
  let page: Page;
  let organizationId: string;
  let mgmtKey: string;
  let gatewayKey: { key: string; hash: string; label: string };
  let policyId = '';
  const problems: string[] = [];

  async function call(method: string, apiPath: string, auth: string | MemberSession, body?: unknown): Promise<{ status: number; body: any }> {
    const url = `${suite.publicUrl}${apiPath}`;
    const headers = typeof auth === 'string' ? { authorization: `Bearer ${auth}` } : auth.headers(method, url);
    const res = await fetch(url, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
  }

  /** A browser context signed in as `member` (the session cookie the sign-in would have set). */
  async function signedIn(member: MemberSession): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    await context.addCookies([{ name: 'patchbay_session', value: member.token, url: suite.publicUrl, httpOnly: true, sameSite: 'Lax' }]);
    return context;
  }

  const watched = new WeakSet<Page>();
  async function open(context: BrowserContext, consolePath: string, heading: string | RegExp): Promise<Page> {
    const p = context.pages()[0] ?? (await context.newPage());
    if (!watched.has(p)) {
      watched.add(p);
      watchProblems(p, problems, /40[13]/);
    }
    await p.goto(`${suite.publicUrl}/console${consolePath}`);
    await p.getByRole('heading', { level: 1, name: heading }).waitFor();
    return p;
  }

  beforeAll(async () => {
    openai = await startFakeOpenAI();
    suite = await startSuite({
      slot: 4,
      env: { PATCHBAY_VENDOR_OPENAI_BASE_URL: openai.baseUrl, PATCHBAY_VENDOR_OPENAI_API_KEY: openai.apiKeys.valid, PATCHBAY_ALLOW_PRIVATE_NETWORK: 'true' },
    });
    const org = (await suite.cli(['org', 'create', '--name', `Gateway usage ${Date.now()}`, '--plan', 'paid'])) as { organization_id: string };
    organizationId = org.organization_id;
    mgmtKey = ((await suite.cli(['mgmt-key', 'create', '--org', organizationId])) as { key: string }).key;
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
    ownerContext = await signedIn(await ownerSession({ url: suite.publicUrl, cli: suite.cli }, organizationId));
    mkdirSync(DOCS_DIR, { recursive: true });
  }, 480_000);

  afterAll(async () => {
    await browser?.close();
    await suite?.stop();
    await openai?.close();
  });

  afterEach(() => {
    expect(problems).toEqual([]);
  });

  it('model calls made with a gateway key show on the usage chart with the gateway’s totals, and the CSV holds exactly the chart’s numbers', async () => {
    const created = await call('POST', '/v1/keys', mgmtKey, { name: 'Checkout service', limit: 5, limit_reset: 'monthly' });
    expect(created.status).toBe(201);
    gatewayKey = created.body;
    // gpt-4o-mini: 1000 × 0.15 + 100 × 0.60 = 210 micro-USD a call; gpt-4o: 1000 × 2.50 + 100 × 10 = 3,500.
    for (const model of ['openai/gpt-4o-mini', 'openai/gpt-4o-mini', 'openai/gpt-4o']) {
      openai.script({ text: 'Hello from the fake', usage: { inputTokens: 1000, outputTokens: 100 } });
      const res = await call('POST', '/v1/chat/completions', gatewayKey.key, { model, messages: [{ role: 'user', content: 'Hi' }] });
      expect(res.status).toBe(200);
    }
    const today = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
    let usage: UsageDaily | null = null;
    for (const deadline = Date.now() + 30_000; ; ) {
      usage = (await call('GET', `/v1/usage/daily?from=${from}&to=${today}&group_by=key`, mgmtKey)).body as UsageDaily;
      if (usage.totals.requests === 3 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(usage!.totals).toMatchObject({ requests: 3, cost_usd: 0.00392 });

    const apiRequests: string[] = [];
    page = ownerContext.pages()[0] ?? (await ownerContext.newPage());
    page.on('request', (req) => {
      const { pathname } = new URL(req.url());
      if (pathname.startsWith('/api/') || pathname.startsWith('/v1/')) apiRequests.push(`${req.method()} ${pathname}`);
    });
    page = await open(ownerContext, '/usage', 'Usage');
    await page.getByText('Days are UTC days').waitFor();
    await page.getByRole('group', { name: 'Totals' }).getByText('$0.003920').waitFor();
    expect(apiRequests.length).toBeLessThanOrEqual(5);
    await page.getByLabel('Stack by').selectOption('key');
    await page.getByRole('button', { name: 'Show usage' }).click();
    await page.getByRole('table', { name: /Spend \(USD\) per day \(UTC\) by key/ }).waitFor();
    // The view is in the address, to share or link to.
    expect(new URL(page.url()).searchParams.get('group_by')).toBe('key');
    const label = `Checkout service (${gatewayKey.label})`;
    await page.getByRole('list', { name: 'Legend' }).getByText(`${label}: $0.003920`).waitFor();
    await page.getByRole('img', { name: /Spend \(USD\) per UTC day by key/ }).waitFor();
    const row = page.getByRole('row', { name: new RegExp(`^${today}`) });
    await row.getByRole('cell', { name: '$0.003920' }).first().waitFor();

    // The CSV: the chart's numbers, as the gateway computed them.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8').trimEnd().split('\r\n');
    expect(csv[0]).toBe(`date (UTC),${label},total`);
    expect(csv).toHaveLength(usage!.days.length + 2);
    for (const [i, day] of usage!.days.entries()) {
      const cost = day.groups.find((g) => g.id === gatewayKey.hash)?.cost_usd ?? 0;
      expect(csv[i + 1]).toBe(`${day.date},${cost.toFixed(6)},${day.cost_usd.toFixed(6)}`);
    }
    expect(csv.at(-1)).toBe('total,0.003920,0.003920');
    // Requests instead of spend: the chart and its table switch without another request.
    await page.getByRole('combobox', { name: /^Show/ }).selectOption('requests');
    await page.getByRole('table', { name: /Requests per day \(UTC\) by key/ }).waitFor();
    await page.getByRole('combobox', { name: /^Show/ }).selectOption('cost_usd');

    await expectPageAccessible(page);
    await page.screenshot({ path: path.join(DOCS_DIR, 'usage.png'), fullPage: true });
  });

  it('a routing policy made in the browser is dry-run: its routes in order with the reason for each, and what was left out', async () => {
    page = await open(ownerContext, '/routing-policies', 'Routing policies');
    await expectPageAccessible(page);
    await page.getByRole('button', { name: 'New routing policy' }).click();
    const form = page.getByRole('form', { name: 'Create policy' });
    await form.getByLabel('Name').fill('Support answers');
    await form.getByLabel('Strategy').selectOption('priority');
    await form.getByLabel('Model 1').fill('openai/gpt-4o-mini');
    await form.getByRole('button', { name: 'Add target' }).click();
    await form.getByLabel('Model 2').fill('openai/gpt-4o');
    await form.getByRole('button', { name: 'Create policy' }).click();
    await page.getByRole('heading', { level: 1, name: 'Routing policy: Support answers' }).waitFor();
    policyId = new URL(page.url()).pathname.split('/').at(-1)!;
    await page.getByText('@alias/support-answers').first().waitFor();

    await page.getByRole('button', { name: 'Run dry run' }).click();
    const result = page.getByRole('region', { name: 'Dry run result' });
    await result.getByText(/2 routes by Priority, resolved by routing_policy_id; a failed route fails over to the next\. No vendor was called\./).waitFor();
    const routes = result.getByRole('table', { name: 'Routes in the order they would be tried' });
    await routes.getByRole('row', { name: /^1 openai\/gpt-4o-mini openai .*target 1 \(openai\/gpt-4o-mini\)/ }).waitFor();
    await routes.getByRole('row', { name: /^2 openai\/gpt-4o openai .*target 2 \(openai\/gpt-4o\)/ }).waitFor();
    expect(openai.requests.filter((r) => r.path.includes('chat'))).toHaveLength(3);

    await expectPageAccessible(page);
    await page.screenshot({ path: path.join(DOCS_DIR, 'routing-policies.png'), fullPage: true });
  });

  it('the request tester sends one request with a pasted key and shows the answer, the routing metadata, and the budget, rate-limit and overhead headers', async () => {
    page = await open(ownerContext, '/request-tester', 'Request tester');
    await expectPageAccessible(page);
    openai.script({ text: 'Hello from the fake', usage: { inputTokens: 12, outputTokens: 5 } });
    await page.getByLabel('Gateway key').fill(gatewayKey.key);
    await page.getByLabel('Surface').selectOption('native');
    await page.getByRole('combobox', { name: /^Model/ }).fill('@alias/support-answers');
    const modelCall = page.waitForRequest((req) => new URL(req.url()).pathname === '/v1/responses');
    await page.getByRole('button', { name: 'Send request' }).click();
    const sent = await (await modelCall).allHeaders();
    expect(sent.authorization).toBe(`Bearer ${gatewayKey.key}`);
    expect(sent.cookie).toBeUndefined();
    const answer = page.getByRole('region', { name: 'Answer' });
    await answer.getByRole('heading', { name: 'Answer: 200 OK' }).waitFor();
    await answer.getByText('Hello from the fake', { exact: true }).waitFor();
    await answer.getByText(/Gateway overhead \d+(\.\d+)? ms/).waitFor();
    const headers = answer.getByRole('table', { name: 'Headers the gateway set' });
    for (const name of ['x-request-id', 'x-gateway-overhead-ms', 'x-ratelimit-limit', 'x-key-limit-usd', 'x-key-limit-remaining-usd']) await headers.getByRole('row', { name: new RegExp(`^${name} `) }).waitFor();
    await headers.getByRole('row', { name: /^x-key-limit-usd 5/ }).waitFor();
    await answer.getByText(/openai\/gpt-4o-mini on openai: the request named a routing policy alias \(strategy priority, resolved by alias\)/).waitFor();
    await expectPageAccessible(page);
    await page.screenshot({ path: path.join(DOCS_DIR, 'request-tester.png'), fullPage: true });

    // The same key on the Anthropic surface: its answer and headers; routing metadata is the native surface's.
    openai.script({ text: 'Hello again', usage: { inputTokens: 12, outputTokens: 5 } });
    await page.getByLabel('Surface').selectOption('anthropic');
    await page.getByRole('combobox', { name: /^Model/ }).fill('openai/gpt-4o-mini');
    await page.getByRole('button', { name: 'Send request' }).click();
    await answer.getByText('Hello again', { exact: true }).waitFor();
    await answer.getByText('Routing metadata comes with the native surface’s answers').waitFor();
    await headers.getByRole('row', { name: /^x-gateway-overhead-ms / }).waitFor();
    // The key lives in the page only: nothing in storage (and the model call above carried no session cookie).
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length])).toEqual([0, 0]);
    await expectPageAccessible(page);
  });

  it('a member without manage_routing sees saving disabled with the permission named, can still dry-run, and the gateway answers 403', async () => {
    const member = await memberSession({ url: suite.publicUrl, cli: suite.cli }, organizationId, { permissions: ['view_routing', 'view_billing'] });
    const context = await signedIn(member);
    const memberPage = await open(context, `/routing-policies/${policyId}`, 'Routing policy: Support answers');
    const save = memberPage.getByRole('button', { name: 'Save policy' });
    await expect(save.getAttribute('aria-disabled')).resolves.toBe('true');
    await save.hover();
    await memberPage.getByRole('tooltip', { name: 'Needs the permission Manage routing (manage_routing)' }).first().waitFor();
    await expect(memberPage.getByRole('button', { name: 'Delete policy' }).getAttribute('aria-disabled')).resolves.toBe('true');
    // A click on it sends nothing (the button is a courtesy; the 403 below is the rule).
    const patches: string[] = [];
    memberPage.on('request', (req) => void (req.method() === 'PATCH' && patches.push(req.url())));
    await save.click({ force: true });
    expect(patches).toEqual([]);
    await memberPage.getByRole('button', { name: 'Run dry run' }).click();
    await memberPage.getByRole('region', { name: 'Dry run result' }).getByText(/2 routes by Priority/).waitFor();
    await expectPageAccessible(memberPage);

    const denied = await call('PATCH', `/v1/routing-policies/${policyId}`, member, { name: 'Renamed' });
    expect(denied.status).toBe(403);
    expect(JSON.stringify(denied.body)).toContain('manage_routing');
    expect((await call('GET', `/v1/routing-policies/${policyId}`, mgmtKey)).body.name).toBe('Support answers');
    await context.close();
  });
});
