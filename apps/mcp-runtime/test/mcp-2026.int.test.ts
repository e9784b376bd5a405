import { execFile } from 'node:child_process';
import path from 'node:path';
import { createMCPClient } from '@ai-sdk/mcp';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { node22 } from '@patchbay/mcp-conformance';
import { waitFor } from '@patchbay/testing';
import { startCountingProxy, type CountingProxy } from './counting-proxy';
import { api, startHarness, type Harness } from './harness';
import { startSdkServer, type RemoteServer, type SdkServerEvents } from './remote-servers';

/**
 * MCP revision 2026-07-28 on the endpoint, beside the 2025 revisions on the same URLs: the era is
 * the request's (its `_meta` protocol version), served without a session; the revision's checks
 * (`_meta`, the mirrored headers, the supported versions, unknown methods), `server/discover`,
 * cacheable `tools/list`, `tools/call` as JSON or SSE, disconnect as cancellation, log messages only
 * when asked; and the clients agents use: the v2 SDK client (2026 and legacy modes), @ai-sdk/mcp
 * (no fallback round trip) and the v1 SDK client.
 */

const V = '2026-07-28';
let h: Harness;
let key: string;
let mcpUrl: string;
let listUrl: string;
let remote: RemoteServer & SdkServerEvents;

/** A proxy in front of the runtime that counts the requests the endpoint receives, per HTTP method and JSON-RPC method. */
let proxy: CountingProxy;

beforeAll(async () => {
  [h, remote] = await Promise.all([startHarness(), startSdkServer({ eventStore: false })]);
  const org = await h.accessKeys.createOrganization();
  key = org.master_key;
  const custom = await api(h, key, 'POST', '/api/v1/connectors/', { name: 'Plain', url: remote.url, auth: { type: 'none' } });
  const github = await api(h, key, 'GET', '/api/v1/connectors/?search=github');
  const user = await api(h, key, 'POST', '/api/v1/registered-users', { origin_user_id: 'ada', origin_user_name: 'Ada', shared_credential_group: { origin_company_id: 'acme', origin_company_name: 'Acme', custom_groupings: {} } });
  const pack = await api(h, key, 'POST', '/api/v1/tool-packs/', {
    name: 'Both',
    description: 'Built-in and custom tools',
    connectors: [
      { connector_id: github.results[0].id, auth_scope: 'INDIVIDUAL', tool_names: ['get_issue'] },
      { connector_id: custom.id, tool_names: ['lookup', 'reports', 'waits'] },
    ],
  });
  const path = `/api/v1/tool-packs/${pack.id}/registered-users/${user.id}`;
  proxy = await startCountingProxy(h.url);
  mcpUrl = `${proxy.url}${path}/mcp`;
  listUrl = `${proxy.url}${path}/tools/list`;
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await h?.close();
  await remote?.close();
});

const meta = (extra: Record<string, unknown> = {}) => ({ 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' }, ...extra });

/** A 2026-07-28 request as the revision says to send it: the envelope and the mirrored headers. */
async function modern(method: string, params: Record<string, unknown> = {}, options: { headers?: Record<string, string | undefined>; url?: string; meta?: Record<string, unknown> | null } = {}): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const body = { jsonrpc: '2.0', id: 7, method, params: options.meta === null ? params : { ...params, _meta: options.meta ?? meta() } };
  const name = typeof params.name === 'string' ? params.name : undefined;
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V, 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) };
  for (const [k, v] of Object.entries(options.headers ?? {})) {
    if (v === undefined) delete headers[k];
    else headers[k] = v;
  }
  const res = await fetch(options.url ?? mcpUrl, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // An SSE answer.
  }
  return { status: res.status, headers: res.headers, text, json };
}

const sseMessages = (text: string) =>
  text
    .split('\n\n')
    .map((event) => event.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice(6)));

describe('2026-07-28 requests, statelessly, on the same URL', () => {
  it('server/discover names the served revision, the capabilities and cache hints, without a session', async () => {
    const res = await modern('server/discover');
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.json).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { supportedVersions: [V], capabilities: { tools: {}, logging: {} }, resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'public', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'patchbay', title: 'Patchbay', version: '1.0.0' } } },
    });
  });

  it('tools/list carries resultType, ttlMs and a private cacheScope; the list-only variant answers it and discover too', async () => {
    for (const url of [mcpUrl, listUrl]) {
      const res = await modern('tools/list', {}, { url });
      expect(res.status).toBe(200);
      expect(res.json.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
      expect(res.json.result.tools.map((t: { name: string }) => t.name).sort()).toEqual(['github__get_issue', 'plain__lookup', 'plain__reports', 'plain__waits']);
    }
    expect((await modern('server/discover', {}, { url: listUrl })).json.result.supportedVersions).toEqual([V]);
    const call = await modern('tools/call', { name: 'plain__lookup', arguments: { query: 'x' } }, { url: listUrl });
    expect(call.status).toBe(404);
    expect(call.json.error.code).toBe(-32601);
  });

  it('tools/call is answered as JSON with resultType when nothing streams', async () => {
    const res = await modern('tools/call', { name: 'plain__lookup', arguments: { query: 'ada' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.json).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'found ada' }], resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'patchbay', title: 'Patchbay', version: '1.0.0' } } } });
  });

  it('tools/call streams progress as SSE when the request gave a token, and log messages only when its _meta asked for them', async () => {
    const quiet = await modern('tools/call', { name: 'plain__reports', arguments: {} }, { meta: meta({ progressToken: 'p1' }) });
    expect(quiet.headers.get('content-type')).toContain('text/event-stream');
    const messages = sseMessages(quiet.text);
    expect(messages.map((m) => m.method ?? 'response')).toEqual(['notifications/progress', 'notifications/progress', 'notifications/progress', 'response']);
    expect(messages[0].params).toMatchObject({ progressToken: 'p1', progress: 1, total: 3 });
    expect(messages[3].result).toMatchObject({ content: [{ type: 'text', text: 'reported' }], resultType: 'complete' });

    const noToken = await modern('tools/call', { name: 'plain__reports', arguments: {} });
    expect(noToken.headers.get('content-type')).toContain('application/json');

    const logged = await modern('tools/call', { name: 'plain__reports', arguments: {} }, { meta: meta({ 'io.modelcontextprotocol/logLevel': 'info' }) });
    const logs = sseMessages(logged.text).filter((m) => m.method === 'notifications/message');
    // The debug message is below the level asked.
    expect(logs.map((m) => m.params.data)).toEqual(['log 1', 'log 3']);
  });

  it('closing the connection cancels the call on the remote server', async () => {
    const before = remote.cancelled.length;
    const calls = remote.seen.filter((s) => s.method === 'tools/call').length;
    const controller = new AbortController();
    const aborted = fetch(mcpUrl, {
      method: 'POST',
      signal: controller.signal,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'plain__waits' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { name: 'plain__waits', arguments: {}, _meta: meta() } }),
    }).catch(() => null);
    await waitFor(() => remote.seen.filter((s) => s.method === 'tools/call').length > calls, 5_000, 'the call to reach the remote server');
    controller.abort();
    await aborted;
    await waitFor(() => remote.cancelled.length > before, 5_000, 'the remote server to see the cancellation');
    expect(remote.cancelled.length).toBe(before + 1);
  });
});

describe("the revision's checks", () => {
  it('a malformed _meta is 400 with -32602 naming the key', async () => {
    const res = await modern('tools/list', {}, { meta: { 'io.modelcontextprotocol/protocolVersion': V } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ id: 7, error: { code: -32602, message: expect.stringContaining('io.modelcontextprotocol/clientCapabilities') } });
    const level = await modern('tools/list', {}, { meta: meta({ 'io.modelcontextprotocol/logLevel': 'loud' }) });
    expect(level.status).toBe(400);
    expect(level.json.error.code).toBe(-32602);
  });

  it('a 2026-07-28 header without the envelope is 400 with -32602', async () => {
    const res = await modern('tools/list', {}, { meta: null });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe(-32602);
  });

  it.each([
    ['MCP-Protocol-Version disagreeing with _meta', { 'mcp-protocol-version': '2025-11-25' }],
    ['MCP-Protocol-Version missing', { 'mcp-protocol-version': undefined }],
    ['Mcp-Method disagreeing with the body', { 'mcp-method': 'tools/list' }],
    ['Mcp-Method missing', { 'mcp-method': undefined }],
    ['Mcp-Name disagreeing with params.name', { 'mcp-name': 'plain__reports' }],
    ['Mcp-Name missing', { 'mcp-name': undefined }],
    ['Mcp-Name with a broken base64 value', { 'mcp-name': '=?base64?%%%?=' }],
  ])('%s is 400 with -32020', async (_what, headers) => {
    const res = await modern('tools/call', { name: 'plain__lookup', arguments: { query: 'x' } }, { headers });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32020 } });
  });

  it('Mcp-Name in the =?base64?...?= form is decoded before it is compared', async () => {
    const res = await modern('tools/call', { name: 'plain__lookup', arguments: { query: 'b' } }, { headers: { 'mcp-name': `=?base64?${Buffer.from('plain__lookup').toString('base64')}?=` } });
    expect(res.json.result.content[0].text).toBe('found b');
  });

  it('an unsupported version is 400 with -32022, the supported list and the version requested', async () => {
    const res = await modern('tools/list', {}, { meta: meta({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }), headers: { 'mcp-protocol-version': '2099-01-01' } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ id: 7, error: { code: -32022, data: { supported: [V], requested: '2099-01-01' } } });
  });

  it.each(['initialize', 'ping', 'logging/setLevel', 'resources/list', 'subscriptions/listen', 'nope/nothing'])('%s is 404 with -32601', async (method) => {
    const res = await modern(method);
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ id: 7, error: { code: -32601 } });
  });

  it('subscriptions/listen is 404/-32601 as the revision allows a server that declares no listChanged; discover declares none', async () => {
    const discover = await modern('server/discover');
    expect(discover.json.result.capabilities.tools.listChanged).toBeUndefined();
    const res = await modern('subscriptions/listen', { notifications: { toolsListChanged: true } });
    expect(res.status).toBe(404);
    expect(res.json.error.message).toMatch(/no list-changed notifications .* read tools\/list again when its ttlMs has passed/);
  });

  it('initialize with a 2026-07-28 header is 400 with -32020; a notification is 202', async () => {
    const res = await modern('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }, { meta: null });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe(-32020);
    const note = await fetch(mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'mcp-protocol-version': V }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: meta() } }) });
    expect(note.status).toBe(202);
  });

  it('authentication and the Origin check come first: 401 without a key, 403 for an origin not allowed', async () => {
    const unauthenticated = await modern('server/discover', {}, { headers: { authorization: undefined } });
    expect(unauthenticated.status).toBe(401);
    const origin = await modern('server/discover', {}, { headers: { origin: 'https://evil.example.com' } });
    expect(origin.status).toBe(403);
  });
});

describe('the clients agents use', () => {
  const authHeaders = () => ({ authorization: `Bearer ${key}` });

  it('the v2 SDK client in auto mode connects in the 2026 era with one request, lists and calls', async () => {
    const start = proxy.seen.length;
    const client = new ClientV2({ name: 'agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new TransportV2(new URL(mcpUrl), { requestInit: { headers: authHeaders() } }));
    try {
      expect(proxy.seen.slice(start)).toEqual(['POST server/discover']);
      expect(client.getProtocolEra()).toBe('modern');
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('plain__lookup');
      const progress: number[] = [];
      const result = await client.callTool({ name: 'plain__reports', arguments: {} }, { onprogress: (p) => progress.push(p.progress) });
      expect(result.content).toEqual([{ type: 'text', text: 'reported' }]);
      expect(progress).toEqual([1, 2, 3]);
    } finally {
      await client.close();
    }
  });

  it('the v2 SDK client pinned to 2026-07-28 connects; a wrong key is refused at the probe', async () => {
    const client = new ClientV2({ name: 'agent', version: '1.0.0' }, { versionNegotiation: { mode: { pin: V } } });
    await client.connect(new TransportV2(new URL(mcpUrl), { requestInit: { headers: authHeaders() } }));
    expect((await client.listTools()).tools).toHaveLength(4);
    await client.close();
    const refused = new ClientV2({ name: 'agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await expect(refused.connect(new TransportV2(new URL(mcpUrl), { requestInit: { headers: { authorization: 'Bearer pb_wrong' } } }))).rejects.toThrow();
  });

  it('the v2 SDK client in legacy mode (its default) still initializes with 2025-11-25', async () => {
    const start = proxy.seen.length;
    const client = new ClientV2({ name: 'agent', version: '1.0.0' });
    await client.connect(new TransportV2(new URL(mcpUrl), { requestInit: { headers: authHeaders() } }));
    try {
      expect(proxy.seen.slice(start)[0]).toBe('POST initialize');
      expect(client.getProtocolEra()).toBe('legacy');
      const result = await client.callTool({ name: 'plain__lookup', arguments: { query: 'old' } });
      expect(result.content).toEqual([{ type: 'text', text: 'found old' }]);
    } finally {
      await client.close();
    }
  });

  it('@ai-sdk/mcp connects without a fallback round trip and runs a tool', async () => {
    const start = proxy.seen.length;
    const client = await createMCPClient({ transport: { type: 'http', url: mcpUrl, headers: authHeaders() } });
    try {
      const connect = proxy.seen.slice(start);
      expect(connect).not.toContain('POST initialize');
      expect(connect).toEqual(['POST server/discover']);
      const tools = await client.tools();
      expect(Object.keys(tools)).toContain('plain__lookup');
      const result = (await tools.plain__lookup!.execute!({ query: 'ai' }, { toolCallId: 'c1', messages: [], context: {} })) as { content: Array<{ text: string }> };
      expect(result.content[0]!.text).toBe('found ai');
    } finally {
      await client.close();
    }
  });

  it('the OpenAI Agents SDK (on Node 22) connects in the 2026 era with one request, lists and calls', async () => {
    const start = proxy.seen.length;
    const output = await new Promise<string>((resolve, reject) => {
      execFile(node22(), [path.join(__dirname, 'fixtures', 'agents-sdk-mcp.mjs'), mcpUrl, key, 'plain__lookup', JSON.stringify({ query: 'agents' })], { cwd: path.join(__dirname, '..'), timeout: 60_000 }, (err, stdout, stderr) => {
        if (err) reject(new Error(`${err.message}\n${stderr}`));
        else resolve(stdout);
      });
    });
    const { tools, result } = JSON.parse(output) as { tools: string[]; result: Array<{ type: string; text: string }> };
    expect(tools).toContain('plain__lookup');
    expect(result).toEqual([{ type: 'text', text: 'found agents' }]);
    const seen = proxy.seen.slice(start);
    expect(seen[0]).toBe('POST server/discover');
    expect(seen).not.toContain('POST initialize');
  });

  it('the v1 SDK client keeps working with sessions', async () => {
    const client = new ClientV1({ name: 'agent', version: '1.0.0' });
    const transport = new TransportV1(new URL(mcpUrl), { requestInit: { headers: authHeaders() } });
    await client.connect(transport);
    try {
      expect(transport.sessionId).toMatch(/^v1\./);
      expect(client.getServerVersion()?.name).toBe('patchbay');
      const result = await client.callTool({ name: 'plain__lookup', arguments: { query: 'v1' } });
      expect(result.content).toEqual([{ type: 'text', text: 'found v1' }]);
    } finally {
      await client.close();
    }
  });
});
