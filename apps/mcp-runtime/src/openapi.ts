/**
 * The runtime's OpenAPI document, merged by the edge router into /openapi.json. The MCP endpoint and
 * search are written by hand (the MCP endpoint speaks JSON-RPC, which tsoa does not describe); the
 * management routes (security rules, tool-call records, usage) come from tsoa.
 */
const pairParameters = [
  { name: 'tool_pack_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
  { name: 'registered_user_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' }, description: 'The registered user the tools run for; never falls back to another user.' },
];

const runtimeSecurity = [{ access_key: ['runtime:all'] }];
const errorBody = { $ref: '#/components/schemas/RuntimeError' };
const jsonRpcRequest = {
  type: 'object',
  required: ['jsonrpc'],
  description: 'A request or notification (method), or a response to a request the runtime relayed (id with result or error); a batch is an array of them.',
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { oneOf: [{ type: 'integer' }, { type: 'string' }] },
    method: { type: 'string', description: 'initialize, ping, tools/list, tools/call, logging/setLevel; notifications/initialized, notifications/cancelled' },
    params: { type: 'object', description: 'tools/call: {name: "<connector_slug>__<tool_name>", arguments: {...}, _meta?: {progressToken}}' },
    result: { description: "The agent's answer to a relayed sampling/createMessage or elicitation/create" },
    error: { type: 'object' },
  },
};
const commonResponses = {
  '401': { description: 'Missing, invalid, revoked or expired key', content: { 'application/json': { schema: errorBody } } },
  '403': { description: 'The key lacks runtime:all', content: { 'application/json': { schema: errorBody } } },
  '404': { description: 'Resource not in API key scope. (also for a missing pack or user, or the other environment)', content: { 'application/json': { schema: errorBody } } },
};

const mcpDocument = {
  openapi: '3.0.0',
  info: { title: 'Patchbay MCP runtime', version: '1.0.0', description: "The MCP endpoint agents call, its list-only variant, tool search, security scanning's rules, tool-call records and credit usage." },
  components: {
    securitySchemes: {
      access_key: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' },
      // The console's playground: tools/call needs manage_tool_packs, the list-only variant and search view_tool_packs.
      session: { type: 'apiKey', in: 'cookie', name: 'patchbay_session', description: "A member's console session (POST /api/v1/session). Each route names the permission a member needs; state-changing requests also need X-CSRF-Token and a same-origin Origin." },
    },
    schemas: {
      RuntimeError: { type: 'object', required: ['detail', 'code'], properties: { detail: { type: 'string' }, code: { type: 'string' } } },
      JsonRpcRequest: jsonRpcRequest,
    },
  },
  paths: {
    '/api/v1/tool-packs/{tool_pack_id}/registered-users/{registered_user_id}/mcp': {
      post: {
        tags: ['MCP'],
        security: [...runtimeSecurity, { session: ['manage_tool_packs'] }],
        summary: 'MCP over Streamable HTTP (protocol 2025-03-26 to 2025-11-25; stateless across replicas)',
        description:
          'JSON-RPC 2.0: initialize (answers with a signed Mcp-Session-Id), ping, logging/setLevel, tools/list (free) and tools/call (one credit each, charged before the call runs). Tool names are <connector_slug>__<tool_name>. Tool failures are results with isError: true; an unconnected user gets a magic_link_url in structuredContent. A tools/call is answered as an SSE stream (progress and log notifications, relayed sampling and elicitation requests, then the response) when it has something to stream and the agent accepts text/event-stream; otherwise JSON. Notifications and responses are accepted with 202.',
        parameters: pairParameters,
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcRequest' } } } },
        responses: {
          '200': { description: 'JSON-RPC response (result or error: -32601 unknown method, -32602 invalid params or unknown tool), as application/json or text/event-stream' },
          '202': { description: 'Notifications and responses accepted' },
          '400': { description: 'JSON-RPC error: -32700 parse error, -32600 invalid request (also an empty batch), an unsupported MCP-Protocol-Version' },
          '415': { description: 'The body is not application/json' },
          '402': { description: 'billing_limit_reached: free plan over its monthly allotment (tools/call only)', content: { 'application/json': { schema: errorBody } } },
          '429': { description: 'rate_limited: per-registered-user limit per minute; Retry-After and RateLimit-* headers', content: { 'application/json': { schema: errorBody } } },
          ...commonResponses,
          '403': { description: 'The key lacks runtime:all; or an Origin header the organization did not allow (JSON-RPC error -32600 without id)', content: { 'application/json': { schema: errorBody } } },
          '404': { description: 'Resource not in API key scope. (also for a missing pack or user, or the other environment); or an Mcp-Session-Id this server did not open for this key, pack and user (JSON-RPC error -32001)', content: { 'application/json': { schema: errorBody } } },
        },
      },
    },
    '/api/v1/tool-packs/{tool_pack_id}/registered-users/{registered_user_id}/tools/list': {
      post: {
        tags: ['MCP'],
        security: [...runtimeSecurity, { session: ['view_tool_packs'] }],
        summary: 'List-only variant: {id, jsonrpc: "2.0", method: "tools/list"}',
        parameters: pairParameters,
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcRequest' } } } },
        responses: { '200': { description: 'Same as tools/list on the MCP endpoint' }, ...commonResponses },
      },
    },
    '/api/v1/tool-packs/{tool_pack_id}/registered-users/{registered_user_id}/search': {
      post: {
        tags: ['Tool search'],
        security: [...runtimeSecurity, { session: ['view_tool_packs'] }],
        summary: 'Rank the tools of this pack for an intent',
        parameters: pairParameters,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['intent'],
                additionalProperties: false,
                properties: {
                  intent: { type: 'string', maxLength: 500 },
                  connector_slugs: { type: 'array', items: { type: 'string' } },
                  max_results: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'Ranked tools',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    tools: {
                      type: 'array',
                      items: {
                        type: 'object',
                        properties: {
                          name: { type: 'string' },
                          fully_qualified_name: { type: 'string' },
                          human_name: { type: 'string' },
                          description: { type: 'string' },
                          input_schema: { type: 'object' },
                          relevance_score: { type: 'number', minimum: 0, maximum: 1 },
                          reasoning: { type: 'string' },
                        },
                      },
                    },
                    total_results: { type: 'integer' },
                    intent: { type: 'string' },
                  },
                },
              },
            },
          },
          '400': { description: 'A field is invalid; the errors list names it', content: { 'application/json': { schema: errorBody } } },
          ...commonResponses,
        },
      },
    },
  },
};

interface OpenApiLike {
  info?: unknown;
  paths?: Record<string, unknown>;
  components?: { schemas?: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
  tags?: unknown[];
}

/** The tsoa document of the management routes with the hand-written MCP paths and schemas added. */
export function mergeOpenApi(generated: OpenApiLike): Record<string, unknown> {
  return {
    ...generated,
    info: mcpDocument.info,
    paths: { ...mcpDocument.paths, ...generated.paths },
    components: {
      ...generated.components,
      schemas: { ...generated.components?.schemas, ...mcpDocument.components.schemas },
      securitySchemes: { ...generated.components?.securitySchemes, ...mcpDocument.components.securitySchemes },
    },
  };
}
