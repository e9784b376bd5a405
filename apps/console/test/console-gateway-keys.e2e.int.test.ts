/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startFakeOpenAI, type FakeVendor } from '@patchbay/provider-fakes';
import { CHROMIUM_ARGS, CHROMIUM_PATH, chromiumAvailable, memberSession, ownerSession } from '@patchbay/testing';
import OpenAI, { toFile } from 'openai';
import { chromium, type Browser } from 'playwright-core';
import { callApi, consoleBrowser, type Actor } from './browser';
import { startSuite, type RunningSuite } from './suite';

/**
 * The model gateway's resource pages against the whole suite (pnpm start's processes) and the fake
 * OpenAI, in Debian's Chromium: the owner creates a gateway key with a limit on /keys (its secret shown
 * once), a model call through it with the official openai SDK, and its spend against the limit on the
 * keys page; disable and rotate; a vendor key of the organization's own (write-only, last four shown);
 * projects, customers and a customer key with rate_limit_rpm, guardrails, tags, the blocklist and the
 * catalog with prices; a member whose role lacks manage_api_keys sees Create key disabled with the
 * permission named and gets 403 from the API. axe-core on every page; docs/gateway-keys.png and
 * docs/vendor-keys.png are written.
 */
const DOCS_DIR = path.join(__dirname, '..', 'docs');
const KEY_NAME = 'Checkout assistant';

const describeInBrowser = chromiumAvailable() || process.env.CI ? describe : describe.skip;


describeInBrowser('the model gateway pages with the real suite and the fake OpenAI', () => {
  let openai: FakeVendor;
  let suite: RunningSuite;
  let browser: Browser;
  let organizationId: string;
  let owner: Actor;
  let secret: string;

  beforeAll(async () => {
    openai = await startFakeOpenAI();
    suite = await startSuite({
      slot: 3,
      env: { PATCHBAY_VENDOR_OPENAI_BASE_URL: openai.baseUrl, PATCHBAY_VENDOR_OPENAI_API_KEY: openai.apiKeys.valid, PATCHBAY_ALLOW_PRIVATE_NETWORK: 'true' },
    });
    organizationId = (await suite.cli(['org', 'create', '--name', `Gateway ${Date.now()}`])).organization_id as string;
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
    mkdirSync(DOCS_DIR, { recursive: true });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await suite?.stop();
    await openai?.close();
  });

  const { signIn, open, expectAccessible } = consoleBrowser({ browser: () => browser, publicUrl: () => suite.publicUrl });

  const accessKeys = () => ({ url: suite.publicUrl, cli: suite.cli });

  const sdk = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${suite.publicUrl}/v1/openai`, maxRetries: 0 });
  const keyRow = () => owner.page.getByRole('row').filter({ hasText: KEY_NAME });

  it('the owner creates a gateway key with a limit on /keys, calls a model through it with the openai SDK, and sees its spend against the limit', async () => {
    const session = await ownerSession(accessKeys(), organizationId);
    owner = await signIn(session.email, '/keys');
    await owner.page.getByRole('heading', { level: 1, name: 'Gateway keys' }).waitFor();
    await owner.page.locator('caption', { hasText: '0 keys match' }).waitFor();
    await expectAccessible(owner);

    const form = owner.page.getByRole('form', { name: 'Create a gateway key' });
    await form.getByLabel('Key name').fill(KEY_NAME);
    await form.getByLabel(/^Spend limit/).fill('5');
    await form.getByLabel('Limit window').selectOption('daily');
    await form.getByLabel(/^Allowed models/).fill('openai/gpt-4o-mini');
    await form.getByRole('button', { name: 'Create key' }).click();
    secret = (await owner.page.locator('.secret-value').innerText()).trim();
    expect(secret).toMatch(/^pbgw_/);
    await owner.page.getByRole('button', { name: 'Done' }).click();
    expect(await owner.page.content()).not.toContain(secret);

    const answer = await sdk(secret).chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] });
    expect(answer.choices[0]?.message.content).toEqual(expect.any(String));
    // A model the key may not use is refused by the gateway whatever the console shows.
    await expect(sdk(secret).chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 403, code: 'model_not_allowed' });

    // The spend shows on the keys page (searched on the server), against the $5.00 daily limit.
    await owner.page.getByLabel('Search keys').fill('checkout');
    await owner.page.locator('caption', { hasText: '1 key matches' }).waitFor();
    for (let i = 0; ; i++) {
      const text = await keyRow().innerText();
      if (/\$0\.0000\d\d of \$5\.00 a day/.test(text) && !text.includes('$0.00 of')) break;
      if (i > 40) throw new Error(`no spend on the key's row: ${text}`);
      await owner.page.waitForTimeout(250);
      await owner.page.getByLabel('Sort').selectOption(i % 2 ? '-created_at' : '-spend');
    }
    expect(await keyRow().getByRole('progressbar').getAttribute('aria-label')).toMatch(/^Spend of Checkout assistant: \$0\.0000\d+ of \$5\.00 a day$/);
    await expectAccessible(owner);
    await owner.page.screenshot({ path: path.join(DOCS_DIR, 'gateway-keys.png'), fullPage: true });
  });

  it('disable refuses the key at once, enable brings it back, edit changes its limit and models, rotate shows a new secret once and the old one stops working', async () => {
    await keyRow().getByRole('button', { name: `Disable ${KEY_NAME}` }).click();
    await keyRow().getByText('Disabled').waitFor();
    await expect(sdk(secret).chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 401 });
    await keyRow().getByRole('button', { name: `Enable ${KEY_NAME}` }).click();
    await keyRow().getByText('Active').waitFor();

    // Edit: a higher limit and one more allowed model; the gateway applies both to the next call.
    await keyRow().getByRole('button', { name: `Edit ${KEY_NAME}` }).click();
    const edit = owner.page.getByRole('form', { name: `Edit ${KEY_NAME}` });
    expect(await edit.getByLabel(/^Spend limit/).inputValue()).toBe('5');
    expect(await edit.getByLabel('Limit window').inputValue()).toBe('daily');
    await edit.getByLabel(/^Spend limit/).fill('7');
    await edit.getByLabel(/^Allowed models/).fill('openai/gpt-4o-mini, openai/gpt-4o');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await edit.waitFor({ state: 'detached' });
    await keyRow().getByText(/of \$7\.00 a day/).waitFor();
    expect((await sdk(secret).chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hi' }] })).choices.length).toBe(1);
    await expectAccessible(owner);

    await keyRow().getByRole('button', { name: `Rotate ${KEY_NAME}` }).click();
    await keyRow().getByRole('button', { name: `Confirm rotating ${KEY_NAME}` }).click();
    const rotated = (await owner.page.locator('.secret-value').innerText()).trim();
    expect(rotated).toMatch(/^pbgw_/);
    expect(rotated).not.toBe(secret);
    await owner.page.getByRole('button', { name: 'Done' }).click();
    await expect(sdk(secret).models.list()).rejects.toMatchObject({ status: 401 });
    expect((await sdk(rotated).chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).choices.length).toBe(1);
    expect(owner.problems).toEqual([]);
  });

  it('a vendor key of your own is write-only: only its last four characters come back', async () => {
    await open(owner, '/vendor-keys', 'Vendor keys');
    await expectAccessible(owner);
    const form = owner.page.getByRole('form', { name: 'Set a vendor key' });
    await form.getByLabel('Vendor', { exact: true }).fill('together');
    await form.getByLabel(/^API key/).fill('sk-together-secret-7Q2Z');
    await form.getByLabel(/^Base URL/).fill(openai.baseUrl);
    await form.getByRole('button', { name: 'Save vendor key' }).click();
    const row = owner.page.getByRole('row').filter({ hasText: 'together' });
    await row.getByText('…7Q2Z').waitFor();
    expect(await form.getByLabel(/^API key/).inputValue()).toBe('');
    expect(await owner.page.content()).not.toContain('sk-together-secret');
    const listed = await callApi(owner.page, 'GET', '/v1/vendor-keys');
    expect(JSON.stringify(listed.body)).not.toContain('sk-together-secret');
    await expectAccessible(owner);
    await owner.page.screenshot({ path: path.join(DOCS_DIR, 'vendor-keys.png'), fullPage: true });
  });

  it('projects and customers with budgets, a customer key with its rate limit, guardrails, tags, the blocklist and the catalog with prices', async () => {
    const page = owner.page;
    await open(owner, '/projects', 'Projects');
    const projectForm = page.getByRole('form', { name: 'Create a project' });
    await projectForm.getByLabel('Project name').fill('Storefront');
    await projectForm.getByLabel(/^Budget/).fill('250');
    await projectForm.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('row').filter({ hasText: 'Storefront' }).getByText('Now: $250.00').waitFor();
    // What the budget has drawn, read from the gateway's spend counters (nothing yet).
    await page.getByRole('row').filter({ hasText: 'Storefront' }).getByRole('cell', { name: '$0.00 spent, $250.00 left' }).waitFor();
    await expectAccessible(owner);

    await open(owner, '/customers', 'Customers');
    const customerForm = page.getByRole('form', { name: 'Create a customer' });
    await customerForm.getByLabel('Customer name').fill('Acme Retail');
    await customerForm.getByLabel(/^Budget/).fill('40');
    await customerForm.getByRole('button', { name: 'Create customer' }).click();
    await page.getByRole('row').filter({ hasText: 'Acme Retail' }).getByText('Now: $40.00').waitFor();
    await page.getByRole('row').filter({ hasText: 'Acme Retail' }).getByRole('cell', { name: '$0.00 spent, $40.00 left' }).waitFor();
    await expectAccessible(owner);
    await page.getByRole('link', { name: 'Acme Retail' }).click();
    await page.getByRole('heading', { level: 1, name: 'Keys of Acme Retail' }).waitFor();
    const customerKeyForm = page.getByRole('form', { name: 'Create a customer key' });
    await customerKeyForm.getByLabel('Key name').fill('Acme widget');
    await customerKeyForm.getByLabel(/^Rate limit/).fill('30');
    await customerKeyForm.getByRole('button', { name: 'Create customer key' }).click();
    expect((await page.locator('.secret-value').innerText()).trim()).toMatch(/^pbgw_/);
    await page.getByRole('row').filter({ hasText: 'Acme widget' }).getByText('30 requests per minute').waitFor();
    await expectAccessible(owner);

    await open(owner, '/guardrails', 'Guardrails');
    await page.getByLabel('Prompts (direct)').selectOption('block');
    await page.getByRole('button', { name: 'Save prompt-injection settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const rule = page.getByRole('form', { name: 'Add a data-loss rule' });
    await rule.getByLabel('Rule name').fill('Card numbers');
    await rule.getByLabel('Detector').selectOption('CREDIT_CARD');
    await rule.getByLabel('Action').selectOption('block');
    await rule.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('row').filter({ hasText: 'Card numbers' }).getByText('CREDIT_CARD').waitFor();
    expect(((await callApi(page, 'GET', '/v1/organization/pi-settings')).body as { pi_mode: string }).pi_mode).toBe('block');
    await expectAccessible(owner);

    await open(owner, '/tags', 'Tags');
    const tagForm = page.getByRole('form', { name: 'Define a tag' });
    await tagForm.getByLabel('Tag key').fill('team');
    await tagForm.getByLabel('Tag value').fill('search');
    await tagForm.getByRole('button', { name: 'Define tag' }).click();
    await page.getByRole('row').filter({ hasText: 'team=search' }).waitFor();
    await expectAccessible(owner);

    await open(owner, '/blocklist', 'Blocklist');
    await page.getByLabel(/^Blocked models/).fill('mistral/*');
    await page.getByRole('button', { name: 'Save blocklist' }).click();
    await page.getByText('1 blocked now.').waitFor();
    await expectAccessible(owner);

    await open(owner, '/models', 'Models');
    const gpt = page.getByRole('row').filter({ hasText: 'openai/gpt-4o-mini' }).first();
    expect(await gpt.innerText()).toMatch(/\$[\d.]+ \/ 1M tokens/);
    await expectAccessible(owner);
    expect(owner.problems).toEqual([]);
  });

  it("/batches lists every key's batches with their status, and a batch's page shows the first lines of its output and error files", async () => {
    const made = (await callApi(owner.page, 'POST', '/v1/keys', { name: 'Batch runner' })).body as { key: string; hash: string };
    const client = sdk(made.key);
    const lines = [
      { custom_id: 'greeting', method: 'POST', url: '/v1/chat/completions', body: { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] } },
      { custom_id: 'unknown-model', method: 'POST', url: '/v1/chat/completions', body: { model: 'openai/no-such-model', messages: [{ role: 'user', content: 'hi' }] } },
    ];
    const file = await client.files.create({ file: await toFile(Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n')), 'input.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    for (let i = 0; (await client.batches.retrieve(batch.id)).status !== 'completed'; i++) {
      if (i > 120) throw new Error('the batch did not complete within 60 s');
      await new Promise((r) => setTimeout(r, 500));
    }

    await open(owner, '/batches', 'Batches');
    const row = owner.page.getByRole('row').filter({ hasText: batch.id });
    await row.waitFor();
    expect(await row.innerText()).toMatch(/completed[\s\S]*1 \/ 1 \/ 2/);
    await expectAccessible(owner);
    await owner.page.getByLabel('Status').selectOption('failed');
    await owner.page.getByText('No batches match.').waitFor();
    expect(owner.page.url()).toContain('status=failed');
    await open(owner, '/batches', 'Batches');
    await row.getByRole('link', { name: batch.id }).click();
    await owner.page.getByRole('heading', { level: 1, name: `Batch ${batch.id}` }).waitFor();
    const output = owner.page.getByRole('region', { name: 'Output file' });
    expect(await output.locator('pre').innerText()).toContain('"custom_id":"greeting"');
    expect(await owner.page.getByRole('region', { name: 'Errors file' }).locator('pre').innerText()).toContain('"custom_id":"unknown-model"');
    await expectAccessible(owner);
    await owner.page.screenshot({ path: path.join(DOCS_DIR, 'batches.png'), fullPage: true });
    expect(owner.problems).toEqual([]);
  });

  it('a member whose role lacks manage_api_keys sees Create key disabled with the permission named, and the API answers 403', async () => {
    const viewer = await memberSession(accessKeys(), organizationId, { permissions: ['view_api_keys', 'view_projects', 'view_routing'] });
    const member = await signIn(viewer.email, '/keys');
    await member.page.getByRole('heading', { level: 1, name: 'Gateway keys' }).waitFor();
    await member.page.getByRole('row').filter({ hasText: KEY_NAME }).waitFor();
    const create = member.page.getByRole('button', { name: 'Create key' });
    expect(await create.getAttribute('aria-disabled')).toBe('true');
    await create.hover();
    await member.page.getByRole('tooltip').filter({ hasText: 'Manage gateway API keys (manage_api_keys)' }).first().waitFor();
    expect(await member.page.getByRole('button', { name: `Disable ${KEY_NAME}` }).getAttribute('aria-disabled')).toBe('true');
    const denied = await callApi(member.page, 'POST', '/v1/keys', { name: 'not allowed' });
    expect(denied.status).toBe(403);
    expect(JSON.stringify(denied.body)).toContain('manage_api_keys');
    await expectAccessible(member);
    // A page this member may not read says so (403 from the gateway), it does not break.
    await open(member, '/vendor-keys', 'Vendor keys');
    await member.page.getByRole('alert').filter({ hasText: 'View vendor keys' }).first().waitFor();
    await expectAccessible(member);
    expect(member.problems).toEqual([]);
    await member.context.close();
  });
});
