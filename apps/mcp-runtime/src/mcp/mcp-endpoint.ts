import { assertRegisteredUserInScope, assertToolPackInScope, authenticate, principalOf } from '@patchbay/auth';
import { AppError, NotInScopeError } from '@patchbay/errors';
import { publicRequestUrl } from '@patchbay/pagination';
import { isUuid, type Logger } from '@patchbay/service-kit';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, SUPPORTED_PROTOCOL_VERSIONS, type CallToolRequest, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorRequestHandler, IRouter, Request, Response } from 'express';
import { rateLimitHeaders, type Meter, type MeterDecision } from '@patchbay/metering';
import type { ToolExecutor } from '../domain/execute';
import { callWithGateway } from '../domain/gateway-call';
import type { PackTools, RegistryClient } from '../domain/registry-client';
import type { RuleSetCache } from '../domain/rule-set-cache';
import type { ToolCallRecorder } from '../domain/tool-call-records';

export const MCP_PATH = '/api/v1/tool-packs/:toolPackId/registered-users/:registeredUserId/mcp';
export const TOOLS_LIST_PATH = '/api/v1/tool-packs/:toolPackId/registered-users/:registeredUserId/tools/list';

export interface McpDeps {
  registry: RegistryClient;
  executor: ToolExecutor;
  /** Rate limit and credits of tools/call, one Redis round trip. */
  meter: Meter;
  /** The security gateway's compiled rules per tool pack. */
  rules: RuleSetCache;
  /** Sends every tools/call's record over the queue. */
  recorder: ToolCallRecorder;
  logger: Logger;
}

/** The tools/call requests of a body (a batch may hold several). */
function toolCallCount(body: unknown): number {
  const messages = Array.isArray(body) ? body : [body];
  return messages.filter((m) => (m as { method?: unknown })?.method === 'tools/call').length;
}

/**
 * Charges one credit per tools/call before it runs (so a call that then fails or is blocked by a
 * security rule is still counted) and enforces the per-user rate limit. Refusals are HTTP answers:
 * 429 with Retry-After and the rate-limit headers, or 402 billing_limit_reached.
 */
async function meterToolCalls(deps: McpDeps, req: Request, res: Response, pack: PackTools): Promise<MeterDecision[] | null> {
  const calls = toolCallCount(req.body);
  const principal = principalOf(req);
  const decisions: MeterDecision[] = [];
  for (let i = 0; i < calls; i += 1) {
    const decision = await deps.meter.check({
      organizationId: principal.organizationId,
      registeredUserId: pack.registered_user.id,
      plan: principal.organization.plan,
      monthlyCredits: principal.organization.monthlyCredits,
      rateLimitPerMinute: principal.organization.mcpRateLimitPerMinute,
    });
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) res.setHeader(name, value);
    decisions.push(decision);
    if (decision.reason === 'rate_limited') {
      res.status(429).json({
        detail: `This registered user made more than ${decision.rateLimit.limit} tool calls in the last minute; retry after ${decision.rateLimit.retryAfterSeconds ?? 1} s.`,
        code: 'rate_limited',
      });
      return null;
    }
    if (decision.reason === 'billing_limit_reached') {
      res.status(402).json({
        detail: `The organization has used its ${decision.credits.allotment} credits of ${decision.credits.cycle}; tool calls resume in the next billing cycle (tools/list and the management API keep working). Upgrade to a paid plan to continue now.`,
        code: 'billing_limit_reached',
      });
      return null;
    }
  }
  return decisions;
}

/**
 * Writes a JSON answer in one go: the same bytes and headers as express's res.json (which this path
 * does not need: no ETag, no JSONP, no replacer settings), for a few µs less per call.
 */
function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function jsonRpcError(res: Response, status: number, id: unknown, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', id: typeof id === 'string' || typeof id === 'number' ? id : null, error: { code, message } });
}

/** The tools/list entry of a pack tool: `<connector_slug>__<tool_name>`, its description and input schema. */
function listEntry(tool: PackTools['tools'][number]): Tool {
  return {
    name: tool.fully_qualified_name,
    description: tool.description,
    inputSchema: tool.input_schema as Tool['inputSchema'],
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  };
}

/**
 * Loads the pair named in the URL, within the key's restrictions. A tool pack or registered user the
 * key may not use, one that does not exist, and one of the other environment all answer the same
 * 404 `Resource not in API key scope.`: the URL never falls back to another user.
 */
export async function loadPair(req: Request, registry: RegistryClient): Promise<PackTools> {
  const principal = principalOf(req);
  const toolPackId = String(req.params.toolPackId);
  const registeredUserId = String(req.params.registeredUserId);
  if (!isUuid(toolPackId) || !isUuid(registeredUserId)) throw new NotInScopeError();
  assertToolPackInScope(principal, toolPackId);
  assertRegisteredUserInScope(principal, registeredUserId);
  const pack = await registry.packTools(principal, toolPackId, registeredUserId);
  if (!pack) throw new NotInScopeError();
  return pack;
}

/** Checks the JSON-RPC envelope the SDK would otherwise reject with a less precise code. */
function invalidEnvelope(body: unknown): string | null {
  const messages = Array.isArray(body) ? body : [body];
  for (const m of messages) {
    if (typeof m !== 'object' || m === null) return 'the body must be a JSON-RPC 2.0 request object';
    const { jsonrpc, method } = m as { jsonrpc?: unknown; method?: unknown };
    if (jsonrpc !== '2.0') return 'jsonrpc must be the string "2.0"';
    if (method !== undefined && typeof method !== 'string') return 'method must be a string';
  }
  return null;
}

/**
 * One validator for every per-request Server: the SDK builds a new Ajv instance per Server otherwise,
 * which was the largest cost of the endpoint itself. It is only used for elicitation schemas, which
 * this server never sends, and holds no per-request state.
 */
const sharedSchemaValidator = new AjvJsonSchemaValidator();

/**
 * One tools/call. Each tools/call of the body was metered, in order, before it ran; an unknown tool
 * still cost its credit and is recorded.
 */
async function callTool(deps: McpDeps, req: Request, pack: PackTools, decisions: MeterDecision[], params: CallToolRequest['params']): Promise<CallToolResult> {
  const decision = decisions.shift();
  const { name } = params;
  const tool = pack.tools.find((t) => t.fully_qualified_name === name);
  let ending: Awaited<ReturnType<typeof callWithGateway>>;
  try {
    ending = await callWithGateway(deps, principalOf(req), pack, tool, name, params.arguments ?? {}, { publicBaseUrl: publicRequestUrl(req).origin, decision });
  } catch (err) {
    // Our own failure (the rules database, the registry): a JSON-RPC internal error that says what
    // to do, never the underlying message (it could hold SQL or addresses).
    deps.logger.error({ err, tool: name }, 'tools/call failed inside the runtime');
    const retry = err instanceof AppError ? err.message : 'The tool call could not be completed because of a problem on our side; retry shortly.';
    throw new McpError(ErrorCode.InternalError, retry);
  }
  if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}. Call tools/list for the tools of this tool pack.`);
  return ending.result;
}

/**
 * The two requests agents send on every step, tools/list and tools/call as one JSON-RPC request,
 * answered here with the SDK's own request schemas and the same handlers as the Server, and the
 * response the SDK's JSON mode would write. Saves a Server, a transport and the web Request and
 * Response objects per call. Everything else goes through the SDK transport: initialize, ping,
 * notifications, batches, a session id, a protocol version header the SDK does not support, and
 * params its schema refuses (so its error answers stay the SDK's). Returns whether it answered.
 */
async function answerDirectly(deps: McpDeps, req: Request, res: Response, pack: PackTools, listOnly: boolean, decisions: MeterDecision[]): Promise<boolean> {
  const body = req.body as { id?: unknown; method?: unknown };
  if (Array.isArray(body) || (typeof body.id !== 'string' && typeof body.id !== 'number')) return false;
  if (req.headers['mcp-session-id'] !== undefined) return false;
  const version = req.headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) return false;
  let result: unknown;
  if (body.method === 'tools/list') {
    if (!ListToolsRequestSchema.safeParse(body).success) return false;
    result = { tools: pack.tools.map(listEntry) };
  } else if (body.method === 'tools/call' && !listOnly) {
    const parsed = CallToolRequestSchema.safeParse(body);
    if (!parsed.success) return false;
    try {
      result = await callTool(deps, req, pack, decisions, parsed.data.params);
    } catch (err) {
      if (!(err instanceof McpError)) throw err;
      sendJson(res, 200, { jsonrpc: '2.0', id: body.id, error: { code: err.code, message: err.message } });
      return true;
    }
  } else {
    return false;
  }
  sendJson(res, 200, { result, jsonrpc: '2.0', id: body.id });
  return true;
}

function buildServer(deps: McpDeps, req: Request, pack: PackTools, listOnly: boolean, decisions: MeterDecision[]): Server {
  const server = new Server({ name: 'patchbay', version: '1.0.0' }, { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: sharedSchemaValidator });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: pack.tools.map(listEntry) }));
  if (!listOnly) {
    server.setRequestHandler(CallToolRequestSchema, async (request) => callTool(deps, req, pack, decisions, request.params));
  }
  return server;
}

/**
 * Adds the MCP routes to the app itself rather than through a nested Router: one dispatch less on the
 * path every agent step takes.
 */
export function mountMcpRoutes(router: IRouter, deps: McpDeps): void {

  const handle = (listOnly: boolean) => async (req: Request, res: Response) => {
    const problem = invalidEnvelope(req.body);
    if (problem) return jsonRpcError(res, 400, (req.body as { id?: unknown } | undefined)?.id, ErrorCode.InvalidRequest, `Invalid Request: ${problem}.`);
    if (listOnly) {
      const method = (req.body as { method?: string }).method;
      if (method !== 'tools/list') return jsonRpcError(res, 400, (req.body as { id?: unknown }).id, ErrorCode.MethodNotFound, `Method not found: this endpoint answers tools/list only; use .../mcp for ${method ?? 'other methods'}.`);
    }
    const pack = await loadPair(req, deps.registry);
    const decisions = listOnly ? [] : await meterToolCalls(deps, req, res, pack);
    if (!decisions) return;
    if (await answerDirectly(deps, req, res, pack, listOnly, decisions)) return;
    // Clients that POST bare JSON-RPC (curl, the spec's examples) rarely send the Accept header the
    // transport insists on; we always answer JSON, so accept them.
    const accept = req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) req.headers.accept = 'application/json, text/event-stream';
    const server = buildServer(deps, req, pack, listOnly, decisions);
    // Stateless: a new server and transport per POST, so any replica can answer any request.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  };

  router.post(MCP_PATH, authenticate('runtime:all'), handle(false));
  router.post(TOOLS_LIST_PATH, authenticate('runtime:all'), handle(true));
  const notAllowed = (_req: Request, res: Response) => {
    res.setHeader('Allow', 'POST');
    jsonRpcError(res, 405, null, ErrorCode.ConnectionClosed, 'Method not allowed: this stateless endpoint takes POST only (no SSE stream, no sessions to delete).');
  };
  router.get(MCP_PATH, notAllowed);
  router.delete(MCP_PATH, notAllowed);
}

/** Malformed JSON on the MCP paths is a JSON-RPC parse error, not the management API's envelope. */
export const mcpParseErrorHandler: ErrorRequestHandler = (err, req, res, next) => {
  const isParseError = typeof err === 'object' && err !== null && (err as { type?: string }).type === 'entity.parse.failed';
  if (isParseError && /\/registered-users\/[^/]+\/(mcp|tools\/list)\/?$/.test(req.path)) {
    jsonRpcError(res, 400, null, ErrorCode.ParseError, 'Parse error: the body is not valid JSON.');
    return;
  }
  next(err);
};
