import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { api, rpc, startHarness, type Harness } from './harness';

/**
 * Custom connectors: a tools/call for a remote MCP server's tool is forwarded to that server with
 * its secret, over a reused session, with a timeout, and its result comes back as the server gave it.
 * The remote servers are the official SDK's, in the two shapes the transport allows: stateless with
 * JSON answers, and with sessions and SSE answers.
 */

const SECRET = `remote-${randomUUID()}`;
/** The bearer token the remote servers accept; a test changes it to play a server whose token was rotated. */
let acceptedSecret = SECRET;

interface Seen {
  method: string | undefined;
  authorization: string | undefined;
  sessionId: string | undefined;
  protocolVersion: string | undefined;
}

/** A remote MCP server on 127.0.0.1 that notes every POST it gets. */
interface RemoteServer {
  url: string;
  seen: Seen[];
  /** Forgets every session, as a restarted server does. */
  forgetSessions(): void;
  close(): Promise<void>;
}

function tools(server: McpServer): void {
  server.registerTool(
    'lookup',
    { description: 'Looks a record up', inputSchema: { query: z.string() } },
    async ({ query }) => ({ content: [{ type: 'text', text: `found ${query}` }, { type: 'text', text: 'second block' }], structuredContent: { query, hits: 2 }, _meta: { source: 'remote' } }),
  );
  server.registerTool('fails', { description: 'Always an error result', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'the remote refused' }], isError: true }));
  // Asks the client something while it works, as servers may (only a session's SSE stream can carry it).
  server.registerTool('pings', { description: 'Pings the client first', inputSchema: {} }, async (_args, extra) => {
    await extra.sendRequest({ method: 'ping' }, EmptyResultSchema);
    return { content: [{ type: 'text', text: 'the client answered the ping' }] };
  });
  server.registerTool('slow', { description: 'Answers after 4 s', inputSchema: {} }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 4_000).unref());
    return { content: [{ type: 'text', text: 'late' }] };
  });
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function listen(handler: (req: http.IncomingMessage, res: http.ServerResponse, body: unknown) => Promise<void>, seen: Seen[]): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    void (async () => {
      if (req.headers.authorization !== `Bearer ${acceptedSecret}`) {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_token' }));
        return;
      }
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      seen.push({ method: (body as { method?: string } | undefined)?.method ?? req.method, authorization: req.headers.authorization, sessionId: req.headers['mcp-session-id'] as string | undefined, protocolVersion: req.headers['mcp-protocol-version'] as string | undefined });
      await handler(req, res, body);
    })().catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Stateless, JSON answers: a new server and transport per POST. */
async function startStatelessServer(): Promise<RemoteServer> {
  const seen: Seen[] = [];
  const listening = await listen(async (req, res, body) => {
    const server = new McpServer({ name: 'stateless', version: '1.0.0' });
    tools(server);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }, seen);
  return { ...listening, seen, forgetSessions: () => undefined };
}

/** With sessions, SSE answers: one server and transport per session, 404 for a session it does not know. */
async function startSessionServer(): Promise<RemoteServer> {
  const seen: Seen[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const listening = await listen(async (req, res, body) => {
    const id = req.headers['mcp-session-id'] as string | undefined;
    let transport = id ? sessions.get(id) : undefined;
    if (id && !transport) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
      return;
    }
    if (!transport) {
      const created = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (sessionId) => void sessions.set(sessionId, created) });
      const server = new McpServer({ name: 'sessions', version: '1.0.0' });
      tools(server);
      await server.connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  }, seen);
  return { ...listening, seen, forgetSessions: () => sessions.clear() };
}

let h: Harness;
let stateless: RemoteServer;
let sessions: RemoteServer;
let key: string;
let mcpUrl: string;

beforeAll(async () => {
  // A 1 s tool-call timeout, so the slow tool's 4 s is over it.
  h = await startHarness({ TOOL_CALL_TIMEOUT_MS: '1000' });
  stateless = await startStatelessServer();
  sessions = await startSessionServer();
  const org = await h.accessKeys.createOrganization();
  key = org.master_key;
  const connectors = [];
  for (const [name, server] of [['Stateless docs', stateless], ['Session docs', sessions]] as const) {
    connectors.push(await api(h, key, 'POST', '/api/v1/connectors/', { name, url: server.url, auth: { type: 'secret', secret: SECRET } }));
  }
  const user = await api(h, key, 'POST', '/api/v1/registered-users', { origin_user_id: 'ada', origin_user_name: 'Ada', shared_credential_group: { origin_company_id: 'acme', origin_company_name: 'Acme', custom_groupings: {} } });
  const pack = await api(h, key, 'POST', '/api/v1/tool-packs/', {
    name: 'Remote',
    description: 'Custom connectors',
    connectors: connectors.map((c: { id: string }) => ({ connector_id: c.id, tool_names: ['lookup', 'fails', 'slow', 'pings'] })),
  });
  mcpUrl = `${h.url}/api/v1/tool-packs/${pack.id}/registered-users/${user.id}/mcp`;
}, 120_000);

afterAll(async () => {
  await h?.close();
  await stateless?.close();
  await sessions?.close();
});

beforeEach(() => {
  stateless.seen.length = 0;
  sessions.seen.length = 0;
});

const call = (name: string, args: Record<string, unknown> = {}) => rpc(mcpUrl, key, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

describe('custom connector tools/call', () => {
  it.each([
    ['stateless-docs', 'a stateless server answering JSON'],
    ['session-docs', 'a server with sessions answering over SSE'],
  ])('forwards to %s (%s) with its secret and returns the result as the remote gave it', async (slug) => {
    const res = await call(`${slug}__lookup`, { query: 'invoices' });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      content: [
        { type: 'text', text: 'found invoices' },
        { type: 'text', text: 'second block' },
      ],
      structuredContent: { query: 'invoices', hits: 2 },
      _meta: { source: 'remote' },
    });
    const server = slug === 'stateless-docs' ? stateless : sessions;
    expect(server.seen.map((s) => s.method)).toContain('tools/call');
    expect(server.seen.every((s) => s.authorization === `Bearer ${SECRET}`)).toBe(true);
    // The secret never comes back to the agent.
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
  });

  it('reuses the session: one initialize for many calls, each call with the session id and negotiated protocol version', async () => {
    await call('session-docs__lookup', { query: 'a' });
    await call('session-docs__lookup', { query: 'b' });
    await call('session-docs__lookup', { query: 'c' });
    const calls = sessions.seen.filter((s) => s.method === 'tools/call');
    expect(calls).toHaveLength(3);
    expect(sessions.seen.filter((s) => s.method === 'initialize')).toHaveLength(0);
    expect(new Set(calls.map((c) => c.sessionId)).size).toBe(1);
    expect(calls[0]!.sessionId).toEqual(expect.any(String));
    expect(calls[0]!.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('opens a new session and calls once more when the server forgot the session (404)', async () => {
    await call('session-docs__lookup', { query: 'before' });
    const before = sessions.seen.find((s) => s.method === 'tools/call')!.sessionId;
    sessions.forgetSessions();
    sessions.seen.length = 0;
    const res = await call('session-docs__lookup', { query: 'after' });
    expect(res.body.result.content[0]).toEqual({ type: 'text', text: 'found after' });
    expect(sessions.seen.map((s) => s.method)).toEqual(['tools/call', 'initialize', 'notifications/initialized', 'tools/call']);
    expect(sessions.seen[3]!.sessionId).not.toBe(before);
  });

  it('answers a request the server sends on the stream while it works (a ping), so the call goes on', async () => {
    const res = await call('session-docs__pings');
    expect(res.body.result).toEqual({ content: [{ type: 'text', text: 'the client answered the ping' }] });
    // The answer went back by POST, as a JSON-RPC response, not a request.
    expect(sessions.seen.map((s) => s.method)).toEqual(['tools/call', 'POST']);
  });

  it("an isError result of the remote is the agent's isError result", async () => {
    const res = await call('stateless-docs__fails');
    expect(res.body.result).toEqual({ content: [{ type: 'text', text: 'the remote refused' }], isError: true });
  });

  it('a remote that does not answer in time is an isError timeout result', async () => {
    const res = await call('session-docs__slow');
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.content[0].text).toMatch(/^The MCP server of Session docs did not answer within 1 s; retry later\.$/);
  });

  it('a remote that refuses the secret is an isError result naming the server and its answer, without the secret', async () => {
    acceptedSecret = 'rotated';
    try {
      const res = await call('stateless-docs__lookup', { query: 'x' });
      expect(res.body.result.isError).toBe(true);
      expect(res.body.result.content[0].text).toBe('The MCP server of Stateless docs failed: HTTP 401 ({"error":"invalid_token"}); retry later.');
      expect(JSON.stringify(res.body)).not.toContain(SECRET);
    } finally {
      acceptedSecret = SECRET;
    }
  });
});
