import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * A remote MCP server of the shape `pnpm bench registry` registers: the official SDK in stateless mode
 * (a new server and transport per POST, JSON replies), `toolCount` tools served `pageSize` per
 * tools/list page, and a bearer secret. Every tool echoes its arguments (`pnpm bench mcp` calls one). Run as a child process (PORT, TOOL_COUNT, PAGE_SIZE, SECRET),
 * so its work does not share an event loop with the benchmark's clock.
 */
export interface PagedMcpServerOptions {
  toolCount: number;
  /** Tools per tools/list page; 0 lists them all on one page. */
  pageSize: number;
  /** Required as `Authorization: Bearer <secret>` on /mcp; null accepts anyone. */
  secret: string | null;
  /** Awaited before each tools/call answer: a real server's own time. None by default. */
  latency?: () => Promise<void>;
}

/** Tools with realistic weight: a description and an input schema of a few typed properties each. */
export function benchTools(count: number): Tool[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `tool_${String(i + 1).padStart(3, '0')}`,
    description: `Bench tool ${i + 1}: looks up records of kind ${i % 7} and returns at most "limit" of them.`,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to look for' },
        limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Most records to return' },
        include_archived: { type: 'boolean', description: 'Also search archived records' },
      },
      required: ['query'],
    },
    annotations: { readOnlyHint: true },
  }));
}

/** The page of tools a tools/list cursor asks for; the cursor is the index of the page's first tool. */
export function toolsPage(tools: Tool[], pageSize: number, cursor: string | undefined): { tools: Tool[]; nextCursor?: string } {
  const start = cursor === undefined ? 0 : Number(cursor);
  const end = pageSize > 0 ? start + pageSize : tools.length;
  return { tools: tools.slice(start, end), ...(end < tools.length ? { nextCursor: String(end) } : {}) };
}

/** What a tools/call answers: the tool's name and arguments back, so a caller can check its call arrived whole. */
export function echoCall(tools: Tool[], name: string, args: Record<string, unknown> | undefined): CallToolResult {
  if (!tools.some((t) => t.name === name)) return { content: [{ type: 'text', text: `Unknown tool: ${name}` }], isError: true };
  const echoed = { tool: name, arguments: args ?? {} };
  return { content: [{ type: 'text', text: JSON.stringify(echoed) }], structuredContent: echoed };
}

async function answerMcp(tools: Tool[], options: PagedMcpServerOptions, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const mcp = new McpServer({ name: 'patchbay-bench-server', version: '1.0.0' }, { capabilities: { tools: {} } });
  // Answered by hand: McpServer's own tools/list has no pagination.
  mcp.server.setRequestHandler(ListToolsRequestSchema, (request) => toolsPage(tools, options.pageSize, request.params?.cursor));
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (options.latency) await options.latency();
    return echoCall(tools, request.params.name, request.params.arguments);
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void mcp.close();
  });
  await mcp.connect(transport);
  await transport.handleRequest(req, res);
}

export function createPagedMcpServer(options: PagedMcpServerOptions): http.Server {
  const tools = benchTools(options.toolCount);
  return http.createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    if (pathname === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    if (pathname !== '/mcp') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (options.secret !== null && req.headers.authorization !== `Bearer ${options.secret}`) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end('{"error":"invalid_token"}');
      return;
    }
    if (req.method !== 'POST') {
      // Stateless: no session to stream to or to end.
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    answerMcp(tools, options, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
}

function main(): void {
  const server = createPagedMcpServer({
    toolCount: Number(process.env.TOOL_COUNT ?? 50),
    pageSize: Number(process.env.PAGE_SIZE ?? 0),
    secret: process.env.SECRET || null,
  });
  server.keepAliveTimeout = 30_000;
  server.listen(Number(process.env.PORT), '127.0.0.1');
  process.once('SIGTERM', () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}

if (require.main === module) main();
