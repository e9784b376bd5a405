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
  parseGatewayFields,
  parseResponseFormat,
  requireObject,
} from './common';
import { checkToolSequence, TurnBuilder } from './messages';
import { parseArguments } from './openai-chat';
import { isObject, ShapeReader, type Json } from './shape';

const ROLES = ['system', 'developer', 'user', 'assistant'];
const DROPPED = ['top_logprobs', 'truncation', 'background', 'prompt', 'max_tool_calls'];

/** OpenAI `POST /responses` as the `openai` SDK and `@ai-sdk/openai` send it. */
export function parseOpenAIResponsesRequest(body: unknown): ParsedChatRequest {
  const obj = requireObject(body, 'invalid_openai_responses_request', 'The responses request');
  const shape = new ShapeReader(false);
  const gateway = parseGatewayFields(obj, shape, false);
  const request = emptyRequest();
  request.stream = gateway.stream;
  request.maxOutputTokens = shape.number(obj, 'max_output_tokens', [], { integer: true, min: 1 }) ?? null;
  request.temperature = shape.number(obj, 'temperature', [], { min: 0, max: 2 }) ?? null;
  request.topP = shape.number(obj, 'top_p', [], { min: 0, max: 1 }) ?? null;
  request.parallelToolCalls = shape.boolean(obj, 'parallel_tool_calls', []) ?? null;
  request.endUserId = shape.string(obj, 'safety_identifier', []) ?? gateway.user;
  const instructions = shape.string(obj, 'instructions', []) ?? null;

  if (obj.conversation !== undefined && obj.conversation !== null) {
    throw WireError.invalid('conversation_unsupported', 'conversation is not supported: send the whole conversation in "input".', 'conversation');
  }
  const previous = obj.previous_response_id;
  if (previous !== undefined && previous !== null) {
    if (typeof previous !== 'string') throw WireError.invalid('invalid_previous_response_id', 'previous_response_id must be a string.', 'previous_response_id');
    throw WireError.invalid('previous_response_id_unsupported', `previous_response_id "${previous.slice(0, 64)}" cannot be resumed: the gateway does not store responses; send the whole conversation in "input".`, 'previous_response_id');
  }

  const turns = new TurnBuilder();
  if (instructions) turns.addSystem([{ type: 'text', text: instructions }]);
  const input = obj.input;
  if (input === undefined || input === null || input === '' || (Array.isArray(input) && input.length === 0)) {
    throw WireError.invalid('empty_input', 'input is empty: send a string or at least one input item.', 'input');
  }
  if (typeof input === 'string') turns.add('user', [{ type: 'text', text: input }]);
  else if (Array.isArray(input)) input.forEach((item, i) => parseItem(item, i, turns));
  else throw WireError.invalid('invalid_input_item', 'input must be a string or a list of input items.', 'input');
  if (turns.messages.length === 0) throw WireError.invalid('empty_input', 'input holds only instructions: send at least one user message.', 'input');
  checkToolSequence(turns.messages, 'input');
  request.system = turns.system;
  request.messages = turns.messages;

  request.tools = (shape.array(obj, 'tools', []) ?? []).map((tool, i) => parseTool(tool, i));
  checkUniqueTools(request.tools, 'tools');
  request.toolChoice = parseToolChoice(obj.tool_choice);
  checkToolChoice(request.toolChoice, request.tools, 'tool_choice');

  const text = shape.object(obj, 'text', []);
  if (text && text.format !== undefined) request.responseFormat = parseResponseFormat(text.format, 'text.format', true);
  const reasoning = shape.object(obj, 'reasoning', []);
  if (reasoning) {
    const effort = checkEffort(reasoning.effort, 'reasoning.effort');
    const summary = typeof reasoning.summary === 'string' ? reasoning.summary : undefined;
    if (effort || summary) request.reasoning = { ...(effort ? { effort } : {}), ...(summary ? { summary } : {}) };
  }

  const warnings: Warning[] = [];
  const dropped = DROPPED.filter((f) => obj[f] !== undefined && obj[f] !== null);
  if (dropped.length > 0) warnings.push(droppedFieldWarning(dropped));
  return { surface: 'openai-responses', request, gateway, render: { includeUsage: true, instructions }, warnings };
}

function parseItem(item: unknown, i: number, turns: TurnBuilder): void {
  const at = `input[${i}]`;
  if (!isObject(item)) throw WireError.invalid('invalid_input_item', `${at} must be an input item object.`, at);
  const type = item.type ?? 'message';
  switch (type) {
    case 'message': {
      const role = item.role;
      if (typeof role !== 'string' || !ROLES.includes(role)) {
        throw WireError.invalid('invalid_input_item', `${at}.role must be one of system, developer, user or assistant; got ${JSON.stringify(role)}.`, `${at}.role`);
      }
      const blocks = content(item.content, `${at}.content`);
      if (role === 'system' || role === 'developer') {
        if (blocks.some((b) => b.type !== 'text')) throw WireError.invalid('invalid_message_content', `${at}.content: system and developer messages hold text only.`, `${at}.content`);
        turns.addSystem(blocks as TextBlock[]);
      } else turns.add(role as 'user' | 'assistant', blocks);
      return;
    }
    case 'function_call': {
      if (typeof item.call_id !== 'string' || typeof item.name !== 'string') {
        throw WireError.invalid('invalid_tool_messages', `${at}: a function_call item needs "call_id", "name" and "arguments".`, at);
      }
      const json = typeof item.arguments === 'string' ? item.arguments : '{}';
      turns.add('assistant', [{ type: 'tool_use', id: item.call_id, name: item.name, input: parseArguments(json), inputJson: json }]);
      return;
    }
    case 'function_call_output': {
      if (typeof item.call_id !== 'string') throw WireError.invalid('invalid_tool_messages', `${at}.call_id must name the function call this output answers.`, `${at}.call_id`);
      const output = item.output;
      let parts: ToolResultBlock['content'];
      if (typeof output === 'string') parts = [{ type: 'text', text: output }];
      else if (Array.isArray(output)) parts = content(output, `${at}.output`) as ToolResultBlock['content'];
      else throw WireError.invalid('invalid_message_content', `${at}.output must be a string or a list of input parts.`, `${at}.output`);
      turns.add('user', [{ type: 'tool_result', toolUseId: item.call_id, content: parts, isError: false }]);
      return;
    }
    case 'reasoning': {
      const blocks: ContentBlock[] = [];
      if (typeof item.encrypted_content === 'string') blocks.push({ type: 'redacted_thinking', data: item.encrypted_content, origin: 'openai' });
      else if (Array.isArray(item.summary)) {
        const text = item.summary.map((s) => (isObject(s) && typeof s.text === 'string' ? s.text : '')).join('\n');
        if (text) blocks.push({ type: 'thinking', thinking: text, origin: 'openai' });
      }
      turns.add('assistant', blocks);
      return;
    }
    case 'item_reference':
      throw WireError.invalid('invalid_input_item', `${at}: item references need stored responses, which the gateway does not keep; send the item itself.`, at);
    default:
      throw WireError.invalid('invalid_input_item', `${at}.type ${JSON.stringify(type)} is not supported; use message, function_call, function_call_output or reasoning.`, `${at}.type`);
  }
}

function content(value: unknown, at: string): ContentBlock[] {
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }];
  if (!Array.isArray(value)) throw WireError.invalid('invalid_message_content', `${at} must be a string or a list of content parts.`, at);
  return value.map((part, j) => contentPart(part, `${at}[${j}]`));
}

function contentPart(part: unknown, at: string): ContentBlock {
  if (!isObject(part)) throw WireError.invalid('invalid_message_content', `${at} must be a content part with a "type".`, at);
  switch (part.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      if (typeof part.text !== 'string') throw WireError.invalid('invalid_message_content', `${at}.text must be a string.`, `${at}.text`);
      return { type: 'text', text: part.text };
    case 'refusal':
      return { type: 'text', text: typeof part.refusal === 'string' ? part.refusal : '' };
    case 'input_image': {
      const detail = typeof part.detail === 'string' ? part.detail : undefined;
      if (typeof part.image_url === 'string' && part.image_url !== '') return { type: 'image', source: mediaFromUrl(part.image_url), ...(detail ? { detail } : {}) };
      if (typeof part.file_id === 'string') return { type: 'image', source: { kind: 'file', fileId: part.file_id }, ...(detail ? { detail } : {}) };
      throw WireError.invalid('invalid_message_content', `${at} needs "image_url" (a URL or data: URI) or "file_id".`, at);
    }
    case 'input_file': {
      const title = typeof part.filename === 'string' ? part.filename : undefined;
      if (typeof part.file_data === 'string') {
        const source = mediaFromUrl(part.file_data, 'application/pdf');
        const base64 = source.kind === 'url' ? { kind: 'base64' as const, mediaType: 'application/pdf', data: part.file_data } : source;
        return { type: 'document', source: base64, ...(title ? { title } : {}) };
      }
      if (typeof part.file_url === 'string') return { type: 'document', source: mediaFromUrl(part.file_url), ...(title ? { title } : {}) };
      if (typeof part.file_id === 'string') return { type: 'document', source: { kind: 'file', fileId: part.file_id }, ...(title ? { title } : {}) };
      throw WireError.invalid('invalid_message_content', `${at} needs "file_data", "file_url" or "file_id".`, at);
    }
    case 'input_audio': {
      const audio = isObject(part.input_audio) ? part.input_audio : part;
      if (typeof audio.data !== 'string' || typeof audio.format !== 'string') throw WireError.invalid('invalid_message_content', `${at}.input_audio needs "data" and "format".`, at);
      return { type: 'audio', source: { kind: 'base64', mediaType: `audio/${audio.format === 'mp3' ? 'mpeg' : audio.format}`, data: audio.data } };
    }
    default:
      throw WireError.invalid('invalid_message_content', `${at}.type ${JSON.stringify(part.type)} is not a content part; use input_text, input_image, input_file or input_audio.`, `${at}.type`);
  }
}

function parseTool(tool: unknown, i: number): ToolDefinition {
  const at = `tools[${i}]`;
  if (!isObject(tool)) throw WireError.invalid('invalid_tool_definition', `${at} must be {"type": "function", "name", "parameters"}.`, at);
  if (tool.type !== 'function') {
    throw WireError.invalid('unsupported_tool_type', `${at}: the gateway cannot execute tools of type ${JSON.stringify(tool.type)}; define a function tool.`, `${at}.type`);
  }
  return checkTool(tool.name, tool.description, tool.parameters, ['tools', i], tool.strict);
}

function parseToolChoice(value: unknown): ToolChoice | null {
  if (value === undefined || value === null) return null;
  if (value === 'auto' || value === 'none' || value === 'required') return { type: value };
  if (isObject(value) && value.type === 'function' && typeof value.name === 'string') return { type: 'tool', name: value.name };
  if (isObject(value) && value.type === 'allowed_tools') return { type: (value as Json).mode === 'required' ? 'required' : 'auto' };
  throw WireError.invalid('invalid_tool_definition', 'tool_choice must be "auto", "none", "required" or {"type": "function", "name": ...}.', 'tool_choice');
}
