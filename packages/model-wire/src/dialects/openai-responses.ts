import type { ResponseHeaders } from '@patchbay/outbound';
import { VendorError, WireError } from '../errors';
import { dataUrl } from '../surfaces/common';
import type { SseFrame } from '../stream/sse';
import type { CanonicalRequest, CanonicalStreamEvent, ContentBlock, FinishReason, NormalizedUsage, OutputBlock, VendorTarget, Warning } from '../types';
import { count, parseJson, zeroUsage, type DialectAdapter, type StreamDecoder, type VendorAnswer, type VendorRequest } from './adapter';
import { classifyOpenAIError } from './openai';
import { prepareRequest } from './prepare';

type Json = Record<string, unknown>;

/**
 * OpenAI's Responses API (`POST /v1/responses`), for routes whose vendor speaks it (issue 27 §5): what
 * only Responses carries (reasoning items and their encrypted content) reaches the vendor as such
 * instead of being dropped by a translation to Chat Completions. The vendor keeps nothing
 * (`store: false`, the gateway's response store holds turns); reasoning comes back encrypted
 * (`include: ["reasoning.encrypted_content"]`) so a later turn can hand it back.
 */

function url(base: string, path: string): URL {
  return new URL(base.replace(/\/+$/, '') + path);
}

function malformed(target: VendorTarget, message: string, body?: unknown): VendorError {
  return new VendorError({ kind: 'malformed', message, vendor: target.vendor, model: target.model, vendorBody: body });
}

function inputParts(blocks: ContentBlock[], target: VendorTarget): unknown[] {
  const parts: unknown[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push({ type: 'input_text', text: block.text });
        break;
      case 'image': {
        const src = block.source;
        const image: Json = src.kind === 'file' ? { type: 'input_image', file_id: src.fileId } : { type: 'input_image', image_url: src.kind === 'base64' ? dataUrl(src) : src.url };
        image.detail = block.detail ?? 'auto';
        parts.push(image);
        break;
      }
      case 'document': {
        const src = block.source;
        if (src.kind === 'file') parts.push({ type: 'input_file', file_id: src.fileId });
        else if (src.kind === 'base64') parts.push({ type: 'input_file', file_data: dataUrl(src), filename: block.title ?? 'document.pdf' });
        else parts.push({ type: 'input_file', file_url: src.url });
        break;
      }
      case 'audio':
      case 'video':
        throw WireError.invalid('unsupported_params', `${target.model} on ${target.vendor}'s Responses API cannot read ${block.type} input.`, 'input');
      default:
        break;
    }
  }
  return parts;
}

/** The canonical conversation as Responses input items. */
function inputItems(request: CanonicalRequest, target: VendorTarget): unknown[] {
  const items: unknown[] = [];
  for (const message of request.messages) {
    if (message.role === 'assistant') {
      let text = '';
      const flushText = () => {
        if (text) items.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] });
        text = '';
      };
      for (const block of message.content) {
        if (block.type === 'text') text += block.text;
        else if (block.type === 'tool_use') {
          flushText();
          items.push({ type: 'function_call', call_id: block.id, name: block.name, arguments: block.inputJson ?? JSON.stringify(block.input ?? {}) });
        } else if (block.type === 'redacted_thinking' && block.origin === 'openai') {
          // OpenAI's own reasoning, handed back encrypted as it came.
          flushText();
          items.push({ type: 'reasoning', summary: [], encrypted_content: block.data });
        }
        // Other vendors' thinking cannot be read back by OpenAI: left out.
      }
      flushText();
      continue;
    }
    const rest: ContentBlock[] = [];
    for (const block of message.content) {
      if (block.type !== 'tool_result') {
        rest.push(block);
        continue;
      }
      const text = block.content.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).join('\n');
      items.push({ type: 'function_call_output', call_id: block.toolUseId, output: block.isError && !text.startsWith('Error') ? `Error: ${text}` : text });
    }
    if (rest.length > 0) items.push({ type: 'message', role: 'user', content: inputParts(rest, target) });
  }
  return items;
}

export function buildResponsesBody(target: VendorTarget, request: CanonicalRequest, stream: boolean): Json {
  const body: Json = { model: target.vendorModel, input: inputItems(request, target), store: false };
  if (request.system.length > 0) body.instructions = request.system.map((b) => b.text).join('\n\n');
  if (request.maxOutputTokens !== null) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== null) body.temperature = request.temperature;
  if (request.topP !== null) body.top_p = request.topP;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({ type: 'function', name: t.name, ...(t.description !== undefined ? { description: t.description } : {}), parameters: t.parameters, strict: t.strict ?? false }));
    const choice = request.toolChoice;
    if (choice) body.tool_choice = choice.type === 'tool' ? { type: 'function', name: choice.name } : choice.type;
    if (request.parallelToolCalls !== null) body.parallel_tool_calls = request.parallelToolCalls;
  }
  const format = request.responseFormat;
  if (format && format.type !== 'text') {
    body.text = {
      format: format.type === 'json_object' ? { type: 'json_object' } : { type: 'json_schema', name: format.name, schema: format.schema, ...(format.strict !== undefined ? { strict: format.strict } : {}), ...(format.description ? { description: format.description } : {}) },
    };
  }
  const reasoning = request.reasoning;
  if (reasoning?.effort || reasoning?.summary) body.reasoning = { ...(reasoning.effort ? { effort: reasoning.effort } : {}), ...(reasoning.summary ? { summary: reasoning.summary } : {}) };
  body.include = ['reasoning.encrypted_content'];
  if (request.endUserId) body.safety_identifier = request.endUserId;
  if (target.serviceTier) body.service_tier = target.serviceTier;
  if (stream) body.stream = true;
  return body;
}

export function responsesApiUsage(usage: unknown): NormalizedUsage {
  const u = (usage ?? {}) as Json;
  return {
    ...zeroUsage(),
    inputTokens: count(u.input_tokens),
    cachedInputTokens: count(((u.input_tokens_details ?? {}) as Json).cached_tokens),
    outputTokens: count(u.output_tokens),
    reasoningTokens: count(((u.output_tokens_details ?? {}) as Json).reasoning_tokens),
  };
}

/** Output items as canonical blocks. */
function outputBlocks(output: unknown): { blocks: OutputBlock[]; refusal: string | null } {
  const blocks: OutputBlock[] = [];
  let refusal: string | null = null;
  for (const item of Array.isArray(output) ? (output as Json[]) : []) {
    if (item.type === 'message') {
      for (const part of Array.isArray(item.content) ? (item.content as Json[]) : []) {
        if (part.type === 'output_text' && typeof part.text === 'string') blocks.push({ type: 'text', text: part.text });
        else if (part.type === 'refusal' && typeof part.refusal === 'string') {
          refusal = part.refusal;
          blocks.push({ type: 'text', text: part.refusal });
        }
      }
    } else if (item.type === 'function_call') {
      const json = typeof item.arguments === 'string' ? item.arguments : '{}';
      blocks.push({ type: 'tool_use', id: String(item.call_id ?? item.id ?? ''), name: String(item.name ?? ''), input: parseOr(json), inputJson: json });
    } else if (item.type === 'reasoning') {
      if (typeof item.encrypted_content === 'string') blocks.push({ type: 'redacted_thinking', data: item.encrypted_content, origin: 'openai' });
      const summary = Array.isArray(item.summary) ? (item.summary as Json[]).map((s) => (typeof s.text === 'string' ? s.text : '')).join('\n') : '';
      if (summary && typeof item.encrypted_content !== 'string') blocks.push({ type: 'thinking', thinking: summary });
    }
  }
  return { blocks, refusal };
}

function parseOr(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

function finishOf(response: Json, blocks: OutputBlock[], refusal: string | null): FinishReason {
  const reason = ((response.incomplete_details ?? {}) as Json).reason;
  if (response.status === 'incomplete') return reason === 'content_filter' ? 'content_filter' : 'max_tokens';
  if (refusal) return 'content_filter';
  return blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'stop';
}

class ResponsesStreamDecoder implements StreamDecoder {
  readonly announcedInputTokens = null;
  private done = false;
  /** output_index → canonical block index. */
  private readonly blocks = new Map<number, number>();
  private next = 0;
  private sawTool = false;

  constructor(
    private readonly target: VendorTarget,
    private readonly headers: ResponseHeaders,
  ) {}

  private index(outputIndex: unknown): number {
    const key = typeof outputIndex === 'number' ? outputIndex : -1;
    let index = this.blocks.get(key);
    if (index === undefined) {
      index = this.next++;
      this.blocks.set(key, index);
    }
    return index;
  }

  frame(frame: SseFrame, out: CanonicalStreamEvent[]): void {
    if (!frame.data || frame.data === '[DONE]') return;
    const event = parseJson(frame.data) as Json | undefined;
    if (!event || typeof event !== 'object') throw malformed(this.target, `${this.target.vendor} sent a stream frame that is not JSON`);
    switch (event.type) {
      case 'response.output_text.delta':
        if (typeof event.delta === 'string') out.push({ type: 'text_delta', index: this.index(event.output_index), text: event.delta });
        return;
      case 'response.output_item.added': {
        const item = (event.item ?? {}) as Json;
        if (item.type === 'function_call') {
          this.sawTool = true;
          out.push({ type: 'tool_call_start', index: this.index(event.output_index), id: String(item.call_id ?? item.id ?? ''), name: String(item.name ?? '') });
        }
        return;
      }
      case 'response.function_call_arguments.delta':
        if (typeof event.delta === 'string') out.push({ type: 'tool_call_delta', index: this.index(event.output_index), argumentsDelta: event.delta });
        return;
      case 'response.reasoning_summary_text.delta':
        if (typeof event.delta === 'string') out.push({ type: 'thinking_delta', index: this.index(event.output_index), thinking: event.delta });
        return;
      case 'response.output_item.done': {
        const item = (event.item ?? {}) as Json;
        if (item.type === 'reasoning' && typeof item.encrypted_content === 'string') {
          // Its own block after any summary text of the same item: the encrypted content a later turn hands back.
          out.push({ type: 'redacted_thinking', index: this.next++, data: item.encrypted_content, origin: 'openai' });
        }
        return;
      }
      case 'response.completed':
      case 'response.incomplete': {
        const response = (event.response ?? {}) as Json;
        const { blocks, refusal } = outputBlocks(response.output);
        let finish = finishOf(response, blocks, refusal);
        if (finish === 'stop' && this.sawTool) finish = 'tool_use';
        this.done = true;
        out.push({
          type: 'finish',
          finishReason: finish,
          stopSequence: null,
          usage: response.usage ? responsesApiUsage(response.usage) : { ...zeroUsage(), estimated: true },
          providerRequestId: typeof response.id === 'string' ? response.id : this.headers.get('x-request-id'),
          vendorModel: typeof response.model === 'string' ? response.model : this.target.vendorModel,
          serviceTier: typeof response.service_tier === 'string' ? response.service_tier : null,
          refusal,
        });
        return;
      }
      case 'response.failed':
      case 'error': {
        const error = event.type === 'error' ? event : ((event.response as Json | undefined)?.error ?? {});
        throw new VendorError(classifyOpenAIError(0, { error }, this.headers, this.target));
      }
      default:
        return;
    }
  }

  end(): void {
    if (!this.done) throw new VendorError({ kind: 'stream_cut', message: `${this.target.vendor} closed the stream before response.completed`, vendor: this.target.vendor, model: this.target.model });
  }
}

export const openAIResponsesAdapter: DialectAdapter = {
  buildRequest(target, canonical, stream): VendorRequest {
    const prepared = prepareRequest(target, canonical);
    const warnings: Warning[] = prepared.warnings;
    const body = buildResponsesBody(target, prepared.request, stream);
    const headers = { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json', authorization: `Bearer ${target.apiKey}`, ...target.extraHeaders };
    return { url: url(target.baseUrl, '/responses'), headers, body: JSON.stringify(body), warnings };
  },
  parseAnswer(json, target, headers): VendorAnswer {
    if (!json || typeof json !== 'object' || !Array.isArray((json as Json).output)) throw malformed(target, `${target.vendor} answered a response without "output"`, json);
    const response = json as Json;
    const { blocks, refusal } = outputBlocks(response.output);
    return {
      output: blocks,
      finishReason: finishOf(response, blocks, refusal),
      stopSequence: null,
      refusal,
      usage: responsesApiUsage(response.usage),
      providerRequestId: typeof response.id === 'string' ? response.id : headers.get('x-request-id'),
      vendorModel: typeof response.model === 'string' ? response.model : target.vendorModel,
      serviceTier: typeof response.service_tier === 'string' ? response.service_tier : null,
    };
  },
  streamDecoder(target, headers) {
    return new ResponsesStreamDecoder(target, headers);
  },
  classifyError(status, body, headers, target) {
    return classifyOpenAIError(status, body, headers, target);
  },
};
