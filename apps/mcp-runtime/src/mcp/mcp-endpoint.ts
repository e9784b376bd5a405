import { assertRegisteredUserInScope, assertToolPackInScope, authenticate, principalOf, type KeyPrincipal } from '@patchbay/auth';
import { AppError, NotInScopeError } from '@patchbay/errors';
import { rateLimitHeaders, type Meter, type MeterDecision } from '@patchbay/metering';
import { trustedPublicBaseUrl } from '@patchbay/pagination';
import { isUuid, requestIdOf, type Logger } from '@patchbay/service-kit';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorRequestHandler, IRouter, NextFunction, Request, Response } from 'express';
import { capabilityProfile, type LiveCall, type ToolExecutor } from '../domain/execute';
import { callWithScanning } from '../domain/scanned-call';
import type { PackTools, RegistryClient } from '../domain/registry-client';
import { cannotRelay, RELAYED_METHODS, type RemoteNotification } from '../domain/remote-mcp';
import type { RuleSetCache } from '../domain/rule-set-cache';
import type { ToolCallRecorder } from '../domain/tool-call-records';
import {
  classify,
  errorResponse,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  initializeParams,
  invalidParams,
  isLogLevel,
  isObject,
  kindOf,
  LOG_LEVELS,
  META_CLIENT_CAPABILITIES,
  META_LOG_LEVEL,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  resultResponse,
  RpcError,
  toolCallParams,
  type Incoming,
  type JsonRpcId,
  type LogLevel,
  type ToolCallParams,
} from './json-rpc';
import { classifyModern, HEADER_MISMATCH, META_PROTOCOL_VERSION, META_SERVER_INFO, MISSING_CLIENT_CAPABILITY, MODERN_PROTOCOL_VERSIONS, type LadderError, type ModernMessage } from './modern';
import { allowedOrigin, corsHeaders, forbiddenOrigin, preflight } from './origin';
import { callKey, type McpRelay } from './relay';
import type { McpSession, McpSessions } from './sessions';

export const MCP_PATH = '/api/v1/tool-packs/:toolPackId/registered-users/:registeredUserId/mcp';
export const TOOLS_LIST_PATH = '/api/v1/tool-packs/:toolPackId/registered-users/:registeredUserId/tools/list';

const SERVER_INFO = { name: 'patchbay', title: 'Patchbay', version: '1.0.0' };
/** Tools only (the pack's), and the log messages of remote servers passed through on a call's stream. */
const SERVER_CAPABILITIES = { tools: { listChanged: false }, logging: {} };

/** What a 2026-07-28 client learns from server/discover (the same for every key: tools, and logging per request). */
const DISCOVER_CAPABILITIES = { tools: {}, logging: {} };

export interface McpDeps {
  registry: RegistryClient;
  executor: ToolExecutor;
  /** Rate limit and credits of tools/call, one Redis round trip. */
  meter: Meter;
  /** Security scanning's compiled rules per tool pack. */
  rules: RuleSetCache;
  /** Sends every tools/call's record over the queue. */
  recorder: ToolCallRecorder;
  /** Signed session ids and the log levels clients set. */
  sessions: McpSessions;
  /** Agents' answers to relayed requests and their cancellations, across replicas. */
  relay: McpRelay;
  logger: Logger;
  /** Longest a tools/call may take (relayed requests wait at most this long). */
  toolCallTimeoutMs: number;
  /** How long a 2026-07-28 client may keep a tools/list (its ttlMs): as long as the runtime keeps a pack's tools. */
  listTtlMs: number;
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

function sendRpcError(res: Response, status: number, id: JsonRpcId | null, code: number, message: string): void {
  sendJson(res, status, errorResponse(id, { code, message }));
}

function sendLadderError(res: Response, error: LadderError): void {
  sendJson(res, error.status, errorResponse(error.id, error.data === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, data: error.data }));
}

/**
 * The answer to one request: JSON, unless something has to reach the agent before the result
 * (progress, a log message, a relayed request) and the agent accepts `text/event-stream`; then it
 * becomes an SSE stream at that moment, carrying those messages in order and the response last.
 * A call with nothing to stream costs no more than a JSON answer.
 */
class Answer {
  private streaming = false;

  constructor(
    private readonly res: Response,
    /** The agent accepts an SSE answer and this is a single request (a batch is answered as JSON). */
    readonly canStream: boolean,
  ) {}

  /** Puts a message on the stream, opening it first; false when this answer cannot carry one. */
  event(message: object): boolean {
    if (!this.canStream || this.res.writableEnded || this.res.destroyed) return false;
    if (!this.streaming) {
      this.streaming = true;
      this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' });
    }
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    return true;
  }

  finish(message: object): void {
    if (this.res.writableEnded || this.res.destroyed) return;
    if (this.streaming) this.res.end(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    else sendJson(this.res, 200, message);
  }
}

/** What one POST is about: the key, the pair in the URL, the session, and the request's own headers. */
interface Exchange {
  req: Request;
  res: Response;
  principal: KeyPrincipal;
  pack: PackTools;
  session: McpSession | null;
  batch: boolean;
  /** A 2026-07-28 request: no session, its `_meta` says everything, and a dropped connection cancels it. */
  modern: ModernMessage | null;
  /** A 2026-07-28 retry answering an `input_required` Patchbay passed on: the answers and the remote server's own state. */
  resume?: { inputResponses: Record<string, unknown>; requestState?: unknown };
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

/** The URL's (tool pack, registered user) pair, checked against the key's scope (404 `Resource not in API key scope.` otherwise). */
function pairInScope(req: Request): { principal: ReturnType<typeof principalOf>; toolPackId: string; registeredUserId: string } {
  const principal = principalOf(req);
  const toolPackId = String(req.params.toolPackId);
  const registeredUserId = String(req.params.registeredUserId);
  if (!isUuid(toolPackId) || !isUuid(registeredUserId)) throw new NotInScopeError();
  assertToolPackInScope(principal, toolPackId);
  assertRegisteredUserInScope(principal, registeredUserId);
  return { principal, toolPackId, registeredUserId };
}

/**
 * Loads the pair named in the URL, within the key's restrictions. A tool pack or registered user the
 * key may not use, one that does not exist, and one of the other environment all answer the same
 * 404 `Resource not in API key scope.`: the URL never falls back to another user.
 */
export async function loadPair(req: Request, registry: RegistryClient): Promise<PackTools> {
  const { principal, toolPackId, registeredUserId } = pairInScope(req);
  const pack = await registry.packTools(principal, toolPackId, registeredUserId);
  if (!pack) throw new NotInScopeError();
  return pack;
}

/**
 * Charges one credit per tools/call before it runs (so a call that then fails or is blocked by a
 * security rule is still counted) and enforces the per-user rate limit. Refusals are HTTP answers:
 * 429 with Retry-After and the rate-limit headers, or 402 billing_limit_reached.
 */
async function meterToolCalls(deps: McpDeps, x: Exchange, calls: number): Promise<MeterDecision[] | null> {
  const decisions: MeterDecision[] = [];
  const org = x.principal.organization;
  for (let i = 0; i < calls; i += 1) {
    const decision = await deps.meter.check({
      organizationId: x.principal.organizationId,
      registeredUserId: x.pack.registered_user.id,
      plan: org.plan,
      monthlyCredits: org.monthlyCredits,
      rateLimitPerMinute: org.mcpRateLimitPerMinute,
    });
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) x.res.setHeader(name, value);
    decisions.push(decision);
    if (decision.reason === 'rate_limited') {
      x.res.status(429).json({
        detail: `This registered user made more than ${decision.rateLimit.limit} tool calls in the last minute; retry after ${decision.rateLimit.retryAfterSeconds ?? 1} s.`,
        code: 'rate_limited',
      });
      return null;
    }
    if (decision.reason === 'billing_limit_reached') {
      x.res.status(402).json({
        detail: `The organization has used its ${decision.credits.allotment} credits of ${decision.credits.cycle}; tool calls resume in the next billing cycle (tools/list and the management API keep working). Upgrade to a paid plan to continue now.`,
        code: 'billing_limit_reached',
      });
      return null;
    }
  }
  return decisions;
}

/** Level filtering of `notifications/message`, as logging/setLevel or the request's `_meta` asked. */
const levelRank = (level: LogLevel) => LOG_LEVELS.indexOf(level);

/**
 * The agent's side of a streamed tools/call: progress and log notifications written on the call's
 * stream in the order they came, log messages below the level the agent set dropped (the session's
 * level is read from Redis once, at the first log message, and messages wait for it in order),
 * and a remote server's sampling, elicitation and roots/list requests relayed to the agent when it declared the
 * capability, its answer coming back through McpRelay from whichever replica it reaches.
 */
function liveCall(deps: McpDeps, x: Exchange, answer: Answer, params: ToolCallParams, signal: AbortSignal): { live: LiveCall; drained(): Promise<void> } {
  // `signal` also ends a relayed request's wait when the agent cancels.
  const metaCapabilities = params.meta?.[META_CLIENT_CAPABILITIES];
  const capabilities = isObject(metaCapabilities) ? capabilityProfile(metaCapabilities).capabilities : (x.session?.capabilities ?? {});
  const metaLevel = params.meta?.[META_LOG_LEVEL];
  // 2026-07-28: log messages only for a request that asked (its _meta logLevel), never otherwise.
  let level: LogLevel | null | undefined = isLogLevel(metaLevel) ? metaLevel : x.session && !x.modern ? undefined : null;
  const queue: RemoteNotification[] = [];
  let reading: Promise<void> | null = null;
  const write = (n: RemoteNotification) => {
    if (n.method === 'notifications/message') {
      if (x.modern && !level) return;
      if (level && isLogLevel(n.params?.level) && levelRank(n.params.level) < levelRank(level)) return;
    }
    answer.event({ jsonrpc: '2.0', method: n.method, ...(n.params ? { params: n.params } : {}) });
  };
  const notify = (n: RemoteNotification) => {
    if (level === undefined && (n.method === 'notifications/message' || queue.length > 0)) {
      queue.push(n);
      reading ??= deps.sessions
        .logLevel(x.session!)
        .then(
          (found) => void (level = found),
          () => void (level = null),
        )
        .then(() => {
          for (const queued of queue.splice(0)) write(queued);
        });
      return;
    }
    write(n);
  };
  // A 2026-07-28 server sends no requests of its own on a response stream.
  const asks = !x.modern && (capabilities.sampling !== undefined || capabilities.elicitation !== undefined || capabilities.roots !== undefined);
  const live: LiveCall = {
    progressToken: params.progressToken,
    notify,
    capabilities,
    // A 2026 server is asked for the logs this request asked for (none without a logLevel); a 2025 session's level is read later.
    ...(x.modern ? { logLevel: level ?? null } : isLogLevel(metaLevel) ? { logLevel: metaLevel } : {}),
    request: asks
      ? (request) => {
          const needs = RELAYED_METHODS.get(request.method);
          if (!needs || capabilities[needs] === undefined) return Promise.resolve({ error: { code: METHOD_NOT_FOUND, message: cannotRelay(request.method) } });
          return deps.relay.ask(x.principal.keyId, (id) => answer.event({ jsonrpc: '2.0', id, method: request.method, ...(request.params !== undefined ? { params: request.params } : {}) }), deps.toolCallTimeoutMs, signal);
        }
      : undefined,
  };
  // The result goes last: after every notification still waiting for the session's log level.
  return { live, drained: () => reading ?? Promise.resolve() };
}

/**
 * One tools/call: its credit was counted before it ran; an unknown tool still cost its credit and is
 * recorded. With a streaming answer, the call can be cancelled by the agent's notifications/cancelled.
 */
async function callTool(deps: McpDeps, x: Exchange, id: JsonRpcId, params: ToolCallParams, decision: MeterDecision | undefined, answer: Answer | null): Promise<CallToolResult> {
  const tool = x.pack.tools.find((t) => t.fully_qualified_name === params.name);
  const controller = new AbortController();
  const untrack = deps.relay.track(callKey(x.principal.keyId, x.session?.id, x.pack.tool_pack.id, x.pack.registered_user.id, id), controller);
  const streamed = answer?.canStream ? liveCall(deps, x, answer, params, controller.signal) : undefined;
  // 2026-07-28: the client cancels a request by closing its connection (2025-11-25: disconnection is not cancellation).
  const dropped = () => {
    if (!x.res.writableFinished) controller.abort();
  };
  if (x.modern) x.res.once('close', dropped);
  let ending: Awaited<ReturnType<typeof callWithScanning>>;
  try {
    // Only a trusted load balancer's view of the public host, never the agent's Host header; the registry prefers its PATCHBAY_PUBLIC_URL.
    const publicBaseUrl = () => {
      const trusted = trustedPublicBaseUrl(x.req, undefined);
      return trusted === null ? null : new URL(trusted).origin;
    };
    ending = await callWithScanning(deps, x.principal, x.pack, tool, params.name, params.arguments, {
      publicBaseUrl,
      signal: controller.signal,
      decision,
      live: streamed?.live,
      requestId: requestIdOf(x.res),
      ...(x.modern ? { passInputRequired: true, resume: x.resume } : {}),
    });
    await streamed?.drained();
  } catch (err) {
    // Our own failure (the rules database, the registry): a JSON-RPC internal error that says what
    // to do, never the underlying message (it could hold SQL or addresses).
    deps.logger.error({ request_id: requestIdOf(x.res), err, tool: params.name }, 'tools/call failed inside the runtime');
    throw new RpcError(INTERNAL_ERROR, err instanceof AppError ? err.message : 'Internal error: the tool call could not be completed because of a problem on our side; retry shortly.');
  } finally {
    untrack();
    if (x.modern) x.res.off('close', dropped);
  }
  if (!tool) throw invalidParams(`Unknown tool: ${params.name}. Call tools/list for the tools of this tool pack.`);
  return ending.result;
}

/** Methods an MCP server may offer that this endpoint does not: it advertises tools (and logging) only. */
const NOT_OFFERED = /^(resources|prompts|completion)\//;

/** Answers one request; throws RpcError for a JSON-RPC error. */
async function dispatch(deps: McpDeps, x: Exchange, request: Extract<Incoming, { kind: 'request' }>, decision: MeterDecision | undefined, answer: Answer | null, toolCall?: ToolCallParams): Promise<unknown> {
  switch (request.method) {
    case 'initialize': {
      const params = initializeParams(request.params);
      const version = SUPPORTED_PROTOCOL_VERSIONS.includes(params.protocolVersion) ? params.protocolVersion : LATEST_PROTOCOL_VERSION;
      if (!x.batch) {
        const session = deps.sessions.open({
          keyId: x.principal.keyId,
          toolPackId: x.pack.tool_pack.id,
          registeredUserId: x.pack.registered_user.id,
          protocolVersion: version,
          capabilities: capabilityProfile(params.capabilities).capabilities,
        });
        x.res.setHeader('mcp-session-id', session.id);
      }
      return { protocolVersion: version, capabilities: SERVER_CAPABILITIES, serverInfo: SERVER_INFO };
    }
    case 'ping':
      return {};
    case 'tools/list':
      return { tools: x.pack.tools.map(listEntry) };
    case 'tools/call': {
      const params = toolCall ?? toolCallParams(request.params);
      const result = await callTool(deps, x, request.id, params, decision, answer);
      if (!x.modern) return result;
      // A remote server's input_required goes to the agent with its state sealed inside ours (see McpSessions.sealRequestState).
      const asked = result as CallToolResult & { resultType?: unknown; requestState?: unknown };
      if (asked.resultType === 'input_required') return { ...asked, requestState: deps.sessions.sealRequestState(stateBinding(x, params.name), asked.requestState) };
      // The remote needs a capability this agent did not declare (Patchbay declared the agent's own): -32021 to the agent, as the revision says.
      const missing = result.isError ? (result.structuredContent as { error?: unknown; required_capabilities?: unknown } | undefined) : undefined;
      if (missing?.error === 'missing_client_capability') {
        const text = result.content[0]?.type === 'text' ? result.content[0].text : 'the tool needs a client capability this request did not declare';
        throw new RpcError(MISSING_CLIENT_CAPABILITY, `Missing required client capability: ${text}`, { requiredCapabilities: missing.required_capabilities });
      }
      return { ...result, resultType: 'complete', _meta: { ...result._meta, ...SERVER_META } };
    }
    case 'logging/setLevel': {
      const level = isObject(request.params) ? request.params.level : undefined;
      if (!isLogLevel(level)) throw invalidParams(`params.level must be one of ${LOG_LEVELS.join(', ')} (got ${typeof level === 'string' ? JSON.stringify(level.slice(0, 40)) : kindOf(level)}).`);
      if (x.session) await deps.sessions.setLogLevel(x.session, level);
      return {};
    }
    default:
      throw new RpcError(
        METHOD_NOT_FOUND,
        NOT_OFFERED.test(request.method)
          ? `Method not found: ${request.method.slice(0, 100)}; this server offers tools only (tools/list, tools/call), as its capabilities say.`
          : `Method not found: ${request.method.slice(0, 100)}.`,
      );
  }
}

/** Runs a request and gives its JSON-RPC response (a result or an error). */
async function respond(deps: McpDeps, x: Exchange, request: Extract<Incoming, { kind: 'request' }>, decision: MeterDecision | undefined, answer: Answer | null, toolCall?: ToolCallParams): Promise<object> {
  try {
    return resultResponse(request.id, await dispatch(deps, x, request, decision, answer, toolCall));
  } catch (err) {
    if (err instanceof RpcError) return errorResponse(request.id, err.toJson());
    throw err;
  }
}

/** Notifications need no answer; a cancellation reaches the call it names, on whichever replica runs it. */
function handleNotification(deps: McpDeps, x: Exchange, method: string, params: unknown): void {
  if (method !== 'notifications/cancelled' || !isObject(params)) return;
  const requestId = params.requestId;
  if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
  deps.relay.cancel(callKey(x.principal.keyId, x.session?.id, x.pack.tool_pack.id, x.pack.registered_user.id, requestId));
}

const stateBinding = (x: Exchange, tool: string) => ({ keyId: x.principal.keyId, toolPackId: x.pack.tool_pack.id, registeredUserId: x.pack.registered_user.id, tool });

const acceptsSse = (req: Request) => (req.headers.accept ?? '').includes('text/event-stream');

const hasEnvelope = (message: unknown) => isObject(message) && isObject(message.params) && isObject(message.params._meta) && META_PROTOCOL_VERSION in message.params._meta;

const SERVER_META = { [META_SERVER_INFO]: SERVER_INFO };
/** server/discover's result is the same for every key and pack: any cache may keep it for an hour. */
const DISCOVER_RESULT = {
  supportedVersions: MODERN_PROTOCOL_VERSIONS,
  capabilities: DISCOVER_CAPABILITIES,
  resultType: 'complete',
  ttlMs: 3_600_000,
  cacheScope: 'public',
  _meta: SERVER_META,
};

/**
 * A 2026-07-28 request, its envelope and headers already checked (see classifyModern): no session,
 * no handshake; `server/discover`, `tools/list` and `tools/call` are its methods here (the list-only
 * variant answers discover and tools/list), anything else is 404 with -32601. A notification is
 * accepted with 202: over HTTP a request is cancelled by closing its connection.
 */
async function handleModern(deps: McpDeps, req: Request, res: Response, listOnly: boolean, m: ModernMessage): Promise<void> {
  if (m.id === undefined) {
    res.status(202).end();
    return;
  }
  const id = m.id;
  if (m.method === 'server/discover') {
    // Answered from the key alone (its scope over the URL's pair), without asking the registry: a client probes with it on every connect.
    pairInScope(req);
    return sendJson(res, 200, resultResponse(id, DISCOVER_RESULT));
  }
  if (m.method !== 'tools/list' && (listOnly || m.method !== 'tools/call')) {
    const hint = listOnly
      ? `this endpoint answers server/discover and tools/list only; use .../mcp for ${m.method.slice(0, 100)}.`
      : NOT_OFFERED.test(m.method)
        ? `this server offers tools only (tools/list, tools/call), as server/discover says.`
        : m.method === 'subscriptions/listen'
          ? `this server sends no list-changed notifications (server/discover declares no tools.listChanged); read tools/list again when its ttlMs has passed.`
          : `protocol 2026-07-28 serves server/discover, tools/list and tools/call here${m.method === 'initialize' || m.method === 'ping' || m.method === 'logging/setLevel' ? ` (${m.method} belongs to the 2025 revisions: send it without params._meta protocolVersion)` : ''}.`;
    return sendRpcError(res, 404, id, METHOD_NOT_FOUND, `Method not found: ${m.method.slice(0, 100)}; ${hint}`);
  }
  const pack = await loadPair(req, deps.registry);
  const x: Exchange = { req, res, principal: principalOf(req), pack, session: null, batch: false, modern: m };
  if (m.method === 'tools/list') {
    // The list depends on the key, the pack and the user: a private cache of this key's may keep it.
    return sendJson(res, 200, resultResponse(id, { tools: pack.tools.map(listEntry), resultType: 'complete', ttlMs: deps.listTtlMs, cacheScope: 'private', _meta: SERVER_META }));
  }
  let params: ToolCallParams;
  try {
    params = toolCallParams(m.params);
  } catch (err) {
    return sendJson(res, 200, errorResponse(id, (err as RpcError).toJson()));
  }
  if (m.params.requestState !== undefined || m.params.inputResponses !== undefined) {
    const problem = inputResponsesProblem(m.params.inputResponses);
    if (problem) return sendJson(res, 200, errorResponse(id, invalidParams(problem).toJson()));
    const inputResponses = m.params.inputResponses as Record<string, unknown>;
    if (m.params.requestState === undefined) {
      // Answers without a requestState (every input_required Patchbay passes on carries one): a new call, counted, that takes
      // them to the server from its first round; the server asks again for whatever they do not answer.
      x.resume = { inputResponses };
      const decisions = await meterToolCalls(deps, x, 1);
      if (!decisions) return;
      return answerRequest(deps, x, { kind: 'request', id, method: m.method, params: m.params }, decisions[0], params);
    }
    // The retry of a call whose server asked for input: free (its first round was counted), with the agent's answers.
    const opened = deps.sessions.openRequestState(m.params.requestState, stateBinding(x, params.name));
    if (!opened) return sendJson(res, 200, errorResponse(id, invalidParams('Invalid or expired requestState: send back the one the input_required result gave, unchanged, for the same tool, within 30 minutes; or call the tool again without it.').toJson()));
    x.resume = opened.upstream === undefined ? { inputResponses } : { inputResponses, requestState: opened.upstream };
    return answerRequest(deps, x, { kind: 'request', id, method: m.method, params: m.params }, undefined, params);
  }
  const decisions = await meterToolCalls(deps, x, 1);
  if (!decisions) return;
  await answerRequest(deps, x, { kind: 'request', id, method: m.method, params: m.params }, decisions[0], params);
}

/**
 * What is wrong with a retry's `inputResponses`, or null: an object whose every value is the result of the input
 * request under the same key (elicitation, sampling and roots/list results are all objects).
 */
function inputResponsesProblem(inputResponses: unknown): string | null {
  if (!isObject(inputResponses)) return `params.inputResponses must be an object of the answers, by the keys of the inputRequests (got ${kindOf(inputResponses)}).`;
  for (const [key, value] of Object.entries(inputResponses)) {
    if (!isObject(value)) return `params.inputResponses[${JSON.stringify(key.slice(0, 60))}] must be the result of the input request of that key, an object such as {"action": "accept", "content": {...}} (got ${kindOf(value)}).`;
  }
  return null;
}

/** Answers one request as JSON, or as SSE once a tools/call has something to stream and the agent accepts it. */
async function answerRequest(deps: McpDeps, x: Exchange, request: Extract<Incoming, { kind: 'request' }>, decision: MeterDecision | undefined, toolCall: ToolCallParams | undefined): Promise<void> {
  const answer = new Answer(x.res, acceptsSse(x.req));
  try {
    const response = await respond(deps, x, request, decision, answer, toolCall);
    // -32021 is the one error 2026-07-28 answers with HTTP 400 from inside a call.
    if (x.modern && !x.res.headersSent && (response as { error?: { code?: unknown } }).error?.code === MISSING_CLIENT_CAPABILITY) return sendJson(x.res, 400, response);
    answer.finish(response);
  } catch (err) {
    if (!x.res.headersSent) throw err;
    deps.logger.error({ request_id: requestIdOf(x.res), err }, 'MCP request failed after its stream began');
    answer.finish(errorResponse(request.id, { code: INTERNAL_ERROR, message: 'Internal error: the request failed on our side; retry shortly.' }));
  }
}

/**
 * The MCP endpoint, Streamable HTTP (protocol 2025-03-26 to 2025-11-25), stateless across replicas:
 * `initialize` opens a signed session (see McpSessions) that carries what the client declared; a POST
 * holds one message or a batch; requests are answered as JSON, or as an SSE stream when a tools/call
 * has notifications or relayed requests for an agent that accepts one; notifications and responses
 * are accepted with 202. Messages that cannot be read are answered with the JSON-RPC error that
 * says what to change.
 */
async function handleMcp(deps: McpDeps, req: Request, res: Response, listOnly: boolean): Promise<void> {
  const principal = principalOf(req);
  const origin = req.headers.origin;
  if (origin !== undefined) {
    if (!allowedOrigin(origin, principal)) return forbiddenOrigin(res, origin);
    res.set(corsHeaders(origin));
  }
  if (!req.is('application/json')) {
    return sendRpcError(res, 415, null, INVALID_REQUEST, 'Unsupported Media Type: send the JSON-RPC message as Content-Type: application/json.');
  }
  const body: unknown = req.body;
  const batch = Array.isArray(body);
  if (batch && body.length === 0) return sendRpcError(res, 400, null, INVALID_REQUEST, 'Invalid Request: the batch is empty; send at least one JSON-RPC message.');
  const messages = batch ? body.map(classify) : [classify(body)];
  const single = messages[0]!;
  if (!batch && (single.kind === 'request' || single.kind === 'notification')) {
    // The era is the body's: a request whose _meta names a protocol version is 2026-07-28's, served statelessly.
    const era = classifyModern(req.headers, single);
    if (era.era === 'error') return sendLadderError(res, era.error);
    if (era.era === 'modern') return handleModern(deps, req, res, listOnly, era.message);
  }
  if (batch && (body as unknown[]).some(hasEnvelope)) {
    return sendRpcError(res, 400, null, INVALID_REQUEST, 'Invalid Request: a batch may not hold 2026-07-28 requests (with params._meta protocolVersion); send each as its own POST.');
  }
  const version = req.headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) {
    return sendRpcError(res, 400, null, INVALID_REQUEST, `Bad Request: unsupported MCP-Protocol-Version "${String(version).slice(0, 40)}"; this server supports ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')} through initialize, and ${MODERN_PROTOCOL_VERSIONS.join(', ')} per request (params._meta).`);
  }
  if (!batch && single.kind === 'invalid') return sendRpcError(res, 400, single.id, INVALID_REQUEST, single.message);
  if (!batch && single.kind === 'request') {
    // Mirrored headers must match the body when a client sends them.
    const method = req.headers['mcp-method'];
    if (method !== undefined && method !== single.method) return sendRpcError(res, 400, single.id, HEADER_MISMATCH, `Header mismatch: Mcp-Method "${String(method).slice(0, 60)}" does not match the body's method "${single.method.slice(0, 60)}".`);
  }
  if (listOnly && (batch || single.kind !== 'request' || single.method !== 'tools/list')) {
    const method = single.kind === 'request' || single.kind === 'notification' ? single.method : undefined;
    return sendRpcError(res, 400, single.kind === 'request' ? single.id : null, METHOD_NOT_FOUND, `Method not found: this endpoint answers tools/list only; use .../mcp for ${method ?? 'other methods'}.`);
  }

  const pack = await loadPair(req, deps.registry);
  const sessionId = req.headers['mcp-session-id'];
  let session: McpSession | null = null;
  if (typeof sessionId === 'string' && !listOnly) {
    session = deps.sessions.read(sessionId, principal.keyId, pack.tool_pack.id, pack.registered_user.id);
    if (!session) return sendRpcError(res, 404, null, -32001, 'Session not found: this Mcp-Session-Id was not opened by this server for this access key, tool pack and registered user; send initialize again without it.');
  }
  const x: Exchange = { req, res, principal, pack, session, batch, modern: null };

  // tools/call params are checked before any credit is charged: a malformed call is free.
  const checked = new Map<Incoming, RpcError>();
  const toolCalls = new Map<Incoming, ToolCallParams>();
  for (const m of messages) {
    if (m.kind !== 'request' || m.method !== 'tools/call') continue;
    try {
      toolCalls.set(m, toolCallParams(m.params));
    } catch (err) {
      checked.set(m, err as RpcError);
    }
  }
  const calls = toolCalls.size;
  const decisions = calls > 0 ? await meterToolCalls(deps, x, calls) : [];
  if (!decisions) return;

  for (const m of messages) {
    if (m.kind === 'notification') handleNotification(deps, x, m.method, m.params);
    else if (m.kind === 'response') deps.relay.answer(principal.keyId, m.id, m.result, m.error);
  }

  if (!batch) {
    if (single.kind !== 'request') {
      res.status(202).end();
      return;
    }
    const invalid = checked.get(single);
    if (invalid) return sendJson(res, 200, errorResponse(single.id, invalid.toJson()));
    return answerRequest(deps, x, single, decisions[0], toolCalls.get(single));
  }

  // A batch (protocol 2025-03-26): every request's response in one JSON array, calls metered in order.
  let call = 0;
  const responses = await Promise.all(
    messages.map(async (m): Promise<object | null> => {
      if (m.kind === 'invalid') return errorResponse(m.id, { code: INVALID_REQUEST, message: m.message });
      if (m.kind !== 'request') return null;
      const invalid = checked.get(m);
      if (invalid) return errorResponse(m.id, invalid.toJson());
      const decision = m.method === 'tools/call' ? decisions[call++] : undefined;
      return respond(deps, x, m, decision, null, toolCalls.get(m));
    }),
  );
  const answered = responses.filter((r): r is object => r !== null);
  if (answered.length === 0) {
    res.status(202).end();
    return;
  }
  sendJson(res, 200, answered);
}

/**
 * Adds the MCP routes to the app itself rather than through a nested Router: one dispatch less on the
 * path every agent step takes.
 */
export function mountMcpRoutes(router: IRouter, deps: McpDeps): void {
  const handle = (listOnly: boolean) => (req: Request, res: Response, next: NextFunction) => {
    handleMcp(deps, req, res, listOnly).catch(next);
  };
  // A member's console session (the playground) may call the endpoint too: tools/call runs tools with a
  // registered user's credentials, so it needs manage_tool_packs; the list-only variant view_tool_packs.
  router.post(MCP_PATH, authenticate('runtime:all', { permission: 'manage_tool_packs' }), handle(false));
  router.post(TOOLS_LIST_PATH, authenticate('runtime:all', { permission: 'view_tool_packs' }), handle(true));
  router.options(MCP_PATH, preflight);
  router.options(TOOLS_LIST_PATH, preflight);
  const notAllowed = (_req: Request, res: Response) => {
    res.setHeader('Allow', 'POST');
    sendRpcError(res, 405, null, INVALID_REQUEST, 'Method Not Allowed: this endpoint takes POST only; it offers no standalone SSE stream (GET) and its sessions need no DELETE.');
  };
  router.get(MCP_PATH, notAllowed);
  router.delete(MCP_PATH, notAllowed);
}

/** Malformed JSON on the MCP paths is a JSON-RPC parse error, not the management API's envelope. */
export const mcpParseErrorHandler: ErrorRequestHandler = (err, req, res, next) => {
  const isParseError = typeof err === 'object' && err !== null && (err as { type?: string }).type === 'entity.parse.failed';
  if (isParseError && /\/registered-users\/[^/]+\/(mcp|tools\/list)\/?$/.test(req.path)) {
    sendRpcError(res, 400, null, PARSE_ERROR, 'Parse error: the body is not valid JSON.');
    return;
  }
  next(err);
};
