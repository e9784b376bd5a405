import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { createGuardedRequest } from '@patchbay/outbound';
import { waitFor } from '@patchbay/testing';
import { RemoteMcpClient } from '../src/domain/remote-mcp';
import { api, rpc, startHarness, type Harness } from './harness';
import { startServerEverything, type RemoteServer } from './remote-servers';
import { start2026Server, type Server2026 } from './remote-servers-2026';

/**
 * Custom connectors whose servers speak revision 2026-07-28: a 2026-only stateless server and a
 * dual-era one (both on @modelcontextprotocol/server 2.x), beside server-everything (2025-11-25):
 * registration (server/discover, or initialize for the legacy one), calls with `_meta` and the
 * standard headers on every request, progress and logs, `input_required` answered through the
 * agent's elicitation or surfaced as a clear tool error, and cancellation by closing the stream.
 */

const V = '2026-07-28';
let h: Harness;
let key: string;
let mcpUrl: string;
let only: Server2026;
let dual: Server2026;
let everything: RemoteServer & { version: string };
const registered: Record<string, { protocol_version?: unknown; tools?: unknown }> = {};

beforeAll(async () => {
  [h, only, dual, everything] = await Promise.all([startHarness(), start2026Server('reject'), start2026Server('stateless'), startServerEverything('stateful')]);
  const org = await h.accessKeys.createOrganization();
  key = org.master_key;
  const register = async (name: string, url: string, tools: string[]) => {
    const connector = await api(h, key, 'POST', '/api/v1/connectors/', { name, url, auth: { type: 'none' } });
    registered[name] = connector;
    return { connector_id: connector.id, tool_names: tools };
  };
  const connectors = [
    await register('Only', only.url, ['lookup', 'reports', 'waits', 'asks_user']),
    await register('Dual', dual.url, ['lookup', 'asks_user']),
    await register('Everything', everything.url, ['echo']),
  ];
  const user = await api(h, key, 'POST', '/api/v1/registered-users', { origin_user_id: 'ada', origin_user_name: 'Ada', shared_credential_group: { origin_company_id: 'acme', origin_company_name: 'Acme', custom_groupings: {} } });
  const pack = await api(h, key, 'POST', '/api/v1/tool-packs/', { name: 'Remote', description: 'Remote MCP servers', connectors });
  mcpUrl = `${h.url}/api/v1/tool-packs/${pack.id}/registered-users/${user.id}/mcp`;
}, 120_000);

afterAll(async () => {
  await h?.close();
  await Promise.all([only, dual, everything].map((s) => s?.close()));
});

const call = (name: string, args: Record<string, unknown> = {}) => rpc(mcpUrl, key, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

/** A 2026-07-28 tools/call from the agent's side. */
async function modernCall(name: string, meta: Record<string, unknown> = {}, signal?: AbortSignal, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    signal,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': name },
    body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: {}, ...extra, _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {}, ...meta } } }),
  });
  return res.text();
}

describe('registration', () => {
  it('registers a 2026-only server through server/discover, and a dual-era one, without initialize', async () => {
    expect((registered.Only!.tools as Array<{ name: string }>).map((t) => t.name).sort()).toEqual(['asks_user', 'lookup', 'reports', 'waits']);
    expect((registered.Dual!.tools as Array<{ name: string }>).map((t) => t.name)).toContain('lookup');
    expect(only.seen.map((s) => s.method)).toContain('server/discover');
    expect(only.seen.map((s) => s.method)).not.toContain('initialize');
    expect(dual.seen.map((s) => s.method)).not.toContain('initialize');
  });

  it('registers server-everything (2025-11-25) after its answer to the probe', () => {
    expect((registered.Everything!.tools as Array<{ name: string }>).map((t) => t.name)).toContain('echo');
  });
});

describe('calls', () => {
  it('a 2026-only server gets _meta and the standard headers on every request, and no session', async () => {
    const start = only.seen.length;
    const first = await call('only__lookup', { query: 'ada' });
    expect(first.body.result.content).toEqual([{ type: 'text', text: 'found ada' }]);
    const sent = only.seen.slice(start);
    expect(sent.map((s) => s.method)).toEqual(expect.arrayContaining(['tools/call']));
    expect(sent.map((s) => s.method)).not.toContain('initialize');
    for (const s of sent) {
      expect(s.headers['mcp-protocol-version']).toBe(V);
      expect(s.headers['mcp-method']).toBe(s.method);
      expect(s.headers['mcp-session-id']).toBeUndefined();
      expect(s.meta?.['io.modelcontextprotocol/protocolVersion']).toBe(V);
      expect(s.meta?.['io.modelcontextprotocol/clientCapabilities']).toEqual({});
    }
    expect(sent.find((s) => s.method === 'tools/call')!.headers['mcp-name']).toBe('lookup');
  });

  it('the dual-era server and server-everything answer too', async () => {
    expect((await call('dual__lookup', { query: 'b' })).body.result.content).toEqual([{ type: 'text', text: 'found b' }]);
    expect((await call('everything__echo', { message: 'hi' })).body.result.content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
  });

  it("passes the remote's progress and (when asked) its log messages to a 2026 agent", async () => {
    const text = await modernCall('only__reports', { progressToken: 'tok', 'io.modelcontextprotocol/logLevel': 'info' });
    const messages = text
      .split('\n\n')
      .map((e) => e.split('\n').find((l) => l.startsWith('data: ')))
      .filter((l): l is string => l !== undefined)
      .map((l) => JSON.parse(l.slice(6)));
    expect(messages.filter((m) => m.method === 'notifications/progress').map((m) => [m.params.progressToken, m.params.progress])).toEqual([
      ['tok', 1],
      ['tok', 2],
      ['tok', 3],
    ]);
    expect(messages.filter((m) => m.method === 'notifications/message').map((m) => m.params.data)).toEqual(['log 1', 'log 3']);
    expect(messages.at(-1).result).toMatchObject({ content: [{ type: 'text', text: 'reported' }], resultType: 'complete' });
  });

  it('input_required for an agent that cannot answer it is a tool error saying what is missing', async () => {
    const res = await call('only__asks_user');
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.content[0].text).toMatch(/^The MCP server of Only could not finish: it needs input that only an agent declaring the elicitation capability can give/);
  });

  it("input_required is answered through a 2025 agent's elicitation, relayed on its call's stream", async () => {
    const client = new ClientV1({ name: 'agent', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }));
    await client.connect(new TransportV1(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    try {
      for (const tool of ['only__asks_user', 'dual__asks_user']) {
        const result = await client.callTool({ name: tool, arguments: {} });
        expect(result.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
      }
    } finally {
      await client.close();
    }
  });

  it('a 2026 agent closing its connection closes the stream to the 2026 server, which sees the cancellation', async () => {
    const before = only.cancelled;
    const calls = only.seen.filter((s) => s.method === 'tools/call').length;
    const controller = new AbortController();
    const running = modernCall('only__waits', {}, controller.signal).catch(() => null);
    await waitFor(() => only.seen.filter((s) => s.method === 'tools/call').length > calls, 5_000, 'the call to reach the server');
    controller.abort();
    await running;
    await waitFor(() => only.cancelled > before, 5_000, 'the server to see the cancellation');
    expect(only.seen.filter((s) => s.method === 'notifications/cancelled')).toHaveLength(0);
  });

  it("input_required reaches a 2026 agent with Patchbay's sealed state, and its retry reaches the server with the server's own", async () => {
    const caps = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };
    const first = JSON.parse(await modernCall('only__asks_user', caps));
    expect(first.result).toMatchObject({ resultType: 'input_required', inputRequests: { name: { method: 'elicitation/create', params: expect.objectContaining({ message: 'What is your name?' }) } } });
    const state = first.result.requestState as string;
    expect(state).toMatch(/^s1\./);
    const answers = { name: { action: 'accept', content: { name: 'Ada' } } };
    const second = JSON.parse(await modernCall('only__asks_user', caps, undefined, { inputResponses: answers, requestState: state }));
    expect(second.result).toMatchObject({ content: [{ type: 'text', text: 'hello Ada' }], resultType: 'complete' });

    const forged = JSON.parse(await modernCall('only__asks_user', caps, undefined, { inputResponses: answers, requestState: `${state.slice(0, -2)}xx` }));
    expect(forged.error).toMatchObject({ code: -32602, message: expect.stringContaining('Invalid or expired requestState') });
    const moved = JSON.parse(await modernCall('dual__asks_user', caps, undefined, { inputResponses: answers, requestState: state }));
    expect(moved.error.code).toBe(-32602);
  });

  it('a 2026 agent that did not declare the capability the server needs gets 400 with -32021 naming it', async () => {
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'only__asks_user' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'only__asks_user', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} } } }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 9, error: { code: -32021, data: { requiredCapabilities: { elicitation: expect.any(Object) } } } });
  });

  it('the v2 SDK client in 2026 mode answers input_required through its elicitation handler, round trip by round trip', async () => {
    const client = new ClientV2({ name: 'agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Grace' } }));
    await client.connect(new TransportV2(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect((await client.callTool({ name: 'only__asks_user', arguments: {} })).content).toEqual([{ type: 'text', text: 'hello Grace' }]);
    } finally {
      await client.close();
    }
  });
});

describe('cache hints of server/discover', () => {
  it("a modern server is probed again once its discover answer's ttlMs has passed, beside the next call and at most once per interval", async () => {
    const server = await start2026Server('reject', { discoverTtlMs: 300 });
    const client = new RemoteMcpClient({ url: server.url, secret: null, http: createGuardedRequest({ allowPrivateNetwork: true }, { requireHttps: false }), timeoutMs: 5_000, maxResponseBytes: 1 << 20, rediscoverMinMs: 100 });
    const discovers = () => server.seen.filter((s) => s.method === 'server/discover').length;
    try {
      expect((await client.callTool('lookup', { query: 'a' })).content).toEqual([{ type: 'text', text: 'found a' }]);
      await client.callTool('lookup', { query: 'b' });
      expect(discovers()).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 350));
      // Stale now: this call goes out at once, the probe beside it.
      expect((await client.callTool('lookup', { query: 'c' })).content).toEqual([{ type: 'text', text: 'found c' }]);
      await waitFor(() => discovers() === 2, 2_000, 'a second server/discover');
      await client.callTool('lookup', { query: 'd' });
      expect(discovers()).toBe(2);
      expect(server.seen.map((s) => s.method)).not.toContain('initialize');
    } finally {
      await client.close();
      await server.close();
    }
  });
});
