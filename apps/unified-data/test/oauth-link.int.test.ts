import type { TestOrganization } from '@patchbay/testing';
import { openCredentials } from '../src/domain/platform-credentials';
import { bearer, request, runSyncJob, startHarness, withAccount, type Harness } from './harness';

let h: Harness;
let org: TestOrganization;

beforeAll(async () => {
  h = await startHarness();
  org = await h.newOrganization();
});
afterAll(async () => h.close());

const CALLBACK = 'http://patchbay.test/api/mktg/v1/link/oauth/callback';
const pathOf = (url: string) => new URL(url).pathname;
const publicTokenIn = (html: string) => /<code id="public-token">([^<]+)<\/code>/.exec(html)?.[1] as string;

async function newLink(integration?: string) {
  const res = await request(h.app)
    .post('/api/mktg/v1/link-token')
    .set(bearer(org.master_key))
    .send({ end_user_origin_id: `oauth-user-${Math.random()}`, end_user_organization_name: 'Acme Events', ...(integration ? { integration } : {}) });
  expect(res.status).toBe(201);
  return res.body as { magic_link_url: string };
}

/**
 * The browser's part, without a browser: the page's "Sign in with" form, the platform's authorize
 * page (the fake approves at once and redirects), and the redirect back to our callback.
 */
async function signIn(platform: 'hubspot' | 'zoom', magicLinkUrl: string): Promise<{ authorize: URL; callback: URL }> {
  const page = await request(h.app).get(pathOf(magicLinkUrl));
  expect(page.text).toContain(`action="${pathOf(magicLinkUrl)}/oauth"`);
  const started = await request(h.app).post(`${pathOf(magicLinkUrl)}/oauth`).type('form').send({ platform });
  expect(started.status).toBe(303);
  const authorize = new URL(started.headers.location as string);
  const atPlatform = await fetch(authorize, { redirect: 'manual' });
  expect(atPlatform.status).toBe(302);
  return { authorize, callback: new URL(atPlatform.headers.get('location')!) };
}

async function exchange(callback: URL): Promise<{ id: string; account_token: string }> {
  const done = await request(h.app).get(`${callback.pathname}${callback.search}`);
  expect(done.status).toBe(200);
  const exchanged = await request(h.app).get(`/api/mktg/v1/account-token/${publicTokenIn(done.text)}`).set(bearer(org.master_key));
  expect(exchanged.status).toBe(200);
  return exchanged.body as { id: string; account_token: string };
}

const row = (id: string) => h.db.linkedAccount.findUniqueOrThrow({ where: { id } });
const credentialsOf = async (id: string) => openCredentials(h.services.box, id, (await row(id)).credentialsSealed);
const sync = async (id: string, mode: 'full' | 'incremental' = 'full') => runSyncJob(h.workerDeps, await row(id), mode);

describe('the magic-link page signs in with OAuth 2.0 and PKCE', () => {
  it('HubSpot: authorize with a PKCE challenge, callback, public token, account token; the sync reads with the OAuth token and refreshes it when HubSpot expires it', async () => {
    const portal = h.hubspot.createPortal();
    portal.seed({ events: 4, participantsPerEvent: 2 });
    h.hubspot.oauth.signInAs(portal);
    const link = await newLink('hubspot');
    const { authorize, callback } = await signIn('hubspot', link.magic_link_url);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(h.hubspot.authorizeUrl);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: h.hubspot.oauth.app.clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      code_challenge_method: 'S256',
      scope: 'crm.objects.marketing_events.read crm.objects.contacts.read',
    });
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(`${callback.origin}${callback.pathname}`).toBe(CALLBACK);
    expect(callback.searchParams.get('state')).toBe(authorize.searchParams.get('state'));

    const account = await exchange(callback);
    // The exchange sent the verifier (the fake checked it against the challenge) and the tokens are sealed.
    const tokenCall = h.hubspot.requests.find((r) => r.path === '/oauth/v1/token')!;
    expect(Object.keys(tokenCall.json as object)).toEqual(expect.arrayContaining(['code_verifier', 'client_secret']));
    const stored = await row(account.id);
    const [issued] = h.hubspot.oauth.issuedAccessTokens().slice(-1);
    expect(stored.credentialsSealed).not.toContain(issued);
    const credentials = await credentialsOf(account.id);
    expect(credentials).toEqual({ access_token: issued, refresh_token: expect.any(String), expires_at: expect.stringMatching(/^\d+$/) });

    expect(await sync(account.id)).toBe('done');
    const events = await request(h.app).get('/api/mktg/v1/events').set(withAccount(org.master_key, account.account_token));
    expect(events.body.results).toHaveLength(4);
    expect(h.hubspot.requests.filter((r) => r.path.startsWith('/marketing/')).every((r) => r.headers.authorization === `Bearer ${issued}`)).toBe(true);

    // Thirty minutes on, by HubSpot's clock: the next sync meets 401 EXPIRED_AUTHENTICATION, refreshes and goes on.
    h.hubspot.clock.advance(1800 * 1000);
    h.hubspot.requests.length = 0;
    expect(await sync(account.id, 'incremental')).toBe('done');
    const refreshed = await credentialsOf(account.id);
    expect(refreshed.access_token).not.toBe(issued);
    expect(refreshed.refresh_token).toBe(credentials.refresh_token);
    expect(h.hubspot.requests.filter((r) => r.status === 401)).toHaveLength(1);
    expect(h.hubspot.requests.filter((r) => r.path === '/oauth/v1/token').map((r) => (r.json as Record<string, string>).grant_type)).toEqual(['refresh_token']);
  });

  it('Zoom: Basic client credentials, a rotating refresh token stored at each refresh, registrants of every status; a dead refresh token pauses the syncs', async () => {
    const zoomAccount = h.zoom.createAccount();
    const { firstWebinarId } = zoomAccount.seed({ webinars: 2, registrantsPerWebinar: 3, pastShare: 0 });
    zoomAccount.addRegistrant(firstWebinarId, { email: 'waiting@example.com', status: 'pending' });
    zoomAccount.addRegistrant(firstWebinarId, { email: 'refused@example.com', status: 'denied' });
    h.zoom.oauth.signInAs(zoomAccount);
    const { callback } = await signIn('zoom', (await newLink('zoom')).magic_link_url);
    const account = await exchange(callback);
    const first = await credentialsOf(account.id);

    expect(await sync(account.id)).toBe('done');
    const contacts = await h.db.contact.findMany({ where: { linkedAccountId: account.id } });
    expect(contacts.map((c) => c.email)).toEqual(expect.arrayContaining(['waiting@example.com', 'refused@example.com']));
    expect(contacts).toHaveLength(2 * 3 + 2);
    const statuses = h.zoom.requests.filter((r) => r.path.endsWith('/registrants')).map((r) => r.query.get('status'));
    expect(new Set(statuses)).toEqual(new Set(['approved', 'pending', 'denied']));

    // An hour on the access token is expired; the sync refreshes first and stores Zoom's new refresh token.
    h.zoom.clock.advance(3600 * 1000);
    expect(await sync(account.id, 'incremental')).toBe('done');
    const second = await credentialsOf(account.id);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);

    // The user removes the app: the refresh token is refused (invalid_grant), the account needs a relink, syncs are PAUSED.
    h.zoom.oauth.revokeRefreshTokens();
    h.zoom.clock.advance(3600 * 1000);
    expect(await sync(account.id, 'incremental')).toBe('credentials_invalid');
    expect((await row(account.id)).status).toBe('RELINK_NEEDED');
    expect((await row(account.id)).statusDetail).toContain('invalid_grant');
    const status = await request(h.app).get('/api/mktg/v1/sync-status').set(withAccount(org.master_key, account.account_token));
    expect(status.body.results.map((s: { status: string }) => s.status)).toEqual(['PAUSED', 'PAUSED']);
  });

  it('a refusal at the platform, a replayed callback, a bad code and a platform without an OAuth app each end on a page that says so', async () => {
    h.zoom.oauth.denyNext();
    const denied = await signIn('zoom', (await newLink('zoom')).magic_link_url);
    const deniedPage = await request(h.app).get(`${denied.callback.pathname}${denied.callback.search}`);
    expect(deniedPage.status).toBe(400);
    expect(deniedPage.text).toContain('You did not allow access');

    const link = await newLink('hubspot');
    const ok = await signIn('hubspot', link.magic_link_url);
    const forged = new URL(ok.callback);
    forged.searchParams.set('code', 'code-forged');
    const badCode = await request(h.app).get(`${forged.pathname}${forged.search}`);
    expect(badCode.status).toBe(400);
    expect(badCode.text).toContain('Nothing was linked');
    expect(badCode.text).toContain('invalid_grant: missing or unknown auth code');
    // The state was used up by that attempt: the real code cannot be brought in on it afterwards.
    const replay = await request(h.app).get(`${ok.callback.pathname}${ok.callback.search}`);
    expect(replay.status).toBe(400);
    expect(replay.text).toContain('unknown, expired or was already finished');
    // Nothing was linked, the link itself still works: sign in again.
    const again = await signIn('hubspot', link.magic_link_url);
    await exchange(again.callback);

    const eventbriteLink = await newLink('eventbrite');
    const page = await request(h.app).get(pathOf(eventbriteLink.magic_link_url));
    expect(page.text).not.toContain('Sign in with');
    const refused = await request(h.app).post(`${pathOf(eventbriteLink.magic_link_url)}/oauth`).type('form').send({ platform: 'eventbrite' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Eventbrite sign-in is not set up on this installation; enter an API token instead');
  });
});
