import { createHash } from 'node:crypto';
import type { RunningAccessKeys } from './access-keys-service';

/** Where access-keys-and-audit answers (the service itself, or the edge in front of the suite) and its admin CLI. */
export type AccessKeysApi = Pick<RunningAccessKeys, 'url' | 'cli'>;

/** A member signed in to the console, for calling any service the way the console does. */
export interface MemberSession {
  memberId: string;
  email: string;
  /** The raw session token (the HttpOnly cookie's value). */
  token: string;
  /** The value of the Cookie header. */
  cookie: string;
  csrfToken: string;
  /**
   * Headers for a request to `url` made from the console: the cookie, and for a state-changing method the
   * Origin of that URL's server and the anti-forgery token (what a browser on Patchbay's own origin sends).
   */
  headers(method: string, url: string): Record<string, string>;
}

/** Every member these helpers make signs up with it, so a later run can sign in again (pnpm bench console --keep). */
export const MEMBER_PASSWORD = 'correct-horse-battery-staple';
const owners = new Map<string, MemberSession>();
let counter = 0;

function sessionFrom(res: Response, memberId: string, email: string, csrfToken: string): MemberSession {
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('patchbay_session='));
  if (!setCookie) throw new Error('no patchbay_session cookie was set');
  const token = setCookie.slice('patchbay_session='.length).split(';')[0]!;
  const cookie = `patchbay_session=${token}`;
  return {
    memberId,
    email,
    token,
    cookie,
    csrfToken,
    headers(method, url) {
      const headers: Record<string, string> = { cookie };
      if (!['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase())) {
        headers.origin = new URL(url).origin;
        headers['x-csrf-token'] = csrfToken;
      }
      return headers;
    },
  };
}

async function accept(accessKeys: AccessKeysApi, token: string, email: string, withEmail: boolean): Promise<MemberSession> {
  const res = await fetch(`${accessKeys.url}/api/v1/invitations/accept`, {
    method: 'POST',
    // A browser on the console's page sends its origin with the form.
    headers: { 'content-type': 'application/json', origin: new URL(accessKeys.url).origin },
    body: JSON.stringify({ token, name: email.split('@')[0], password: MEMBER_PASSWORD, ...(withEmail ? { email } : {}) }),
  });
  if (!res.ok) throw new Error(`accepting the invitation failed: ${res.status} ${await res.text()}`);
  const view = (await res.json()) as { member_id?: string; member?: { id: string }; csrf_token: string };
  return sessionFrom(res, view.member_id ?? view.member?.id ?? '', email, view.csrf_token);
}

/** The organization's owner, made once per organization through the real owner-setup link. */
export async function ownerSession(accessKeys: AccessKeysApi, organizationId: string): Promise<MemberSession> {
  const known = owners.get(organizationId);
  if (known) return known;
  const link = (await accessKeys.cli(['member', 'owner-setup', '--org', organizationId])) as { token: string };
  const email = `owner-${organizationId.slice(0, 8)}-${process.pid}@example.test`;
  const owner = await accept(accessKeys, link.token, email, true);
  owners.set(organizationId, owner);
  return owner;
}

/**
 * A member holding exactly `permissions` (a custom role the owner makes through the API), invited by the
 * owner and signed in by accepting the invitation; `environment: 'test'` switches the session.
 */
export async function memberSession(
  accessKeys: AccessKeysApi,
  organizationId: string,
  options: { permissions: string[]; environment?: 'production' | 'test' },
): Promise<MemberSession> {
  const owner = await ownerSession(accessKeys, organizationId);
  counter += 1;
  const tag = createHash('sha256').update(options.permissions.join(',')).digest('hex').slice(0, 6);
  const roleUrl = `${accessKeys.url}/api/v1/roles`;
  const roleRes = await fetch(roleUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...owner.headers('POST', roleUrl) },
    body: JSON.stringify({ name: `Test role ${process.pid}-${counter}-${tag}`, permissions: options.permissions }),
  });
  if (roleRes.status !== 201) throw new Error(`creating the role failed: ${roleRes.status} ${await roleRes.text()}`);
  const role = (await roleRes.json()) as { id: string };
  const email = `member-${process.pid}-${counter}-${tag}@example.test`;
  // Invited by the owner through the API (the admin CLI does the same, at the cost of a process per member).
  const membersUrl = `${accessKeys.url}/api/v1/members`;
  const inviteRes = await fetch(membersUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...owner.headers('POST', membersUrl) }, body: JSON.stringify({ email, role_ids: [role.id] }) });
  if (inviteRes.status !== 201) throw new Error(`inviting the member failed: ${inviteRes.status} ${await inviteRes.text()}`);
  const invite = (await inviteRes.json()) as { member: { id: string }; invitation: { token: string } };
  const session = await accept(accessKeys, invite.invitation.token, email, false);
  session.memberId ||= invite.member.id;
  if (options.environment === 'test') {
    const url = `${accessKeys.url}/api/v1/session/environment`;
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...session.headers('POST', url) }, body: JSON.stringify({ environment: 'test' }) });
    if (!res.ok) throw new Error(`switching to the test environment failed: ${res.status} ${await res.text()}`);
  }
  return session;
}
