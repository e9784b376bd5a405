import { randomUUID } from 'node:crypto';
import { hashAccessKey } from '@patchbay/auth';
import type { Express } from 'express';
import request from 'supertest';
import { loadManagementPrincipal } from '../src/domain/management-keys';
import type { MemberService } from '../src/domain/members/members';
import { bearer, newOrganization, startHarness, waitFor, type Harness } from './harness';

/**
 * The console's resources as a member's session reaches them: access keys ("Keys created in the
 * dashboard cannot choose scopes"; creating, regenerating and revoking need Manage organization API
 * keys), management keys (the creator's permissions at creation, kept), organization settings, and the
 * audit log's CSV export, each action recorded with the member as actor.
 */
const ORIGIN = 'http://patchbay.test';
const PASSWORD = 'correct horse battery';

/** A browser: the session cookie it was given and the anti-forgery token. */
class Browser {
  cookie: string | undefined;
  csrf: string | undefined;
  constructor(private readonly app: Express) {}

  private headers(): Record<string, string> {
    const h: Record<string, string | undefined> = { Origin: ORIGIN, 'X-CSRF-Token': this.csrf, Cookie: this.cookie ? `patchbay_session=${this.cookie}` : undefined };
    return Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>;
  }

  private keep(res: request.Response): request.Response {
    for (const c of ([] as string[]).concat(res.headers['set-cookie'] ?? [])) {
      const m = /^patchbay_session=([^;]*)/.exec(c);
      if (m) this.cookie = m[1] === '' ? undefined : m[1];
    }
    if (res.body?.csrf_token) this.csrf = res.body.csrf_token as string;
    return res;
  }

  async get(path: string) {
    return this.keep(await request(this.app).get(path).set(this.headers()));
  }
  async post(path: string, body: object = {}) {
    return this.keep(await request(this.app).post(path).set(this.headers()).send(body));
  }
  async patch(path: string, body: object) {
    return this.keep(await request(this.app).patch(path).set(this.headers()).send(body));
  }
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ publicBaseUrl: ORIGIN });
});
afterAll(async () => {
  await h.close();
});

const email = (label: string) => `${label}-${randomUUID().slice(0, 8)}@example.com`;

async function orgWithOwner() {
  const org = await newOrganization(h.db);
  const link = await (h.app.locals.services as { members: MemberService }).members.ownerSetupLink(org.organization_id, ORIGIN);
  const owner = new Browser(h.app);
  expect((await owner.post('/api/v1/invitations/accept', { token: link.token, name: 'Olive Owner', password: PASSWORD, email: email('owner') })).status).toBe(200);
  return { org, owner };
}

async function join(owner: Browser, roleIds: string[]): Promise<{ browser: Browser; memberId: string }> {
  const invited = await owner.post('/api/v1/members', { email: email('member'), role_ids: roleIds });
  expect(invited.status).toBe(201);
  const browser = new Browser(h.app);
  expect((await browser.post('/api/v1/invitations/accept', { token: invited.body.invitation.token, name: 'Dev', password: PASSWORD })).status).toBe(200);
  return { browser, memberId: invited.body.member.id as string };
}

describe('access keys from a console session', () => {
  test('a Developer may list keys but creating, regenerating and revoking answer 403 naming Manage organization API keys', async () => {
    const { org, owner } = await orgWithOwner();
    const { browser } = await join(owner, ['developer']);
    expect((await browser.get('/api/v1/access-keys')).status).toBe(200);
    for (const res of [
      await browser.post('/api/v1/access-keys', { name: 'nope' }),
      await browser.post(`/api/v1/access-keys/${org.master_key_id}/regenerate`),
      await browser.post(`/api/v1/access-keys/${org.test_key_id}/revoke`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.detail).toContain('manage_access_keys (Manage organization API keys)');
    }
  });

  test('a key made by a session gets both scopes, cannot choose them, works on the API, and its creation, regeneration and revocation name the member', async () => {
    const { owner } = await orgWithOwner();
    const { browser, memberId } = await join(owner, ['admin']);
    const scoped = await browser.post('/api/v1/access-keys', { name: 'scoped', scopes: ['runtime:all'] });
    expect(scoped.status).toBe(400);
    expect(scoped.body.errors[0].field).toBe('body.scopes');

    const created = await browser.post('/api/v1/access-keys', { name: 'From the console', expires_at: null });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ scopes: ['runtime:all', 'management:all'], tool_pack_ids: null, registered_user_ids: null, expires_at: null, environment: 'production' });
    expect((await request(h.app).get(`/api/v1/access-keys/${created.body.id}`).set(bearer(created.body.key))).status).toBe(200);

    const regenerated = await browser.post(`/api/v1/access-keys/${created.body.id}/regenerate`);
    expect(regenerated.status).toBe(200);
    await waitFor(async () => (await request(h.app).get('/api/v1/access-keys').set(bearer(created.body.key))).status === 401);
    expect((await browser.post(`/api/v1/access-keys/${created.body.id}/revoke`)).status).toBe(204);
    await waitFor(async () => (await request(h.app).get('/api/v1/access-keys').set(bearer(regenerated.body.key))).status === 401);

    const log = await browser.get('/api/v1/audit-log?page_size=100');
    const mine = (log.body.results as Array<{ event_type: string; actor_type: string; actor_member_id: string | null; actor_key_id: string | null; resource_id: string }>).filter((e) => e.resource_id === created.body.id);
    expect(mine.map((e) => e.event_type).sort()).toEqual(['access_key.created', 'access_key.regenerated', 'access_key.revoked']);
    for (const e of mine) expect(e).toMatchObject({ actor_type: 'member', actor_member_id: memberId, actor_key_id: null });
  });

  test('restrictions and expiry are checked as for keys, the master key cannot be revoked, and the other environment\'s keys are 404', async () => {
    const { org, owner } = await orgWithOwner();
    expect((await owner.post('/api/v1/access-keys', { name: 'bad', tool_pack_ids: ['not-a-uuid'] })).status).toBe(400);
    expect((await owner.post('/api/v1/access-keys', { name: 'past', expires_at: '2001-01-01T00:00:00Z' })).status).toBe(400);
    const restricted = await owner.post('/api/v1/access-keys', { name: 'restricted', tool_pack_ids: [randomUUID()], expires_in: 3600 });
    expect(restricted.status).toBe(201);
    expect(restricted.body.tool_pack_ids).toHaveLength(1);
    const master = await owner.post(`/api/v1/access-keys/${org.master_key_id}/revoke`);
    expect(master.status).toBe(400);
    expect(master.body.detail).toMatch(/master key cannot be revoked/);
    expect((await owner.get(`/api/v1/access-keys/${org.test_key_id}`)).status).toBe(404);
    expect((await owner.post(`/api/v1/access-keys/${org.test_key_id}/revoke`)).status).toBe(404);
    expect((await owner.post('/api/v1/session/environment', { environment: 'test' })).status).toBe(200);
    expect((await owner.get(`/api/v1/access-keys/${org.test_key_id}`)).status).toBe(200);
  });

  test('the list is searched and sorted by the server', async () => {
    const { owner } = await orgWithOwner();
    for (const name of ['beta key', 'Alpha key', 'gamma']) expect((await owner.post('/api/v1/access-keys', { name })).status).toBe(201);
    const byName = await owner.get('/api/v1/access-keys?sort=name');
    expect(byName.body.results.map((k: { name: string | null }) => k.name)).toEqual(['Alpha key', 'beta key', 'gamma', null]);
    const search = await owner.get('/api/v1/access-keys?search=KEY&sort=-name');
    expect(search.body).toMatchObject({ count: 2 });
    expect(search.body.results.map((k: { name: string }) => k.name)).toEqual(['beta key', 'Alpha key']);
    const bad = await owner.get('/api/v1/access-keys?sort=secret');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('query.sort');
  });
});

describe('management keys from the console', () => {
  test('carry exactly the creator\'s permissions as scopes, keep them when the creator\'s roles change, and stop working when revoked', async () => {
    const { owner } = await orgWithOwner();
    const { browser, memberId } = await join(owner, ['admin']);
    const permissions = (await browser.get('/api/v1/session')).body.permissions as string[];
    const created = await browser.post('/api/v1/management-keys', { name: 'automation' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^mgmt_/);
    expect(created.body).toMatchObject({ scopes: permissions, created_by_member_id: memberId, revoked_at: null });
    expect(await loadManagementPrincipal(h.db, hashAccessKey(created.body.key))).toMatchObject({ scopes: expect.arrayContaining(['manage_api_keys', 'view_billing']) });

    expect((await owner.patch(`/api/v1/members/${memberId}`, { role_ids: ['read_only'] })).status).toBe(200);
    const listed = await browser.get('/api/v1/management-keys');
    expect(listed.status).toBe(200);
    expect(listed.body.results.find((k: { id: string }) => k.id === created.body.id).scopes).toEqual(permissions);
    // Now Read-only: making or revoking management keys is Manage organization API keys.
    expect((await browser.post('/api/v1/management-keys', { name: 'again' })).status).toBe(403);
    expect((await browser.post(`/api/v1/management-keys/${created.body.id}/revoke`)).status).toBe(403);

    const revoked = await owner.post(`/api/v1/management-keys/${created.body.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    expect(await loadManagementPrincipal(h.db, hashAccessKey(created.body.key))).toBeNull();
    const events = (await owner.get('/api/v1/audit-log?page_size=100')).body.results as Array<{ event_type: string; actor_type: string; actor_member_id: string; resource_id: string }>;
    expect(events.find((e) => e.event_type === 'management_key.created' && e.resource_id === created.body.id)).toMatchObject({ actor_type: 'member', actor_member_id: memberId });
    expect(events.find((e) => e.event_type === 'management_key.revoked' && e.resource_id === created.body.id)).toMatchObject({ actor_type: 'member' });
  });

  test('another organization\'s management key is 404', async () => {
    const a = await orgWithOwner();
    const b = await orgWithOwner();
    const key = await a.owner.post('/api/v1/management-keys', { name: 'a' });
    expect((await b.owner.post(`/api/v1/management-keys/${key.body.id}/revoke`)).status).toBe(404);
    expect((await b.owner.get('/api/v1/management-keys')).body.results).toEqual([]);
  });
});

describe('organization settings from the console', () => {
  test('view_org_settings reads, manage_org_settings changes, the billing fields also need manage_billing, and key holders see the change', async () => {
    const { org, owner } = await orgWithOwner();
    const { browser: developer } = await join(owner, ['developer']);
    expect((await developer.get('/api/v1/organization')).status).toBe(200);
    const denied = await developer.patch('/api/v1/organization', { mcp_rate_limit_per_minute: 10 });
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toContain('manage_org_settings');

    const role = await owner.post('/api/v1/roles', { name: `Settings ${randomUUID().slice(0, 6)}`, permissions: ['view_org_settings', 'manage_org_settings'] });
    expect(role.status).toBe(201);
    const { browser: settings, memberId } = await join(owner, [role.body.id]);
    const billing = await settings.patch('/api/v1/organization', { plan: 'paid', mcp_rate_limit_per_minute: 12 });
    expect(billing.status).toBe(403);
    expect(billing.body.detail).toMatch(/plan needs the permission manage_billing/);

    const before = await h.verifier.verify(org.master_key!);
    expect(before.organization.mcpRateLimitPerMinute).not.toBe(45);
    const changed = await settings.patch('/api/v1/organization', { mcp_rate_limit_per_minute: 45, callback_origins: ['https://app.example.com/'] });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ mcp_rate_limit_per_minute: 45, callback_origins: ['https://app.example.com'] });
    await waitFor(async () => (await h.verifier.verify(org.master_key!)).organization.mcpRateLimitPerMinute === 45);

    const invalid = await settings.patch('/api/v1/organization', { callback_origins: ['ftp://x.example.com'] });
    expect(invalid.status).toBe(400);
    const paid = await owner.patch('/api/v1/organization', { plan: 'paid', gateway_credit_usd: 12.5 });
    expect(paid.body).toMatchObject({ plan: 'paid', gateway_credit_usd: 12.5 });
    const events = (await owner.get('/api/v1/audit-log?event_type=organization.updated')).body.results as Array<{ actor_type: string; actor_member_id: string | null }>;
    expect(events.some((e) => e.actor_type === 'member' && e.actor_member_id === memberId)).toBe(true);
  });
});

describe('the audit log as CSV', () => {
  test('exports the filtered log newest first with a header row, and refuses an invalid filter with 400', async () => {
    const { owner } = await orgWithOwner();
    for (const name of ['one', 'two']) await owner.post('/api/v1/access-keys', { name });
    const res = await owner.get('/api/v1/audit-log/export?event_type=access_key.created');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="audit-log-production-/);
    const lines = res.text.trim().split('\r\n');
    expect(lines[0]!.split(',')).toContain('actor_member_id');
    // The two keys made by the owner, then the master key made by the admin CLI (oldest).
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain('""name"":""two""');
    expect(lines[3]).toContain('"admin_cli"');
    const bad = await owner.get('/api/v1/audit-log/export?created_after=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('query.created_after');
  });
});
