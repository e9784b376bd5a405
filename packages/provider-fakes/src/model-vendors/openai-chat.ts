import { type Answer, type ParsedInput, TokenCounter, buildAnswer, fakeTokenCount } from './answer';
import { SUPPORTED_IMAGE_TYPES, asArray, asRecord, dataFrame, imageMediaType, num, openAIChatUsage, openAIFinish, str, strings } from './common';
import { fakeModelInfo } from './models';
import { PROMPT_CACHE_ENTRIES, type RespondContext, type StreamFrame, type VendorResult, type VendorState } from './server';

/** A request-validation problem in OpenAI's terms. */
export interface OpenAIRequestError {
  status: number;
  message: string;
  param: string | null;
  code: string | null;
}

export interface ParsedChat {
  input: ParsedInput;
  stream: boolean;
  includeUsage: boolean;
  /** The tier the answer reports: the requested `service_tier`, `default` for none or `auto`. */
  serviceTier: string;
  /** Cache key and size of everything before the last message (OpenAI's automatic prompt caching). */
  prefix?: { key: string; tokens: number };
}

function textOf(content: unknown, counter: TokenCounter, images: { bad?: string }): string {
  if (typeof content === 'string') {
    counter.text(content);
    return content;
  }
  const texts: string[] = [];
  for (const part of asArray(content)) {
    const p = asRecord(part);
    if (p.type === 'text' || p.type === 'input_text' || p.type === 'output_text') {
      const t = str(p.text) ?? '';
      counter.text(t);
      texts.push(t);
    } else if (p.type === 'image_url' || p.type === 'input_image') {
      const url = str(asRecord(p.image_url).url) ?? str(p.image_url) ?? '';
      const media = url.startsWith('data:') ? imageMediaType(url) : undefined;
      if (media !== undefined && !SUPPORTED_IMAGE_TYPES.has(media)) images.bad = media;
      counter.image();
    } else if (p.type === 'file' || p.type === 'input_file' || p.type === 'input_audio') {
      counter.image();
    } else if (p.type === 'refusal') {
      counter.text(p.refusal);
    }
  }
  return texts.join(' ');
}

/** OpenAI's `tool_choice`: a mode, or a named function (chat: `{function: {name}}`, responses: `{name}`). */
export function openAIToolChoice(choice: unknown, hasTools: boolean): ParsedInput['toolChoice'] {
  if (choice === 'none' || choice === 'required' || choice === 'auto') return choice;
  if (choice && typeof choice === 'object') {
    const c = asRecord(choice);
    return { name: str(asRecord(c.function).name) ?? str(c.name) ?? '' };
  }
  return hasTools ? 'auto' : 'none';
}

/** Hidden reasoning tokens an OpenAI reasoning model spends for an effort (none/minimal spend none). */
export function reasoningTokensFor(model: string, effort: unknown): number {
  if (!fakeModelInfo(model).reasons) return 0;
  switch (effort) {
    case 'none':
    case 'minimal':
      return 0;
    case 'low':
      return 8;
    case 'high':
    case 'xhigh':
      return 32;
    default:
      return 16;
  }
}

export const INVALID_IMAGE: (media: string) => OpenAIRequestError = (media) => ({
  status: 400,
  message: `You uploaded an unsupported image (${media}). Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].`,
  param: null,
  code: 'invalid_image_format',
});

/** Reads a chat-completions request the way OpenAI validates it; returns the problem when it is invalid. */
export function parseChatRequest(body: unknown, model: string): ParsedChat | OpenAIRequestError {
  const b = asRecord(body);
  const messages = b.messages;
  if (!Array.isArray(messages)) return { status: 400, message: "Missing required parameter: 'messages'.", param: 'messages', code: 'missing_required_parameter' };
  if (messages.length === 0) {
    return { status: 400, message: "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", param: 'messages', code: 'empty_array' };
  }
  const counter = new TokenCounter();
  const images: { bad?: string } = {};
  const toolNames = new Map<string, string>();
  let lastUserText = '';
  let lastToolResult: ParsedInput['lastToolResult'];
  let beforeLast = 0;
  messages.forEach((raw: unknown, i: number) => {
    if (i === messages.length - 1) beforeLast = counter.tokens;
    const m = asRecord(raw);
    const text = textOf(m.content, counter, images);
    for (const call of asArray(m.tool_calls)) {
      const c = asRecord(call);
      const f = asRecord(c.function);
      counter.text(f.name);
      counter.text(f.arguments);
      if (typeof c.id === 'string' && typeof f.name === 'string') toolNames.set(c.id, f.name);
    }
    if (m.role === 'user') lastUserText = text;
    lastToolResult = m.role === 'tool' || m.role === 'function' ? { name: toolNames.get(str(m.tool_call_id) ?? '') ?? str(m.name), content: text } : undefined;
  });
  if (images.bad) return INVALID_IMAGE(images.bad);
  const tools = asArray(b.tools).map((t) => {
    const f = asRecord(asRecord(t).function);
    counter.json({ name: f.name, description: f.description, parameters: f.parameters });
    return { name: str(f.name) ?? 'tool', parameters: f.parameters };
  });
  const toolChoice = openAIToolChoice(b.tool_choice, tools.length > 0);
  const format = asRecord(b.response_format);
  let responseFormat: ParsedInput['responseFormat'];
  if (format.type === 'json_object') responseFormat = { type: 'json_object' };
  if (format.type === 'json_schema') {
    const schema = asRecord(format.json_schema).schema;
    counter.json(schema);
    responseFormat = { type: 'json_schema', schema };
  }
  const input: ParsedInput = {
    inputTokens: counter.tokens,
    images: counter.images,
    lastUserText,
    tools,
    toolChoice,
    lastToolResult,
    maxOutputTokens: num(b.max_completion_tokens) ?? num(b.max_tokens),
    responseFormat,
    hiddenReasoningTokens: reasoningTokensFor(model, b.reasoning_effort),
    visibleThinking: false,
    stopSequences: typeof b.stop === 'string' ? [b.stop] : strings(b.stop),
  };
  const prefix = beforeLast >= 1024 ? { key: `${model}\u0000${JSON.stringify(b.tools ?? null)}\u0000${JSON.stringify(messages.slice(0, -1))}`, tokens: beforeLast } : undefined;
  return { input, stream: b.stream === true, includeUsage: asRecord(b.stream_options).include_usage === true, serviceTier: answeredTier(b.service_tier), prefix };
}

/** The `service_tier` OpenAI reports for a requested one (`auto` and none run at `default`). */
export function answeredTier(requested: unknown): string {
  return requested === 'flex' || requested === 'priority' || requested === 'scale' ? requested : 'default';
}

/** OpenAI's automatic prompt caching: a repeated prefix of 1024+ tokens is read in 128-token steps. */
export function automaticCache(state: VendorState, prefix: ParsedChat['prefix']): { read: number; write: number } {
  if (!prefix) return { read: 0, write: 0 };
  if (!state.cache.has(prefix.key)) {
    if (state.cache.size >= PROMPT_CACHE_ENTRIES) state.cache.clear();
    state.cache.set(prefix.key, prefix.tokens);
    return { read: 0, write: 0 };
  }
  return { read: 1024 + Math.floor((prefix.tokens - 1024) / 128) * 128, write: 0 };
}

/** How a chat-completions flavour differs (OpenAI itself, or an OpenAI-compatible vendor). */
export interface ChatFlavour {
  systemFingerprint: string | null;
  serviceTier: boolean;
  /** Extra fields on the last chunk before `[DONE]` (Groq's `x_groq.usage`). */
  finalChunkExtra?: (answer: Answer, id: string) => Record<string, unknown>;
}

export const OPENAI_FLAVOUR: ChatFlavour = { systemFingerprint: 'fp_fake0openai', serviceTier: true };

/** Builds the answer and renders it as a chat completion or a chat-completion chunk stream. */
export function respondChat(parsed: ParsedChat, ctx: RespondContext, flavour: ChatFlavour): VendorResult {
  const n = ctx.state.nextId();
  const id = `chatcmpl-fake${n.toString(36).padStart(12, '0')}`;
  const answer = buildAnswer({
    input: parsed.input,
    scripted: ctx.scripted,
    fault: ctx.fault,
    toolCallId: (i) => `call_${n.toString(36)}${i}fakeTool`,
    cache: automaticCache(ctx.state, parsed.prefix),
  });
  const created = Math.floor(ctx.state.now() / 1000);
  const head: Record<string, unknown> = { id, object: 'chat.completion', created, model: ctx.model };
  if (flavour.serviceTier) head.service_tier = parsed.serviceTier;
  if (flavour.systemFingerprint) head.system_fingerprint = flavour.systemFingerprint;
  const finishReason = openAIFinish(answer.finish);
  if (!parsed.stream) {
    const message: Record<string, unknown> = {
      role: 'assistant',
      content: answer.toolCalls.length > 0 && !answer.text ? null : answer.shapedBy === 'content_filter' ? null : answer.text,
      refusal: null,
      annotations: [],
    };
    if (answer.toolCalls.length > 0) {
      message.tool_calls = answer.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
    }
    return {
      type: 'json',
      body: { ...head, choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }], usage: openAIChatUsage(answer.usage) },
    };
  }
  const chunkHead: Record<string, unknown> = { ...head, object: 'chat.completion.chunk' };
  const withUsage = parsed.includeUsage ? { usage: null } : {};
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ ...chunkHead, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...withUsage });
  const frames: StreamFrame[] = [dataFrame(chunk({ role: 'assistant', content: '', refusal: null }))];
  for (const piece of answer.pieces) frames.push(dataFrame(chunk({ content: piece }), 1));
  answer.toolCalls.forEach((c, index) => {
    frames.push(dataFrame(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }), 1));
    for (const piece of c.pieces) frames.push(dataFrame(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }), 1));
  });
  const last: Record<string, unknown> = chunk({}, finishReason);
  if (flavour.finalChunkExtra) Object.assign(last, flavour.finalChunkExtra(answer, id));
  frames.push(dataFrame(last, 0, true));
  if (parsed.includeUsage) frames.push(dataFrame({ ...chunkHead, choices: [], usage: openAIChatUsage(answer.usage) }, 0, true));
  frames.push({ text: 'data: [DONE]\n\n', tokens: 0, terminal: true });
  return { type: 'stream', frames };
}

/** Input tokens of an embeddings `input` (strings by the fake's rule, token arrays by length). */
export function embeddingInputs(input: unknown): { texts: string[]; tokens: number } | undefined {
  const list = typeof input === 'string' ? [input] : Array.isArray(input) ? input : undefined;
  if (!list || list.length === 0) return undefined;
  if (list.every((x) => typeof x === 'number')) return { texts: [list.join(',')], tokens: list.length };
  const texts: string[] = [];
  let tokens = 0;
  for (const item of list) {
    if (typeof item === 'string') {
      texts.push(item);
      tokens += fakeTokenCount(item);
    } else if (Array.isArray(item)) {
      texts.push(item.join(','));
      tokens += item.length;
    } else return undefined;
  }
  return { texts, tokens };
}
