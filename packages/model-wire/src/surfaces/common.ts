import { WireError } from '../errors';
import {
  REASONING_EFFORTS,
  type CacheMarker,
  type CanonicalRequest,
  type GatewayFields,
  type MediaSource,
  type PriorityOrderEntry,
  type ReasoningEffort,
  type ResponseFormat,
  type ToolChoice,
  type ToolDefinition,
} from '../types';
import { isObject, paramOf, type Json, type ShapeReader } from './shape';

export const TOOL_NAME = /^[A-Za-z0-9_.:-]{1,128}$/;

/** An empty canonical request, filled in by each surface's parser. */
export function emptyRequest(): CanonicalRequest {
  return {
    system: [],
    messages: [],
    tools: [],
    toolChoice: null,
    parallelToolCalls: null,
    maxOutputTokens: null,
    temperature: null,
    topP: null,
    topK: null,
    stop: [],
    seed: null,
    presencePenalty: null,
    frequencyPenalty: null,
    responseFormat: null,
    reasoning: null,
    endUserId: null,
    stream: false,
  };
}

/** The body must be a JSON object; `code` is the surface's code for one that is not. */
export function requireObject(body: unknown, code: string, what: string): Json {
  if (!isObject(body)) throw WireError.invalid(code, `${what} must be a JSON object.`);
  return body;
}

/** A tool's name, description and JSON Schema parameters, with the spec's three tool codes. */
export function checkTool(name: unknown, description: unknown, parameters: unknown, loc: Array<string | number>, strict?: unknown): ToolDefinition {
  const at = paramOf(loc);
  if (typeof name !== 'string' || name.trim() === '') {
    throw WireError.invalid('invalid_tool_name', `${at}.name: a tool needs a non-empty name.`, `${at}.name`);
  }
  if (!TOOL_NAME.test(name)) {
    throw WireError.invalid('invalid_tool_name', `${at}.name: "${name.slice(0, 80)}" is not a valid tool name; use 1 to 128 letters, digits, underscores, dots, colons or dashes.`, `${at}.name`);
  }
  if (description !== undefined && description !== null && typeof description !== 'string') {
    throw WireError.invalid('invalid_tool_definition', `${at}.description must be a string.`, `${at}.description`);
  }
  let schema: Record<string, unknown>;
  if (parameters === undefined || parameters === null) schema = { type: 'object', properties: {} };
  else if (!isObject(parameters) || (parameters.type !== undefined && parameters.type !== 'object')) {
    throw WireError.invalid('invalid_tool_parameters', `${at}.parameters must be a JSON Schema object ({"type": "object", "properties": {...}}).`, `${at}.parameters`);
  } else schema = parameters;
  const tool: ToolDefinition = { name, parameters: schema };
  if (typeof description === 'string') tool.description = description;
  if (typeof strict === 'boolean') tool.strict = strict;
  return tool;
}

/** Tool names must be unique within a request. */
export function checkUniqueTools(tools: ToolDefinition[], param: string): void {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) throw WireError.invalid('invalid_tool_definition', `${param}: the tool name "${tool.name}" is defined twice.`, param);
    seen.add(tool.name);
  }
}

/** A forced tool must be one of the request's tools. */
export function checkToolChoice(choice: ToolChoice | null, tools: ToolDefinition[], param: string): void {
  if (!choice) return;
  if ((choice.type === 'required' || choice.type === 'tool') && tools.length === 0) {
    throw WireError.invalid('invalid_tool_definition', `${param}: a tool is required but the request defines no tools.`, param);
  }
  if (choice.type === 'tool' && !tools.some((t) => t.name === choice.name)) {
    throw WireError.invalid('invalid_tool_name', `${param}: "${choice.name}" is not one of the request's tools.`, param);
  }
}

export function checkEffort(value: unknown, param: string): ReasoningEffort | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !(REASONING_EFFORTS as readonly string[]).includes(value)) {
    throw WireError.invalid('unsupported_reasoning_effort', `${param} must be one of ${REASONING_EFFORTS.join(', ')}; got ${JSON.stringify(value)?.slice(0, 40)}.`, param);
  }
  return value as ReasoningEffort;
}

/** `thinking: {type: "enabled", budget_tokens}` / `{type: "disabled"}` (Anthropic and native). */
export function parseThinking(value: unknown, param: string): { enabled: boolean; budgetTokens?: number } | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw WireError.invalid('invalid_thinking_budget', `${param} must be an object such as {"type": "enabled", "budget_tokens": 2048}.`, param);
  const type = value.type;
  if (type === 'disabled') return { enabled: false };
  if (type !== 'enabled' && type !== 'adaptive') {
    throw WireError.invalid('invalid_thinking_budget', `${param}.type must be "enabled", "adaptive" or "disabled".`, `${param}.type`);
  }
  const budget = value.budget_tokens;
  if (budget === undefined && type === 'adaptive') return { enabled: true };
  if (typeof budget !== 'number' || !Number.isInteger(budget) || budget <= 0) {
    throw WireError.invalid('invalid_thinking_budget', `${param}.budget_tokens must be a positive integer.`, `${param}.budget_tokens`);
  }
  return { enabled: true, budgetTokens: budget };
}

/** OpenAI chat `response_format`, or the responses API's `text.format` (flat json_schema). */
export function parseResponseFormat(value: unknown, param: string, flat: boolean): ResponseFormat | null {
  if (value === undefined || value === null) return null;
  const bad = (why: string): never => {
    throw WireError.invalid('invalid_response_format', `${param}: ${why}`, param);
  };
  if (!isObject(value)) return bad('must be an object such as {"type": "json_object"}.');
  switch (value.type) {
    case 'text':
      return { type: 'text' };
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema': {
      const spec = flat ? value : value.json_schema;
      if (!isObject(spec)) return bad('json_schema needs a "json_schema" object with "name" and "schema".');
      const name = spec.name ?? 'response';
      if (typeof name !== 'string' || name === '') return bad('json_schema.name must be a non-empty string.');
      const schema = spec.schema ?? {};
      if (!isObject(schema)) return bad('json_schema.schema must be a JSON Schema object.');
      const format: ResponseFormat = { type: 'json_schema', name, schema };
      if (typeof spec.strict === 'boolean') format.strict = spec.strict;
      if (typeof spec.description === 'string') format.description = spec.description;
      return format;
    }
    default:
      return bad('type must be "text", "json_object" or "json_schema".');
  }
}

/** `data:<media type>;base64,<data>` into a base64 source; any other URL stays a URL. */
export function mediaFromUrl(url: string, mediaType?: string): MediaSource {
  if (url.startsWith('data:')) {
    const comma = url.indexOf(',');
    const header = comma > 0 ? url.slice(5, comma) : '';
    if (comma > 0 && header.endsWith(';base64')) {
      return { kind: 'base64', mediaType: header.slice(0, -7) || mediaType || 'application/octet-stream', data: url.slice(comma + 1) };
    }
  }
  return mediaType ? { kind: 'url', url, mediaType } : { kind: 'url', url };
}

export function dataUrl(source: { mediaType: string; data: string }): string {
  return `data:${source.mediaType};base64,${source.data}`;
}

export function parseCacheControl(value: unknown): CacheMarker | undefined {
  if (!isObject(value) || value.type !== 'ephemeral') return undefined;
  return typeof value.ttl === 'string' ? { type: 'ephemeral', ttl: value.ttl } : { type: 'ephemeral' };
}

const NATIVE_PRIORITY = 'invalid_priority_order';

/**
 * The gateway's own fields (routing, tags, attribution), checked for shape only. On the native
 * surface the priority-order codes are 422s (spec), elsewhere 400s.
 */
export function parseGatewayFields(body: Json, shape: ShapeReader, native: boolean): GatewayFields {
  const loc: Array<string | number> = [];
  let model = shape.string(body, 'model', loc) ?? null;
  if (model === 'default_routing' || model === '') model = null;
  const stream = shape.boolean(body, 'stream', loc) ?? false;
  const fields: GatewayFields = {
    model,
    routing_policy_id: shape.string(body, 'routing_policy_id', loc) ?? null,
    priority_order: null,
    vendor: shape.string(body, 'vendor', loc) ?? null,
    vendors: shape.stringArray(body, 'vendors', loc) ?? null,
    tags: [],
    project_id: shape.string(body, 'project_id', loc) ?? null,
    customer: shape.string(body, 'customer', loc) ?? null,
    include_routing_metadata: shape.boolean(body, 'include_routing_metadata', loc) ?? false,
    include_guardrails_metadata: shape.boolean(body, 'include_guardrails_metadata', loc) ?? false,
    service_tier: shape.string(body, 'service_tier', loc) ?? null,
    service_tier_fallback: shape.boolean(body, 'service_tier_fallback', loc) ?? false,
    user: shape.string(body, 'user', loc) ?? null,
    stream,
    store: shape.boolean(body, 'store', loc) ?? null,
    metadata: null,
  };

  const tags = body.tags;
  if (tags !== undefined && tags !== null) {
    if (!Array.isArray(tags)) shape.fail(['tags'], 'list_type', 'Input should be a valid list of {"key", "value"} objects', tags);
    else {
      tags.forEach((tag, i) => {
        if (!isObject(tag) || typeof tag.key !== 'string' || typeof tag.value !== 'string' || tag.key === '') {
          shape.fail(['tags', i], 'model_type', 'Each tag should be an object {"key": string, "value": string}', tag);
        } else fields.tags.push({ key: tag.key, value: tag.value });
      });
    }
  }

  const metadata = body.metadata;
  if (metadata !== undefined && metadata !== null) {
    if (!isObject(metadata) || Object.values(metadata).some((v) => typeof v !== 'string')) {
      shape.fail(['metadata'], 'dict_type', 'Input should be an object of string values', metadata);
    } else fields.metadata = metadata as Record<string, string>;
  }

  const priority = body.priority_order;
  if (priority !== undefined && priority !== null) fields.priority_order = parsePriorityOrder(priority, fields, native);
  return fields;
}

function parsePriorityOrder(value: unknown, fields: GatewayFields, native: boolean): PriorityOrderEntry[] {
  const refuse = (message: string, code = NATIVE_PRIORITY, input?: unknown): never => {
    if (native) throw WireError.schema([{ type: code, loc: ['body', 'priority_order'], msg: message, input: input ?? value }]);
    throw WireError.invalid(code, `priority_order: ${message}`, 'priority_order');
  };
  if (!Array.isArray(value) || value.length === 0) return refuse('must be a non-empty list of {"model", "vendors"?} entries.');
  if (value.length > 10) return refuse(`holds at most 10 entries; got ${value.length}.`);
  if (fields.routing_policy_id !== null) return refuse('cannot be combined with routing_policy_id.');
  if (fields.vendor !== null || fields.vendors !== null) return refuse('cannot be combined with vendor or vendors; name vendors per entry instead.');
  const entries: PriorityOrderEntry[] = value.map((entry, i) => {
    if (!isObject(entry) || typeof entry.model !== 'string' || entry.model === '') return refuse(`entry ${i} needs a "model".`);
    if (entry.vendors === undefined || entry.vendors === null) return { model: entry.model };
    if (!Array.isArray(entry.vendors) || entry.vendors.length === 0 || entry.vendors.some((v) => typeof v !== 'string' || v === '')) {
      return refuse(`entry ${i}: "vendors" must be a non-empty list of vendor names, or left out.`);
    }
    return { model: entry.model, vendors: entry.vendors as string[] };
  });
  if (fields.model !== null && fields.model !== entries[0]!.model) {
    refuse(`model "${fields.model}" must be the first priority_order entry (or left out).`, 'priority_order_model_conflict');
  }
  return entries;
}

/** Fields a surface knows but the gateway does not carry out, dropped with a warning. */
export function droppedFieldWarning(fields: string[]): { code: string; message: string; detail: Record<string, unknown> } {
  return {
    code: 'unsupported_parameters_dropped',
    message: `The gateway ignored ${fields.map((f) => `"${f}"`).join(', ')}: not supported on this surface.`,
    detail: { parameters: fields },
  };
}
