/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startFakeHubspot, type FakeHubspot, type FakeHubspotPortal } from '@patchbay/provider-fakes';
import { CHROMIUM_ARGS, CHROMIUM_PATH, chromiumAvailable, memberSession, ownerSession, type MemberSession } from '@patchbay/testing';
import { chromium, type Browser } from 'playwright-core';
import { callApi, consoleBrowser, type Actor } from './browser';
import { startSuite, type RunningSuite } from './suite';

/**
 * The unified data pages against the whole suite (pnpm start's processes, the sync worker among them)
 * and the fake HubSpot, in Debian's Chromium: the owner links the fake HubSpot portal through a magic
 * link made in the console, the worker syncs it, the owner browses its events, one event's contacts
 * and its remote data, forces a resync and sees it in the sync history; a member whose role lacks
 * force_resync sees Resync disabled with the permission named and gets 403 from the API. Every page
 * passes axe-core without a serious violation; docs/linked-accounts.png and docs/events.png are written.
 */
const DOCS_DIR = path.join(__dirname, '..', 'docs');
const EVENTS = 12;
const PARTICIPANTS = 3;

const describeInBrowser = chromiumAvailable() || process.env.CI ? describe : describe.skip;


describeInBrowser('the unified data pages with the real suite and the fake HubSpot', () => {
  let hubspot: FakeHubspot;
  let portal: FakeHubspotPortal;
  let suite: RunningSuite;
  let browser: Browser;
  let organizationId: string;
  let owner: Actor;
  let linkedAccountId: string;
  const originId = `acme-${Date.now()}`;

  beforeAll(async () => {
    hubspot = await startFakeHubspot();
    portal = hubspot.createPortal();
    portal.seed({ events: EVENTS, participantsPerEvent: PARTICIPANTS });
    suite = await startSuite({ slot: 5, env: { PATCHBAY_MKTG_HUBSPOT_BASE_URL: hubspot.baseUrl } });
    organizationId = (await suite.cli(['org', 'create', '--name', `Unified ${Date.now()}`])).organization_id as string;
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
    mkdirSync(DOCS_DIR, { recursive: true });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await suite?.stop();
    await hubspot?.close();
  });

  const { signIn, expectAccessible } = consoleBrowser({ browser: () => browser, publicUrl: () => suite.publicUrl, clipboard: true });

  const accessKeys = () => ({ url: suite.publicUrl, cli: suite.cli });

  async function heading(actor: Actor, name: string | RegExp): Promise<void> {
    await actor.page.getByRole('heading', { level: 1, name }).waitFor();
  }

  it('the owner links the fake HubSpot account through a magic link made in the console, and the sync shows on /linked-accounts', async () => {
    const ownerSessionApi: MemberSession = await ownerSession(accessKeys(), organizationId);
    owner = await signIn(ownerSessionApi.email, '/linked-accounts');
    await heading(owner, 'Linked accounts');
    await owner.page.locator('caption', { hasText: 'No linked accounts yet.' }).waitFor();
    await expectAccessible(owner);

    const form = owner.page.getByRole('form', { name: 'Link an account' });
    await form.getByLabel('End user id').fill(originId);
    await form.getByLabel('End user organization').fill('Acme Events');
    await form.getByLabel('Platform').selectOption('hubspot');
    await form.getByRole('button', { name: 'Create magic link' }).click();
    const magicLink = (await owner.page.locator('.secret-value').innerText()).trim();
    expect(magicLink).toMatch(new RegExp(`^${suite.publicUrl}/api/mktg/v1/link/pblt_`));

    // The end user opens the magic link and gives the portal's private-app token.
    const endUser = await owner.context.newPage();
    await endUser.goto(magicLink);
    await endUser.getByLabel('API token (private app token or access token)').fill(portal.token);
    await endUser.getByRole('button', { name: 'Link HubSpot' }).click();
    await endUser.getByRole('heading', { name: 'HubSpot linked' }).waitFor();
    await endUser.close();
    await owner.page.getByRole('button', { name: 'Done' }).click();

    // The worker's initial full sync: the page follows it (it refetches while open).
    const row = owner.page.getByRole('row').filter({ hasText: originId });
    await row.getByText(`${EVENTS} events`).waitFor({ timeout: 60_000 });
    expect(await row.innerText()).toMatch(/COMPLETE[\s\S]*DONE/);
    expect(await row.innerText()).toContain(`${EVENTS * PARTICIPANTS} contacts`);
    expect(await row.innerText()).toContain('UTC');
    await expectAccessible(owner);
    await owner.page.screenshot({ path: path.join(DOCS_DIR, 'linked-accounts.png'), fullPage: true });
    linkedAccountId = (await row.getByRole('link', { name: 'Acme Events', exact: true }).getAttribute('href'))!.split('/').pop()!;
    expect(linkedAccountId).toMatch(/^[0-9a-f-]{36}$/);

    // Search, status and order are the server's: each asks the API again.
    const searched = owner.page.waitForResponse((res) => res.url().includes('/api/mktg/v1/linked-accounts?') && res.url().includes('search=nobody'));
    await owner.page.getByLabel('Search linked accounts').fill('nobody');
    expect((await searched).status()).toBe(200);
    await owner.page.locator('caption', { hasText: 'No linked accounts match.' }).waitFor();
    await owner.page.getByLabel('Search linked accounts').fill(originId.toUpperCase());
    await owner.page.getByLabel('Status').selectOption('COMPLETE');
    await row.waitFor();
    await owner.page.getByLabel('Status').selectOption('RELINK_NEEDED');
    await owner.page.locator('caption', { hasText: 'No linked accounts match.' }).waitFor();
    await owner.page.getByLabel('Status').selectOption('');
    await owner.page.getByLabel('Search linked accounts').fill('');
    await row.waitFor();
  });

  it('the owner browses the synced events with the API\'s filters and cursors, one event\'s contacts and its remote data on demand', async () => {
    const page = owner.page;
    await page.getByRole('row').filter({ hasText: originId }).getByRole('link', { name: `${EVENTS} events of Acme Events (${originId})` }).click();
    await heading(owner, 'Events');
    const table = page.locator('table', { has: page.locator('caption', { hasText: /^Events$/ }) });
    await table.waitFor();
    expect(await table.getByRole('row').count()).toBe(EVENTS + 1);
    await expectAccessible(owner);
    await page.screenshot({ path: path.join(DOCS_DIR, 'events.png'), fullPage: true });

    // The remote_id filter narrows the list to one event, as the API does.
    const remoteId = (await table.getByRole('row').nth(3).locator('code').innerText()).trim();
    const filters = page.getByRole('form', { name: 'Filter events' });
    await filters.getByLabel('Remote id').fill(remoteId);
    const filtered = page.waitForResponse((res) => res.url().includes('/api/mktg/v1/events?') && res.url().includes(`remote_id=${remoteId}`));
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    expect((await filtered).status()).toBe(200);
    await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 1);
    await filters.getByLabel('Remote id').fill('');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForFunction((n) => document.querySelectorAll('table tbody tr').length === n, EVENTS);

    // One event: its contacts, then the platform's original record behind it.
    const first = table.getByRole('row').nth(1).getByRole('link');
    const name = (await first.innerText()).trim();
    await first.click();
    await heading(owner, `Event ${name}`);
    const contacts = page.locator('table', { has: page.locator('caption', { hasText: 'Contacts taking part in the event' }) });
    await contacts.waitFor();
    expect(await contacts.getByRole('row').count()).toBe(PARTICIPANTS + 1);
    await expectAccessible(owner);
    expect(await page.getByRole('region', { name: 'Remote data of this event' }).count()).toBe(0);
    const remote = page.waitForResponse((res) => res.url().includes('include_remote_data=true'));
    await page.getByRole('button', { name: 'Show remote data' }).click();
    expect((await remote).status()).toBe(200);
    const region = page.getByRole('region', { name: 'Remote data of this event' });
    await region.waitFor();
    expect(await region.innerText()).toContain('/marketing/v3/marketing-events');
    expect(await region.innerText()).toContain((await page.locator('dd code').first().innerText()).trim());
    await page.getByRole('button', { name: "Show the contacts' remote data" }).click();
    await contacts.getByText('Remote data').first().waitFor();
    await expectAccessible(owner);
  });

  it('the owner forces a resync from /linked-accounts/$id and its sync history shows both runs; field mappings are listed and added', async () => {
    const page = owner.page;
    await page.goto(`${suite.publicUrl}/console/linked-accounts/${linkedAccountId}`);
    await heading(owner, 'Linked account Acme Events (' + originId + ')');
    const history = page.locator('table', { has: page.locator('caption', { hasText: 'Finished syncs, newest first' }) });
    await history.waitFor();
    expect(await history.getByRole('row').count()).toBe(2);
    await expectAccessible(owner);
    const resync = page.waitForResponse((res) => res.url().includes('/api/mktg/v1/sync-status/resync') && res.request().method() === 'POST');
    await page.getByRole('button', { name: `Resync Acme Events (${originId})` }).click();
    expect((await resync).status()).toBe(200);
    await page.getByRole('status').filter({ hasText: 'Resync queued.' }).waitFor();
    // The page refetches the history while open: the resync's full run appears once it finishes.
    await page.waitForFunction(() => {
      const caption = Array.from(document.querySelectorAll('caption')).find((c) => c.textContent === 'Finished syncs, newest first');
      return (caption?.closest('table')?.querySelectorAll('tbody tr').length ?? 0) >= 2;
    }, undefined, { timeout: 60_000 });
    expect(await history.getByRole('row').nth(1).innerText()).toMatch(/full\s+DONE/);

    await page.goto(`${suite.publicUrl}/console/field-mappings?linked_account_id=${linkedAccountId}`);
    await heading(owner, 'Field mappings');
    await page.locator('caption', { hasText: 'No field mappings on this linked account.' }).waitFor();
    const form = page.getByRole('form', { name: 'Add a field mapping' });
    await form.getByLabel('Target field').fill('event_type');
    await form.getByLabel('Platform field').fill('eventType');
    await form.getByRole('button', { name: 'Add mapping' }).click();
    await page.getByRole('row').filter({ hasText: 'event_type' }).waitFor();
    await expectAccessible(owner);
    expect(owner.problems).toEqual([]);
  });

  it('a member whose role lacks force_resync sees Resync disabled with the permission named, and the API answers 403', async () => {
    const member = await memberSession(accessKeys(), organizationId, { permissions: ['view_linked_accounts', 'manage_linked_accounts'] });
    const actor = await signIn(member.email, '/linked-accounts');
    await heading(actor, 'Linked accounts');
    const row = actor.page.getByRole('row').filter({ hasText: originId });
    const button = row.getByRole('button', { name: `Resync Acme Events (${originId})` });
    await button.waitFor();
    expect(await button.getAttribute('aria-disabled')).toBe('true');
    const tip = await button.getAttribute('aria-describedby');
    expect(await actor.page.locator(`[id="${tip}"]`).textContent()).toBe('Needs the permission Force a resync on linked accounts (force_resync)');
    // The relink control is theirs to use.
    expect(await row.getByRole('button', { name: `Relink Acme Events (${originId})` }).getAttribute('aria-disabled')).toBeNull();
    await expectAccessible(actor);
    const refused = await callApi(actor.page, 'POST', `/api/mktg/v1/sync-status/resync?linked_account_id=${linkedAccountId}`);
    expect(refused.status).toBe(403);
    expect((refused.body as { detail: string }).detail).toContain('force_resync');
    // The data pages read through the session for this member too.
    await actor.page.goto(`${suite.publicUrl}/console/events?linked_account_id=${linkedAccountId}`);
    await heading(actor, 'Events');
    await actor.page.waitForFunction((n) => document.querySelectorAll('table tbody tr').length === n, EVENTS);
    await expectAccessible(actor);
    await actor.page.goto(`${suite.publicUrl}/console/linked-accounts/${linkedAccountId}`);
    await heading(actor, /^Linked account Acme Events/);
    await expectAccessible(actor);
    expect(actor.problems).toEqual([]);
    await actor.context.close();
  });
});
