import { DESTRUCTIVE, READ_ONLY, bool, inputSchema, int, objectSchema, str } from '../../core/schema';
import type { JsonSchema, ToolDefinition } from '../../core/types';
import { callHttpApi, type HttpMethod } from './client';

const scalar: JsonSchema = { type: ['string', 'number', 'boolean'] };
const queryParam: JsonSchema = {
  type: 'object',
  description: 'Query parameters, added to any already in the path. An array value repeats the parameter (?tag=a&tag=b).',
  additionalProperties: { anyOf: [scalar, { type: 'array', items: scalar }] },
};
const pathParam = str('Path under the connection\'s base URL, e.g. /items/42 (a query string may be included). It cannot leave the base URL.', { minLength: 1, maxLength: 2048 });

const resultSchema = objectSchema(
  {
    ok: bool('True for a 2xx status'),
    status: int('HTTP status code'),
    headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'A safe subset of the response headers (content type, location, pagination, rate limits)' },
    body: { description: 'The response body: parsed JSON when the API answered JSON, else text; a short note for binary content' },
    body_truncated: bool('True when the body was longer than the size limit and was cut (JSON is then returned as text)'),
  },
  ['ok', 'status', 'headers', 'body', 'body_truncated'],
);

type Query = Record<string, string | number | boolean | Array<string | number | boolean>>;

const toQuery = (query: Query | undefined) =>
  query ? Object.fromEntries(Object.entries(query).map(([k, v]) => [k, Array.isArray(v) ? v.map(String) : v])) : undefined;

export const httpGet: ToolDefinition<{ path: string; query?: Query }> = {
  name: 'http_get',
  description:
    'GET a path of the connected HTTP API (base URL and auth header come from the connection). Returns the status, a few headers and the body (JSON parsed). Statuses like 404 or 400 come back as results with ok: false; 401, 403, 429 and 5xx are errors.',
  input_schema: inputSchema({ path: pathParam, query: queryParam }, ['path']),
  output_schema: resultSchema,
  annotations: READ_ONLY,
  async execute(ctx, input) {
    return callHttpApi(ctx, { method: 'GET', path: input.path, query: toQuery(input.query) });
  },
};

export const httpRequest: ToolDefinition<{ method: HttpMethod; path: string; query?: Query; json?: unknown; headers?: Record<string, string> }> = {
  name: 'http_request',
  description:
    'Send any request (GET, POST, PUT, PATCH, DELETE) to a path of the connected HTTP API, with an optional JSON body and extra headers (the stored auth header and Host cannot be overridden). It can change or delete data in that API. Same result shape as http_get.',
  input_schema: inputSchema(
    {
      method: str('HTTP method', { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] }),
      path: pathParam,
      query: queryParam,
      json: { description: 'JSON body (any JSON value), sent with Content-Type: application/json unless headers set another type. Not allowed with GET.' },
      headers: { type: 'object', additionalProperties: { type: 'string', maxLength: 8192 }, propertyNames: { pattern: '^[A-Za-z0-9!#$%&\'*+.^_`|~-]+$' }, description: 'Extra request headers, e.g. {"If-Match": "\\"abc\\""}' },
    },
    ['method', 'path'],
  ),
  output_schema: resultSchema,
  annotations: DESTRUCTIVE,
  async execute(ctx, input) {
    return callHttpApi(ctx, { method: input.method, path: input.path, query: toQuery(input.query), json: input.json, headers: input.headers });
  },
};
