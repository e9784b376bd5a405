import { WireError } from '../errors';
import type { ContentBlock, MediaSource, ParsedChatRequest, TextBlock, ToolChoice, ToolDefinition, ToolResultBlock, Warning } from '../types';
import {
  checkEffort,
  checkTool,
  checkToolChoice,
  checkUniqueTools,
  emptyRequest,
  mediaFromUrl,
  parseCacheControl,
  parseGatewayFields,
  parseResponseFormat,
  parseThinking,
  requireObject,
} from './common';
import { checkToolSequence, TurnBuilder } from './messages';
import { isObject, ShapeReader, type Json } from './shape';

const FIELDS = new Set([
  'model', 'input', 'tools', 'tool_choice', 'max_tokens', 'temperature', 'top_p', 'top_k', 'stop', 'seed',
  'response_format', 'text', 'stream', 'tags', 'project_id', 'routing_policy_id', 'include_routing_metadata',
  'include_guardrails_metadata', 'vendor', 'vendors', 'priority_order', 'customer', 'thinking', 'reasoning_effort',
  'service_tier', 'service_tier_fallback', 'store', 'previous_response_id', 'conversation', 'provider_options',
  'user', 'metadata', 'parallel_tool_calls',
]);

const ROLES = ['system', 'developer', 'user', 'assistant'];
const UNSUPPORTED_TOOLS = new Set(['code_interpreter', 'file_search', 'mcp', 'local_shell', 'custom', 'computer_use', 'computer_use_preview', 'image_generation', 'shell', 'apply_patch']);

/** Native `POST /v1/responses` (facts file §1): flat function tools, `input` items, content blocks. */
export function parseNativeRequest(body: unknown): ParsedChatRequest {
  const obj = requireObject(body, 'invalid_request_body', 'The request body');
  const shape = new ShapeReader(true);
  shape.noExtra(obj, FIELDS, []);
  const gateway = parseGatewayFields(obj, shape, true);
  const request = emptyRequest();
  request.stream = gateway.stream;
  request.maxOutputTokens = shape.number(obj, 'max_tokens', [], { integer: true, min: 1 }) ?? null;
  request.temperature = shape.number(obj, 'temperature', [], { min: 0, max: 2 }) ?? null;
  request.topP = shape.number(obj, 'top_p', [], { min: 0, max: 1 }) ?? null;
  request.topK = shape.number(obj, 'top_k', [], { integer: true, min: 1 }) ?? null;
  request.seed = shape.number(obj, 'seed', [], { integer: true }) ?? null;
  request.parallelToolCalls = shape.boolean(obj, 'parallel_tool_calls', []) ?? null;
  request.endUserId = gateway.user;
  const stop = obj.stop;
  if (typeof stop === 'string') request.stop = [stop];
  else request.stop = shape.stringArray(obj, 'stop', []) ?? [];
  const input = obj.input;
  if (input === undefined) shape.fail(['input'], 'missing', 'Field required');
  else if (typeof input !== 'string' && !Array.isArray(input)) shape.fail(['input'], 'list_type', 'Input should be a valid list', input);
  const toolsValue = shape.array(obj, 'tools', []);
  shape.string(obj, 'previous_response_id', []);
  shape.done();

  if (obj.conversation !== undefined && obj.conversation !== null) {
    throw WireError.invalid('conversation_unsupported', 'conversation is not supported: send the whole conversation in "input".', 'conversation');
  }
  if (typeof obj.previous_response_id === 'string') {
    throw WireError.invalid('previous_response_id_unsupported', `previous_response_id "${obj.previous_response_id.slice(0, 64)}" cannot be resumed: the gateway does not store responses; send the whole conversation in "input".`, 'previous_response_id');
  }

  const turns = new TurnBuilder();
  if (typeof input === 'string') {
    if (input === '') throw WireError.invalid('empty_input', 'input is empty: send at least one message.', 'input');
    turns.add('user', [{ type: 'text', text: input }]);
  } else {
    const items = input as unknown[];
    if (items.length === 0) throw WireError.invalid('empty_input', 'input is empty: send at least one message.', 'input');
    items.forEach((item, i) => parseItem(item, i, turns));
  }
  if (turns.messages.length === 0) throw WireError.invalid('empty_input', 'input holds only system instructions: send at least one user message.', 'input');
  checkToolSequence(turns.messages, 'input');
  request.system = turns.system;
  request.messages = turns.messages;

  request.tools = (toolsValue ?? []).map((tool, i) => parseTool(tool, i));
  checkUniqueTools(request.tools, 'tools');
  request.toolChoice = parseToolChoice(obj.tool_choice);
  checkToolChoice(request.toolChoice, request.tools, 'tool_choice');

  request.responseFormat = parseResponseFormat(obj.response_format, 'response_format', false);
  if (!request.responseFormat && isObject(obj.text) && obj.text.format !== undefined) {
    request.responseFormat = parseResponseFormat(obj.text.format, 'text.format', true);
  }
  const effort = checkEffort(obj.reasoning_effort, 'reasoning_effort');
  const thinking = parseThinking(obj.thinking, 'thinking');
  if (effort || thinking) request.reasoning = { ...(effort ? { effort } : {}), ...(thinking ?? {}) };

  const warnings: Warning[] = [];
  return { surface: 'native-responses', request, gateway, render: { includeUsage: true }, warnings };
}

function parseItem(item: unknown, i: number, turns: TurnBuilder): void {
  const at = `input[${i}]`;
  if (!isObject(item)) throw WireError.invalid('invalid_input_item', `${at} must be an object: a message {"role", "content"} or a tool result {"type": "tool_result", "tool_use_id", "content"}.`, at);
  const type = item.type ?? 'message';
  if (type === 'tool_result') {
    turns.add('user', [toolResult(item, at)]);
    return;
  }
  if (type !== 'message') throw WireError.invalid('invalid_input_item', `${at}.type must be "message" or "tool_result"; got ${JSON.stringify(type)}.`, `${at}.type`);
  const role = item.role;
  if (typeof role !== 'string' || !ROLES.includes(role)) {
    throw WireError.invalid('invalid_input_item', `${at}.role must be one of system, developer, user or assistant; got ${JSON.stringify(role)}.`, `${at}.role`);
  }
  const blocks = parseContent(item.content, `${at}.content`, role);
  if (role === 'system' || role === 'developer') {
    if (blocks.some((b) => b.type !== 'text')) throw WireError.invalid('invalid_message_content', `${at}.content: system and developer messages hold text only.`, `${at}.content`);
    turns.addSystem(blocks as TextBlock[]);
  } else turns.add(role as 'user' | 'assistant', blocks);
}

function toolResult(item: Json, at: string): ToolResultBlock {
  if (typeof item.tool_use_id !== 'string' || item.tool_use_id === '') {
    throw WireError.invalid('invalid_tool_messages', `${at}.tool_use_id must name the tool call this result answers.`, `${at}.tool_use_id`);
  }
  const content = parseContent(item.content ?? '', `${at}.content`, 'tool');
  const parts = content.filter((b): b is TextBlock => b.type === 'text' || b.type === 'image' || b.type === 'document') as ToolResultBlock['content'];
  if (parts.length !== content.length) throw WireError.invalid('invalid_message_content', `${at}.content: a tool result holds text, images or documents.`, `${at}.content`);
  const block: ToolResultBlock = { type: 'tool_result', toolUseId: item.tool_use_id, content: parts, isError: item.is_error === true };
  const cache = parseCacheControl(item.cache_control);
  if (cache) block.cache = cache;
  return block;
}

function parseContent(content: unknown, at: string, role: string): ContentBlock[] {
  if (typeof content === 'string') return content === '' && role !== 'tool' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw WireError.invalid('invalid_message_content', `${at} must be a string or a list of content blocks.`, at);
  return content.map((block, j) => parseBlock(block, `${at}[${j}]`, role));
}

function mediaSource(block: Json, at: string): MediaSource {
  const sourceType = block.source_type ?? 'base64';
  const data = block.data;
  if (typeof data !== 'string' || data === '') throw WireError.invalid('invalid_message_content', `${at}.data must be a non-empty string (base64 data or a URL).`, `${at}.data`);
  const mediaType = typeof block.media_type === 'string' ? block.media_type : undefined;
  if (sourceType === 'url') return mediaFromUrl(data, mediaType);
  if (sourceType !== 'base64') throw WireError.invalid('invalid_message_content', `${at}.source_type must be "base64" or "url".`, `${at}.source_type`);
  if (!mediaType) throw WireError.invalid('invalid_message_content', `${at}.media_type is required with base64 data (for example "image/png").`, `${at}.media_type`);
  return { kind: 'base64', mediaType, data };
}

function parseBlock(block: unknown, at: string, role: string): ContentBlock {
  if (!isObject(block)) throw WireError.invalid('invalid_message_content', `${at} must be a content block object with a "type".`, at);
  const cache = parseCacheControl(block.cache_control);
  const withCache = <T extends ContentBlock>(b: T): T => (cache && b.type !== 'audio' && b.type !== 'video' && b.type !== 'thinking' && b.type !== 'redacted_thinking' ? { ...b, cache } : b);
  switch (block.type) {
    case 'text':
      if (typeof block.text !== 'string') throw WireError.invalid('invalid_message_content', `${at}.text must be a string.`, `${at}.text`);
      return withCache({ type: 'text', text: block.text });
    case 'image_url': {
      const url = typeof block.url === 'string' ? block.url : isObject(block.image_url) && typeof block.image_url.url === 'string' ? block.image_url.url : undefined;
      if (!url) throw WireError.invalid('invalid_message_content', `${at}.url must be the image's URL or a data: URI.`, `${at}.url`);
      const detail = typeof block.detail === 'string' ? block.detail : undefined;
      return withCache({ type: 'image', source: mediaFromUrl(url), ...(detail ? { detail } : {}) });
    }
    case 'image':
      return withCache({ type: 'image', source: mediaSource(block, at) });
    case 'document': {
      const title = typeof block.title === 'string' ? block.title : typeof block.filename === 'string' ? block.filename : undefined;
      return withCache({ type: 'document', source: mediaSource(block, at), ...(title ? { title } : {}) });
    }
    case 'audio':
      return { type: 'audio', source: mediaSource(block, at) };
    case 'video':
      return { type: 'video', source: mediaSource(block, at) };
    case 'tool_use': {
      if (role !== 'assistant') throw WireError.invalid('invalid_message_content', `${at}: tool_use blocks belong to assistant messages.`, at);
      if (typeof block.id !== 'string' || block.id === '' || typeof block.name !== 'string' || block.name === '') {
        throw WireError.invalid('invalid_message_content', `${at}: a tool_use block needs "id", "name" and "input".`, at);
      }
      return withCache({ type: 'tool_use', id: block.id, name: block.name, input: block.input ?? {} });
    }
    case 'tool_result':
      if (role !== 'user') throw WireError.invalid('invalid_message_content', `${at}: tool_result blocks belong to user messages.`, at);
      return toolResult(block, at);
    case 'thinking':
      if (typeof block.thinking !== 'string') throw WireError.invalid('invalid_message_content', `${at}.thinking must be a string.`, `${at}.thinking`);
      return typeof block.signature === 'string' ? { type: 'thinking', thinking: block.thinking, signature: block.signature } : { type: 'thinking', thinking: block.thinking };
    default:
      throw WireError.invalid(
        'invalid_message_content',
        `${at}.type ${JSON.stringify(block.type)} is not a content block; use text, image_url, image, document, audio, video, tool_use, tool_result or thinking.`,
        `${at}.type`,
      );
  }
}

function parseTool(tool: unknown, i: number): ToolDefinition {
  const at = `tools[${i}]`;
  if (!isObject(tool)) throw WireError.invalid('invalid_tool_definition', `${at} must be an object {"type": "function", "name", "parameters"}.`, at);
  const type = tool.type ?? 'function';
  if (typeof type === 'string' && UNSUPPORTED_TOOLS.has(type)) {
    throw WireError.invalid('unsupported_tool_type', `${at}: the gateway cannot execute tools of type "${type}"; define a function tool instead.`, `${at}.type`);
  }
  if (type !== 'function') throw WireError.invalid('unsupported_tool_type', `${at}.type must be "function"; got ${JSON.stringify(type)}.`, `${at}.type`);
  const fn = isObject(tool.function) ? tool.function : tool;
  const def = checkTool(fn.name, fn.description, fn.parameters, ['tools', i], fn.strict);
  const cache = parseCacheControl(tool.cache_control);
  if (cache) def.cache = cache;
  return def;
}

function parseToolChoice(value: unknown): ToolChoice | null {
  if (value === undefined || value === null) return null;
  if (value === 'auto' || value === 'none' || value === 'required') return { type: value };
  if (isObject(value)) {
    const name = isObject(value.function) ? value.function.name : value.name;
    if ((value.type === 'function' || value.type === 'tool') && typeof name === 'string' && name !== '') return { type: 'tool', name };
  }
  throw WireError.invalid('invalid_tool_definition', 'tool_choice must be "auto", "none", "required" or {"type": "function", "function": {"name": ...}}.', 'tool_choice');
}
