/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH, chromiumAvailable, memberSession, ownerSession, type MemberSession } from '@patchbay/testing';
import { chromium, type Browser } from 'playwright-core';
import { consoleBrowser, type Actor } from './browser';
import { startSuite, type RunningSuite } from './suite';

/**
 * The playground, tool-call records and credits pages against the whole suite (pnpm start's processes)
 * in Debian's Chromium, with a tool pack whose connector is a small remote MCP server this test runs:
 * the owner lists the pack's tools as the MCP endpoint gives them and calls one from the form built from
 * its input schema (the JSON-RPC exchange, the content, isError, its credit and the security rule that
 * fired), searches the tools for an intent, reads the call's record with the redaction marker where the
 * email was (and the email nowhere), and finds the call on the credits page; a member without
 * manage_tool_packs sees Call tool disabled with the permission named, and the MCP endpoint answers
 * their tools/call 403. axe-core on every page; docs/playground.png, docs/tool-call-records.png and
 * docs/credits.png are written.
 */
const DOCS_DIR = path.join(__dirname, '..', 'docs');
const EMAIL = 'ada.lovelace@example.com';
const TOOL = 'crm__lookup_customer';

const describeInBrowser = chromiumAvailable() || process.env.CI ? describe : describe.skip;


/**
 * A remote MCP server as small as the transport allows (stateless, JSON answers): one tool that
 * looks a customer up by email and answers with that email in its text, so a redaction rule has
 * something to redact both ways. It records the arguments it received.
 */
function startCrmServer(received: unknown[]): Promise<Server> {
  const tool = {
    name: 'lookup_customer',
    description: 'Find a customer by email and return their open orders.',
    inputSchema: {
      type: 'object',
      properties: {
        email: { type: 'string', description: "The customer's email address" },
        limit: { type: 'integer', description: 'Orders to return at most' },
        include_closed: { type: 'boolean' },
      },
      required: ['email'],
    },
    annotations: { readOnlyHint: true },
  };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
      const message = JSON.parse(body) as { id?: number; method?: string; params?: { name?: string; arguments?: Record<string, unknown> } };
      if (message.id === undefined) return void res.writeHead(202).end();
      const answer = (result: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      if (message.method === 'initialize') return answer({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'crm', version: '1.0.0' } });
      if (message.method === 'tools/list') return answer({ tools: [tool] });
      if (message.method === 'tools/call') {
        received.push(message.params?.arguments);
        const email = String(message.params?.arguments?.email ?? '');
        return answer({ content: [{ type: 'text', text: `Customer ${email} has 2 open orders; write to ${EMAIL} for returns.` }], isError: false });
      }
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describeInBrowser('the playground, tool-call records and credits with the real suite and a remote MCP server', () => {
  const received: unknown[] = [];
  let crm: Server;
  let suite: RunningSuite;
  let browser: Browser;
  let organizationId: string;
  let owner: MemberSession;
  let packId: string;
  let userId: string;
  let recordId: string;

  beforeAll(async () => {
    crm = await startCrmServer(received);
    suite = await startSuite({ slot: 2, env: { PATCHBAY_ALLOW_PRIVATE_NETWORK: 'true' } });
    organizationId = (await suite.cli(['org', 'create', '--name', `Playground ${Date.now()}`])).organization_id as string;
    owner = await ownerSession({ url: suite.publicUrl, cli: suite.cli }, organizationId);
    // The pack through the APIs (their pages are another test's): the remote server as a custom connector, a user, a redaction rule.
    const connector = (await asOwner('POST', '/api/v1/connectors', { name: 'CRM', slug: 'crm', url: `http://127.0.0.1:${(crm.address() as AddressInfo).port}/mcp`, auth: { type: 'none' } })) as { id: string };
    packId = ((await asOwner('POST', '/api/v1/tool-packs', { name: 'Support desk', description: 'CRM lookups', connectors: [{ connector_id: connector.id, tool_names: ['lookup_customer'] }] })) as { id: string }).id;
    userId = ((await asOwner('POST', '/api/v1/registered-users', { origin_user_id: 'agent-ada', origin_user_name: 'Ada', shared_credential_group: { origin_company_id: 'acme', origin_company_name: 'Acme', custom_groupings: {} } })) as { id: string }).id;
    await asOwner('POST', '/api/v1/security-rules', { name: 'No customer emails', detector: 'EMAIL_ADDRESS', direction: 'both', action: 'redact' });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
    mkdirSync(DOCS_DIR, { recursive: true });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await suite?.stop();
    await new Promise((resolve) => crm?.close(resolve));
  });

  const { signIn, open, expectAccessible } = consoleBrowser({ browser: () => browser, publicUrl: () => suite.publicUrl });

  async function asOwner(method: string, apiPath: string, body?: unknown): Promise<unknown> {
    const url = `${suite.publicUrl}${apiPath}`;
    const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...owner.headers(method, url) }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${apiPath}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  }

  async function choosePair(actor: Actor): Promise<void> {
    const chooser = actor.page.getByRole('form', { name: 'Choose the tool pack and registered user' });
    await chooser.getByLabel('Search tool packs').fill('support');
    await chooser.getByRole('combobox', { name: 'Tool pack' }).locator('option', { hasText: 'Support desk' }).waitFor({ state: 'attached' });
    await chooser.getByRole('combobox', { name: 'Tool pack' }).selectOption(packId);
    await chooser.getByRole('combobox', { name: 'Registered user' }).locator(`option[value="${userId}"]`).waitFor({ state: 'attached' });
    await chooser.getByRole('combobox', { name: 'Registered user' }).selectOption(userId);
    await actor.page.getByRole('row').filter({ hasText: TOOL }).waitFor();
  }

  it('the owner lists the tools as the MCP endpoint gives them, calls one from the schema form and sees the exchange, the content, isError, its credit and the rule that fired', async () => {
    const actor = await signIn(owner.email, '/playground');
    await actor.page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
    await expectAccessible(actor);
    await choosePair(actor);
    await expect(actor.page.locator('caption', { hasText: '1 tools, as tools/list returns them' }).count()).resolves.toBe(1);
    await expect(actor.page.getByRole('row').filter({ hasText: TOOL }).innerText()).resolves.toContain('readOnlyHint');

    await actor.page.getByRole('button', { name: `Try ${TOOL}` }).click();
    const form = actor.page.getByRole('form', { name: `Arguments of ${TOOL}` });
    await form.getByLabel('email (required)').fill(EMAIL);
    await form.getByLabel('limit').fill('5');
    await form.getByRole('button', { name: 'Call tool' }).click();
    await expect(actor.page.getByTestId('is-error').innerText()).resolves.toBe('false');
    const content = await actor.page.getByRole('list', { name: 'Content' }).innerText();
    // Redacted both ways: the tool got the marker, and the answer's own mention was redacted on its way back.
    expect(content).toContain('Customer [REDACTED:EMAIL_ADDRESS] has 2 open orders');
    expect(content).not.toContain(EMAIL);
    expect(received).toEqual([{ email: '[REDACTED:EMAIL_ADDRESS]', limit: 5 }]);
    await actor.page.getByTestId('call-credits').waitFor();
    await expect(actor.page.getByTestId('call-credits').innerText()).resolves.toMatch(/^1 credit, cycle \d{4}-\d{2}$/);
    const detections = await actor.page.getByTestId('call-detections').innerText();
    expect(detections).toContain('No customer emails (EMAIL_ADDRESS, inbound, redact at $.email)');
    expect(detections).toContain('No customer emails (EMAIL_ADDRESS, outbound, redact');
    await expect(actor.page.getByTestId('cycle-credits').innerText()).resolves.toMatch(/^This cycle: 1 of \d+ credits used/);
    // The JSON-RPC exchange as it went over the wire.
    await actor.page.getByText('tools/call exchange').click();
    const request = JSON.parse(await actor.page.getByLabel('tools/call exchange: request').innerText()) as { method: string; params: unknown };
    expect(request).toMatchObject({ jsonrpc: '2.0', method: 'tools/call', params: { name: TOOL, arguments: { email: EMAIL, limit: 5 } } });
    const response = JSON.parse(await actor.page.getByLabel('tools/call exchange: response').innerText()) as { result: { isError: boolean } };
    expect(response).toMatchObject({ jsonrpc: '2.0', result: { isError: false } });

    // Tool search: the pack's tools ranked for an intent, with the reasoning.
    await actor.page.getByRole('textbox', { name: 'Intent' }).fill('look up a customer by email');
    await actor.page.getByRole('button', { name: 'Search tools' }).click();
    const ranked = actor.page.getByRole('table').filter({ has: actor.page.locator('caption', { hasText: 'ranked for' }) });
    await ranked.waitFor();
    const row = await ranked.getByRole('row').filter({ hasText: TOOL }).innerText();
    expect(row).toMatch(/^1\s+crm__lookup_customer\s+(0|1)\.\d\d\s+\S/);
    await expectAccessible(actor);
    await actor.page.screenshot({ path: path.join(DOCS_DIR, 'playground.png'), fullPage: true });

    // The call's record: arguments and result as stored, the redaction marked, the email nowhere.
    const recordLink = actor.page.getByRole('link', { name: /^Tool-call record / });
    recordId = (await recordLink.innerText()).replace('Tool-call record ', '');
    await recordLink.click();
    await actor.page.getByRole('heading', { level: 1, name: `Tool call ${TOOL}` }).waitFor();
    await expect(actor.page.getByLabel('Arguments as stored').innerText()).resolves.toContain('"email": "[REDACTED:EMAIL_ADDRESS]"');
    await expect(actor.page.getByLabel('Arguments as stored').locator('mark').allInnerTexts()).resolves.toEqual(['[REDACTED:EMAIL_ADDRESS]']);
    await expect(actor.page.getByLabel('Result as stored').locator('mark').count()).resolves.toBe(2);
    expect(await actor.page.content()).not.toContain(EMAIL);
    await expect(actor.page.getByRole('row').filter({ hasText: 'inbound' }).innerText()).resolves.toMatch(/No customer emails\s+EMAIL_ADDRESS\s+inbound\s+redact\s+\$\.email\s+1/);
    await expectAccessible(actor);

    // The list with the API's filters.
    await open(actor, '/tool-call-records', 'Tool-call records');
    const filters = actor.page.getByRole('form', { name: 'Filter the tool-call records' });
    await filters.getByLabel('Tool name').fill(TOOL);
    await filters.getByLabel('Status').selectOption('success');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    const listed = actor.page.getByRole('row').filter({ hasText: TOOL });
    await listed.waitFor();
    expect(await listed.innerText()).toMatch(/success[\s\S]*1[\s\S]*No customer emails \(inbound, redact\), No customer emails \(outbound, redact\)/);
    await filters.getByLabel('Status').selectOption('error');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await actor.page.getByText('No tool calls match.').waitFor();
    await filters.getByLabel('Status').selectOption('');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await listed.waitFor();
    await expectAccessible(actor);
    await actor.page.screenshot({ path: path.join(DOCS_DIR, 'tool-call-records.png'), fullPage: true });
    expect(await actor.page.content()).not.toContain(EMAIL);

    // Credits: the cycle against the allotment, and the call on today's row of the service's per-day figures.
    await open(actor, '/credits', 'Credits');
    await actor.page.getByRole('heading', { level: 2, name: /: 1 of \d+ credits used$/ }).waitFor();
    await actor.page.getByRole('img', { name: /^Credits per day in \d{4}-\d{2}, production and test together/ }).waitFor();
    await actor.page.getByText('The figures as a table').click();
    const today = new Date().toISOString().slice(0, 10);
    await expect(actor.page.getByRole('row', { name: new RegExp(`^${today}`) }).innerText()).resolves.toMatch(new RegExp(`^${today}\\s+1\\s+0\\s+0\\s+1\\s+1$`));
    await expect(actor.page.getByRole('row', { name: /^Total/ }).innerText()).resolves.toMatch(/^Total\s+1\s+0\s+0\s+1\s+1$/);
    await expectAccessible(actor);
    await actor.page.screenshot({ path: path.join(DOCS_DIR, 'credits.png'), fullPage: true });
    expect(actor.problems).toEqual([]);
    await actor.context.close();
  });

  it('a member without manage_tool_packs lists the tools but sees Call tool disabled with the permission named, and the MCP endpoint answers their tools/call 403', async () => {
    const viewer = await memberSession({ url: suite.publicUrl, cli: suite.cli }, organizationId, { permissions: ['view_tool_packs', 'view_registered_users', 'view_tool_call_records', 'view_billing'] });
    const actor = await signIn(viewer.email, '/playground');
    await actor.page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
    await choosePair(actor);
    await actor.page.getByRole('button', { name: `Try ${TOOL}` }).click();
    const call = actor.page.getByRole('button', { name: 'Call tool' });
    await expect(call.getAttribute('aria-disabled')).resolves.toBe('true');
    // The tooltip the button is described by (shown on hover and focus).
    const tipId = await call.getAttribute('aria-describedby');
    const tip = (await actor.page.locator(`[id="${tipId}"]`).textContent()) ?? '';
    // With its display name when the member may read the permission catalog, by codename otherwise.
    expect(tip).toMatch(/^Needs the permission (.+ \()?manage_tool_packs\)?$/);
    await call.click({ force: true });
    await expect(actor.page.getByTestId('is-error').count()).resolves.toBe(0);
    await expectAccessible(actor);
    const refused = await actor.page.evaluate(
      async ({ packId, userId, tool }) => {
        const session = (await (await fetch('/api/v1/session')).json()) as { csrf_token: string };
        const res = await fetch(`/api/v1/tool-packs/${packId}/registered-users/${userId}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
          body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: tool, arguments: { email: 'x@example.com' } } }),
        });
        return { status: res.status, body: (await res.json()) as { detail?: string } };
      },
      { packId, userId, tool: TOOL },
    );
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('manage_tool_packs');
    // Reading is theirs: the record and the credits pages.
    await open(actor, `/tool-call-records/${recordId}`, `Tool call ${TOOL}`);
    await expectAccessible(actor);
    await open(actor, '/credits', 'Credits');
    await actor.page.getByRole('heading', { level: 2, name: /: 1 of \d+ credits used$/ }).waitFor();
    expect(received).toHaveLength(1);
    expect(actor.problems).toEqual([]);
    await actor.context.close();
  });
});
