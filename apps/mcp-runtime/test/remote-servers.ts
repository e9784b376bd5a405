import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CreateMessageResultSchema, ElicitResultSchema, EmptyResultSchema, ListRootsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { freePort, waitFor } from '@patchbay/testing';
import { z } from 'zod';

/**
 * Remote MCP servers for the runtime's tests, each the real thing: the reference server
 * @modelcontextprotocol/server-everything (its own launcher, with sessions and an event store; and its
 * own server served statelessly), and servers built on the official SDK, with and without an event
 * store, whose tools notify, log, ask the client for sampling and elicitation, close their stream
 * mid-call, and wait to be cancelled.
 */

export interface RemoteServer {
  url: string;
  /** Every POST body method (or the HTTP method of other requests) and the headers of interest, in order. */
  seen: Array<{ method: string; sessionId?: string; lastEventId?: string; body?: unknown }>;
  close(): Promise<void>;
}

export async function startServerEverything(mode: 'stateful' | 'stateless'): Promise<RemoteServer & { version: string }> {
  const dir = path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json'));
  const { version } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string };
  const port = await freePort();
  const args = mode === 'stateful' ? [path.join(dir, 'dist', 'index.js'), 'streamableHttp'] : [path.join(__dirname, 'fixtures', 'server-everything-stateless.js'), String(port)];
  const child: ChildProcess = spawn(process.execPath, args, { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`server-everything (${mode}) exited: ${output}`);
    return output.includes('listening on port');
  }, 30_000, `server-everything (${mode}) to listen`);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    version,
    seen: [],
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** What the SDK servers' tools tell the test. */
export interface SdkServerEvents {
  /** Request ids of tools/call the server saw cancelled (notifications/cancelled reached it). */
  cancelled: string[];
}

function tools(server: McpServer, events: SdkServerEvents): void {
  server.registerTool('lookup', { description: 'Looks a record up', inputSchema: { query: z.string() } }, async ({ query }) => ({ content: [{ type: 'text', text: `found ${query}` }] }));

  server.registerTool('reports', { description: 'Reports progress and logs while it works', inputSchema: {} }, async (_args, extra) => {
    const token = extra._meta?.progressToken;
    for (let step = 1; step <= 3; step += 1) {
      if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: step, total: 3, message: `step ${step}` } });
      // On the call's own stream: a log message sent without the request (sendLoggingMessage) goes to the standalone GET stream.
      await extra.sendNotification({ method: 'notifications/message', params: { level: step === 2 ? 'debug' : 'info', data: `log ${step}` } });
    }
    return { content: [{ type: 'text', text: 'reported' }] };
  });

  // Closes its SSE stream before answering (SEP-1699 polling): the client must resume with Last-Event-ID.
  server.registerTool('polls', { description: 'Closes the stream before the answer', inputSchema: {} }, async (_args, extra) => {
    const token = extra._meta?.progressToken;
    if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } });
    extra.closeSSEStream?.();
    await new Promise((resolve) => setTimeout(resolve, 150));
    if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: 2, total: 2 } });
    return { content: [{ type: 'text', text: 'answered after the stream was resumed' }] };
  });

  server.registerTool('pings', { description: 'Pings the client first', inputSchema: {} }, async (_args, extra) => {
    await extra.sendRequest({ method: 'ping' }, EmptyResultSchema);
    return { content: [{ type: 'text', text: 'the client answered the ping' }] };
  });

  // Both ask on the call's own stream (extra.sendRequest), as a server must for a client without a GET stream.
  server.registerTool('asks_model', { description: 'Asks the client for an LLM completion', inputSchema: { question: z.string() } }, async ({ question }, extra) => {
    try {
      const answer = await extra.sendRequest({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: question } }], maxTokens: 50 } }, CreateMessageResultSchema);
      return { content: [{ type: 'text', text: `model said: ${answer.content.type === 'text' ? answer.content.text : answer.content.type}` }] };
    } catch (err) {
      return { content: [{ type: 'text', text: `sampling failed: ${(err as Error).message}` }], isError: true };
    }
  });

  server.registerTool('asks_user', { description: 'Asks the user for their name', inputSchema: {} }, async (_args, extra) => {
    try {
      const answer = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'form', message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } }, ElicitResultSchema);
      return { content: [{ type: 'text', text: `user ${answer.action}: ${JSON.stringify(answer.content ?? {})}` }] };
    } catch (err) {
      return { content: [{ type: 'text', text: `elicitation failed: ${(err as Error).message}` }], isError: true };
    }
  });

  server.registerTool('asks_roots', { description: "Lists the client's roots", inputSchema: {} }, async (_args, extra) => {
    try {
      const answer = await extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema);
      return { content: [{ type: 'text', text: `roots: ${answer.roots.map((r) => r.uri).join(', ')}` }] };
    } catch (err) {
      return { content: [{ type: 'text', text: `roots failed: ${(err as Error).message}` }], isError: true };
    }
  });

  server.registerTool('waits', { description: 'Waits until cancelled (at most 4 s)', inputSchema: {} }, async (_args, extra) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 4_000);
      extra.signal.addEventListener('abort', () => {
        events.cancelled.push(String(extra.requestId));
        clearTimeout(timer);
        resolve();
      });
    });
    return { content: [{ type: 'text', text: 'waited' }] };
  });
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

async function listen(handler: (req: http.IncomingMessage, res: http.ServerResponse, body: unknown) => Promise<void>, seen: RemoteServer['seen']): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    void (async () => {
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      const method = (body as { method?: string } | undefined)?.method ?? (req.method === 'POST' ? 'response' : req.method!);
      seen.push({ method, sessionId: req.headers['mcp-session-id'] as string | undefined, lastEventId: req.headers['last-event-id'] as string | undefined, body });
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

/**
 * An SDK server with sessions and SSE answers; `eventStore` adds resumability, which makes every
 * SSE answer open with a priming event (an id and empty data) and lets a tool close its stream.
 */
export async function startSdkServer(options: { eventStore: boolean; retryIntervalMs?: number }): Promise<RemoteServer & SdkServerEvents> {
  const seen: RemoteServer['seen'] = [];
  const events: SdkServerEvents = { cancelled: [] };
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const listening = await listen(async (req, res, body) => {
    const id = req.headers['mcp-session-id'] as string | undefined;
    let transport = id ? sessions.get(id) : undefined;
    if (id && !transport) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
      return;
    }
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
        ...(options.eventStore ? { eventStore: new InMemoryEventStore(), retryInterval: options.retryIntervalMs ?? 50 } : {}),
      });
      const server = new McpServer({ name: options.eventStore ? 'sdk-with-event-store' : 'sdk', version: '1.0.0' }, { capabilities: { logging: {} } });
      tools(server, events);
      await server.connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  }, seen);
  return { ...listening, seen, ...events };
}

/** A stateless SDK server answering JSON (no SSE, no session). */
export async function startStatelessSdkServer(): Promise<RemoteServer & SdkServerEvents> {
  const seen: RemoteServer['seen'] = [];
  const events: SdkServerEvents = { cancelled: [] };
  const listening = await listen(async (req, res, body) => {
    const server = new McpServer({ name: 'sdk-stateless', version: '1.0.0' }, { capabilities: { logging: {} } });
    tools(server, events);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }, seen);
  return { ...listening, seen, ...events };
}

/**
 * A server whose tools/call answers are written by hand, byte for byte, for the edge cases of the
 * transport the SDK never produces: `answer(call)` gives the chunks (with optional pauses) of the
 * answer to a tools/call for `call.name`; initialize and notifications are answered plainly.
 */
export async function startHandWrittenServer(answer: (request: { id: number; name: string }) => { contentType: string; chunks: Array<string | Buffer> }): Promise<RemoteServer> {
  const seen: RemoteServer['seen'] = [];
  const listening = await listen(async (_req, res, body) => {
    const message = body as { id?: number; method?: string; params?: { name?: string } };
    if (message.method === 'initialize') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'hand-written', version: '1' } } }));
      return;
    }
    if (message.method === 'tools/list') {
      const tool = (name: string) => ({ name, description: name, inputSchema: { type: 'object' } });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { tools: ['comments', 'crlf', 'batch', 'split', 'malformed', 'json_batch', 'bare_json', 'other_events', 'ends_early'].map(tool) } }));
      return;
    }
    if (message.method !== 'tools/call') {
      res.writeHead(202).end();
      return;
    }
    const { contentType, chunks } = answer({ id: message.id!, name: message.params?.name ?? '' });
    res.writeHead(200, { 'content-type': contentType });
    for (const chunk of chunks) {
      if (chunk === '<pause>') await new Promise((resolve) => setTimeout(resolve, 30));
      else res.write(chunk);
    }
    res.end();
  }, seen);
  return { ...listening, seen };
}

