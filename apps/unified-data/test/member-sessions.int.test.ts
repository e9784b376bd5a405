import { memberSession, type TestOrganization } from '@patchbay/testing';
import { linkHubspot, request, startHarness, type Harness } from './harness';

/**
 * Members signed in to the console call the unified data API with their session cookie beside keys:
 * linked accounts need view_linked_accounts / manage_linked_accounts, a resync force_resync, and the
 * account-token routes still need X-Account-Token. A session sees its own environment only.
 */
const PUBLIC_URL = 'http://patchbay.test';
// Members are made through the real access-keys-and-audit (argon2 at each sign-in): slow on a loaded machine.
jest.setTimeout(240_000);
let h: Harness;
let org: TestOrganization;
beforeAll(async () => {
  h = await startHarness();
  org = await h.accessKeys.createOrganization();
}, 300_000);
afterAll(async () => {
  await h.close();
});

describe('members calling the unified data API with a console session', () => {
  it('view_linked_accounts lists and reads linked accounts; deleting one needs "Manage linked accounts"', async () => {
    const account = await linkHubspot(h, org.master_key);
    const viewer = await memberSession(h.accessKeys, org.organization_id, { permissions: ['view_linked_accounts'] });
    const list = await request(h.app).get('/api/mktg/v1/linked-accounts').set({ cookie: viewer.cookie });
    expect(list.status).toBe(200);
    expect(list.body.results.map((a: { id: string }) => a.id)).toContain(account.id);
    expect((await request(h.app).get(`/api/mktg/v1/linked-accounts/${account.id}`).set({ cookie: viewer.cookie })).status).toBe(200);
    const refused = await request(h.app).delete(`/api/mktg/v1/linked-accounts/${account.id}`).set(viewer.headers('DELETE', `${PUBLIC_URL}/`));
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('manage_linked_accounts (Manage linked accounts)');
  });

  it('a resync needs "Force a resync on linked accounts", and the account-token routes still ask for X-Account-Token', async () => {
    const account = await linkHubspot(h, org.master_key);
    const manager = await memberSession(h.accessKeys, org.organization_id, { permissions: ['manage_linked_accounts'] });
    const resync = await request(h.app).post('/api/mktg/v1/sync-status/resync').set({ ...manager.headers('POST', `${PUBLIC_URL}/`), 'X-Account-Token': account.account_token });
    expect(resync.status).toBe(403);
    expect(resync.body.detail).toContain('Force a resync on linked accounts');
    const resyncer = await memberSession(h.accessKeys, org.organization_id, { permissions: ['force_resync'] });
    const noToken = await request(h.app).post('/api/mktg/v1/sync-status/resync').set(resyncer.headers('POST', `${PUBLIC_URL}/`));
    expect(noToken.status).toBe(401);
    expect(noToken.body.detail).toMatch(/account token/i);
    const withToken = await request(h.app).post('/api/mktg/v1/sync-status/resync').set({ ...resyncer.headers('POST', `${PUBLIC_URL}/`), 'X-Account-Token': account.account_token });
    expect(withToken.status).toBeLessThan(300);
  });

  it('a session of the test environment does not see production linked accounts (404), nor their data', async () => {
    const account = await linkHubspot(h, org.master_key);
    const testViewer = await memberSession(h.accessKeys, org.organization_id, { permissions: ['view_linked_accounts'], environment: 'test' });
    expect((await request(h.app).get(`/api/mktg/v1/linked-accounts/${account.id}`).set({ cookie: testViewer.cookie })).status).toBe(404);
    const list = await request(h.app).get('/api/mktg/v1/linked-accounts').set({ cookie: testViewer.cookie });
    expect(list.body.results).toEqual([]);
    const events = await request(h.app).get('/api/mktg/v1/events').set({ cookie: testViewer.cookie, 'X-Account-Token': account.account_token });
    expect(events.status).toBe(401);
  });

  it('a write without the anti-forgery token is refused with 403', async () => {
    const manager = await memberSession(h.accessKeys, org.organization_id, { permissions: ['manage_linked_accounts'] });
    const res = await request(h.app).post('/api/mktg/v1/link-token').set({ cookie: manager.cookie, origin: PUBLIC_URL }).send({});
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/anti-forgery token/);
  });
});
