/**
 * The JSON-RPC 2.0 layer of the MCP endpoint: what a message is, and the error answers with
 * messages that say what to change. Each message states its code's meaning once ("Invalid params:
 * ..."), never twice.
 */

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

export type JsonRpcId = string | number;

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** One message of a POST body, classified. */
export type Incoming =
  | { kind: 'request'; id: JsonRpcId; method: string; params: unknown }
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'response'; id: JsonRpcId; result?: unknown; error?: unknown }
  | { kind: 'invalid'; id: JsonRpcId | null; message: string };

const isId = (value: unknown): value is JsonRpcId => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

/** Classifies one JSON-RPC message; an invalid one comes with the reason a client can fix. */
export function classify(message: unknown): Incoming {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return { kind: 'invalid', id: null, message: 'Invalid Request: each message must be a JSON-RPC 2.0 object ({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).' };
  }
  const m = message as Record<string, unknown>;
  const id = isId(m.id) ? m.id : null;
  if (m.jsonrpc !== '2.0') return { kind: 'invalid', id, message: 'Invalid Request: jsonrpc must be the string "2.0".' };
  if ('method' in m) {
    if (typeof m.method !== 'string' || m.method === '') return { kind: 'invalid', id, message: 'Invalid Request: method must be a non-empty string.' };
    if (m.params !== undefined && (typeof m.params !== 'object' || m.params === null)) return { kind: 'invalid', id, message: 'Invalid Request: params must be an object when present.' };
    if (!('id' in m)) return { kind: 'notification', method: m.method, params: m.params };
    // MCP: "Unlike base JSON-RPC, the ID MUST NOT be null."
    if (id === null) return { kind: 'invalid', id: null, message: 'Invalid Request: id must be a string or a number (MCP does not allow null); leave it out for a notification.' };
    return { kind: 'request', id, method: m.method, params: m.params };
  }
  if (id !== null && ('result' in m || 'error' in m)) return { kind: 'response', id, result: m.result, error: m.error };
  return { kind: 'invalid', id, message: 'Invalid Request: a message needs a method (a request or a notification), or an id with a result or an error (a response).' };
}

export function errorResponse(id: JsonRpcId | null, error: JsonRpcError): { jsonrpc: '2.0'; id: JsonRpcId | null; error: JsonRpcError } {
  return { jsonrpc: '2.0', id, error };
}

export function resultResponse(id: JsonRpcId, result: unknown): { jsonrpc: '2.0'; id: JsonRpcId; result: unknown } {
  return { result, jsonrpc: '2.0', id };
}

/** A JSON-RPC error thrown by a method handler; the endpoint answers it to the request. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }

  toJson(): JsonRpcError {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}

export function invalidParams(message: string): RpcError {
  return new RpcError(INVALID_PARAMS, `Invalid params: ${message}`);
}

/** What a JSON value is, in words, for messages: "an array", "a string"... */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : type === 'undefined' ? 'missing' : `a ${type}`;
}

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/** The `_meta` keys of the draft protocol (2026-07-28 and later) that carry per-request client state. */
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

/** tools/call's params, checked, with a message per problem a model or a developer can fix. */
export interface ToolCallParams {
  name: string;
  arguments: Record<string, unknown>;
  progressToken: JsonRpcId | undefined;
  meta: Record<string, unknown> | undefined;
}

export function toolCallParams(params: unknown): ToolCallParams {
  if (!isObject(params)) throw invalidParams(`tools/call needs params, an object with the tool's name and its arguments (got ${kindOf(params)}).`);
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== 'string' || name === '') throw invalidParams(`params.name must be the name of a tool from tools/list, a string (got ${kindOf(name)}).`);
  if (args !== undefined && !isObject(args)) throw invalidParams(`params.arguments must be an object of the tool's arguments by name (got ${kindOf(args)}).`);
  if (meta !== undefined && !isObject(meta)) throw invalidParams(`params._meta must be an object (got ${kindOf(meta)}).`);
  const token = meta?.progressToken;
  if (token !== undefined && !isId(token)) throw invalidParams(`params._meta.progressToken must be a string or a number (got ${kindOf(token)}).`);
  return { name, arguments: (args as Record<string, unknown> | undefined) ?? {}, progressToken: token, meta };
}

export interface InitializeParams {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
}

export function initializeParams(params: unknown): InitializeParams {
  if (!isObject(params)) throw invalidParams(`initialize needs params with protocolVersion, capabilities and clientInfo (got ${kindOf(params)}).`);
  const { protocolVersion, capabilities, clientInfo } = params;
  const problems: string[] = [];
  if (typeof protocolVersion !== 'string' || protocolVersion === '') problems.push(`params.protocolVersion must be the protocol version the client speaks, a string such as "2025-11-25" (got ${kindOf(protocolVersion)})`);
  if (!isObject(capabilities)) problems.push(`params.capabilities must be an object, {} when the client offers none (got ${kindOf(capabilities)})`);
  if (!isObject(clientInfo) || typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string') problems.push('params.clientInfo must be an object with the client\'s name and version, both strings');
  if (problems.length > 0) throw invalidParams(`${problems.join('; ')}.`);
  return { protocolVersion: protocolVersion as string, capabilities: capabilities as Record<string, unknown> };
}
