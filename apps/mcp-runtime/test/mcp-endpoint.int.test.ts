import { AsyncLocalStorage } from 'node:async_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { rpc, scenario, startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 90_000);
afterAll(async () => {
  await h.close();
});

describe('MCP endpoint', () => {
  it('works unmodified with the official SDK client: initialize, tools/list, tools/call', async () => {
    const s = await scenario(h);
    const client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(s.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${s.org.master_key}` } } }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['github__list_issues', 'github__get_issue', 'github__create_issue']);
      expect(tools[1]).toMatchObject({ description: expect.any(String), inputSchema: { type: 'object', required: ['input'] } });
      const result = await client.callTool({ name: 'github__get_issue', arguments: { input: { owner: 'octo-org', repo: 'hello', issue_number: 2 } } });
      expect(result.isError).toBeFalsy();
      const issue = JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
      expect(issue).toMatchObject({ number: 2, title: 'Issue 2' });
      // The user's stored token went to GitHub, and only there.
      expect(h.github.requests.at(-1)!.headers.authorization).toMatch(/^Bearer ghp_fake_valid_token$/);
      expect(JSON.stringify(result)).not.toContain('ghp_fake_valid_token');
    } finally {
      await client.close();
    }
  });

  it('answers a bare JSON-RPC tools/list POST without initialize, with fully qualified names', async () => {
    const s = await scenario(h);
    const res = await rpc(s.mcpUrl, s.org.master_key, { id: 1, jsonrpc: '2.0', method: 'tools/list' });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(1);
    expect(res.body.jsonrpc).toBe('2.0');
    expect(res.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['github__list_issues', 'github__get_issue', 'github__create_issue']);
    for (const tool of res.body.result.tools) expect(tool).toMatchObject({ description: expect.any(String), inputSchema: { required: ['input'] } });
  });

  it('answers a bare JSON-RPC tools/call with result.content', async () => {
    const s = await scenario(h);
    const res = await rpc(s.mcpUrl, s.org.master_key, { id: 7, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__list_issues', arguments: { input: { owner: 'octo-org', repo: 'hello' } } } });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(7);
    expect(res.body.result.content[0].type).toBe('text');
    expect(JSON.parse(res.body.result.content[0].text).issues.length).toBeGreaterThan(0);
  });

  it('the list-only variant .../tools/list returns the same as tools/list', async () => {
    const s = await scenario(h);
    const listUrl = s.mcpUrl.replace(/\/mcp$/, '/tools/list');
    const viaVariant = await rpc(listUrl, s.org.master_key, { id: 3, jsonrpc: '2.0', method: 'tools/list' });
    const viaMcp = await rpc(s.mcpUrl, s.org.master_key, { id: 3, jsonrpc: '2.0', method: 'tools/list' });
    expect(viaVariant.status).toBe(200);
    expect(viaVariant.body).toEqual(viaMcp.body);
    const call = await rpc(listUrl, s.org.master_key, { id: 4, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__get_issue', arguments: {} } });
    expect(call.body.error.code).toBe(-32601);
  });
});

describe('JSON-RPC errors use the standard codes', () => {
  let s: Awaited<ReturnType<typeof scenario>>;
  beforeAll(async () => {
    s = await scenario(h);
  });

  it('malformed JSON is -32700 Parse error', async () => {
    const res = await rpc(s.mcpUrl, s.org.master_key, undefined, '{"jsonrpc": "2.0", "id": 1,');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32700);
  });

  it('a wrong jsonrpc is -32600 Invalid Request', async () => {
    const res = await rpc(s.mcpUrl, s.org.master_key, { id: 1, jsonrpc: '1.0', method: 'tools/list' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ id: 1, error: { code: -32600 } });
  });

  it('an unknown method is -32601 Method not found', async () => {
    const res = await rpc(s.mcpUrl, s.org.master_key, { id: 2, jsonrpc: '2.0', method: 'tools/explode' });
    expect(res.body).toMatchObject({ id: 2, error: { code: -32601 } });
  });

  it('an unknown tool is -32602 Invalid params', async () => {
    const res = await rpc(s.mcpUrl, s.org.master_key, { id: 3, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__launch_rockets', arguments: {} } });
    expect(res.body).toMatchObject({ id: 3, error: { code: -32602 } });
    expect(res.body.error.message).toContain('Unknown tool: github__launch_rockets');
  });

  it('arguments that fail the input schema are an isError result the model can act on', async () => {
    const before = h.github.requests.length;
    const res = await rpc(s.mcpUrl, s.org.master_key, { id: 4, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__get_issue', arguments: { input: { owner: 'octo-org' } } } });
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.content[0].text).toContain('input.repo is required');
    expect(h.github.requests.length).toBe(before);
  });

  it('a provider error is an isError result with the provider\'s message', async () => {
    const res = await rpc(s.mcpUrl, s.org.master_key, { id: 5, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__get_issue', arguments: { input: { owner: 'octo-org', repo: 'missing', issue_number: 1 } } } });
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.content[0].text).toContain('HTTP 404');
  });

  it('GET and DELETE on the endpoint are 405 with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(s.mcpUrl, { method, headers: { authorization: `Bearer ${s.org.master_key}` } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });
});

describe('credentials and scope', () => {
  it('a user who has not connected the connector gets an isError result that says so and carries a fresh magic_link_url', async () => {
    const s = await scenario(h, { connect: false });
    const res = await rpc(s.mcpUrl, s.org.master_key, { id: 1, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__get_issue', arguments: { input: { owner: 'octo-org', repo: 'hello', issue_number: 1 } } } });
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.content[0].text).toContain('has not connected GitHub');
    const link = res.body.result.structuredContent as { magic_link_url: string; connector: string };
    expect(link.connector).toBe('github');
    expect(link.magic_link_url).toMatch(/^http:\/\/patchbay\.test\/link\/lt_/);
    expect(res.body.result.content[0].text).toContain(link.magic_link_url);
    // The link works: the user connects through it, and the same call now succeeds.
    const token = link.magic_link_url.split('/link/')[1]!;
    const connect = await fetch(`${h.registry.url}/link/${token}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: 'ghp_fake_valid_token' }), redirect: 'manual' });
    expect(connect.status).toBeLessThan(400);
    const retry = await rpc(s.mcpUrl, s.org.master_key, { id: 2, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__get_issue', arguments: { input: { owner: 'octo-org', repo: 'hello', issue_number: 1 } } } });
    expect(retry.body.result.isError).toBeFalsy();
  });

  it('a rejected stored credential is an isError result asking to reconnect, without the credential', async () => {
    const s = await scenario(h, { token: 'ghp_revoked_token' });
    const res = await rpc(s.mcpUrl, s.org.master_key, { id: 1, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__get_issue', arguments: { input: { owner: 'octo-org', repo: 'hello', issue_number: 1 } } } });
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.content[0].text).toContain('reconnect GitHub');
    expect(JSON.stringify(res.body)).not.toContain('ghp_revoked_token');
  });

  it('needs a key with runtime:all (403 otherwise, 401 without a key)', async () => {
    const s = await scenario(h);
    const management = await h.accessKeys.createKey(s.org.master_key, { name: 'mgmt', scopes: ['management:all'] });
    expect((await rpc(s.mcpUrl, management.key, { id: 1, jsonrpc: '2.0', method: 'tools/list' })).status).toBe(403);
    const anonymous = await fetch(s.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":1,"jsonrpc":"2.0","method":"tools/list"}' });
    expect(anonymous.status).toBe(401);
  });

  it('a tool pack or registered user outside the key\'s restrictions is 404 Resource not in API key scope., like one that does not exist', async () => {
    const s = await scenario(h);
    const other = await scenario(h);
    const narrow = await h.accessKeys.createKey(s.org.master_key, { name: 'one user', scopes: ['runtime:all'], registered_user_ids: [s.userId], tool_pack_ids: [s.packId] });
    expect((await rpc(s.mcpUrl, narrow.key, { id: 1, jsonrpc: '2.0', method: 'tools/list' })).status).toBe(200);
    const samePackOtherUser = `${h.url}/api/v1/tool-packs/${s.packId}/registered-users/00000000-0000-4000-8000-000000000001/mcp`;
    const outOfScope = await rpc(samePackOtherUser, narrow.key, { id: 1, jsonrpc: '2.0', method: 'tools/list' });
    expect(outOfScope.status).toBe(404);
    expect(outOfScope.body).toEqual({ detail: 'Resource not in API key scope.', code: 'not_in_scope' });
    const missing = await rpc(samePackOtherUser, s.org.master_key, { id: 1, jsonrpc: '2.0', method: 'tools/list' });
    expect(missing.body).toEqual(outOfScope.body);
    // Another organization's pack and user, with this organization's key.
    expect((await rpc(other.mcpUrl, s.org.master_key, { id: 1, jsonrpc: '2.0', method: 'tools/list' })).status).toBe(404);
  });

  it('production and test never mix (404)', async () => {
    const s = await scenario(h);
    const res = await rpc(s.mcpUrl, s.org.test_key, { id: 1, jsonrpc: '2.0', method: 'tools/list' });
    expect(res.status).toBe(404);
  });
});

describe('request ids without promise hooks', () => {
  afterEach(() => jest.restoreAllMocks());

  // Entering an AsyncLocalStorage turns on Node 20's promise hooks for the whole process, for good:
  // every promise of every tool call would pay one (service-kit, requestIdInEveryLine).
  it('initialize, tools/list, tools/call (SDK client and bare JSON-RPC) and a refusal never enter an AsyncLocalStorage, and each answer names its request id', async () => {
    const run = jest.spyOn(AsyncLocalStorage.prototype, 'run');
    const enterWith = jest.spyOn(AsyncLocalStorage.prototype, 'enterWith');
    const s = await scenario(h);
    const client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(s.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${s.org.master_key}` } } }));
    try {
      await client.listTools();
      const result = await client.callTool({ name: 'github__get_issue', arguments: { input: { owner: 'octo-org', repo: 'hello', issue_number: 1 } } });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const bare = await fetch(s.mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${s.org.master_key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-request-id': 'mcp-hooks-free-1' }, body: JSON.stringify({ id: 9, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__list_issues', arguments: { input: { owner: 'octo-org', repo: 'hello' } } } }) });
    expect(bare.status).toBe(200);
    expect(bare.headers.get('x-request-id')).toBe('mcp-hooks-free-1');
    await bare.text();
    const refused = await fetch(s.mcpUrl, { method: 'POST', headers: { authorization: 'Bearer pb_live_not_a_key', 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toBeTruthy();
    expect(run).not.toHaveBeenCalled();
    expect(enterWith).not.toHaveBeenCalled();
  });
});
