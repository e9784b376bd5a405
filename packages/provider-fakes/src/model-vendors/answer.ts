import type { FakeFault, FakeFinishReason, FakeScript, FakeUsage } from './types';

/**
 * The fakes' token approximation, the same for every vendor so tests can predict usage and cost
 * exactly: one token per 4 characters (UTF-16 code units) of text, rounded up per string.
 */
export function fakeTokenCount(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Tokens one image or document part of the input counts for (OpenAI's low-detail image cost). */
export const FAKE_IMAGE_TOKENS = 85;

/** What a vendor's request parser extracts for the fake to answer it. */
export interface ParsedInput {
  inputTokens: number;
  images: number;
  /** The text of the last user turn (what the default answer echoes). */
  lastUserText: string;
  tools: Array<{ name: string; parameters?: unknown }>;
  toolChoice: 'auto' | 'none' | 'required' | { name: string };
  /** Set when the last input item is a tool result: the default answer reports on it. */
  lastToolResult?: { name?: string; content: string };
  maxOutputTokens?: number;
  responseFormat?: { type: 'json_object' } | { type: 'json_schema'; schema: unknown };
  /** Hidden reasoning tokens the model spends by default (OpenAI o-series, Gemini 2.5). */
  hiddenReasoningTokens: number;
  /** Whether reasoning text is returned (Anthropic thinking, Gemini includeThoughts, OpenAI summaries). */
  visibleThinking: boolean;
  /** Stop sequences: the answer text ends before the first one it contains. */
  stopSequences?: string[];
}

/** Counts input tokens as the README documents. */
export class TokenCounter {
  tokens = 0;
  images = 0;
  text(value: unknown): void {
    if (typeof value === 'string') this.tokens += fakeTokenCount(value);
  }
  json(value: unknown): void {
    if (value !== undefined && value !== null) this.tokens += fakeTokenCount(typeof value === 'string' ? value : JSON.stringify(value));
  }
  image(): void {
    this.images += 1;
    this.tokens += FAKE_IMAGE_TOKENS;
  }
}

export interface AnswerToolCall {
  id: string;
  name: string;
  arguments: string;
  /** The argument string in stream-sized pieces. */
  pieces: string[];
}

/** The vendor-neutral answer each vendor renders in its own wire format. */
export interface Answer {
  text: string;
  pieces: string[];
  thinking: string;
  thinkingPieces: string[];
  toolCalls: AnswerToolCall[];
  finish: FakeFinishReason;
  usage: FakeUsage;
  /** Which fault shaped the answer, if any (content_filter, empty, reasoning_exhausted). */
  shapedBy?: FakeFault['kind'];
  /** The stop sequence that ended the text, when one did. */
  stopSequence?: string;
}

/** Splits text into stream pieces (one per word, leading whitespace attached); each counts one token. */
export function splitPieces(text: string): string[] {
  return text.match(/\s*\S+|\s+/g) ?? [];
}

function chunk(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function firstWords(text: string, count: number): string {
  const words = text.trim().split(/\s+/).filter(Boolean);
  return words.slice(0, count).join(' ') + (words.length > count ? ' …' : '');
}

/** A value that satisfies a JSON schema's common keywords, built deterministically. */
export function sampleFromSchema(schema: unknown, seed: string, depth = 0): unknown {
  if (!schema || typeof schema !== 'object' || depth > 8) return null;
  const s = schema as Record<string, unknown>;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const options = s[key];
    if (Array.isArray(options) && options.length > 0) {
      const usable = options.find((o) => (o as { type?: unknown })?.type !== 'null') ?? options[0];
      return sampleFromSchema(usable, seed, depth + 1);
    }
  }
  let type = s.type;
  if (Array.isArray(type)) type = type.find((t) => t !== 'null') ?? type[0];
  if (type === undefined && s.properties) type = 'object';
  switch (typeof type === 'string' ? type.toLowerCase() : type) {
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(properties)) out[name] = sampleFromSchema(sub, seed, depth + 1);
      return out;
    }
    case 'array': {
      const min = typeof s.minItems === 'number' ? Math.max(1, s.minItems) : 1;
      return Array.from({ length: min }, () => sampleFromSchema(s.items, seed, depth + 1));
    }
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'string':
      if (s.format === 'date-time') return '2025-01-01T00:00:00Z';
      if (s.format === 'date') return '2025-01-01';
      return seed || 'fake';
    default:
      return null;
  }
}

function mentionsTool(text: string, name: string): boolean {
  return new RegExp(`(^|[^\\w])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^\\w]|$)`, 'i').test(text);
}

export interface AnswerContext {
  input: ParsedInput;
  scripted?: FakeScript;
  fault?: FakeFault;
  /** Makes a tool-call id in the vendor's form. */
  toolCallId: (index: number) => string;
  /** Prompt-cache accounting the vendor computed (tokens read and written). */
  cache?: { read: number; write: number };
}

/**
 * Builds the answer: scripted content first, else the documented default (a tool call when the
 * request forces one or names a tool, a report on the last tool result, JSON for a response format,
 * else an echo of the last user text), then max-token truncation, fault shaping and usage overrides.
 */
export function buildAnswer(ctx: AnswerContext): Answer {
  const { input, scripted, fault } = ctx;
  let text = '';
  let thinking = '';
  let calls: Array<{ id?: string; name: string; arguments: unknown }> = [];
  let finish: FakeFinishReason | undefined = scripted?.finishReason;
  const seed = firstWords(input.lastUserText, 6);
  const scriptedContent = scripted && (scripted.text !== undefined || scripted.toolCalls !== undefined || scripted.thinking !== undefined);

  if (scriptedContent) {
    text = scripted.text ?? '';
    calls = scripted.toolCalls ?? [];
    thinking = scripted.thinking ?? '';
  } else {
    const choice = input.toolChoice;
    const forced = typeof choice === 'object' ? input.tools.find((t) => t.name === choice.name) : choice === 'required' ? input.tools[0] : undefined;
    const named = choice === 'auto' && !input.lastToolResult ? input.tools.find((t) => mentionsTool(input.lastUserText, t.name)) : undefined;
    const tool = choice === 'none' ? undefined : (forced ?? named);
    if (tool) {
      calls = [{ name: tool.name, arguments: sampleFromSchema(tool.parameters ?? { type: 'object' }, seed) ?? {} }];
    } else if (input.lastToolResult) {
      text = `Tool ${input.lastToolResult.name ?? 'call'} returned: ${firstWords(input.lastToolResult.content, 24)}`;
    } else if (input.responseFormat?.type === 'json_schema') {
      text = JSON.stringify(sampleFromSchema(input.responseFormat.schema, seed));
    } else if (input.responseFormat?.type === 'json_object') {
      text = JSON.stringify({ echo: firstWords(input.lastUserText, 24) });
    } else {
      const images = input.images > 0 ? ` [${input.images} image${input.images === 1 ? '' : 's'}]` : '';
      text = `You said: ${firstWords(input.lastUserText, 24) || '(nothing)'}${images}`;
    }
    if (input.visibleThinking) thinking = `Thinking about: ${firstWords(input.lastUserText, 8) || 'the request'}`;
  }

  const toolCalls: AnswerToolCall[] = calls.map((c, i) => {
    const args = typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {});
    return { id: c.id ?? ctx.toolCallId(i), name: c.name, arguments: args, pieces: args.length === 0 ? [''] : chunk(args, 16) };
  });
  let stopSequence: string | undefined;
  for (const seq of input.stopSequences ?? []) {
    const at = seq ? text.indexOf(seq) : -1;
    if (at !== -1 && (stopSequence === undefined || at < text.indexOf(stopSequence))) stopSequence = seq;
  }
  if (stopSequence !== undefined) {
    text = text.slice(0, text.indexOf(stopSequence));
    finish = 'stop';
  }
  let pieces = splitPieces(text);
  let thinkingPieces = splitPieces(thinking);
  let reasoningTokens = fakeTokenCount(thinking) + (thinking ? 0 : input.hiddenReasoningTokens);
  const toolTokens = toolCalls.reduce((n, c) => n + fakeTokenCount(c.arguments) + fakeTokenCount(c.name), 0);
  let outputTokens = pieces.length + toolTokens + reasoningTokens;
  let shapedBy: Answer['shapedBy'];

  const max = input.maxOutputTokens;
  if (max !== undefined && outputTokens > max) {
    // The model ran out of output budget: reasoning first, then text; tool calls are never half-emitted.
    finish = 'max_tokens';
    toolCalls.length = 0;
    reasoningTokens = Math.min(reasoningTokens, max);
    pieces = pieces.slice(0, Math.max(0, max - reasoningTokens));
    text = pieces.join('');
    outputTokens = reasoningTokens + pieces.length;
  }

  if (fault?.kind === 'content_filter' || fault?.kind === 'empty' || fault?.kind === 'reasoning_exhausted') {
    shapedBy = fault.kind;
    toolCalls.length = 0;
    pieces = [];
    text = '';
    if (fault.kind === 'reasoning_exhausted') {
      reasoningTokens = max ?? Math.max(input.hiddenReasoningTokens, 64);
      if (!input.visibleThinking) thinkingPieces = [];
      thinking = thinkingPieces.join('');
      outputTokens = reasoningTokens;
      finish = 'max_tokens';
    } else {
      thinking = '';
      thinkingPieces = [];
      reasoningTokens = 0;
      outputTokens = 0;
      finish = fault.kind === 'content_filter' ? 'content_filter' : 'stop';
    }
  }

  const cache = ctx.cache ?? { read: 0, write: 0 };
  const usage: FakeUsage = {
    inputTokens: input.inputTokens,
    cachedInputTokens: cache.read,
    cacheWriteInputTokens: cache.write,
    outputTokens,
    reasoningTokens,
    ...scripted?.usage,
  };
  return {
    text,
    pieces,
    thinking,
    thinkingPieces,
    toolCalls,
    finish: finish ?? (toolCalls.length > 0 ? 'tool_use' : 'stop'),
    usage,
    shapedBy,
    stopSequence: finish === 'stop' && !shapedBy ? stopSequence : undefined,
  };
}

/** A deterministic unit vector for a text: the same text always embeds to the same vector. */
export function fakeEmbedding(text: string, dimensions: number): Float32Array {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  let state = h >>> 0 || 1;
  const out = new Float32Array(dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    const v = state / 0xffffffff - 0.5;
    out[i] = v;
    norm += v * v;
  }
  const scale = 1 / Math.sqrt(norm || 1);
  for (let i = 0; i < dimensions; i++) out[i] = (out[i] ?? 0) * scale;
  return out;
}

/** Little-endian float32 bytes in base64, as OpenAI's `encoding_format: "base64"` returns them. */
export function embeddingToBase64(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
}
