import { memberSession, ownerSession, waitFor, type MemberSession, type TestOrganization } from '@patchbay/testing';
import { builtinConnectorId } from '../src/domain/ids';
import { PUBLIC_URL, bearer, expectAuditEvent, request, startHarness, type Harness } from './harness';

/**
 * Members signed in to the console call the registry with their session cookie, beside keys: the
 * registry checks the permission each route names, the anti-forgery token and Origin on writes, and
 * scopes the session to its one organization and environment exactly as a key of that environment.
 */
const GITHUB = builtinConnectorId('github');
// Members are made through the real access-keys-and-audit (argon2 at each sign-in): slow on a loaded machine.
jest.setTimeout(240_000);
let h: Harness;
/** One organization for the whole file (each test makes its own members and tool packs), and a second one. */
let org: TestOrganization;
let other: TestOrganization;
let viewer: MemberSession;
let builder: MemberSession;
beforeAll(async () => {
  h = await startHarness();
  [org, other] = await Promise.all([h.newOrganization(), h.newOrganization()]);
  viewer = await memberSession(h.accessKeys, org.organization_id, { permissions: ['view_tool_packs'] });
  builder = await memberSession(h.accessKeys, org.organization_id, { permissions: ['manage_tool_packs'] });
}, 300_000);
afterAll(async () => {
  await h.close();
});

const url = (path: string) => `${PUBLIC_URL}${path}`;
const pack = { name: 'Support agent', description: 'Triage issues', connectors: [{ connector_id: GITHUB, auth_scope: 'INDIVIDUAL', tool_names: ['get_issue'] }] };

describe('members calling the registry with a console session', () => {
  it('a member with view_tool_packs reads tool packs, and a write answers 403 naming "Manage tool packs"', async () => {
    const created = await request(h.app).post('/api/v1/tool-packs/').set(bearer(org.master_key)).send(pack);
    expect(created.status).toBe(201);

    const list = await request(h.app).get('/api/v1/tool-packs/?page_size=100').set(viewer.headers('GET', url('/api/v1/tool-packs/')));
    expect(list.status).toBe(200);
    expect(list.body.results.map((p: { id: string }) => p.id)).toContain(created.body.id);

    const denied = await request(h.app).post('/api/v1/tool-packs/').set(viewer.headers('POST', url('/api/v1/tool-packs/'))).send(pack);
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toContain('manage_tool_packs (Manage tool packs)');

    const registeredUsers = await request(h.app).get('/api/v1/registered-users/').set(viewer.headers('GET', url('/api/v1/registered-users/')));
    expect(registeredUsers.status).toBe(403);
    expect(registeredUsers.body.detail).toContain('View registered users');
  });

  it('a member with manage_tool_packs creates a tool pack, and the audit log names the member as the actor', async () => {
    const res = await request(h.app).post('/api/v1/tool-packs/').set(builder.headers('POST', url('/api/v1/tool-packs/'))).send(pack);
    expect(res.status).toBe(201);
    const event = await expectAuditEvent(h, org.master_key, (e) => e.event_type === 'tool_pack.created' && e.resource_id === res.body.id);
    expect(event).toMatchObject({ actor_type: 'member', actor_member_id: builder.memberId, actor_key_id: null });
  });

  it('refuses a write without the anti-forgery token or from another origin, with 403', async () => {
    const noToken = await request(h.app).post('/api/v1/tool-packs/').set({ cookie: builder.cookie, origin: PUBLIC_URL }).send(pack);
    expect(noToken.status).toBe(403);
    expect(noToken.body.detail).toMatch(/anti-forgery token/);
    const foreign = await request(h.app).post('/api/v1/tool-packs/').set({ ...builder.headers('POST', url('/')), origin: 'https://evil.example' }).send(pack);
    expect(foreign.status).toBe(403);
    expect(foreign.body.detail).toMatch(/Cross-site request refused/);
    // Reads need neither: a link or an image cannot change anything.
    expect((await request(h.app).get('/api/v1/tool-packs/').set({ cookie: viewer.cookie })).status).toBe(200);
  });

  it('a session in the test environment sees exactly what a test key sees: production resources are 404', async () => {
    const production = await request(h.app).post('/api/v1/tool-packs/').set(bearer(org.master_key)).send(pack);
    const test = await request(h.app).post('/api/v1/tool-packs/').set(bearer(org.test_key)).send({ ...pack, name: 'Test pack' });
    const member = await memberSession(h.accessKeys, org.organization_id, { permissions: ['view_tool_packs'], environment: 'test' });
    const list = await request(h.app).get('/api/v1/tool-packs/?page_size=100').set({ cookie: member.cookie });
    const ids = list.body.results.map((p: { id: string }) => p.id);
    expect(ids).toContain(test.body.id);
    expect(ids).not.toContain(production.body.id);
    expect((await request(h.app).get(`/api/v1/tool-packs/${production.body.id}`).set({ cookie: member.cookie })).status).toBe(404);
    expect((await request(h.app).get(`/api/v1/tool-packs/${test.body.id}`).set({ cookie: member.cookie })).status).toBe(200);
  });

  it("another organization's session never sees this organization's tool packs", async () => {
    const created = await request(h.app).post('/api/v1/tool-packs/').set(bearer(org.master_key)).send(pack);
    const stranger = await memberSession(h.accessKeys, other.organization_id, { permissions: ['view_tool_packs'] });
    expect((await request(h.app).get(`/api/v1/tool-packs/${created.body.id}`).set({ cookie: stranger.cookie })).status).toBe(404);
  });

  it('a removed member and a changed role take effect within a second, through the sessions channel', async () => {
    const owner = await ownerSession(h.accessKeys, org.organization_id);
    const member = await memberSession(h.accessKeys, org.organization_id, { permissions: ['view_tool_packs'] });
    expect((await request(h.app).get('/api/v1/tool-packs/').set({ cookie: member.cookie })).status).toBe(200);
    // The owner moves the member to a role without view_tool_packs.
    const membersUrl = `${h.accessKeys.url}/api/v1/members/${member.memberId}`;
    const roleless = await fetch(`${h.accessKeys.url}/api/v1/roles`, { method: 'POST', headers: { 'content-type': 'application/json', ...owner.headers('POST', `${h.accessKeys.url}/`) }, body: JSON.stringify({ name: `No packs ${Date.now()}`, permissions: ['view_members'] }) });
    const role = (await roleless.json()) as { id: string };
    const changed = await fetch(membersUrl, { method: 'PATCH', headers: { 'content-type': 'application/json', ...owner.headers('PATCH', membersUrl) }, body: JSON.stringify({ role_ids: [role.id] }) });
    expect(changed.status).toBe(200);
    const changedAt = Date.now();
    await waitFor(async () => (await request(h.app).get('/api/v1/tool-packs/').set({ cookie: member.cookie })).status === 403, 1000, 'the role change to reach the registry');
    expect(Date.now() - changedAt).toBeLessThan(1000);

    const removed = await fetch(membersUrl, { method: 'DELETE', headers: owner.headers('DELETE', membersUrl) });
    expect(removed.status).toBe(204);
    const removedAt = Date.now();
    await waitFor(async () => (await request(h.app).get('/api/v1/connectors/').set({ cookie: member.cookie })).status === 401, 1000, 'the removal to reach the registry');
    expect(Date.now() - removedAt).toBeLessThan(1000);
  });

  it('a bearer key decides when both a key and a session cookie are sent; keys keep their scope rules', async () => {
    const res = await request(h.app).post('/api/v1/tool-packs/').set({ ...viewer.headers('POST', url('/')), ...bearer(org.master_key) }).send(pack);
    expect(res.status).toBe(201);
    const runtimeOnly = await h.accessKeys.createKey(org.master_key, { name: 'runtime only', scopes: ['runtime:all'] });
    const refused = await request(h.app).get('/api/v1/tool-packs/').set(bearer(runtimeOnly.key));
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/management:all/);
  });
});
