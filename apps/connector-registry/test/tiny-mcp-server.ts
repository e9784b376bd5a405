import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * What the tiny server does, changeable between requests:
 * - `mcp`: a stateless MCP server (SDK McpServer + StreamableHTTPServerTransport) listing `tools`,
 *   `pageSize` per tools/list page (0: one page), answering 401 unless `requireSecret` is sent as a bearer token;
 * - `html`: a web page instead of MCP;
 * - `hang`: reads the request and never answers;
 * - `redirect`: 307 to `redirectTo`.
 */
export interface TinyState {
  mode: 'mcp' | 'html' | 'hang' | 'redirect';
  tools: Tool[];
  pageSize: number;
  requireSecret: string | null;
  redirectTo: string | null;
  /** Authorization header of every request received, in order (undefined when absent). */
  authorizations: Array<string | undefined>;
  requests: number;
}

export interface TinyMcpServer {
  url: string;
  origin: string;
  state: TinyState;
  close(): Promise<void>;
}

export function tool(name: string, description: string, extra: Partial<Tool> = {}): Tool {
  return {
    name,
    description,
    inputSchema: { type: 'object', properties: { text: { type: 'string', description: `Text for ${name}` } }, required: ['text'] },
    ...extra,
  };
}

async function handleMcp(state: TinyState, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const mcp = new McpServer({ name: 'tiny-test-server', version: '1.2.3' }, { capabilities: { tools: {} } });
  // tools/list is answered by hand so the test controls pagination and every definition exactly.
  mcp.server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const start = request.params?.cursor === undefined ? 0 : Number(request.params.cursor);
    const size = state.pageSize > 0 ? state.pageSize : state.tools.length;
    const end = start + size;
    return { tools: state.tools.slice(start, end), ...(end < state.tools.length ? { nextCursor: String(end) } : {}) };
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void mcp.close();
  });
  await mcp.connect(transport);
  await transport.handleRequest(req, res);
}

function handler(state: TinyState): http.RequestListener {
  return (req, res) => {
    state.requests += 1;
    state.authorizations.push(req.headers.authorization);
    if (state.mode === 'hang') return;
    if (state.mode === 'html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><body><h1>Welcome to our website</h1></body></html>');
      return;
    }
    if (state.mode === 'redirect') {
      res.writeHead(307, { location: state.redirectTo ?? '/' });
      res.end();
      return;
    }
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    if (state.requireSecret !== null && req.headers.authorization !== `Bearer ${state.requireSecret}`) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
      res.end(JSON.stringify({ error: 'invalid_token' }));
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' });
      res.end();
      return;
    }
    handleMcp(state, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };
}

async function listen(server: http.Server | https.Server, state: TinyState, scheme: 'http' | 'https'): Promise<TinyMcpServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `${scheme}://127.0.0.1:${port}`;
  return {
    url: `${origin}/mcp`,
    origin,
    state,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function initialState(overrides: Partial<TinyState>): TinyState {
  return { mode: 'mcp', tools: [], pageSize: 0, requireSecret: null, redirectTo: null, authorizations: [], requests: 0, ...overrides };
}

/** A tiny MCP server on 127.0.0.1 over plain http. */
export async function startTinyMcpServer(overrides: Partial<TinyState> = {}): Promise<TinyMcpServer> {
  const state = initialState(overrides);
  return listen(http.createServer(handler(state)), state, 'http');
}

/** The same server over https with a self-signed certificate, which no client should trust. */
export async function startSelfSignedMcpServer(overrides: Partial<TinyState> = {}): Promise<TinyMcpServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tiny-mcp-tls-'));
  try {
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
    const state = initialState(overrides);
    const server = https.createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, handler(state));
    return listen(server, state, 'https');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
