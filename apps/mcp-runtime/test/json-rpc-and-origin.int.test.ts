import { request as usage, rpc, scenario, startHarness, type Harness } from './harness';

/**
 * The MCP endpoint's JSON-RPC layer and transport rules: readable -32602 for invalid params, an empty
 * batch as one Invalid Request, batches, sessions, the protocol version header, Origin validation
 * (403 for an origin the organization did not allow), and progress of a built-in tool on an SSE answer.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 90_000);
afterAll(async () => {
  await h.close();
});

async function post(url: string, key: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // An SSE answer.
  }
  return { status: res.status, headers: res.headers, text, json };
}

const getIssue = { name: 'github__get_issue', arguments: { input: { owner: 'octo-org', repo: 'hello', issue_number: 1 } } };

describe('JSON-RPC errors', () => {
  it('tools/call with an array as arguments is -32602 with a readable message, and costs no credit', async () => {
    const s = await scenario(h);
    const before = (await usage(h.url, s.key, 'GET', '/api/v1/usage/')).body.credits_used;
    const res = await rpc(s.mcpUrl, s.key, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'github__get_issue', arguments: [1, 2] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: "Invalid params: params.arguments must be an object of the tool's arguments by name (got an array)." } });
    expect((await usage(h.url, s.key, 'GET', '/api/v1/usage/')).body.credits_used).toBe(before);
  });

  it('initialize without protocolVersion is -32602 naming what to send', async () => {
    const s = await scenario(h, { connect: false });
    const res = await rpc(s.mcpUrl, s.key, { jsonrpc: '2.0', id: 'i', method: 'initialize', params: { capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
    expect(res.body.error).toEqual({ code: -32602, message: 'Invalid params: params.protocolVersion must be the protocol version the client speaks, a string such as "2025-11-25" (got missing).' });
  });

  it('an empty batch is one Invalid Request error, not an array', async () => {
    const s = await scenario(h, { connect: false });
    const res = await post(s.mcpUrl, s.key, '[]');
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: the batch is empty; send at least one JSON-RPC message.' } });
  });

  it('a batch gets one response per request, in order, with the invalid ones as errors and none for notifications', async () => {
    const s = await scenario(h, { connect: false });
    const res = await post(s.mcpUrl, s.key, JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '1.0', id: 2, method: 'ping' }, { jsonrpc: '2.0', id: 3, method: 'tools/list' }]));
    expect(res.status).toBe(200);
    expect(res.json.map((r: { id: unknown }) => r.id)).toEqual([1, 2, 3]);
    expect(res.json[0].result).toEqual({});
    expect(res.json[1].error).toEqual({ code: -32600, message: 'Invalid Request: jsonrpc must be the string "2.0".' });
    expect(res.json[2].result.tools).toHaveLength(3);
  });

  it('methods the runtime does not offer are Method not found, each message saying its meaning once', async () => {
    const s = await scenario(h, { connect: false });
    const res = await rpc(s.mcpUrl, s.key, { jsonrpc: '2.0', id: 1, method: 'resources/list' });
    expect(res.body.error).toEqual({ code: -32601, message: 'Method not found: resources/list; this server offers tools only (tools/list, tools/call), as its capabilities say.' });
    const unknownTool = await rpc(s.mcpUrl, s.key, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'nope', arguments: {} } });
    expect(unknownTool.body.error).toEqual({ code: -32602, message: 'Invalid params: Unknown tool: nope. Call tools/list for the tools of this tool pack.' });
    const level = await rpc(s.mcpUrl, s.key, { jsonrpc: '2.0', id: 3, method: 'logging/setLevel', params: { level: 'loud' } });
    expect(level.body.error).toEqual({ code: -32602, message: 'Invalid params: params.level must be one of debug, info, notice, warning, error, critical, alert, emergency (got "loud").' });
  });

  it('a notification or a response alone is accepted with 202 and no body', async () => {
    const s = await scenario(h, { connect: false });
    const res = await post(s.mcpUrl, s.key, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
  });

  it('an unsupported MCP-Protocol-Version is 400', async () => {
    const s = await scenario(h, { connect: false });
    const res = await post(s.mcpUrl, s.key, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }), { 'mcp-protocol-version': '1999-01-01' });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(/^Bad Request: unsupported MCP-Protocol-Version "1999-01-01"; this server supports 2025-11-25, /);
  });
});

describe('sessions', () => {
  it('initialize opens a session bound to the key, pack and user; another pack or a forged id is 404', async () => {
    const s = await scenario(h, { connect: false });
    const init = await post(s.mcpUrl, s.key, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { sampling: {} }, clientInfo: { name: 'c', version: '1' } } }));
    expect(init.json.result).toEqual({ protocolVersion: '2025-11-25', capabilities: { tools: { listChanged: false }, logging: {} }, serverInfo: { name: 'patchbay', title: 'Patchbay', version: '1.0.0' } });
    const session = init.headers.get('mcp-session-id')!;
    expect(session).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect((await post(s.mcpUrl, s.key, ping, { 'mcp-session-id': session })).status).toBe(200);
    const other = await scenario(h, { org: s.org, connect: false });
    expect((await post(other.mcpUrl, s.key, ping, { 'mcp-session-id': session })).status).toBe(404);
    const forged = await post(s.mcpUrl, s.key, ping, { 'mcp-session-id': `${session.slice(0, -2)}AA` });
    expect(forged.status).toBe(404);
    expect(forged.json.error.message).toMatch(/^Session not found: .*send initialize again without it\.$/);
  });
});

describe('Origin', () => {
  it('a browser origin the organization did not allow is 403; none is allowed by default; requests without Origin work', async () => {
    const s = await scenario(h, { connect: false });
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const evil = await post(s.mcpUrl, s.key, ping, { origin: 'http://evil.example.com' });
    expect(evil.status).toBe(403);
    expect(evil.json).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: expect.stringMatching(/^Forbidden: requests from the browser origin "http:\/\/evil\.example\.com" are not allowed on this MCP endpoint\./) } });
    expect((await post(s.mcpUrl, s.key, ping, { origin: 'https://app.example.com' })).status).toBe(403);
    expect((await post(s.mcpUrl, s.key, ping, { origin: 'null' })).status).toBe(403);
    expect((await post(s.mcpUrl, s.key, ping)).status).toBe(200);
  });

  it('an origin the organization allowed works, with the CORS headers a browser needs', async () => {
    const s = await scenario(h, { connect: false });
    await h.accessKeys.updateOrganization(s.org.organization_id, ['--mcp-allowed-origin', 'https://app.example.com']);
    const preflight = await fetch(s.mcpUrl, { method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-session-id' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization.*Mcp-Session-Id/);
    const ok = await post(s.mcpUrl, s.key, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }), { origin: 'https://app.example.com' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(ok.headers.get('access-control-expose-headers')).toContain('Mcp-Session-Id');
    expect((await post(s.mcpUrl, s.key, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }), { origin: 'https://other.example.com' })).status).toBe(403);
  });
});

describe('built-in tools on an SSE answer', () => {
  it('send progress before the result when the agent gave a progress token and accepts text/event-stream', async () => {
    const s = await scenario(h);
    const res = await post(s.mcpUrl, s.key, JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { ...getIssue, _meta: { progressToken: 'p1' } } }), { accept: 'application/json, text/event-stream' });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const messages = res.text
      .split('\n\n')
      .filter((e) => e.startsWith('event: message\ndata: '))
      .map((e) => JSON.parse(e.slice('event: message\ndata: '.length)));
    expect(messages.map((m) => m.method ?? 'response')).toEqual(['notifications/progress', 'notifications/progress', 'response']);
    expect(messages[0].params).toEqual({ progressToken: 'p1', progress: 0, total: 1, message: 'Calling GitHub' });
    expect(messages[2]).toMatchObject({ id: 5, result: { content: [{ type: 'text' }] } });
  });

  it('answer JSON when the agent gave no progress token, or does not accept text/event-stream', async () => {
    const s = await scenario(h);
    const plain = await post(s.mcpUrl, s.key, JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: getIssue }), { accept: 'application/json, text/event-stream' });
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
    const noSse = await post(s.mcpUrl, s.key, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { ...getIssue, _meta: { progressToken: 'p2' } } }));
    expect(noSse.headers.get('content-type')).toMatch(/^application\/json/);
    expect(noSse.json.result.isError).toBeUndefined();
  });
});
