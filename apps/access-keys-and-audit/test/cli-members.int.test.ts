import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './env';
import { startHarness, type Harness } from './harness';

const run = promisify(execFile);
const CLI = path.resolve(__dirname, '..', 'dist', 'cli', 'main.js');
const ORIGIN = 'http://patchbay.test';

async function patchbay(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const env = { ...process.env, DATABASE_URL: TEST_DATABASE_URL, REDIS_URL: TEST_REDIS_URL, PATCHBAY_PUBLIC_URL: ORIGIN };
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const accept = (h: Harness, body: object) => request(h.app).post('/api/v1/invitations/accept').set({ Origin: ORIGIN, 'X-Forwarded-For': '10.9.9.9' }).send(body);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ publicBaseUrl: ORIGIN });
});
afterAll(async () => {
  await h.close();
});

describe('patchbay admin CLI: members', () => {
  it('org create prints a one-time owner-setup link beside the keys; opening it makes the owner', async () => {
    const out = await patchbay('org', 'create', '--name', 'Owner Setup Org');
    expect(out.code).toBe(0);
    const org = JSON.parse(out.stdout);
    expect(org.owner_setup_url).toMatch(new RegExp(`^${ORIGIN}/console/setup#token=[A-Za-z0-9_-]{43}$`));
    const token = (org.owner_setup_url as string).split('#token=')[1];
    const res = await accept(h, { token, name: 'First Person', password: 'a long enough password', email: `first-${Date.now()}@example.com` });
    expect(res.status).toBe(200);
    expect(res.body.member.is_owner).toBe(true);
    const again = await patchbay('member', 'owner-setup', '--org', org.organization_id);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already has its owner/);
  });

  it('member invite prints the invitation link as JSON; the link makes a member with that role', async () => {
    const org = JSON.parse((await patchbay('org', 'create', '--name', 'Invite Org')).stdout);
    const email = `dev-${Date.now()}@example.com`;
    const out = await patchbay('member', 'invite', '--org', org.organization_id, '--email', email, '--role', 'developer');
    expect(out.code).toBe(0);
    const invited = JSON.parse(out.stdout);
    expect(invited).toMatchObject({ organization_id: org.organization_id, email, roles: ['developer'] });
    expect(invited.invitation_url).toBe(`${ORIGIN}/console/invitation#token=${invited.token}`);
    const res = await accept(h, { token: invited.token, name: 'Dev', password: 'a long enough password' });
    expect(res.status).toBe(200);
    expect(res.body.member.is_owner).toBe(false);
    expect(res.body.permissions).toContain('manage_tool_packs');
    expect(res.body.permissions).not.toContain('manage_members');
    const audit = await h.db.auditEvent.findFirst({ where: { organizationId: org.organization_id, eventType: 'member.invited' } });
    expect(audit).toMatchObject({ actorType: 'admin_cli', actorMemberId: null });
  });

  it('member invite with an unknown role is an error naming it', async () => {
    const org = JSON.parse((await patchbay('org', 'create', '--name', 'Bad Role Org')).stdout);
    const out = await patchbay('member', 'invite', '--org', org.organization_id, '--email', 'x@example.com', '--role', 'wizard');
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/wizard/);
  });
});
