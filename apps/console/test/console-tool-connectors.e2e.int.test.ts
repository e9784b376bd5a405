/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, chromiumAvailable, memberSession, ownerSession } from '@patchbay/testing';
import { chromium, type Browser } from 'playwright-core';
import { z } from 'zod';
import { callApi, consoleBrowser, type Actor } from './browser';
import { startSuite, type RunningSuite } from './suite';

/**
 * The tool connector pages against the whole suite (pnpm start's processes) in Debian's Chromium, with
 * a remote MCP server of the test's own (the official SDK, stateless): the owner searches the catalog,
 * registers the server (the handshake's tools shown; a second registration's 409 and an unreachable
 * server explained), reads its tools' schemas and annotations, builds a tool pack in the editor, keeps an
 * OAuth app's secret write-only, registers a user and copies a link token's magic link (the user connects
 * through it: the connection shows ACTIVE, then its stored credential is deleted), filters the connections,
 * creates a security rule and sees its redaction in the tester; a member whose role lacks manage_tool_packs
 * sees the editor's save disabled with the permission named and gets 403 from the API.
 * Every page passes axe-core without a serious violation; docs/connectors.png, docs/tool-packs.png and
 * docs/security-rules.png are written.
 */
const DOCS_DIR = path.join(__dirname, '..', 'docs');
/**
 * This file's hand-started ports: 14000-14999 (the MCP server, and a closed port beside it for "unreachable"). They are
 * below Linux's ephemeral range (32768 and up), so no port-0 listener of a test running beside this one can take the
 * closed one.
 */
const PORT_BASE = 14_000;
const SAMPLE_EMAIL = 'ada.lovelace@example.com';

const describeInBrowser = chromiumAvailable() || process.env.CI ? describe : describe.skip;


/** A stateless MCP server on the official SDK (a new server and transport per POST, JSON answers), with two order tools. */
function ordersServer(): http.Server {
  return http.createServer((req, res) => {
    if (req.url?.split('?')[0] !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const mcp = new McpServer({ name: 'orders', version: '1.0.0' });
    mcp.registerTool(
      'lookup_order',
      { description: 'Looks an order up by its id', inputSchema: { order_id: z.string().describe('The order id, e.g. ORD-1') }, outputSchema: { status: z.string() }, annotations: { readOnlyHint: true, title: 'Look up an order' } },
      async ({ order_id }) => ({ content: [{ type: 'text', text: `${order_id} shipped` }], structuredContent: { status: 'shipped' } }),
    );
    mcp.registerTool('refund_order', { description: 'Refunds an order', inputSchema: { order_id: z.string(), reason: z.string().optional() }, annotations: { destructiveHint: true } }, async ({ order_id }) => ({
      content: [{ type: 'text', text: `${order_id} refunded` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
}

/** Listens on a free even port of the range (tries from a spot picked by the process id), leaving the odd one above it closed. */
async function startOrdersServer(): Promise<{ server: http.Server; port: number }> {
  const server = ordersServer();
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = PORT_BASE + ((process.pid + attempt * 37) % 500) * 2;
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (listening) return { server, port };
  }
  throw new Error('no free port in 14000-14999 for the test MCP server');
}

describeInBrowser('the tool connector pages with the real suite and a remote MCP server', () => {
  let mcpServer: http.Server;
  let mcpPort: number;
  let suite: RunningSuite;
  let browser: Browser;
  let organizationId: string;
  let owner: Actor;
  let packId: string;
  const serverUrl = () => `http://127.0.0.1:${mcpPort}/mcp`;
  const stamp = Date.now().toString(36);

  beforeAll(async () => {
    ({ server: mcpServer, port: mcpPort } = await startOrdersServer());
    // The test's MCP server is on 127.0.0.1 over http: the local-development setting lets the registry call it.
    suite = await startSuite({ slot: 1, env: { PATCHBAY_ALLOW_PRIVATE_NETWORK: 'true' } });
    organizationId = (await suite.cli(['org', 'create', '--name', `Tools ${stamp}`])).organization_id as string;
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
    mkdirSync(DOCS_DIR, { recursive: true });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await suite?.stop();
    await new Promise((resolve) => mcpServer?.close(resolve));
  });

  const { signIn, open, expectAccessible } = consoleBrowser({ browser: () => browser, publicUrl: () => suite.publicUrl, expectedStatuses: /40[1349]|502/, clipboard: true });

  const accessKeys = () => ({ url: suite.publicUrl, cli: suite.cli });

  it('the owner searches the catalog, registers the remote MCP server (its tools shown), and sees a 409 and an unreachable server explained', async () => {
    const session = await ownerSession(accessKeys(), organizationId);
    owner = await signIn(session.email, '/connectors');
    const page = owner.page;
    await page.getByRole('heading', { level: 1, name: 'Connectors' }).waitFor();
    await expectAccessible(owner);

    // Search runs on the server: the caption counts what it matched.
    const searched = page.waitForResponse((res) => res.url().includes('/api/v1/connectors?') && res.url().includes('search=github'));
    await page.getByLabel('Search connectors').fill('github');
    await searched;
    await page.locator('caption', { hasText: /^1 connectors$/ }).waitFor();
    await page.getByRole('link', { name: 'GitHub' }).waitFor();
    await page.getByLabel('Search connectors').fill('');

    const form = page.getByRole('form', { name: 'Register a remote MCP server' });
    await form.getByLabel('Name').fill('Orders');
    await form.getByLabel('Server URL').fill(serverUrl());
    await form.getByLabel('Slug (optional)').fill(`orders-${stamp}`);
    await form.getByRole('button', { name: 'Register server' }).click();
    const result = page.getByRole('status', { name: 'Handshake result' });
    await result.getByText('Handshake succeeded.').waitFor();
    expect(await result.innerText()).toMatch(/registered with 2 tools[\s\S]*lookup_order[\s\S]*refund_order/);
    await expectAccessible(owner);
    await page.screenshot({ path: path.join(DOCS_DIR, 'connectors.png'), fullPage: true });

    // The same URL again: the API's 409, explained with a link to the connector that holds it.
    await form.getByLabel('Slug (optional)').fill(`orders-again-${stamp}`);
    await form.getByRole('button', { name: 'Register server' }).click();
    const conflict = form.getByRole('alert');
    await conflict.getByText('Already registered.').waitFor();
    expect(await conflict.innerText()).toContain('The URL is already used by');
    await conflict.getByRole('link', { name: `orders-${stamp}` }).waitFor();

    // A server nobody answers on: the handshake's failure named, with what to check.
    await form.getByLabel('Server URL').fill(`http://127.0.0.1:${mcpPort + 1}/mcp`);
    await form.getByLabel('Slug (optional)').fill(`nobody-${stamp}`);
    await form.getByRole('button', { name: 'Register server' }).click();
    await form.getByRole('alert').getByText('Handshake failed (unreachable).').waitFor();
    expect(await form.getByRole('alert').innerText()).toContain('Check the URL and that the server is running');
    await expectAccessible(owner);
  });

  it("a connector's page shows its tools' input and output schemas and annotations, and its credential fields; a custom one can be deleted", async () => {
    await open(owner, `/connectors/orders-${stamp}`, 'Orders');
    const page = owner.page;
    await page.getByText('lookup_order', { exact: true }).click();
    const lookup = page.locator('details.tool', { hasText: 'lookup_order' });
    expect(await lookup.getByRole('list', { name: 'Annotations of lookup_order' }).innerText()).toMatch(/readOnlyHint\s+true/);
    expect(await lookup.locator('pre.schema').first().innerText()).toContain('"order_id"');
    expect(await lookup.locator('pre.schema').nth(1).innerText()).toContain('"status"');
    await page.getByRole('heading', { name: 'Credential fields' }).waitFor();
    await expectAccessible(owner);

    // A built-in connector's credential fields, as the magic-link form asks for them.
    await open(owner, '/connectors/github', 'GitHub');
    await page.getByRole('heading', { name: /^Tools \(\d+\)$/ }).waitFor();
    await expectAccessible(owner);

    // A second registration of the server (another URL of it), deleted from its page.
    const scratch = await callApi(page, 'POST', '/api/v1/connectors', { name: 'Scratch', slug: `scratch-${stamp}`, url: `${serverUrl()}?copy=1`, auth: { type: 'none' } });
    expect(scratch.status).toBe(200);
    await open(owner, `/connectors/scratch-${stamp}`, 'Scratch');
    await page.getByRole('button', { name: 'Delete connector' }).click();
    await page.getByRole('button', { name: 'Confirm deletion' }).click();
    await page.getByRole('heading', { level: 1, name: 'Connectors' }).waitFor();
    expect((await callApi(page, 'GET', `/api/v1/connectors/scratch-${stamp}`)).status).toBe(404);
  });

  it('the owner builds a tool pack in the editor: connectors picked from the catalog, an auth scope, some tools of one and all of another', async () => {
    await open(owner, '/tool-packs', 'Tool packs');
    await expectAccessible(owner);
    const page = owner.page;
    await page.getByRole('link', { name: 'New tool pack' }).click();
    await page.getByRole('heading', { level: 1, name: 'New tool pack' }).waitFor();
    const editor = page.getByRole('form', { name: 'Tool pack editor' });
    await editor.getByLabel('Name').fill('Support agent');
    await editor.getByLabel('Description').fill('Issues and orders');
    await editor.getByLabel('Search the catalog').fill('github');
    await editor.getByRole('button', { name: 'Add GitHub' }).click();
    await editor.getByLabel('Search the catalog').fill(`orders-${stamp}`);
    await editor.getByRole('button', { name: 'Add Orders' }).click();

    await editor.getByLabel('Auth scope of GitHub').selectOption('ORGANIZATION');
    await editor.getByLabel(/^All tools of GitHub/).uncheck();
    const githubTools = editor.getByRole('group', { name: 'Tools of GitHub' });
    for (const box of await githubTools.getByRole('checkbox').all()) await box.uncheck();
    await githubTools.getByLabel('get_issue', { exact: true }).check();
    await githubTools.getByLabel('list_issues', { exact: true }).check();
    await expectAccessible(owner);

    const created = page.waitForResponse((res) => res.url().endsWith('/api/v1/tool-packs') && res.request().method() === 'POST');
    await editor.getByRole('button', { name: 'Create tool pack' }).click();
    expect((await created).status()).toBe(201);
    await page.getByRole('heading', { level: 1, name: 'Tool pack Support agent' }).waitFor();
    packId = page.url().split('/').pop()!;
    const pack = (await callApi(page, 'GET', `/api/v1/tool-packs/${packId}`)).body;
    expect(pack.connectors.map((c: { slug: string; auth_scope: string; tool_names: string[] }) => [c.slug, c.auth_scope, [...c.tool_names].sort()])).toEqual([
      ['github', 'ORGANIZATION', ['get_issue', 'list_issues']],
      [`orders-${stamp}`, 'INDIVIDUAL', []],
    ]);

    // Reopened, the editor shows what was saved; a change saves as a PATCH of the whole connector list.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Tool pack Support agent' }).waitFor();
    await page.getByRole('form', { name: 'Tool pack editor' }).getByLabel('Auth scope of Orders').selectOption('SHARED');
    const saved = page.waitForResponse((res) => res.url().endsWith(`/api/v1/tool-packs/${packId}`) && res.request().method() === 'PATCH');
    await page.getByRole('button', { name: 'Save tool pack' }).click();
    expect((await saved).status()).toBe(200);
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await callApi(page, 'GET', `/api/v1/tool-packs/${packId}`)).body.connectors[1].auth_scope).toBe('SHARED');
    await expectAccessible(owner);
    await page.screenshot({ path: path.join(DOCS_DIR, 'tool-packs.png'), fullPage: true });

    // The custom connector is in a pack now: deleting it is refused, naming the pack.
    await open(owner, `/connectors/orders-${stamp}`, 'Orders');
    await page.getByRole('button', { name: 'Delete connector' }).click();
    await page.getByRole('button', { name: 'Confirm deletion' }).click();
    await page.getByRole('alert').getByRole('link', { name: 'Support agent' }).waitFor();

    // The list searches by name on the server.
    await open(owner, '/tool-packs', 'Tool packs');
    await page.getByLabel('Search tool packs').fill('SUPPORT');
    await page.locator('caption', { hasText: /^1 tool packs$/ }).waitFor();
    await page.getByLabel('Search tool packs').fill('nothing like it');
    await page.locator('caption', { hasText: /^0 tool packs$/ }).waitFor();
  });

  it("an OAuth app's client secret is write-only: stored, said to be set, never shown back", async () => {
    await open(owner, '/application-credentials', 'Application credentials');
    const page = owner.page;
    const secret = `shh-${stamp}-do-not-show`;
    const form = page.getByRole('form', { name: 'Add an application credential' });
    await form.getByLabel('Connector slug').fill('github');
    await form.getByLabel('Client id').fill('Iv1.console-test');
    await form.getByLabel('Client secret (write-only)').fill(secret);
    await form.getByLabel('External id (optional)').fill('tenant-a');
    await form.getByRole('button', { name: 'Add credential' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Iv1.console-test' });
    await row.getByText('Set (hidden)').waitFor();
    expect(await page.content()).not.toContain(secret);
    await expectAccessible(owner);
  });

  it('the owner registers a user, finds it by origin_user_id, creates a link token and copies its magic link; the user connects through it (ACTIVE, the key never shown) and the stored credential is deleted; connections are filtered by the spec\'s filters', async () => {
    await open(owner, '/registered-users', 'Registered users');
    await expectAccessible(owner);
    const page = owner.page;
    const form = page.getByRole('form', { name: 'Register a user' });
    await form.getByLabel('origin_user_id').fill(`cust-${stamp}`);
    await form.getByLabel('User name').fill('Ada Lovelace');
    await form.getByLabel('Company id').fill('acme');
    await form.getByLabel('Company name').fill('Acme');
    await form.getByRole('button', { name: 'Register user' }).click();
    await page.getByRole('heading', { level: 1, name: 'Ada Lovelace' }).waitFor();
    const userId = page.url().split('/').pop()!;

    const link = page.getByRole('form', { name: 'Create a link token' });
    await link.getByLabel('Connector slug').fill('linear');
    await link.getByRole('button', { name: 'Create link token' }).click();
    const magic = (await page.locator('.secret-value').innerText()).trim();
    expect(magic).toMatch(new RegExp(`^${suite.publicUrl}/link/`));
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(magic);
    // The user opens the magic link and gives their Linear API key: the connection shows ACTIVE, never the key.
    await page.locator('caption', { hasText: '0 stored credentials of this user' }).waitFor();
    const apiKey = `lin_api_${stamp}_never_shown`;
    const endUser = await owner.context.newPage();
    await endUser.goto(magic);
    await endUser.getByLabel('Personal API key').fill(apiKey);
    await endUser.getByRole('button', { name: 'Save and connect' }).click();
    await endUser.getByRole('status').filter({ hasText: 'Your Linear account is connected' }).waitFor();
    await endUser.close();
    await page.reload();
    const connection = page.getByRole('row').filter({ hasText: 'linear' });
    await connection.getByText('ACTIVE').waitFor();
    expect(await page.content()).not.toContain(apiKey);
    await expectAccessible(owner);
    await connection.getByRole('button', { name: 'Delete credential of linear' }).click();
    await connection.getByRole('button', { name: 'Confirm delete of the linear credential' }).click();
    await page.locator('caption', { hasText: '0 stored credentials of this user' }).waitFor();

    await open(owner, '/registered-users', 'Registered users');
    await page.getByLabel('Search users').fill(`CUST-${stamp}`);
    await page.locator('caption', { hasText: /^1 registered users$/ }).waitFor();
    await page.getByRole('link', { name: `cust-${stamp}` }).waitFor();
    expect(await page.getByRole('link', { name: `cust-${stamp}` }).getAttribute('href')).toContain(userId);

    await open(owner, '/connections?status=ERROR', 'Connections');
    expect(await page.getByLabel('Status').inputValue()).toBe('ERROR');
    await page.locator('caption', { hasText: /^0 connections$/ }).waitFor();
    const filtered = page.waitForResponse((res) => res.url().includes('/api/v1/connections?') && res.url().includes('auth_scope=SHARED'));
    await page.getByLabel('Auth scope').selectOption('SHARED');
    await filtered;
    await expectAccessible(owner);
  });

  it("the owner creates a security rule and sees its redaction in the tester, rule by rule", async () => {
    await open(owner, '/security-rules', 'Security rules');
    const page = owner.page;
    const form = page.getByRole('form', { name: 'Create a security rule' });
    await form.getByLabel('Rule name').fill('No customer emails');
    await form.getByLabel('Detector').selectOption('EMAIL_ADDRESS');
    await form.getByLabel('Action').selectOption('redact');
    await form.getByRole('button', { name: 'Create rule' }).click();
    await page.getByRole('row').filter({ hasText: 'No customer emails' }).waitFor();
    await form.getByLabel('Rule name').fill('Order ids');
    await form.getByLabel('Detector').selectOption('CUSTOM');
    await form.getByLabel(/^Pattern/).fill('ORD-\\d+');
    await form.getByLabel(/^Label/).fill('ORDER');
    await form.getByLabel('Direction').selectOption('outbound');
    await form.getByLabel('Action').selectOption('block');
    await form.getByRole('button', { name: 'Create rule' }).click();
    await page.getByRole('row').filter({ hasText: 'Order ids' }).waitFor();
    await expectAccessible(owner);

    const tester = page.getByRole('form', { name: 'Test the rules' });
    await tester.getByLabel('Sample', { exact: true }).fill(`Please write to ${SAMPLE_EMAIL} about ORD-77`);
    await tester.getByRole('button', { name: 'Test rules' }).click();
    const results = page.getByRole('region', { name: 'Test results' });
    const inbound = results.getByLabel('Output inbound');
    await inbound.waitFor();
    expect(await inbound.innerText()).toBe('Please write to [REDACTED:EMAIL_ADDRESS] about ORD-77');
    expect(await results.innerText()).toContain('Blocked by “Order ids” (ORDER)');
    const emailRow = results.getByRole('row').filter({ hasText: 'No customer emails' });
    expect(await emailRow.innerText()).toMatch(/Redact[\s\S]*inbound \$ ×1[\s\S]*\[REDACTED:EMAIL_ADDRESS\]/);
    expect(await results.getByRole('row').filter({ hasText: 'Order ids' }).innerText()).toMatch(/Block[\s\S]*outbound \$ ×1/);

    // A tool call as an agent sends it: its arguments are scanned as the runtime scans them before the tool runs.
    await tester.getByLabel('Sample kind').selectOption('arguments');
    await tester.getByLabel('Sample', { exact: true }).fill(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'send_mail', arguments: { input: { to: SAMPLE_EMAIL } } } }));
    await tester.getByRole('button', { name: 'Test rules' }).click();
    await results.getByText('$.input.to').waitFor();
    expect(await results.getByLabel('Output inbound').innerText()).toContain('"to": "[REDACTED:EMAIL_ADDRESS]"');
    await expectAccessible(owner);
    await page.screenshot({ path: path.join(DOCS_DIR, 'security-rules.png'), fullPage: true });
    expect(owner.problems).toEqual([]);
  });

  it('a member whose role lacks manage_tool_packs sees the editor\'s save disabled with the permission named, and the API answers 403', async () => {
    const viewer = await memberSession(accessKeys(), organizationId, { permissions: ['view_tool_packs', 'view_connectors', 'view_registered_users', 'view_security_rules'] });
    const member = await signIn(viewer.email, `/tool-packs/${packId}`);
    const page = member.page;
    await page.getByRole('heading', { level: 1, name: 'Tool pack Support agent' }).waitFor();
    const save = page.getByRole('button', { name: 'Save tool pack' });
    expect(await save.getAttribute('aria-disabled')).toBe('true');
    const tip = page.locator(`[id="${await save.getAttribute('aria-describedby')}"]`);
    expect(await tip.getAttribute('role')).toBe('tooltip');
    expect(await tip.textContent()).toBe('Needs the permission Manage tool packs (manage_tool_packs)');
    const refused = await callApi(page, 'PATCH', `/api/v1/tool-packs/${packId}`, { name: 'Renamed by a viewer' });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('Manage tool packs');
    expect((await callApi(page, 'GET', `/api/v1/tool-packs/${packId}`)).body.name).toBe('Support agent');
    await expectAccessible(member);

    // Every page of the area, as this member sees it.
    for (const [pagePath, heading] of [
      ['/tool-packs', 'Tool packs'],
      ['/connectors', 'Connectors'],
      ['/application-credentials', 'Application credentials'],
      ['/registered-users', 'Registered users'],
      ['/connections', 'Connections'],
      ['/security-rules', 'Security rules'],
    ] as const) {
      await open(member, pagePath, heading);
      await expectAccessible(member);
    }
    expect(await page.getByRole('button', { name: 'Create rule' }).getAttribute('aria-disabled')).toBe('true');
    expect(member.problems).toEqual([]);
    await member.context.close();
  });
});
