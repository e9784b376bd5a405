import { memberSession, type MemberSession } from '@patchbay/testing';
import { request, scenario, startHarness, type Harness } from './harness';

/**
 * Members signed in to the console call the runtime with their session cookie beside keys: the
 * playground's MCP calls (manage_tool_packs; the list-only variant view_tool_packs) and the management
 * APIs (security rules, tool-call records, usage), each checking the permission it names.
 */
// Members are made through the real access-keys-and-audit (argon2 at each sign-in): slow on a loaded machine.
jest.setTimeout(240_000);
let h: Harness;
let s: Awaited<ReturnType<typeof scenario>>;
let builder: MemberSession;
let viewer: MemberSession;
beforeAll(async () => {
  h = await startHarness();
  s = await scenario(h);
  builder = await memberSession(h.accessKeys, s.org.organization_id, { permissions: ['manage_tool_packs'] });
  viewer = await memberSession(h.accessKeys, s.org.organization_id, { permissions: ['view_tool_packs'] });
}, 300_000);
afterAll(async () => {
  await h.close();
});

async function asMember(session: MemberSession, url: string, method: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...session.headers(method, url) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const listIssues = { id: 7, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__list_issues', arguments: { input: { owner: 'octo-org', repo: 'hello' } } } };

describe('members calling the runtime with a console session', () => {
  it('the playground: a member with manage_tool_packs lists and calls tools through the MCP endpoint', async () => {
    const listed = await asMember(builder, s.mcpUrl, 'POST', { id: 1, jsonrpc: '2.0', method: 'tools/list' });
    expect(listed.status).toBe(200);
    expect(listed.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['github__list_issues', 'github__get_issue', 'github__create_issue']);
    const called = await asMember(builder, s.mcpUrl, 'POST', listIssues);
    expect(called.status).toBe(200);
    expect(JSON.parse(called.body.result.content[0].text).issues.length).toBeGreaterThan(0);
  });

  it('a member with view_tool_packs only gets 403 naming "Manage tool packs" on the MCP endpoint, and lists tools through the list-only variant', async () => {
    const refused = await asMember(viewer, s.mcpUrl, 'POST', listIssues);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('manage_tool_packs (Manage tool packs)');
    const listed = await asMember(viewer, s.mcpUrl.replace(/\/mcp$/, '/tools/list'), 'POST', { id: 1, jsonrpc: '2.0', method: 'tools/list' });
    expect(listed.status).toBe(200);
    expect(listed.body.result.tools).toHaveLength(3);
  });

  it('a playground call without the anti-forgery token is refused, and a session of the test environment does not reach a production pack', async () => {
    const forged = await fetch(s.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', cookie: builder.cookie, origin: new URL(h.url).origin }, body: JSON.stringify(listIssues) });
    expect(forged.status).toBe(403);
    const testSession = await memberSession(h.accessKeys, s.org.organization_id, { permissions: ['manage_tool_packs'], environment: 'test' });
    const other = await asMember(testSession, s.mcpUrl, 'POST', { id: 1, jsonrpc: '2.0', method: 'tools/list' });
    expect(other.status).toBe(404);
  });

  it('security rules: view_security_rules reads, a write needs "Manage security rules"; tool-call records and usage name their permissions', async () => {
    const created = await request(h.url, s.org.master_key, 'POST', '/api/v1/security-rules/', { name: 'No emails', detector: 'EMAIL_ADDRESS', action: 'redact', direction: 'outbound' });
    const reader = await memberSession(h.accessKeys, s.org.organization_id, { permissions: ['view_security_rules'] });
    const rule = await asMember(reader, `${h.url}/api/v1/security-rules/${created.body.id}`, 'GET');
    expect(rule.status).toBe(created.status === 201 ? 200 : 404);
    const list = await asMember(reader, `${h.url}/api/v1/security-rules/`, 'GET');
    expect(list.status).toBe(200);
    const write = await asMember(reader, `${h.url}/api/v1/security-rules/`, 'POST', { name: 'x', detector: 'EMAIL_ADDRESS', action: 'block', direction: 'both' });
    expect(write.status).toBe(403);
    expect(write.body.detail).toContain('Manage security rules');
    const records = await asMember(reader, `${h.url}/api/v1/tool-call-records/`, 'GET');
    expect(records.status).toBe(403);
    expect(records.body.detail).toContain('View tool-call records');
    const usage = await asMember(reader, `${h.url}/api/v1/usage/`, 'GET');
    expect(usage.status).toBe(403);
    expect(usage.body.detail).toContain('View usage and billing');
    const auditor = await memberSession(h.accessKeys, s.org.organization_id, { permissions: ['view_tool_call_records', 'view_billing'] });
    expect((await asMember(auditor, `${h.url}/api/v1/tool-call-records/`, 'GET')).status).toBe(200);
    expect((await asMember(auditor, `${h.url}/api/v1/usage/`, 'GET')).status).toBe(200);
  });
});
