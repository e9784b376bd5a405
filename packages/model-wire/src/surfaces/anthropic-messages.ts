import { WireError } from '../errors';
import type { ContentBlock, MediaSource, ParsedChatRequest, TextBlock, ToolChoice, ToolDefinition, ToolResultBlock, Warning } from '../types';
import { checkEffort, checkTool, checkToolChoice, checkUniqueTools, emptyRequest, mediaFromUrl, parseCacheControl, parseGatewayFields, parseThinking, requireObject } from './common';
import { checkToolSequence, TurnBuilder } from './messages';
import { isObject, ShapeReader, type Json } from './shape';

/**
 * Anthropic `POST /v1/messages` (and `/v1/messages/count_tokens` with `countTokens`), as
 * `@anthropic-ai/sdk` sends it. `max_tokens` is required on messages, as Anthropic requires it.
 */
export function parseAnthropicRequest(body: unknown, options: { countTokens?: boolean } = {}): ParsedChatRequest {
  const obj = requireObject(body, 'invalid_request_body', 'The request body');
  const shape = new ShapeReader(false);
  const gateway = parseGatewayFields(obj, shape, false);
  const request = emptyRequest();
  request.stream = options.countTokens ? false : gateway.stream;
  const maxTokens = shape.number(obj, 'max_tokens', [], { integer: true, min: 1 });
  if ((maxTokens === undefined || maxTokens === null) && !options.countTokens) {
    throw WireError.invalid('invalid_request_body', 'max_tokens: Field required (the most tokens the answer may have).', 'max_tokens');
  }
  request.maxOutputTokens = maxTokens ?? null;
  request.temperature = shape.number(obj, 'temperature', [], { min: 0, max: 1 }) ?? null;
  request.topP = shape.number(obj, 'top_p', [], { min: 0, max: 1 }) ?? null;
  request.topK = shape.number(obj, 'top_k', [], { integer: true, min: 0 }) ?? null;
  request.stop = shape.stringArray(obj, 'stop_sequences', []) ?? [];
  const metadata = shape.object(obj, 'metadata', []);
  request.endUserId = metadata && typeof metadata.user_id === 'string' ? metadata.user_id : gateway.user;
  gateway.metadata = null;

  const turns = new TurnBuilder();
  const system = obj.system;
  if (typeof system === 'string') {
    if (system !== '') turns.addSystem([{ type: 'text', text: system }]);
  } else if (Array.isArray(system)) {
    turns.addSystem(system.map((block, i) => textBlock(block, `system[${i}]`)));
  } else if (system !== undefined && system !== null) {
    throw WireError.invalid('invalid_message_content', 'system must be a string or a list of text blocks.', 'system');
  }

  const messages = obj.messages;
  if (messages === undefined || (Array.isArray(messages) && messages.length === 0)) {
    throw WireError.invalid('empty_messages', 'messages is empty: send at least one message.', 'messages');
  }
  if (!Array.isArray(messages)) throw WireError.invalid('invalid_request_body', 'messages must be a list of messages.', 'messages');
  messages.forEach((message, i) => {
    const at = `messages[${i}]`;
    if (!isObject(message) || (message.role !== 'user' && message.role !== 'assistant')) {
      throw WireError.invalid('invalid_message_content', `${at}.role must be "user" or "assistant".`, `${at}.role`);
    }
    turns.add(message.role, content(message.content, `${at}.content`, message.role));
  });
  if (turns.messages.length === 0) throw WireError.invalid('empty_messages', 'messages holds no content: send at least one message.', 'messages');
  checkToolSequence(turns.messages, 'messages');
  request.system = turns.system;
  request.messages = turns.messages;

  request.tools = (shape.array(obj, 'tools', []) ?? []).map((tool, i) => parseTool(tool, i));
  checkUniqueTools(request.tools, 'tools');
  const choice = parseToolChoice(obj.tool_choice);
  request.toolChoice = choice.choice;
  if (choice.disableParallel) request.parallelToolCalls = false;
  checkToolChoice(request.toolChoice, request.tools, 'tool_choice');

  const thinking = parseThinking(obj.thinking, 'thinking');
  const outputConfig = shape.object(obj, 'output_config', []);
  const effort = outputConfig ? checkEffort(outputConfig.effort, 'output_config.effort') : undefined;
  if (thinking || effort) request.reasoning = { ...(thinking ?? {}), ...(effort ? { effort } : {}) };

  const warnings: Warning[] = [];
  return { surface: 'anthropic-messages', request, gateway, render: { includeUsage: true }, warnings };
}

function textBlock(block: unknown, at: string): TextBlock {
  if (!isObject(block) || block.type !== 'text' || typeof block.text !== 'string') {
    throw WireError.invalid('invalid_message_content', `${at} must be a text block {"type": "text", "text": ...}.`, at);
  }
  const cache = parseCacheControl(block.cache_control);
  return cache ? { type: 'text', text: block.text, cache } : { type: 'text', text: block.text };
}

function content(value: unknown, at: string, role: 'user' | 'assistant'): ContentBlock[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  if (!Array.isArray(value)) throw WireError.invalid('invalid_message_content', `${at} must be a string or a list of content blocks.`, at);
  return value.map((block, j) => contentBlock(block, `${at}[${j}]`, role));
}

function source(value: unknown, at: string): MediaSource {
  if (!isObject(value)) throw WireError.invalid('invalid_message_content', `${at} must be a source object {"type": "base64" | "url", ...}.`, at);
  if (value.type === 'base64') {
    if (typeof value.data !== 'string' || typeof value.media_type !== 'string') {
      throw WireError.invalid('invalid_message_content', `${at}: a base64 source needs "media_type" and "data".`, at);
    }
    return { kind: 'base64', mediaType: value.media_type, data: value.data };
  }
  if (value.type === 'url' && typeof value.url === 'string') return mediaFromUrl(value.url);
  if (value.type === 'file' && typeof value.file_id === 'string') return { kind: 'file', fileId: value.file_id };
  if (value.type === 'text' && typeof value.data === 'string') return { kind: 'base64', mediaType: 'text/plain', data: Buffer.from(value.data, 'utf8').toString('base64') };
  throw WireError.invalid('invalid_message_content', `${at}.type must be "base64", "url", "file" or "text".`, `${at}.type`);
}

function contentBlock(block: unknown, at: string, role: 'user' | 'assistant'): ContentBlock {
  if (!isObject(block)) throw WireError.invalid('invalid_message_content', `${at} must be a content block with a "type".`, at);
  const cache = parseCacheControl(block.cache_control);
  const extra = cache ? { cache } : {};
  switch (block.type) {
    case 'text':
      return textBlock(block, at);
    case 'image':
      return { type: 'image', source: source(block.source, `${at}.source`), ...extra };
    case 'document': {
      const title = typeof block.title === 'string' ? block.title : undefined;
      return { type: 'document', source: source(block.source, `${at}.source`), ...(title ? { title } : {}), ...extra };
    }
    case 'tool_use':
      if (role !== 'assistant') throw WireError.invalid('invalid_message_content', `${at}: tool_use blocks belong to assistant messages.`, at);
      if (typeof block.id !== 'string' || typeof block.name !== 'string') throw WireError.invalid('invalid_message_content', `${at}: a tool_use block needs "id", "name" and "input".`, at);
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input ?? {}, ...extra };
    case 'tool_result':
      if (role !== 'user') throw WireError.invalid('invalid_message_content', `${at}: tool_result blocks belong to user messages.`, at);
      return toolResult(block, at, cache);
    case 'thinking':
      if (typeof block.thinking !== 'string') throw WireError.invalid('invalid_message_content', `${at}.thinking must be a string.`, at);
      return typeof block.signature === 'string' ? { type: 'thinking', thinking: block.thinking, signature: block.signature, origin: 'anthropic' } : { type: 'thinking', thinking: block.thinking };
    case 'redacted_thinking':
      if (typeof block.data !== 'string') throw WireError.invalid('invalid_message_content', `${at}.data must be a string.`, at);
      return { type: 'redacted_thinking', data: block.data, origin: 'anthropic' };
    default:
      throw WireError.invalid(
        'invalid_message_content',
        `${at}.type ${JSON.stringify(block.type)} is not supported; use text, image, document, tool_use, tool_result, thinking or redacted_thinking.`,
        `${at}.type`,
      );
  }
}

function toolResult(block: Json, at: string, cache: ReturnType<typeof parseCacheControl>): ToolResultBlock {
  if (typeof block.tool_use_id !== 'string' || block.tool_use_id === '') {
    throw WireError.invalid('invalid_tool_messages', `${at}.tool_use_id must name the tool call this result answers.`, `${at}.tool_use_id`);
  }
  const raw = block.content ?? '';
  const parts: ToolResultBlock['content'] = [];
  if (typeof raw === 'string') parts.push({ type: 'text', text: raw });
  else if (Array.isArray(raw)) {
    raw.forEach((part, k) => {
      const inner = contentBlock(part, `${at}.content[${k}]`, 'user');
      if (inner.type !== 'text' && inner.type !== 'image' && inner.type !== 'document') {
        throw WireError.invalid('invalid_message_content', `${at}.content[${k}]: a tool result holds text, images or documents.`, `${at}.content[${k}]`);
      }
      parts.push(inner);
    });
  } else throw WireError.invalid('invalid_message_content', `${at}.content must be a string or a list of blocks.`, `${at}.content`);
  const result: ToolResultBlock = { type: 'tool_result', toolUseId: block.tool_use_id, content: parts, isError: block.is_error === true };
  if (cache) result.cache = cache;
  return result;
}

function parseTool(tool: unknown, i: number): ToolDefinition {
  const at = `tools[${i}]`;
  if (!isObject(tool)) throw WireError.invalid('invalid_tool_definition', `${at} must be {"name", "description", "input_schema"}.`, at);
  if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') {
    throw WireError.invalid('unsupported_tool_type', `${at}: the gateway cannot execute server tools of type ${JSON.stringify(tool.type)}; define a client tool with "input_schema".`, `${at}.type`);
  }
  if (tool.input_schema === undefined) throw WireError.invalid('invalid_tool_parameters', `${at}.input_schema is required: a JSON Schema object.`, `${at}.input_schema`);
  const def = checkTool(tool.name, tool.description, tool.input_schema, ['tools', i], tool.strict);
  const cache = parseCacheControl(tool.cache_control);
  if (cache) def.cache = cache;
  return def;
}

function parseToolChoice(value: unknown): { choice: ToolChoice | null; disableParallel: boolean } {
  if (value === undefined || value === null) return { choice: null, disableParallel: false };
  if (!isObject(value)) throw WireError.invalid('invalid_tool_definition', 'tool_choice must be an object such as {"type": "auto"}.', 'tool_choice');
  const disableParallel = value.disable_parallel_tool_use === true;
  switch (value.type) {
    case 'auto':
      return { choice: { type: 'auto' }, disableParallel };
    case 'none':
      return { choice: { type: 'none' }, disableParallel };
    case 'any':
      return { choice: { type: 'required' }, disableParallel };
    case 'tool':
      if (typeof value.name === 'string' && value.name !== '') return { choice: { type: 'tool', name: value.name }, disableParallel };
      throw WireError.invalid('invalid_tool_definition', 'tool_choice.name is required with type "tool".', 'tool_choice.name');
    default:
      throw WireError.invalid('invalid_tool_definition', 'tool_choice.type must be "auto", "any", "tool" or "none".', 'tool_choice.type');
  }
}
