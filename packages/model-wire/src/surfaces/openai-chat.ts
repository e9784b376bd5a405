import { WireError } from '../errors';
import type { ContentBlock, ParsedChatRequest, TextBlock, ToolChoice, ToolDefinition, ToolResultBlock, Warning } from '../types';
import {
  checkEffort,
  checkTool,
  checkToolChoice,
  checkUniqueTools,
  droppedFieldWarning,
  emptyRequest,
  mediaFromUrl,
  parseCacheControl,
  parseGatewayFields,
  parseResponseFormat,
  requireObject,
} from './common';
import { checkToolSequence, TurnBuilder } from './messages';
import { isObject, ShapeReader, type Json } from './shape';

/** Chat completions fields the gateway accepts but does not carry out; dropped with a warning. */
const DROPPED = ['logprobs', 'top_logprobs', 'logit_bias', 'prediction', 'audio', 'modalities', 'web_search_options'];

/** OpenAI `POST /chat/completions` as the `openai` SDK and every OpenAI-compatible client send it. */
export function parseOpenAIChatRequest(body: unknown): ParsedChatRequest {
  const obj = requireObject(body, 'invalid_request_body', 'The request body');
  const shape = new ShapeReader(false);
  const gateway = parseGatewayFields(obj, shape, false);
  const request = emptyRequest();
  request.stream = gateway.stream;
  const maxCompletion = shape.number(obj, 'max_completion_tokens', [], { integer: true, min: 1 });
  request.maxOutputTokens = maxCompletion ?? shape.number(obj, 'max_tokens', [], { integer: true, min: 1 }) ?? null;
  request.temperature = shape.number(obj, 'temperature', [], { min: 0, max: 2 }) ?? null;
  request.topP = shape.number(obj, 'top_p', [], { min: 0, max: 1 }) ?? null;
  request.seed = shape.number(obj, 'seed', [], { integer: true }) ?? null;
  request.presencePenalty = shape.number(obj, 'presence_penalty', [], { min: -2, max: 2 }) ?? null;
  request.frequencyPenalty = shape.number(obj, 'frequency_penalty', [], { min: -2, max: 2 }) ?? null;
  request.parallelToolCalls = shape.boolean(obj, 'parallel_tool_calls', []) ?? null;
  request.endUserId = shape.string(obj, 'safety_identifier', []) ?? gateway.user;
  const stop = obj.stop;
  request.stop = typeof stop === 'string' ? [stop] : (shape.stringArray(obj, 'stop', []) ?? []);
  const n = shape.number(obj, 'n', [], { integer: true, min: 1 });
  if (n !== null && n !== undefined && n > 1) throw WireError.invalid('unsupported_params', 'n: the gateway returns one choice per request; send n = 1 (or leave it out) and make several requests.', 'n');
  const streamOptions = shape.object(obj, 'stream_options', []);
  const includeUsage = streamOptions?.include_usage === true;

  const messages = obj.messages;
  if (!Array.isArray(messages)) {
    if (messages === undefined) throw WireError.invalid('empty_messages', 'messages is required: send at least one message.', 'messages');
    throw WireError.invalid('invalid_request_body', 'messages must be a list of messages.', 'messages');
  }
  if (messages.length === 0) throw WireError.invalid('empty_messages', 'messages is empty: send at least one message.', 'messages');
  const turns = new TurnBuilder();
  messages.forEach((message, i) => parseMessage(message, i, turns));
  if (turns.messages.length === 0) throw WireError.invalid('empty_messages', 'messages holds only system instructions: send at least one user message.', 'messages');
  checkToolSequence(turns.messages, 'messages');
  request.system = turns.system;
  request.messages = turns.messages;

  const tools = shape.array(obj, 'tools', []) ?? [];
  request.tools = tools.map((tool, i) => parseTool(tool, i));
  const functions = shape.array(obj, 'functions', []);
  if (functions) functions.forEach((fn, i) => request.tools.push(checkTool(isObject(fn) ? fn.name : undefined, isObject(fn) ? fn.description : undefined, isObject(fn) ? fn.parameters : undefined, ['functions', i])));
  checkUniqueTools(request.tools, 'tools');
  request.toolChoice = parseToolChoice(obj.tool_choice ?? legacyFunctionCall(obj.function_call));
  checkToolChoice(request.toolChoice, request.tools, 'tool_choice');

  request.responseFormat = parseResponseFormat(obj.response_format, 'response_format', false);
  const effort = checkEffort(obj.reasoning_effort, 'reasoning_effort');
  if (effort) request.reasoning = { effort };

  const warnings: Warning[] = [];
  const dropped = DROPPED.filter((f) => obj[f] !== undefined && obj[f] !== null && obj[f] !== false);
  if (dropped.length > 0) warnings.push(droppedFieldWarning(dropped));
  return { surface: 'openai-chat', request, gateway, render: { includeUsage }, warnings };
}

function legacyFunctionCall(value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  if (isObject(value) && typeof value.name === 'string') return { type: 'function', function: { name: value.name } };
  return value;
}

function textOf(content: unknown, at: string): TextBlock[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw WireError.invalid('invalid_message_content', `${at} must be a string or a list of text parts.`, at);
  return content.map((part, j) => {
    if (!isObject(part) || part.type !== 'text' || typeof part.text !== 'string') {
      throw WireError.invalid('invalid_message_content', `${at}[${j}] must be a text part {"type": "text", "text": ...}.`, `${at}[${j}]`);
    }
    const cache = parseCacheControl(part.cache_control);
    return cache ? { type: 'text', text: part.text, cache } : { type: 'text', text: part.text };
  });
}

function parseMessage(message: unknown, i: number, turns: TurnBuilder): void {
  const at = `messages[${i}]`;
  if (!isObject(message)) throw WireError.invalid('invalid_message_content', `${at} must be an object with "role" and "content".`, at);
  switch (message.role) {
    case 'system':
    case 'developer':
      turns.addSystem(textOf(message.content, `${at}.content`));
      return;
    case 'user':
      turns.add('user', userContent(message.content, `${at}.content`));
      return;
    case 'assistant':
      turns.add('assistant', assistantContent(message, at));
      return;
    case 'tool': {
      if (typeof message.tool_call_id !== 'string' || message.tool_call_id === '') {
        throw WireError.invalid('invalid_tool_messages', `${at}.tool_call_id must name the tool call this message answers.`, `${at}.tool_call_id`);
      }
      const block: ToolResultBlock = { type: 'tool_result', toolUseId: message.tool_call_id, content: textOf(message.content ?? '', `${at}.content`), isError: false };
      if (block.content.length === 0) block.content = [{ type: 'text', text: '' }];
      turns.add('user', [block]);
      return;
    }
    case 'function': {
      // Deprecated function role: answers the latest call of that function name; the id is its name.
      const name = typeof message.name === 'string' ? message.name : '';
      turns.add('user', [{ type: 'tool_result', toolUseId: `fc_${name}`, content: textOf(message.content ?? '', `${at}.content`), isError: false }]);
      return;
    }
    default:
      throw WireError.invalid('invalid_message_content', `${at}.role must be system, developer, user, assistant or tool; got ${JSON.stringify(message.role)}.`, `${at}.role`);
  }
}

function userContent(content: unknown, at: string): ContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content) || content.length === 0) throw WireError.invalid('invalid_message_content', `${at} must be a string or a non-empty list of content parts.`, at);
  return content.map((part, j) => userPart(part, `${at}[${j}]`));
}

function userPart(part: unknown, at: string): ContentBlock {
  if (!isObject(part)) throw WireError.invalid('invalid_message_content', `${at} must be a content part with a "type".`, at);
  const cache = parseCacheControl(part.cache_control);
  switch (part.type) {
    case 'text':
      if (typeof part.text !== 'string') throw WireError.invalid('invalid_message_content', `${at}.text must be a string.`, `${at}.text`);
      return cache ? { type: 'text', text: part.text, cache } : { type: 'text', text: part.text };
    case 'image_url': {
      const image = part.image_url;
      const url = typeof image === 'string' ? image : isObject(image) ? image.url : undefined;
      if (typeof url !== 'string' || url === '') throw WireError.invalid('invalid_message_content', `${at}.image_url.url must be the image's URL or a data: URI.`, `${at}.image_url.url`);
      const detail = isObject(image) && typeof image.detail === 'string' ? image.detail : undefined;
      return { type: 'image', source: mediaFromUrl(url), ...(detail ? { detail } : {}), ...(cache ? { cache } : {}) };
    }
    case 'input_audio': {
      const audio = part.input_audio;
      if (!isObject(audio) || typeof audio.data !== 'string' || typeof audio.format !== 'string') {
        throw WireError.invalid('invalid_message_content', `${at}.input_audio needs "data" (base64) and "format" (wav or mp3).`, `${at}.input_audio`);
      }
      return { type: 'audio', source: { kind: 'base64', mediaType: `audio/${audio.format === 'mp3' ? 'mpeg' : audio.format}`, data: audio.data } };
    }
    case 'file': {
      const file = part.file;
      if (!isObject(file)) throw WireError.invalid('invalid_message_content', `${at}.file must be an object with "file_data" or "file_id".`, `${at}.file`);
      const title = typeof file.filename === 'string' ? file.filename : undefined;
      if (typeof file.file_data === 'string') {
        const source = mediaFromUrl(file.file_data, 'application/pdf');
        if (source.kind === 'url') {
          // Bare base64 without a data: prefix, as some clients send it.
          return { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: file.file_data }, ...(title ? { title } : {}) };
        }
        return { type: 'document', source, ...(title ? { title } : {}) };
      }
      if (typeof file.file_id === 'string') return { type: 'document', source: { kind: 'file', fileId: file.file_id }, ...(title ? { title } : {}) };
      throw WireError.invalid('invalid_message_content', `${at}.file needs "file_data" (a data: URI) or "file_id".`, `${at}.file`);
    }
    default:
      throw WireError.invalid('invalid_message_content', `${at}.type ${JSON.stringify(part.type)} is not a content part; use text, image_url, input_audio or file.`, `${at}.type`);
  }
}

function assistantContent(message: Json, at: string): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  const content = message.content;
  if (Array.isArray(content)) {
    content.forEach((part, j) => {
      if (isObject(part) && part.type === 'refusal' && typeof part.refusal === 'string') blocks.push({ type: 'text', text: part.refusal });
      else blocks.push(...textOf([part], `${at}.content[${j}]`));
    });
  } else blocks.push(...textOf(content, `${at}.content`));
  const calls = message.tool_calls;
  if (calls !== undefined && calls !== null) {
    if (!Array.isArray(calls)) throw WireError.invalid('invalid_tool_messages', `${at}.tool_calls must be a list.`, `${at}.tool_calls`);
    calls.forEach((call, j) => {
      const where = `${at}.tool_calls[${j}]`;
      if (!isObject(call) || typeof call.id !== 'string' || !isObject(call.function) || typeof call.function.name !== 'string') {
        throw WireError.invalid('invalid_tool_messages', `${where} must be {"id", "type": "function", "function": {"name", "arguments"}}.`, where);
      }
      const args = call.function.arguments;
      const json = typeof args === 'string' ? args : JSON.stringify(args ?? {});
      blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseArguments(json), inputJson: json });
    });
  }
  const legacy = message.function_call;
  if (isObject(legacy) && typeof legacy.name === 'string') {
    const json = typeof legacy.arguments === 'string' ? legacy.arguments : '{}';
    blocks.push({ type: 'tool_use', id: `fc_${legacy.name}`, name: legacy.name, input: parseArguments(json), inputJson: json });
  }
  return blocks;
}

/** A model's tool arguments as JSON; text that is not JSON stays a string (the vendor will see it as written). */
export function parseArguments(json: string): unknown {
  if (json === '') return {};
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

function parseTool(tool: unknown, i: number): ToolDefinition {
  const at = `tools[${i}]`;
  if (!isObject(tool)) throw WireError.invalid('invalid_tool_definition', `${at} must be {"type": "function", "function": {...}}.`, at);
  if (tool.type !== 'function') {
    throw WireError.invalid('unsupported_tool_type', `${at}: the gateway cannot execute tools of type ${JSON.stringify(tool.type)}; define a function tool.`, `${at}.type`);
  }
  const fn = tool.function;
  if (!isObject(fn)) throw WireError.invalid('invalid_tool_definition', `${at}.function must be {"name", "description", "parameters"}.`, `${at}.function`);
  const def = checkTool(fn.name, fn.description, fn.parameters, ['tools', i, 'function'], fn.strict);
  const cache = parseCacheControl(tool.cache_control);
  if (cache) def.cache = cache;
  return def;
}

function parseToolChoice(value: unknown): ToolChoice | null {
  if (value === undefined || value === null) return null;
  if (value === 'auto' || value === 'none' || value === 'required') return { type: value };
  if (isObject(value) && value.type === 'function' && isObject(value.function) && typeof value.function.name === 'string') return { type: 'tool', name: value.function.name };
  if (isObject(value) && value.type === 'allowed_tools') return { type: isObject(value.allowed_tools) && value.allowed_tools.mode === 'required' ? 'required' : 'auto' };
  throw WireError.invalid('invalid_tool_definition', 'tool_choice must be "auto", "none", "required" or {"type": "function", "function": {"name": ...}}.', 'tool_choice');
}
