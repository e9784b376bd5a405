import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { waitFor } from '@patchbay/testing';
import { api, rpc, startHarness, type Harness } from './harness';
import { startHandWrittenServer, startSdkServer, startServerEverything, startStatelessSdkServer, type RemoteServer, type SdkServerEvents } from './remote-servers';

/**
 * Custom connectors against the MCP servers agents meet: the reference server-everything (stateful,
 * with an event store, so every SSE answer opens with a priming event; and stateless), SDK servers
 * with and without an event store, one that closes its stream mid-call, ones that ask the client for
 * sampling and elicitation mid-call, and hand-written answers for the transport's edge cases.
 */

let h: Harness;
let key: string;
let mcpUrl: string;
let everything: RemoteServer & { version: string };
let everythingStateless: RemoteServer;
let withStore: RemoteServer & SdkServerEvents;
let plain: RemoteServer & SdkServerEvents;
let stateless: RemoteServer & SdkServerEvents;
let handWritten: RemoteServer;

const SDK_TOOLS = ['lookup', 'reports', 'polls', 'pings', 'asks_model', 'asks_user', 'asks_roots', 'waits'];

const sse = (...messages: object[]) => messages.map((m) => `data: ${JSON.stringify(m)}\n\n`).join('');
const result = (id: number, text: string) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });

beforeAll(async () => {
  // A 3 s tool-call timeout: the waiting tool (4 s) is cancelled long before it.
  [h, everything, everythingStateless, withStore, plain, stateless] = await Promise.all([
    startHarness({ TOOL_CALL_TIMEOUT_MS: '3000' }),
    startServerEverything('stateful'),
    startServerEverything('stateless'),
    startSdkServer({ eventStore: true, retryIntervalMs: 50 }),
    startSdkServer({ eventStore: false }),
    startStatelessSdkServer(),
  ]);
  handWritten = await startHandWrittenServer(({ id, name }) => {
    switch (name) {
      case 'comments':
        // A comment, a retry field, a priming event, an event of another type, then the answer.
        return { contentType: 'text/event-stream', chunks: [': hello\n\nretry: 3000\n\nid: 1\ndata:\n\nevent: ping\ndata: {}\n\n', sse(result(id, 'after comments'))] };
      case 'crlf':
        return { contentType: 'text/event-stream; charset=utf-8', chunks: [`id: a\r\ndata: \r\n\r\n${sse(result(id, 'crlf ok')).replace(/\n/g, '\r\n')}`] };
      case 'split': {
        const text = sse({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'é' } }, result(id, 'split ok ✓'));
        const bytes = Buffer.from(text);
        // Cut inside a multi-byte character and inside a field name, with pauses between the pieces.
        const cuts = [3, 20, bytes.indexOf(0xc3) + 1, bytes.length - 5];
        const pieces: Array<string | Buffer> = [];
        let at = 0;
        for (const cut of cuts) {
          pieces.push(bytes.subarray(at, cut), '<pause>');
          at = cut;
        }
        pieces.push(bytes.subarray(at));
        return { contentType: 'text/event-stream', chunks: pieces };
      }
      case 'batch':
        return { contentType: 'text/event-stream', chunks: [`data: ${JSON.stringify([{ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }, result(id, 'from a batch')])}\n\n`] };
      case 'json_batch':
        return { contentType: 'application/json', chunks: [JSON.stringify([{ jsonrpc: '2.0', id: 999, result: {} }, result(id, 'json batch ok')])] };
      case 'bare_json':
        return { contentType: '', chunks: [JSON.stringify(result(id, 'no content type'))] };
      case 'other_events':
        return { contentType: 'text/event-stream', chunks: [`event: custom\ndata: not json at all\n\n${sse(result(id, 'ignored other events'))}`] };
      case 'ends_early':
        return { contentType: 'text/event-stream', chunks: [sse({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'bye' } })] };
      default:
        return { contentType: 'text/event-stream', chunks: ['data: {"jsonrpc": "2.0", "id": \n\n'] };
    }
  });
  const org = await h.accessKeys.createOrganization();
  key = org.master_key;
  const register = (name: string, url: string, tools: string[]) => api(h, key, 'POST', '/api/v1/connectors/', { name, url, auth: { type: 'none' } }).then((c: { id: string }) => ({ connector_id: c.id, tool_names: tools }));
  const connectors = await Promise.all([
    register('Everything', everything.url, ['echo', 'get-sum', 'trigger-long-running-operation']),
    register('Everything stateless', everythingStateless.url, ['echo', 'get-sum']),
    register('With store', withStore.url, SDK_TOOLS),
    register('Plain', plain.url, SDK_TOOLS),
    register('Stateless', stateless.url, ['lookup', 'reports']),
    register('Hand written', handWritten.url, ['comments', 'crlf', 'batch', 'split', 'malformed', 'json_batch', 'bare_json', 'other_events', 'ends_early']),
  ]);
  const user = await api(h, key, 'POST', '/api/v1/registered-users', { origin_user_id: 'ada', origin_user_name: 'Ada', shared_credential_group: { origin_company_id: 'acme', origin_company_name: 'Acme', custom_groupings: {} } });
  const pack = await api(h, key, 'POST', '/api/v1/tool-packs/', { name: 'Remote', description: 'Remote MCP servers', connectors });
  mcpUrl = `${h.url}/api/v1/tool-packs/${pack.id}/registered-users/${user.id}/mcp`;
}, 120_000);

afterAll(async () => {
  await h?.close();
  await Promise.all([everything, everythingStateless, withStore, plain, stateless, handWritten].map((s) => s?.close()));
});

const call = (name: string, args: Record<string, unknown> = {}) => rpc(mcpUrl, key, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

/** The SDK's own client, as an agent uses it: session, SSE answers, and the capabilities given. */
async function agent(capabilities: Record<string, unknown> = {}): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

describe('server-everything, the reference server', () => {
  it.each([
    ['everything', 'stateful, with an event store (priming events)'],
    ['everything-stateless', 'stateless'],
  ])('%s (%s): echo and get-sum give their real answers', async (slug) => {
    expect((await call(`${slug}__echo`, { message: 'hello' })).body.result).toEqual({ content: [{ type: 'text', text: 'Echo: hello' }] });
    const sum = await call(`${slug}__get-sum`, { a: 2, b: 3 });
    expect(sum.body.result.isError).toBeUndefined();
    expect(sum.body.result.content[0].text).toContain('5');
  });

  it("passes trigger-long-running-operation's progress to an agent that gave a progress token, in order, before the result", async () => {
    const client = await agent();
    try {
      const progress: Array<{ progress: number; total?: number }> = [];
      const res = await client.callTool({ name: 'everything__trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, CallToolResultSchema, { onprogress: (p) => progress.push(p) });
      expect(res.content).toEqual([expect.objectContaining({ type: 'text', text: expect.stringContaining('Long running operation completed') })]);
      expect(progress.map((p) => [p.progress, p.total])).toEqual([[1, 3], [2, 3], [3, 3]]);
    } finally {
      await client.close();
    }
  });
});

describe('SDK servers with and without an event store', () => {
  it.each([
    ['with-store', 'with an event store'],
    ['plain', 'without one'],
    ['stateless', 'stateless, JSON answers'],
  ])('%s (%s): a plain call, and its progress and log messages passed through to the agent, filtered by its log level', async (slug) => {
    expect((await call(`${slug}__lookup`, { query: 'q' })).body.result).toEqual({ content: [{ type: 'text', text: 'found q' }] });
    const client = await agent();
    try {
      const logs: unknown[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
      await client.setLoggingLevel('info');
      const progress: number[] = [];
      const res = await client.callTool({ name: `${slug}__reports`, arguments: {} }, CallToolResultSchema, { onprogress: (p) => progress.push(p.progress) });
      expect(res.content).toEqual([{ type: 'text', text: 'reported' }]);
      if (slug === 'stateless') {
        // A JSON answer carries no notifications: the result alone.
        expect(progress).toEqual([]);
      } else {
        expect(progress).toEqual([1, 2, 3]);
        // log 2 is debug, below the level the agent set.
        expect(logs).toEqual(['log 1', 'log 3']);
      }
    } finally {
      await client.close();
    }
  });

  it('resumes a stream the server closed before its answer (GET with Last-Event-ID after its retry wait)', async () => {
    withStore.seen.length = 0;
    const client = await agent();
    try {
      const progress: number[] = [];
      const res = await client.callTool({ name: 'with-store__polls', arguments: {} }, CallToolResultSchema, { onprogress: (p) => progress.push(p.progress) });
      expect(res.content).toEqual([{ type: 'text', text: 'answered after the stream was resumed' }]);
      expect(progress).toEqual([1, 2]);
      const resumed = withStore.seen.filter((s) => s.method === 'GET');
      expect(resumed.length).toBeGreaterThanOrEqual(1);
      expect(resumed[0]!.lastEventId).toEqual(expect.any(String));
    } finally {
      await client.close();
    }
  });

  it('answers a ping the server sends mid-call', async () => {
    expect((await call('plain__pings')).body.result).toEqual({ content: [{ type: 'text', text: 'the client answered the ping' }] });
  });
});

describe('sampling and elicitation a server asks for mid-call', () => {
  it("relays sampling/createMessage to an agent that declared sampling, on the call's stream, and its answer back", async () => {
    const client = await agent({ sampling: {} });
    try {
      const asked: unknown[] = [];
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        asked.push(request.params.messages);
        return { role: 'assistant', content: { type: 'text', text: 'forty-two' }, model: 'test-model' };
      });
      const res = await client.callTool({ name: 'with-store__asks_model', arguments: { question: 'meaning of life?' } });
      expect(res.content).toEqual([{ type: 'text', text: 'model said: forty-two' }]);
      expect(asked).toEqual([[{ role: 'user', content: { type: 'text', text: 'meaning of life?' } }]]);
    } finally {
      await client.close();
    }
  });

  it('relays elicitation/create to an agent that declared elicitation', async () => {
    const client = await agent({ elicitation: { form: {} } });
    try {
      client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }));
      const res = await client.callTool({ name: 'plain__asks_user', arguments: {} });
      expect(res.content).toEqual([{ type: 'text', text: 'user accept: {"name":"Ada"}' }]);
    } finally {
      await client.close();
    }
  });

  it('relays roots/list to an agent that declared roots', async () => {
    const client = await agent({ roots: {} });
    try {
      client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work/project', name: 'Project' }] }));
      const res = await client.callTool({ name: 'plain__asks_roots', arguments: {} });
      expect(res.content).toEqual([{ type: 'text', text: 'roots: file:///work/project' }]);
    } finally {
      await client.close();
    }
  });

  it("an agent without the capability: the server learns it at initialize and its tool says so in its own result", async () => {
    const res = await call('with-store__asks_model', { question: 'q' });
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.content[0].text).toBe(
      "sampling failed: MCP error -32601: Method not found: Patchbay cannot relay sampling/createMessage on this call; the agent must declare the sampling capability (at initialize, or in the request's _meta) and accept text/event-stream answers.",
    );
  });
});

describe('cancellation', () => {
  it("an agent's notifications/cancelled reaches the remote server", async () => {
    const before = withStore.cancelled.length;
    const client = await agent();
    const controller = new AbortController();
    try {
      const pending = client.callTool({ name: 'with-store__waits', arguments: {} }, CallToolResultSchema, { signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 300));
      controller.abort('changed my mind');
      await expect(pending).rejects.toThrow();
      await waitFor(() => withStore.cancelled.length > before, 5_000, 'the remote server to see the cancellation');
    } finally {
      await client.close();
    }
  });

  it('a cancellation that reaches another replica than the one running the call still cancels it', async () => {
    const before = plain.cancelled.length;
    const other = mcpUrl.replace(h.url, await h.startReplica());
    const running = fetch(mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 'slow-1', method: 'tools/call', params: { name: 'plain__waits', arguments: {} } }) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cancel = await rpc(other, key, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow-1', reason: 'no longer needed' } });
    expect(cancel.status).toBe(202);
    const res = (await (await running).json()) as { result: { isError?: boolean; content: Array<{ text: string }> } };
    expect(res.result.isError).toBe(true);
    expect(res.result.content[0]!.text).toBe('The call to the MCP server of Plain was cancelled by the agent.');
    await waitFor(() => plain.cancelled.length > before, 5_000, 'the remote server to see the cancellation');
  });
});

describe('every valid Streamable HTTP answer, written by hand', () => {
  it.each([
    ['comments', 'comments, a retry field, a priming event and an event of another type before the response', 'after comments'],
    ['crlf', 'CRLF line endings and a charset in the content type', 'crlf ok'],
    ['split', 'events split across chunks, inside a UTF-8 character, with a notification first', 'split ok ✓'],
    ['batch', 'a batch in one event', 'from a batch'],
    ['json_batch', 'a JSON batch answer', 'json batch ok'],
    ['bare_json', 'JSON without a content type', 'no content type'],
    ['other_events', 'an event of another type whose data is not JSON', 'ignored other events'],
  ])('%s: %s', async (tool, _what, text) => {
    expect((await call(`hand-written__${tool}`)).body.result).toEqual({ content: [{ type: 'text', text }] });
  });

  it('an answer that is really malformed is an isError result that says what was wrong', async () => {
    const res = await call('hand-written__malformed');
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.content[0].text).toBe('The MCP server of Hand written failed: an event of its stream is not valid JSON ("{\\"jsonrpc\\": \\"2.0\\", \\"id\\": "); retry later.');
  });

  it('a stream that ends before the response, with nothing to resume from, is an isError result', async () => {
    const res = await call('hand-written__ends_early');
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.content[0].text).toBe('The MCP server of Hand written failed: its event stream ended before the response, without an event id to resume from; retry later.');
  });
});
