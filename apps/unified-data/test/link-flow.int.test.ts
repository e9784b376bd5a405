import type { TestOrganization } from '@patchbay/testing';
import { HUBSPOT_FAKE_TOKENS, bearer, request, startHarness, withAccount, type Harness } from './harness';

let h: Harness;
let org: TestOrganization;

beforeAll(async () => {
  h = await startHarness();
  h.hubspot.portal.seed({ events: 5, participantsPerEvent: 1 });
  h.startWorker();
  org = await h.newOrganization();
});
afterAll(async () => h.close());

async function newLink(body: Record<string, unknown> = {}) {
  const res = await request(h.app)
    .post('/api/mktg/v1/link-token')
    .set(bearer(org.master_key))
    .send({ end_user_origin_id: `end-user-${Math.random()}`, end_user_organization_name: 'Acme Events', end_user_email_address: 'ops@acme.test', ...body });
  expect(res.status).toBe(201);
  return res.body as { link_token: string; magic_link_url: string; integration_name: string | null };
}

const pathOf = (url: string) => new URL(url).pathname;
const publicTokenIn = (html: string) => /<code id="public-token">([^<]+)<\/code>/.exec(html)?.[1] as string;

describe('the link flow (link token -> magic-link page -> public token -> account token)', () => {
  it('links an account end to end and the account token reads its events', async () => {
    const link = await newLink({ integration: 'hubspot' });
    expect(link.integration_name).toBe('HubSpot');
    expect(link.magic_link_url).toMatch(/^http:\/\/patchbay\.test\/api\/mktg\/v1\/link\/pblt_/);
    const page = await request(h.app).get(pathOf(link.magic_link_url));
    expect(page.status).toBe(200);
    expect(page.text).toContain('Acme Events');
    expect(page.text).toContain('name="access_token"');
    const done = await request(h.app).post(pathOf(link.magic_link_url)).type('form').send({ platform: 'hubspot', access_token: HUBSPOT_FAKE_TOKENS.valid });
    expect(done.status).toBe(200);
    const publicToken = publicTokenIn(done.text);
    expect(publicToken).toMatch(/^pbpt_/);
    expect(done.text).not.toContain(HUBSPOT_FAKE_TOKENS.valid);
    const exchanged = await request(h.app).get(`/api/mktg/v1/account-token/${publicToken}`).set(bearer(org.master_key));
    expect(exchanged.status).toBe(200);
    expect(exchanged.body).toMatchObject({ integration: { slug: 'hubspot', name: 'HubSpot' } });
    expect(exchanged.body.account_token).toMatch(/^pbat_/);
    // The public token works once.
    expect((await request(h.app).get(`/api/mktg/v1/account-token/${publicToken}`).set(bearer(org.master_key))).status).toBe(404);
    await h.waitForSync(exchanged.body.id);
    const events = await request(h.app).get('/api/mktg/v1/events').set(withAccount(org.master_key, exchanged.body.account_token));
    expect(events.status).toBe(200);
    expect(events.body.results).toHaveLength(5);
  });

  it('a link token works once; a refused credential re-shows the form with the platform\'s reason', async () => {
    const link = await newLink();
    const refused = await request(h.app).post(pathOf(link.magic_link_url)).type('form').send({ platform: 'hubspot', access_token: 'pat-na1-wrong' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('refused by HubSpot');
    const missing = await request(h.app).post(pathOf(link.magic_link_url)).type('form').send({ platform: 'zoom', client_id: 'only-this' });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('Zoom needs');
    const ok = await request(h.app).post(pathOf(link.magic_link_url)).type('form').send({ platform: 'hubspot', access_token: HUBSPOT_FAKE_TOKENS.valid });
    expect(ok.status).toBe(200);
    const again = await request(h.app).get(pathOf(link.magic_link_url));
    expect(again.status).toBe(410);
    expect(again.text).toContain('already used');
  });

  it('a public token of another organization or environment is not exchanged', async () => {
    const link = await newLink();
    const done = await request(h.app).post(pathOf(link.magic_link_url)).type('form').send({ platform: 'hubspot', access_token: HUBSPOT_FAKE_TOKENS.valid });
    const publicToken = publicTokenIn(done.text);
    const other = await h.newOrganization();
    expect((await request(h.app).get(`/api/mktg/v1/account-token/${publicToken}`).set(bearer(other.master_key))).status).toBe(404);
    expect((await request(h.app).get(`/api/mktg/v1/account-token/${publicToken}`).set(bearer(org.test_key))).status).toBe(404);
    expect((await request(h.app).get(`/api/mktg/v1/account-token/${publicToken}`).set(bearer(org.master_key))).status).toBe(200);
  });

  it('an unknown link token shows that the link is unavailable; link-token fields are validated', async () => {
    expect((await request(h.app).get('/api/mktg/v1/link/pblt_nope')).status).toBe(410);
    const bad = await request(h.app).post('/api/mktg/v1/link-token').set(bearer(org.master_key)).send({ end_user_organization_name: 'X', integration: 'myspace' });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('end_user_origin_id');
    const badIntegration = await request(h.app).post('/api/mktg/v1/link-token').set(bearer(org.master_key)).send({ end_user_origin_id: 'x', end_user_organization_name: 'X', integration: 'myspace' });
    expect(badIntegration.status).toBe(400);
    expect(badIntegration.body.detail).toContain('integration');
  });
});
