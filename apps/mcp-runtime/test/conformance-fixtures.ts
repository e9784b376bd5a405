import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, CreateMessageResultSchema, ElicitResultSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * What the MCP conformance suite needs around the runtime: an MCP server (the official SDK's) with
 * the tools its scenarios call, registered as a custom connector, and an adapter in front of the
 * edge router for what the suite cannot be told: the access key (`Authorization`) and the tool names,
 * which Patchbay exposes as `<slug>__<tool>`.
 */

/** A 1x1 red PNG and a 1-sample WAV, the smallest media the content scenarios accept. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==';

const noArgs = { type: 'object' as const, properties: {} };

const TOOLS: Tool[] = [
  { name: 'test_simple_text', description: 'Returns simple text', inputSchema: noArgs },
  { name: 'test_image_content', description: 'Returns an image', inputSchema: noArgs },
  { name: 'test_audio_content', description: 'Returns audio', inputSchema: noArgs },
  { name: 'test_embedded_resource', description: 'Returns an embedded resource', inputSchema: noArgs },
  { name: 'test_multiple_content_types', description: 'Returns text, an image and a resource', inputSchema: noArgs },
  { name: 'test_tool_with_logging', description: 'Logs three messages while it works', inputSchema: noArgs },
  { name: 'test_error_handling', description: 'Always fails', inputSchema: noArgs },
  { name: 'test_tool_with_progress', description: 'Reports progress 0, 50, 100', inputSchema: noArgs },
  { name: 'test_sampling', description: 'Asks the client for an LLM completion', inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] } },
  { name: 'test_elicitation', description: 'Asks the user for a username and email', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } },
  { name: 'test_elicitation_sep1034_defaults', description: 'Elicitation with defaults for every primitive type', inputSchema: noArgs },
  { name: 'test_elicitation_sep1330_enums', description: 'Elicitation with every enum shape', inputSchema: noArgs },
  {
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    } as Tool['inputSchema'],
  },
];

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function conformanceServer(): Server {
  const server = new Server({ name: 'conformance-tools', version: '1.0.0' }, { capabilities: { tools: {}, logging: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const text = (value: string) => ({ type: 'text' as const, text: value });
    const args = request.params.arguments ?? {};
    const log = (data: string) => extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data } });
    switch (request.params.name) {
      case 'test_simple_text':
        return { content: [text('This is a simple text response for testing.')] };
      case 'test_image_content':
        return { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] };
      case 'test_audio_content':
        return { content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] };
      case 'test_embedded_resource':
        return { content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }] };
      case 'test_multiple_content_types':
        return {
          content: [
            text('Multiple content types test:'),
            { type: 'image', data: PNG, mimeType: 'image/png' },
            { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
          ],
        };
      case 'test_tool_with_logging':
        await log('Tool execution started');
        await pause(50);
        await log('Tool processing data');
        await pause(50);
        await log('Tool execution completed');
        return { content: [text('Logging tool finished')] };
      case 'test_error_handling':
        return { content: [text('This tool intentionally returns an error for testing')], isError: true };
      case 'test_tool_with_progress': {
        const token = request.params._meta?.progressToken;
        for (const progress of [0, 50, 100]) {
          if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } });
          if (progress < 100) await pause(50);
        }
        return { content: [text('Progress tool finished')] };
      }
      case 'test_sampling': {
        const answer = await extra.sendRequest({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: String(args.prompt) } }], maxTokens: 100 } }, CreateMessageResultSchema);
        return { content: [text(`LLM response: ${answer.content.type === 'text' ? answer.content.text : answer.content.type}`)] };
      }
      case 'test_elicitation': {
        const schema = { type: 'object' as const, properties: { username: { type: 'string' as const, description: "User's response" }, email: { type: 'string' as const, description: "User's email address" } }, required: ['username', 'email'] };
        const answer = await extra.sendRequest({ method: 'elicitation/create', params: { message: String(args.message), requestedSchema: schema } }, ElicitResultSchema);
        return { content: [text(`User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`)] };
      }
      case 'test_elicitation_sep1034_defaults': {
        const requestedSchema = {
          type: 'object' as const,
          properties: {
            name: { type: 'string' as const, default: 'John Doe' },
            age: { type: 'integer' as const, default: 30 },
            score: { type: 'number' as const, default: 95.5 },
            status: { type: 'string' as const, enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean' as const, default: true },
          },
        };
        const answer = await extra.sendRequest({ method: 'elicitation/create', params: { message: 'Please review your details', requestedSchema } }, ElicitResultSchema);
        return { content: [text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`)] };
      }
      case 'test_elicitation_sep1330_enums': {
        const requestedSchema = {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            titledSingle: { type: 'string', oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' }] },
            legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
            untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
            titledMulti: { type: 'array', items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }, { const: 'value3', title: 'Third Choice' }] } },
          },
        };
        const answer = await extra.sendRequest({ method: 'elicitation/create', params: { message: 'Pick your options', requestedSchema } } as never, ElicitResultSchema);
        return { content: [text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`)] };
      }
      default:
        return { content: [text(`Unknown tool: ${request.params.name}`)], isError: true };
    }
  });
  return server;
}

export interface Listening {
  url: string;
  close(): Promise<void>;
}

async function listen(server: http.Server, pathname: string): Promise<Listening> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${pathname}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The conformance tools on the SDK's server with sessions (SSE answers, so notifications travel). */
export async function startConformanceToolsServer(): Promise<Listening> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const server = http.createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const body = raw.length ? (JSON.parse(raw.toString('utf8')) as unknown) : undefined;
      const id = req.headers['mcp-session-id'] as string | undefined;
      let transport = id ? sessions.get(id) : undefined;
      if (id && !transport) {
        res.writeHead(404).end();
        return;
      }
      if (!transport) {
        const created = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (sessionId) => void sessions.set(sessionId, created) });
        await conformanceServer().connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
    })().catch(() => res.writeHead(500).end());
  });
  return listen(server, '/mcp');
}

/**
 * In front of the edge router's MCP URL: adds the access key, renames tools on the way in
 * (`test_simple_text` → `<slug>__test_simple_text`) and out (tools/list), and passes everything else
 * through as it is, Origin and SSE streams included.
 */
export async function startAdapter(target: string, key: string, slug: string): Promise<Listening> {
  const prefix = `${slug}__`;
  const rename = (message: unknown, into: boolean): unknown => {
    if (Array.isArray(message)) return message.map((m) => rename(m, into));
    const m = message as { method?: string; params?: { name?: string }; result?: { tools?: Array<{ name: string }> } } | null;
    if (into && m?.method === 'tools/call' && typeof m.params?.name === 'string' && !m.params.name.startsWith(prefix)) m.params.name = prefix + m.params.name;
    if (!into && Array.isArray(m?.result?.tools)) for (const tool of m.result.tools) tool.name = tool.name.startsWith(prefix) ? tool.name.slice(prefix.length) : tool.name;
    return message;
  };
  const url = new URL(target);
  const server = http.createServer((req, res) => {
    void (async () => {
      let body = await readBody(req);
      if (body.length > 0 && (req.headers['content-type'] ?? '').includes('json')) {
        try {
          body = Buffer.from(JSON.stringify(rename(JSON.parse(body.toString('utf8')), true)));
        } catch {
          // Not JSON: the runtime answers the parse error itself.
        }
      }
      const headers: http.OutgoingHttpHeaders = { ...req.headers, host: url.host, 'content-length': String(body.length) };
      // 2026-07-28: Mcp-Name mirrors params.name, so it follows the renaming (unless the suite sent a mismatch on purpose).
      const name = req.headers['mcp-name'];
      if (typeof name === 'string' && !name.startsWith(prefix) && name.length > 0 && body.includes(`"${prefix}${name}"`)) headers['mcp-name'] = prefix + name;
      headers.authorization ??= `Bearer ${key}`;
      const upstream = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: req.method, headers }, (answer) => {
        const type = answer.headers['content-type'] ?? '';
        if (type.startsWith('application/json')) {
          void readBody(answer).then((raw) => {
            let text = raw.toString('utf8');
            try {
              text = JSON.stringify(rename(JSON.parse(text), false));
            } catch {
              // Passed on as it came.
            }
            res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'content-length': String(Buffer.byteLength(text)) });
            res.end(text);
          });
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    })();
  });
  return listen(server, '/mcp');
}
