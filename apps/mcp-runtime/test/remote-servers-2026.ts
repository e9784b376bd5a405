import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { acceptedContent, createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

/**
 * MCP servers of revision 2026-07-28 built on `@modelcontextprotocol/server` 2.x (`createMcpHandler`),
 * served over node:http: `legacy: 'reject'` is a 2026-only server (stateless, no initialize: a legacy
 * request gets -32022), `legacy: 'stateless'` a dual-era one (initialize answered too). Tools:
 * `lookup` (echoes), `reports` (progress and log messages on the call's stream), `waits` (until
 * cancelled, at most 4 s) and `asks_user` (multi-round-trip: an `input_required` result asking for
 * the user's name by elicitation, then the answer).
 */
export interface Server2026 {
  url: string;
  /** Every POST: its JSON-RPC method, the standard headers and the request's `_meta`. */
  seen: Array<{ method: string; headers: Record<string, string | undefined>; meta: Record<string, unknown> | undefined; params: Record<string, unknown> | undefined }>;
  /** tools/call requests whose handler saw its signal abort (the client closed the stream). */
  cancelled: number;
  close(): Promise<void>;
}

function server(name: string, events: { cancelled: number }, discoverTtlMs?: number): McpServer {
  const mcp = new McpServer({ name, version: '2.0.0' }, { capabilities: { tools: {}, logging: {} }, ...(discoverTtlMs !== undefined ? { cacheHints: { 'server/discover': { ttlMs: discoverTtlMs } } } : {}) });
  mcp.registerTool('lookup', { description: 'Looks a record up', inputSchema: z.object({ query: z.string() }) }, async ({ query }) => ({ content: [{ type: 'text', text: `found ${query}` }] }));
  mcp.registerTool('reports', { description: 'Reports progress and logs while it works', inputSchema: z.object({}) }, async (_args, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    for (let step = 1; step <= 3; step += 1) {
      if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: step, total: 3, message: `step ${step}` } });
      await ctx.mcpReq.log(step === 2 ? 'debug' : 'info', `log ${step}`);
    }
    return { content: [{ type: 'text', text: 'reported' }] };
  });
  mcp.registerTool('waits', { description: 'Waits until cancelled (at most 4 s)', inputSchema: z.object({}) }, async (_args, ctx) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 4_000);
      ctx.mcpReq.signal.addEventListener('abort', () => {
        events.cancelled += 1;
        clearTimeout(timer);
        resolve();
      });
    });
    return { content: [{ type: 'text', text: 'waited' }] };
  });
  mcp.registerTool('asks_user', { description: 'Asks the user for their name', inputSchema: z.object({}) }, async (_args, ctx) => {
    const answer = acceptedContent(ctx.mcpReq.inputResponses, 'name');
    if (!answer) {
      return inputRequired({
        inputRequests: { name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }) },
      });
    }
    return { content: [{ type: 'text', text: `hello ${String(answer.name)}` }] };
  });
  return mcp;
}

/** `discoverTtlMs`: the `ttlMs` its server/discover answers carry (the SDK's default is 0). */
export async function start2026Server(legacy: 'reject' | 'stateless', options: { discoverTtlMs?: number } = {}): Promise<Server2026> {
  const events = { cancelled: 0 };
  const seen: Server2026['seen'] = [];
  const handler = createMcpHandler(() => server(legacy === 'reject' ? 'only-2026' : 'dual-era', events, options.discoverTtlMs), { legacy });
  const httpServer = http.createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      if (req.method === 'POST') {
        try {
          const parsed = JSON.parse(body.toString('utf8')) as { method?: string; params?: Record<string, unknown> };
          const header = (n: string) => (typeof req.headers[n] === 'string' ? (req.headers[n] as string) : undefined);
          seen.push({
            method: parsed.method ?? 'response',
            headers: { 'mcp-protocol-version': header('mcp-protocol-version'), 'mcp-method': header('mcp-method'), 'mcp-name': header('mcp-name'), 'mcp-session-id': header('mcp-session-id'), authorization: header('authorization') },
            meta: parsed.params?._meta as Record<string, unknown> | undefined,
            params: parsed.params,
          });
        } catch {
          // Not JSON: the handler answers it.
        }
      }
      const controller = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) controller.abort();
      });
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
      const request = new Request(`http://127.0.0.1${req.url ?? '/'}`, { method: req.method, headers, body: req.method === 'POST' ? body : undefined, signal: controller.signal });
      const response = await handler.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
      if (response.body) {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          if (res.destroyed) break;
          res.write(chunk);
        }
      }
      res.end();
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const result: Server2026 = {
    url: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`,
    seen,
    get cancelled() {
      return events.cancelled;
    },
    close: async () => {
      httpServer.closeAllConnections();
      await new Promise((resolve) => httpServer.close(resolve));
      await handler.close?.();
    },
  };
  return result;
}
