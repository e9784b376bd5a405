import { hashAccessKey } from '@patchbay/auth';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { MemberService } from '../src/domain/members/members';
import { TEST_SERVICE_TOKEN } from './env';
import { newOrganization, startHarness, type Harness } from './harness';

/**
 * POST /internal/v1/sessions/verify: how every other service learns who a console session is (member,
 * organization and its settings, environment, permissions), from the token's hash only.
 */
const ORIGIN = 'http://patchbay.test';
jest.setTimeout(120_000);
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ publicBaseUrl: ORIGIN });
});
afterAll(async () => {
  await h.close();
});

const verify = (tokenHash: unknown, token: string | null = TEST_SERVICE_TOKEN) => {
  const req = request(h.app).post('/internal/v1/sessions/verify');
  if (token) req.set('X-Service-Token', token);
  return req.send({ token_hash: tokenHash });
};

async function ownerSignedIn(): Promise<{ organizationId: string; token: string; csrf: string }> {
  const org = await newOrganization(h.db, { plan: 'paid', monthlyCredits: 7000 });
  const link = await (h.app.locals.services as { members: MemberService }).members.ownerSetupLink(org.organization_id, ORIGIN);
  const res = await request(h.app).post('/api/v1/invitations/accept').set({ Origin: ORIGIN }).send({ token: link.token, name: 'Olive', password: 'correct-horse-battery', email: `owner-${randomUUID().slice(0, 8)}@example.com` });
  expect(res.status).toBe(200);
  const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('patchbay_session='))!;
  return { organizationId: org.organization_id, token: /^patchbay_session=([^;]*)/.exec(cookie)![1]!, csrf: res.body.csrf_token as string };
}

describe('internal session verification route', () => {
  it('requires the service token', async () => {
    const { token } = await ownerSignedIn();
    expect((await verify(hashAccessKey(token), null)).status).toBe(401);
    expect((await verify(hashAccessKey(token), 'wrong-token-wrong-token')).status).toBe(401);
  });

  it("returns the member's principal: organization with its settings, environment and permissions", async () => {
    const { organizationId, token } = await ownerSignedIn();
    const res = await verify(hashAccessKey(token));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      organizationId,
      environment: 'production',
      memberId: expect.any(String),
      permissions: expect.arrayContaining(['manage_members', 'manage_tool_packs', 'view_linked_accounts']),
      organization: { id: organizationId, plan: 'paid', monthlyCredits: 7000 },
      idleTimeoutSeconds: expect.any(Number),
    });
    expect(JSON.stringify(res.body)).not.toContain(token);
  });

  it('follows the environment switch, and answers 404 once the session has ended', async () => {
    const { token, csrf } = await ownerSignedIn();
    const cookie = `patchbay_session=${token}`;
    expect((await request(h.app).post('/api/v1/session/environment').set({ Cookie: cookie, Origin: ORIGIN, 'X-CSRF-Token': csrf }).send({ environment: 'test' })).status).toBeLessThan(300);
    expect((await verify(hashAccessKey(token))).body.environment).toBe('test');
    expect((await request(h.app).delete('/api/v1/session').set({ Cookie: cookie, Origin: ORIGIN, 'X-CSRF-Token': csrf })).status).toBeLessThan(300);
    expect((await verify(hashAccessKey(token))).status).toBe(404);
    expect((await verify('0'.repeat(64))).status).toBe(404);
  });

  it('rejects a body that is not a SHA-256 hex digest with a 400', async () => {
    const res = await verify('raw-session-token');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('body.token_hash');
  });
});
