import type { ResponseHeaders } from '@patchbay/outbound';
import { VendorError, WireError } from '../errors';
import { dataUrl } from '../surfaces/common';
import type { SseFrame } from '../stream/sse';
import type { CanonicalRequest, CanonicalStreamEvent, ContentBlock, FinishReason, NormalizedUsage, OutputBlock, UrlCitation, VendorTarget, Warning, WebSearchCallBlock } from '../types';
import { count, parseJson, zeroUsage, type DialectAdapter, type StreamDecoder, type VendorAnswer, type VendorRequest } from './adapter';
import { classifyOpenAIError } from './openai';
import { prepareRequest } from './prepare';
import { vendorUrl } from './vendor-url';

type Json = Record<string, unknown>;

/**
 * OpenAI's Responses API (`POST /v1/responses`), for routes whose vendor speaks it (issue 27 §5): what
 * only Responses carries (reasoning items and their encrypted content) reaches the vendor as such
 * instead of being dropped by a translation to Chat Completions. The vendor keeps nothing
 * (`store: false`, the gateway's response store holds turns); reasoning comes back encrypted
 * (`include: ["reasoning.encrypted_content"]`) so a later turn can hand it back.
 */


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

export function buildResponsesBody(target: VendorTarget, request: CanonicalRequest, stream: boolean, warnings: Warning[] = []): Json {
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
  if (request.webSearch) {
    // OpenAI's own search (native mode), beside the client's functions; its sources come back on the call item.
    const ws = request.webSearch;
    const tool: Json = { type: 'web_search', search_context_size: ws.contextSize ?? 'medium' };
    if (ws.allowedDomains.length > 0) tool.filters = { allowed_domains: ws.allowedDomains };
    if (ws.userLocation) tool.user_location = { type: 'approximate', ...ws.userLocation };
    if (ws.blockedDomains.length > 0) {
      warnings.push({ code: 'web_search_filter_dropped', message: `${target.vendor}'s web_search has no blocked-domain filter: excluded_domains was not applied (allowed_domains is).`, detail: { parameter: 'excluded_domains' } });
    }
    body.tools = [...((body.tools as Json[] | undefined) ?? []), tool];
    body.include = [...(body.include as string[]), 'web_search_call.action.sources'];
  }
  if (request.endUserId) body.safety_identifier = request.endUserId;
  if (target.serviceTier) body.service_tier = target.serviceTier;
  if (stream) body.stream = true;
  return body;
}

export function responsesApiUsage(usage: unknown, blocks: OutputBlock[] = []): NormalizedUsage {
  const u = (usage ?? {}) as Json;
  // OpenAI bills its searches apart from the tokens and reports none in usage: they are the web_search_call items.
  const searches = blocks.filter((b): b is WebSearchCallBlock => b.type === 'web_search_call');
  const results = searches.reduce((n, s) => n + s.sources.length, 0);
  return {
    ...zeroUsage(),
    inputTokens: count(u.input_tokens),
    cachedInputTokens: count(((u.input_tokens_details ?? {}) as Json).cached_tokens),
    outputTokens: count(u.output_tokens),
    reasoningTokens: count(((u.output_tokens_details ?? {}) as Json).reasoning_tokens),
    // Priced by the gateway (the catalog's price of the vendor's search), not here.
    ...(searches.length > 0 ? { serverToolUse: { webSearchRequests: searches.length, webSearchResults: results, costMicros: 0 } } : {}),
  };
}

/** A `web_search_call` output item (its action's query and, with the include, its sources) as a search block. */
function searchCallOf(item: Json): WebSearchCallBlock {
  const action = (item.action ?? {}) as Json;
  const queries = typeof action.query === 'string' ? [action.query] : Array.isArray(action.queries) ? (action.queries as unknown[]).filter((q): q is string => typeof q === 'string') : [];
  const sources = (Array.isArray(action.sources) ? (action.sources as Json[]) : []).filter((s) => typeof s?.url === 'string').map((s) => ({ url: String(s.url), title: String(s.title ?? s.url) }));
  return { type: 'web_search_call', id: String(item.id ?? ''), queries, sources, status: item.status === 'failed' ? 'failed' : 'completed', ...(item.status === 'failed' ? { errorCode: 'unavailable' } : {}) };
}

/** An output_text annotation of OpenAI's (`url_citation` with its span), or null for other kinds. */
function citationOf(a: Json): UrlCitation | null {
  if (a?.type !== 'url_citation' || typeof a.url !== 'string') return null;
  return { type: 'url_citation', url: a.url, title: String(a.title ?? a.url), startIndex: count(a.start_index), endIndex: count(a.end_index) };
}

/** Output items as canonical blocks. */
function outputBlocks(output: unknown): { blocks: OutputBlock[]; refusal: string | null } {
  const blocks: OutputBlock[] = [];
  let refusal: string | null = null;
  for (const item of Array.isArray(output) ? (output as Json[]) : []) {
    if (item.type === 'message') {
      for (const part of Array.isArray(item.content) ? (item.content as Json[]) : []) {
        if (part.type === 'output_text' && typeof part.text === 'string') {
          const annotations = (Array.isArray(part.annotations) ? (part.annotations as Json[]) : []).map(citationOf).filter((c): c is UrlCitation => c !== null);
          blocks.push(annotations.length > 0 ? { type: 'text', text: part.text, annotations } : { type: 'text', text: part.text });
        }
        else if (part.type === 'refusal' && typeof part.refusal === 'string') {
          refusal = part.refusal;
          blocks.push({ type: 'text', text: part.refusal });
        }
      }
    } else if (item.type === 'web_search_call') {
      blocks.push(searchCallOf(item));
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
      case 'response.output_text.annotation.added': {
        const annotation = citationOf((event.annotation ?? {}) as Json);
        if (annotation) out.push({ type: 'annotation', index: this.index(event.output_index), annotation });
        return;
      }
      case 'response.output_item.done': {
        const item = (event.item ?? {}) as Json;
        if (item.type === 'web_search_call') {
          out.push({ type: 'web_search_call', index: this.index(event.output_index), call: searchCallOf(item) });
          return;
        }
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
          usage: response.usage ? responsesApiUsage(response.usage, blocks) : { ...zeroUsage(), estimated: true },
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
    const body = buildResponsesBody(target, prepared.request, stream, warnings);
    const headers = { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json', authorization: `Bearer ${target.apiKey}`, ...target.extraHeaders };
    return { url: vendorUrl(target.baseUrl, '/responses'), headers, body: JSON.stringify(body), warnings };
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
      usage: responsesApiUsage(response.usage, blocks),
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
