import type { ResponseHeaders } from '@patchbay/outbound';
import { VendorError, type VendorErrorInit } from '../errors';
import { WireError } from '../errors';
import { dataUrl } from '../surfaces/common';
import { parseArguments } from '../surfaces/openai-chat';
import { base64Float32 } from '../surfaces/openai-embeddings';
import type { CanonicalRequest, CanonicalStreamEvent, ContentBlock, FinishReason, NormalizedUsage, OutputBlock, ReasoningEffort, VendorTarget, Warning } from '../types';
import {
  count,
  kindByStatus,
  looksLikeContextLength,
  parseJson,
  vendorErrorInit,
  vendorMessage,
  zeroUsage,
  type DialectAdapter,
  type StreamDecoder,
  type VendorAnswer,
  type VendorRequest,
} from './adapter';
import { clampEffort, effortWarning, prepareRequest } from './prepare';
import { vendorUrl } from './vendor-url';

type Json = Record<string, unknown>;

const FINISH: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'content_filter',
};

/** OpenAI effort levels; `max` is clamped to `xhigh` with a warning. */
const OPENAI_EFFORTS: ReasoningEffort[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];
/** What OpenAI-compatible vendors (Groq, vLLM, Ollama…) commonly accept. */
const COMPATIBLE_EFFORTS: ReasoningEffort[] = ['none', 'low', 'medium', 'high'];


function audioFormat(mediaType: string): string {
  const sub = mediaType.split('/')[1] ?? 'wav';
  return sub === 'mpeg' || sub === 'mp3' ? 'mp3' : sub === 'x-wav' ? 'wav' : sub;
}

function userParts(blocks: ContentBlock[], target: VendorTarget): unknown[] {
  const parts: unknown[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: block.text });
        break;
      case 'image': {
        const src = block.source;
        if (src.kind === 'file') throw WireError.invalid('unsupported_params', `${target.vendor} cannot read another vendor's file id "${src.fileId}"; send the image inline or as a URL.`, 'input');
        const image: Json = { url: src.kind === 'base64' ? dataUrl(src) : src.url };
        if (block.detail) image.detail = block.detail;
        parts.push({ type: 'image_url', image_url: image });
        break;
      }
      case 'document': {
        const src = block.source;
        if (src.kind === 'file') parts.push({ type: 'file', file: { file_id: src.fileId } });
        else if (src.kind === 'base64') parts.push({ type: 'file', file: { file_data: dataUrl(src), filename: block.title ?? 'document.pdf' } });
        else throw WireError.invalid('unsupported_params', `${target.vendor} cannot fetch documents by URL; send the document inline (base64).`, 'input');
        break;
      }
      case 'audio':
        if (block.source.kind !== 'base64') throw WireError.invalid('unsupported_params', `${target.vendor} reads audio inline (base64) only.`, 'input');
        parts.push({ type: 'input_audio', input_audio: { data: block.source.data, format: audioFormat(block.source.mediaType) } });
        break;
      case 'video':
        throw WireError.invalid('unsupported_params', `${target.model} on ${target.vendor} cannot read video input.`, 'input');
      default:
        break;
    }
  }
  return parts;
}

function contentValue(parts: unknown[]): unknown {
  if (parts.length === 1 && (parts[0] as Json).type === 'text') return (parts[0] as Json).text;
  return parts;
}

function chatMessages(request: CanonicalRequest, target: VendorTarget, compatible: boolean): unknown[] {
  const out: unknown[] = [];
  if (request.system.length > 0) out.push({ role: 'system', content: request.system.map((b) => b.text).join('\n\n') });
  for (const message of request.messages) {
    if (message.role === 'assistant') {
      let text = '';
      const calls: unknown[] = [];
      let reasoning = '';
      for (const block of message.content) {
        if (block.type === 'text') text += block.text;
        else if (block.type === 'tool_use') calls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: block.inputJson ?? JSON.stringify(block.input ?? {}) } });
        else if (block.type === 'thinking' && compatible) reasoning += block.thinking;
      }
      const msg: Json = { role: 'assistant', content: text === '' && calls.length > 0 ? null : text };
      if (calls.length > 0) msg.tool_calls = calls;
      if (reasoning && compatible) msg.reasoning_content = reasoning;
      out.push(msg);
      continue;
    }
    // A user turn: tool results become `tool` messages first (OpenAI wants them right after the call), the rest one user message.
    const rest: ContentBlock[] = [];
    const toolImages: ContentBlock[] = [];
    for (const block of message.content) {
      if (block.type !== 'tool_result') {
        rest.push(block);
        continue;
      }
      let text = '';
      for (const part of block.content) {
        if (part.type === 'text') text += (text ? '\n' : '') + part.text;
        else toolImages.push(part);
      }
      out.push({ role: 'tool', tool_call_id: block.toolUseId, content: block.isError && !text.startsWith('Error') ? `Error: ${text}` : text });
    }
    const blocks = toolImages.length > 0 ? [...toolImages, ...rest] : rest;
    if (blocks.length > 0) out.push({ role: 'user', content: contentValue(userParts(blocks, target)) });
  }
  return out;
}

/** Effort for the wire, clamped to what the dialect knows when the catalog said nothing. */
function effortFor(request: CanonicalRequest, target: VendorTarget, compatible: boolean, warnings: Warning[]): ReasoningEffort | undefined {
  const reasoning = request.reasoning;
  if (!reasoning) return undefined;
  let effort = reasoning.effort;
  if (!effort && reasoning.budgetTokens !== undefined) effort = reasoning.budgetTokens <= 2048 ? 'low' : reasoning.budgetTokens <= 12000 ? 'medium' : 'high';
  if (!effort && reasoning.enabled === false) effort = undefined;
  if (!effort) return undefined;
  if (target.capabilities?.reasoningEfforts !== undefined) return effort; // prepareRequest clamped already
  const applied = clampEffort(effort, compatible ? COMPATIBLE_EFFORTS : OPENAI_EFFORTS);
  if (applied !== effort) warnings.push(effortWarning(effort, applied, target));
  return applied ?? undefined;
}

export function buildChatBody(target: VendorTarget, request: CanonicalRequest, stream: boolean, compatible: boolean, warnings: Warning[]): Json {
  const body: Json = { model: target.vendorModel, messages: chatMessages(request, target, compatible) };
  if (request.maxOutputTokens !== null) body[compatible ? 'max_tokens' : 'max_completion_tokens'] = request.maxOutputTokens;
  if (request.temperature !== null) body.temperature = request.temperature;
  if (request.topP !== null) body.top_p = request.topP;
  if (request.stop.length > 0) body.stop = request.stop.slice(0, 4);
  if (request.seed !== null) body.seed = request.seed;
  if (request.presencePenalty !== null) body.presence_penalty = request.presencePenalty;
  if (request.frequencyPenalty !== null) body.frequency_penalty = request.frequencyPenalty;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, ...(t.description !== undefined ? { description: t.description } : {}), parameters: t.parameters, ...(t.strict !== undefined ? { strict: t.strict } : {}) },
    }));
    const choice = request.toolChoice;
    if (choice) body.tool_choice = choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type;
    if (request.parallelToolCalls !== null) body.parallel_tool_calls = request.parallelToolCalls;
  }
  const format = request.responseFormat;
  if (format && format.type !== 'text') {
    body.response_format =
      format.type === 'json_object'
        ? { type: 'json_object' }
        : { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, ...(format.strict !== undefined ? { strict: format.strict } : {}), ...(format.description ? { description: format.description } : {}) } };
  }
  const effort = effortFor(request, target, compatible, warnings);
  if (effort) body.reasoning_effort = effort;
  if (request.endUserId) body.user = request.endUserId;
  if (target.serviceTier) body.service_tier = target.serviceTier;
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

export function openAIUsage(usage: unknown): NormalizedUsage {
  const u = (usage ?? {}) as Json;
  const prompt = (u.prompt_tokens_details ?? {}) as Json;
  const completion = (u.completion_tokens_details ?? {}) as Json;
  return {
    inputTokens: count(u.prompt_tokens),
    cachedInputTokens: count(prompt.cached_tokens),
    cacheWriteInputTokens: 0,
    cacheWrite1hInputTokens: 0,
    outputTokens: count(u.completion_tokens),
    reasoningTokens: count(completion.reasoning_tokens),
  };
}

function malformed(target: VendorTarget, message: string, body?: unknown): VendorError {
  return new VendorError({ kind: 'malformed', message, vendor: target.vendor, model: target.model, vendorBody: body });
}

/** A mid-stream `{"error": {...}}` chunk, or a non-2xx body, as a VendorError's fields. */
export function classifyOpenAIError(status: number, body: unknown, headers: ResponseHeaders | null, target: VendorTarget): VendorErrorInit {
  const error = (body && typeof body === 'object' ? ((body as Json).error ?? body) : {}) as Json;
  const code = typeof error.code === 'string' ? error.code : null;
  const type = typeof error.type === 'string' ? error.type : null;
  const message = vendorMessage(body, `${target.vendor} answered ${status}`);
  let kind = kindByStatus(status);
  if (code === 'insufficient_quota' || type === 'insufficient_quota' || code === 'billing_hard_limit_reached') kind = 'billing';
  else if (code === 'context_length_exceeded' || ((status === 400 || status === 413) && looksLikeContextLength(message))) kind = 'context_length';
  else if (code === 'content_policy_violation' || code === 'content_filter' || type === 'content_policy_violation') kind = 'content_filter';
  else if (code === 'model_not_found' || (status === 404 && /model/i.test(message))) kind = 'not_found';
  else if (status === 0 && (type === 'server_error' || type === 'api_error')) kind = 'server';
  else if (status === 0 && (code === 'rate_limit_exceeded' || type === 'rate_limit_error' || type === 'rate_limit_exceeded')) kind = 'rate_limit';
  else if (status === 0 && (type === 'overloaded_error' || /overloaded/i.test(message))) kind = 'overloaded';
  else if (status === 0) kind = 'server';
  return { ...vendorErrorInit(kind, status, message, body, headers, target, code ?? type), param: typeof error.param === 'string' ? error.param : null };
}

function answerFromChoice(json: Json, target: VendorTarget, headers: ResponseHeaders): VendorAnswer {
  const choices = json.choices;
  if (!Array.isArray(choices)) throw malformed(target, `${target.vendor} answered without "choices"`, json);
  const choice = (choices[0] ?? {}) as Json;
  const message = (choice.message ?? {}) as Json;
  const output: OutputBlock[] = [];
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (typeof reasoning === 'string' && reasoning !== '') output.push({ type: 'thinking', thinking: reasoning });
  const refusal = typeof message.refusal === 'string' && message.refusal !== '' ? message.refusal : null;
  if (typeof message.content === 'string' && message.content !== '') output.push({ type: 'text', text: message.content });
  else if (refusal) output.push({ type: 'text', text: refusal });
  const calls = message.tool_calls;
  if (Array.isArray(calls)) {
    for (const call of calls as Json[]) {
      const fn = (call.function ?? {}) as Json;
      const json = typeof fn.arguments === 'string' ? fn.arguments : '{}';
      output.push({ type: 'tool_use', id: typeof call.id === 'string' ? call.id : `call_${output.length}`, name: String(fn.name ?? ''), input: parseArguments(json), inputJson: json });
    }
  }
  let finish = FINISH[String(choice.finish_reason)] ?? 'stop';
  if (refusal && finish === 'stop') finish = 'content_filter';
  if (finish === 'stop' && output.some((b) => b.type === 'tool_use')) finish = 'tool_use';
  return {
    output,
    finishReason: finish,
    stopSequence: null,
    refusal,
    usage: openAIUsage(json.usage),
    providerRequestId: typeof json.id === 'string' ? json.id : headers.get('x-request-id'),
    vendorModel: typeof json.model === 'string' ? json.model : target.vendorModel,
    serviceTier: typeof json.service_tier === 'string' ? json.service_tier : null,
  };
}

/** Chat-completion chunks into canonical events; `[DONE]` is the terminal frame. */
class ChatStreamDecoder implements StreamDecoder {
  readonly announcedInputTokens = null;
  private done = false;
  private finish: FinishReason | null = null;
  private refusal = '';
  private usage: NormalizedUsage | null = null;
  private id: string | null = null;
  private model: string;
  private tier: string | null = null;
  private next = 0;
  private textIndex = -1;
  private thinkingIndex = -1;
  private readonly toolIndex = new Map<number, number>();
  private last: 'text' | 'thinking' | 'tool' | null = null;
  private sawTool = false;

  constructor(private readonly target: VendorTarget, private readonly headers: ResponseHeaders) {
    this.model = target.vendorModel;
  }

  frame(frame: { data: string }, out: CanonicalStreamEvent[]): void {
    if (this.done) return;
    const data = frame.data;
    if (data === '[DONE]') {
      this.done = true;
      this.emitFinish(out);
      return;
    }
    let chunk: Json;
    try {
      chunk = JSON.parse(data) as Json;
    } catch {
      throw malformed(this.target, `${this.target.vendor} sent a stream chunk that is not JSON`, data.slice(0, 200));
    }
    if (chunk === null || typeof chunk !== 'object') throw malformed(this.target, `${this.target.vendor} sent a stream chunk that is not an object`, data.slice(0, 200));
    if (chunk.error) throw new VendorError(classifyOpenAIError(0, chunk, null, this.target));
    if (typeof chunk.id === 'string' && !this.id) this.id = chunk.id;
    if (typeof chunk.model === 'string') this.model = chunk.model;
    if (typeof chunk.service_tier === 'string') this.tier = chunk.service_tier;
    if (chunk.usage && typeof chunk.usage === 'object') this.usage = openAIUsage(chunk.usage);
    const choices = chunk.choices;
    if (!Array.isArray(choices)) {
      if (!chunk.usage) throw malformed(this.target, `${this.target.vendor} sent a stream chunk without "choices"`, data.slice(0, 200));
      return;
    }
    const choice = choices[0] as Json | undefined;
    if (!choice) return;
    const delta = (choice.delta ?? {}) as Json;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string' && reasoning !== '') {
      if (this.last !== 'thinking') {
        this.thinkingIndex = this.next++;
        this.last = 'thinking';
      }
      out.push({ type: 'thinking_delta', index: this.thinkingIndex, thinking: reasoning });
    }
    const text = typeof delta.content === 'string' ? delta.content : typeof delta.refusal === 'string' ? delta.refusal : '';
    if (typeof delta.refusal === 'string') this.refusal += delta.refusal;
    if (text !== '') {
      if (this.last !== 'text') {
        this.textIndex = this.next++;
        this.last = 'text';
      }
      out.push({ type: 'text_delta', index: this.textIndex, text });
    }
    const calls = delta.tool_calls;
    if (Array.isArray(calls)) {
      for (const call of calls as Json[]) {
        const vendorIndex = typeof call.index === 'number' ? call.index : 0;
        const fn = (call.function ?? {}) as Json;
        let index = this.toolIndex.get(vendorIndex);
        if (index === undefined) {
          index = this.next++;
          this.toolIndex.set(vendorIndex, index);
          this.last = 'tool';
          this.sawTool = true;
          out.push({ type: 'tool_call_start', index, id: typeof call.id === 'string' ? call.id : `call_${index}`, name: String(fn.name ?? '') });
        }
        if (typeof fn.arguments === 'string' && fn.arguments !== '') out.push({ type: 'tool_call_delta', index, argumentsDelta: fn.arguments });
      }
    }
    if (typeof choice.finish_reason === 'string') this.finish = FINISH[choice.finish_reason] ?? 'stop';
  }

  private emitFinish(out: CanonicalStreamEvent[]): void {
    if (this.finish === null) throw new VendorError({ kind: 'stream_cut', message: `${this.target.vendor} ended the stream without a finish_reason`, vendor: this.target.vendor, model: this.target.model });
    let finish = this.finish;
    if (this.refusal && finish === 'stop') finish = 'content_filter';
    if (finish === 'stop' && this.sawTool) finish = 'tool_use';
    out.push({
      type: 'finish',
      finishReason: finish,
      stopSequence: null,
      usage: this.usage ?? { ...zeroUsage(), estimated: true },
      providerRequestId: this.id ?? this.headers.get('x-request-id'),
      vendorModel: this.model,
      serviceTier: this.tier,
      refusal: this.refusal || null,
    });
  }

  end(): void {
    if (!this.done) throw new VendorError({ kind: 'stream_cut', message: `${this.target.vendor} closed the stream without its terminal [DONE] frame`, vendor: this.target.vendor, model: this.target.model });
  }
}

function headersFor(target: VendorTarget): Record<string, string> {
  return { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${target.apiKey}`, ...target.extraHeaders };
}

/** OpenAI chat completions; with `compatible`, the variant Groq, Together, Mistral, vLLM and Ollama speak. */
export function openAIAdapter(compatible: boolean): DialectAdapter {
  return {
    buildRequest(target, canonical, stream): VendorRequest {
      const prepared = prepareRequest(target, canonical);
      const warnings = prepared.warnings;
      const body = buildChatBody(target, prepared.request, stream, compatible, warnings);
      return { url: vendorUrl(target.baseUrl, '/chat/completions'), headers: { ...headersFor(target), ...(stream ? { accept: 'text/event-stream' } : {}) }, body: JSON.stringify(body), warnings };
    },
    parseAnswer(json, target, headers) {
      if (!json || typeof json !== 'object') throw malformed(target, `${target.vendor} answered with something that is not a JSON object`, json);
      return answerFromChoice(json as Json, target, headers);
    },
    streamDecoder(target, headers) {
      return new ChatStreamDecoder(target, headers);
    },
    classifyError(status, body, headers, target) {
      return classifyOpenAIError(status, body, headers, target);
    },
    buildEmbeddings(target, request) {
      const body: Json = { model: target.vendorModel, input: request.input.length === 1 && typeof request.input[0] === 'string' ? request.input[0] : request.input };
      if (!compatible) body.encoding_format = 'base64';
      if (request.dimensions !== null) body.dimensions = request.dimensions;
      if (request.endUserId) body.user = request.endUserId;
      return { url: vendorUrl(target.baseUrl, '/embeddings'), headers: headersFor(target), body: JSON.stringify(body), warnings: [] };
    },
    parseEmbeddings(json, target) {
      const data = (json as Json | null)?.data;
      if (!Array.isArray(data)) throw malformed(target, `${target.vendor} answered embeddings without "data"`, json);
      const vectors: Array<number[] | Float32Array> = [];
      for (const item of data as Json[]) {
        const index = typeof item.index === 'number' ? item.index : vectors.length;
        const embedding = item.embedding;
        if (typeof embedding === 'string') vectors[index] = base64Float32(embedding);
        else if (Array.isArray(embedding)) vectors[index] = embedding as number[];
        else throw malformed(target, `${target.vendor} answered an embedding that is neither floats nor base64`);
      }
      const usage = (json as Json).usage as Json | undefined;
      return {
        vectors,
        usage: usage ? { ...zeroUsage(), inputTokens: count(usage.prompt_tokens ?? usage.total_tokens) } : null,
        vendorModel: typeof (json as Json).model === 'string' ? ((json as Json).model as string) : target.vendorModel,
      };
    },
  };
}

export { parseJson };
