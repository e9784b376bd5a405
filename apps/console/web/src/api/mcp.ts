import { apiRequest } from './client';

/**
 * The console speaking MCP as an agent would, for the playground: JSON-RPC 2.0 POSTs to the MCP
 * endpoint of a (tool pack, registered user) pair. These routes are JSON-RPC, not REST, so they are
 * not in the services' tsoa documents that `api.ts` is generated from; they go through the same
 * request function (session cookie, anti-forgery token, the one 401 → sign-in path). The runtime
 * checks the member's permission: tools/call needs manage_tool_packs, the list-only route and search
 * view_tool_packs.
 */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: number;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcResponse<T> {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: T;
  error?: { code: number; message: string; data?: unknown };
}

export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  annotations?: Record<string, unknown>;
}

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  description?: string;
  default?: unknown;
  title?: string;
  [keyword: string]: unknown;
}

export interface McpContentItem {
  type: string;
  text?: string;
  [field: string]: unknown;
}

export interface CallToolResult {
  content: McpContentItem[];
  structuredContent?: unknown;
  isError?: boolean;
}

export interface RankedTool {
  name: string;
  fully_qualified_name: string;
  human_name?: string;
  description?: string;
  relevance_score: number;
  reasoning: string;
}

export interface ToolSearchAnswer {
  tools: RankedTool[];
  total_results: number;
  intent: string;
}

const pairPath = (toolPackId: string, registeredUserId: string) =>
  `api/v1/tool-packs/${encodeURIComponent(toolPackId)}/registered-users/${encodeURIComponent(registeredUserId)}`;

let nextId = 1;

/** A JSON-RPC request with a fresh id. */
export function jsonRpc(method: string, params?: Record<string, unknown>): JsonRpcRequest {
  return { jsonrpc: '2.0', id: nextId++, method, ...(params ? { params } : {}) };
}

/** tools/list through the list-only route (view_tool_packs): the tools exactly as the MCP endpoint lists them to agents. */
export function listTools(toolPackId: string, registeredUserId: string, request: JsonRpcRequest): Promise<JsonRpcResponse<{ tools: McpTool[] }>> {
  return apiRequest(`${pairPath(toolPackId, registeredUserId)}/tools/list`, { method: 'POST', body: request });
}

/** A request to the MCP endpoint itself (tools/call needs manage_tool_packs); answered as JSON, since the console accepts only that. */
export function mcpRequest<T>(toolPackId: string, registeredUserId: string, request: JsonRpcRequest): Promise<JsonRpcResponse<T>> {
  return apiRequest(`${pairPath(toolPackId, registeredUserId)}/mcp`, { method: 'POST', body: request });
}

/** Tool search: the pack's tools ranked for an intent, with the reasoning of each. */
export function searchTools(toolPackId: string, registeredUserId: string, body: { intent: string; max_results?: number }): Promise<ToolSearchAnswer> {
  return apiRequest(`${pairPath(toolPackId, registeredUserId)}/search`, { method: 'POST', body });
}
