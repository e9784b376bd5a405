import { memberSession, type MemberSession } from '@patchbay/testing';
import { call, createKey, createOrg, startHarness, type Harness, type TestOrg } from './harness';

/**
 * Members signed in to the console call the gateway's management API with their session cookie beside
 * management keys: each route names the permission it needs (its view_ for a read), management keys keep
 * their scopes, and model calls never take a session.
 */
// Members are made through the real access-keys-and-audit (argon2 at each sign-in): slow on a loaded machine.
jest.setTimeout(240_000);
let h: Harness;
let org: TestOrg;
beforeAll(async () => {
  h = await startHarness();
  org = await createOrg(h, { paymentMethod: true });
}, 300_000);
afterAll(async () => {
  await h.close();
});

const asMember = (session: MemberSession, method: string, pathname: string, body?: unknown) => call(h.gatewayUrl, null, method, pathname, body, session.headers(method, `${h.gatewayUrl}${pathname}`));

describe('members calling the model gateway with a console session', () => {
  it('view_api_keys lists gateway keys; creating one answers 403 naming "Manage gateway API keys"; manage_api_keys creates it', async () => {
    const made = await createKey(h, org, { name: 'by the management key' });
    const viewer = await memberSession(h.accessKeys, org.organizationId, { permissions: ['view_api_keys'] });
    const list = await asMember(viewer, 'GET', '/v1/keys');
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).toContain(made.hash);
    const refused = await asMember(viewer, 'POST', '/v1/keys', { name: 'by a viewer' });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('manage_api_keys (Manage gateway API keys)');
    const manager = await memberSession(h.accessKeys, org.organizationId, { permissions: ['manage_api_keys'] });
    const created = await asMember(manager, 'POST', '/v1/keys', { name: 'by a member' });
    expect(created.status).toBe(201);
    expect(created.body.key).toEqual(expect.any(String));
  });

  it('a read guarded by a view_ permission answers 403 without it, naming it: projects, routing, guardrails, usage', async () => {
    const nobody = await memberSession(h.accessKeys, org.organizationId, { permissions: ['view_members'] });
    for (const [pathname, name] of [['/v1/projects', 'View projects'], ['/v1/routing-policies', 'View routing'], ['/v1/organization/pi-settings', 'View guardrails'], ['/v1/usage', 'View usage and billing'], ['/v1/blocklist', 'View gateway policies']] as const) {
      const res = await asMember(nobody, 'GET', pathname);
      expect([pathname, res.status]).toEqual([pathname, 403]);
      expect(res.body.detail).toContain(name);
    }
    const reader = await memberSession(h.accessKeys, org.organizationId, { permissions: ['view_projects', 'view_routing', 'view_guardrails', 'view_policies'] });
    for (const pathname of ['/v1/projects', '/v1/routing-policies', '/v1/organization/pi-settings', '/v1/blocklist']) {
      expect([pathname, (await asMember(reader, 'GET', pathname)).status]).toEqual([pathname, 200]);
    }
  });

  it('a write without the anti-forgery token is refused; another organization sees none of these projects', async () => {
    const manager = await memberSession(h.accessKeys, org.organizationId, { permissions: ['manage_projects'] });
    const forged = await call(h.gatewayUrl, null, 'POST', '/v1/projects', { name: 'forged' }, { cookie: manager.cookie, origin: new URL(h.gatewayUrl).origin });
    expect(forged.status).toBe(403);
    const project = await asMember(manager, 'POST', '/v1/projects', { name: 'Console project' });
    expect(project.status).toBe(201);
    const other = await createOrg(h);
    const stranger = await memberSession(h.accessKeys, other.organizationId, { permissions: ['view_projects'] });
    expect((await asMember(stranger, 'GET', `/v1/projects/${project.body.id}`)).status).toBe(404);
  });

  it('model calls take gateway keys only: a session holding every permission gets 401', async () => {
    const everything = await memberSession(h.accessKeys, org.organizationId, { permissions: ['manage_api_keys', 'view_billing', 'manage_routing'] });
    const res = await asMember(everything, 'POST', '/v1/chat/completions', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(401);
  });
});
