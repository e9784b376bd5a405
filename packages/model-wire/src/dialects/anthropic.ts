import type { ResponseHeaders } from '@patchbay/outbound';
import { VendorError, WireError, type VendorErrorInit } from '../errors';
import type { CanonicalRequest, CanonicalStreamEvent, ContentBlock, FinishReason, MediaSource, NormalizedUsage, OutputBlock, ReasoningEffort, UrlCitation, VendorTarget, Warning, WebSearchCallBlock } from '../types';
import { count, kindByStatus, looksLikeContextLength, vendorErrorInit, vendorMessage, type DialectAdapter, type StreamDecoder, type VendorAnswer } from './adapter';
import { prepareRequest, stripsCacheMarkers } from './prepare';
import { vendorUrl } from './vendor-url';

type Json = Record<string, unknown>;

export const ANTHROPIC_VERSION = '2023-06-01';

const STOP: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'max_tokens',
  model_context_window_exceeded: 'max_tokens',
  tool_use: 'tool_use',
  refusal: 'content_filter',
};

/** Thinking budgets for effort levels (Anthropic takes a budget, not a level; 1,024 is its minimum). */
const BUDGET: Record<ReasoningEffort, number> = { none: 0, minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 32768, max: 65536 };
const DEFAULT_MAX_TOKENS = 4096;

function source(src: MediaSource, target: VendorTarget, kind: string): Json {
  if (src.kind === 'base64') {
    if (src.mediaType === 'text/plain') return { type: 'text', media_type: 'text/plain', data: Buffer.from(src.data, 'base64').toString('utf8') };
    return { type: 'base64', media_type: src.mediaType, data: src.data };
  }
  if (src.kind === 'url') return { type: 'url', url: src.url };
  throw WireError.invalid('unsupported_params', `${target.vendor} cannot read another vendor's file id "${src.fileId}"; send the ${kind} inline or as a URL.`, 'input');
}

function blocks(content: ContentBlock[], target: VendorTarget, strip: boolean): Json[] {
  const out: Json[] = [];
  for (const block of content) {
    let json: Json | null = null;
    switch (block.type) {
      case 'text':
        if (block.text === '') continue;
        json = { type: 'text', text: block.text };
        break;
      case 'image':
        json = { type: 'image', source: source(block.source, target, 'image') };
        break;
      case 'document':
        json = { type: 'document', source: source(block.source, target, 'document'), ...(block.title ? { title: block.title } : {}) };
        break;
      case 'audio':
      case 'video':
        throw WireError.invalid('unsupported_params', `${target.model} on ${target.vendor} cannot read ${block.type} input.`, 'input');
      case 'tool_use':
        json = { type: 'tool_use', id: block.id, name: block.name, input: block.input !== null && typeof block.input === 'object' ? block.input : {} };
        break;
      case 'tool_result':
        json = { type: 'tool_result', tool_use_id: block.toolUseId, content: blocks(block.content, target, strip), ...(block.isError ? { is_error: true } : {}) };
        break;
      case 'thinking':
        // Anthropic verifies the signature: only its own signed thinking goes back.
        if (!block.signature || (block.origin && block.origin !== 'anthropic')) continue;
        out.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
        continue;
      case 'redacted_thinking':
        if (block.origin && block.origin !== 'anthropic') continue;
        out.push({ type: 'redacted_thinking', data: block.data });
        continue;
    }
    if ('cache' in block && block.cache && !strip) json.cache_control = block.cache.ttl ? { type: 'ephemeral', ttl: block.cache.ttl } : { type: 'ephemeral' };
    out.push(json);
  }
  return out;
}

export function buildMessagesBody(target: VendorTarget, request: CanonicalRequest, warnings: Warning[], forCount: boolean): Json {
  const strip = stripsCacheMarkers(request);
  const messages: Json[] = [];
  for (const message of request.messages) {
    // Tool results must open a user turn.
    const ordered = message.role === 'user' && message.content.some((b) => b.type === 'tool_result') ? [...message.content.filter((b) => b.type === 'tool_result'), ...message.content.filter((b) => b.type !== 'tool_result')] : message.content;
    const content = blocks(ordered, target, strip);
    if (content.length === 0) continue;
    messages.push({ role: message.role, content });
  }
  if (messages.length === 0 || messages[0]!.role !== 'user') messages.unshift({ role: 'user', content: [{ type: 'text', text: '(continue)' }] });
  const body: Json = { model: target.vendorModel, messages };
  if (!forCount) body.max_tokens = request.maxOutputTokens ?? target.maxOutputTokens ?? DEFAULT_MAX_TOKENS;
  if (request.system.length > 0) {
    body.system = request.system.map((b) => (b.cache && !strip ? { type: 'text', text: b.text, cache_control: b.cache.ttl ? { type: 'ephemeral', ttl: b.cache.ttl } : { type: 'ephemeral' } } : { type: 'text', text: b.text }));
  }
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      input_schema: t.parameters,
      ...(t.cache && !strip ? { cache_control: { type: 'ephemeral' } } : {}),
    }));
    const choice = request.toolChoice;
    const disableParallel = request.parallelToolCalls === false;
    if (choice || disableParallel) {
      const type = !choice ? 'auto' : choice.type === 'required' ? 'any' : choice.type;
      const json: Json = { type };
      if (choice?.type === 'tool') json.name = choice.name;
      if (disableParallel && type !== 'none') json.disable_parallel_tool_use = true;
      body.tool_choice = json;
    }
  }
  if (request.webSearch) {
    // Anthropic's own search, beside the client's tools (a server tool: no input_schema).
    const ws = request.webSearch;
    const tool: Json = { type: 'web_search_20250305', name: 'web_search', max_uses: ws.maxUses };
    if (ws.allowedDomains.length > 0) tool.allowed_domains = ws.allowedDomains;
    else if (ws.blockedDomains.length > 0) tool.blocked_domains = ws.blockedDomains;
    if (ws.userLocation) tool.user_location = { type: 'approximate', ...ws.userLocation };
    body.tools = [...((body.tools as Json[] | undefined) ?? []), tool];
  }
  if (forCount) return body;

  // Thinking: an explicit budget wins; else an effort level maps to a budget.
  const reasoning = request.reasoning;
  let budget: number | null = null;
  if (reasoning && reasoning.enabled !== false) {
    if (reasoning.budgetTokens !== undefined) budget = reasoning.budgetTokens;
    else if (reasoning.effort) budget = BUDGET[reasoning.effort] || null;
    else if (reasoning.enabled) budget = BUDGET.medium;
  }
  if (budget !== null) {
    const maxTokens = body.max_tokens as number;
    if (budget < 1024) {
      warnings.push({ code: 'thinking_budget_adjusted', message: `thinking budget ${budget} was raised to 1024, ${target.vendor}'s minimum.`, detail: { requested_budget: budget, applied_budget: 1024 } });
      budget = 1024;
    }
    if (budget >= maxTokens) {
      if (maxTokens <= 1024) {
        warnings.push({ code: 'thinking_disabled', message: `thinking was turned off: max_tokens ${maxTokens} leaves no room for ${target.vendor}'s minimum thinking budget of 1024.`, detail: { max_tokens: maxTokens } });
        budget = null;
      } else {
        warnings.push({ code: 'thinking_budget_adjusted', message: `thinking budget was lowered to ${maxTokens - 1} to stay below max_tokens ${maxTokens}.`, detail: { applied_budget: maxTokens - 1 } });
        budget = maxTokens - 1;
      }
    }
  }
  if (budget !== null) {
    body.thinking = { type: 'enabled', budget_tokens: budget };
    if (request.temperature !== null && request.temperature !== 1) warnings.push({ code: 'parameter_dropped', message: `temperature was dropped: ${target.vendor} requires the default temperature with thinking on.`, detail: { parameter: 'temperature' } });
    if (request.topK !== null) warnings.push({ code: 'parameter_dropped', message: `top_k was dropped: ${target.vendor} does not take it with thinking on.`, detail: { parameter: 'top_k' } });
  } else {
    if (request.temperature !== null) {
      if (request.temperature > 1) warnings.push({ code: 'parameter_clamped', message: `temperature ${request.temperature} was clamped to 1, ${target.vendor}'s maximum.`, detail: { parameter: 'temperature', requested: request.temperature, applied: 1 } });
      body.temperature = Math.min(1, request.temperature);
    }
    if (request.topK !== null) body.top_k = request.topK;
  }
  if (request.topP !== null && budget === null) body.top_p = request.topP;
  if (request.stop.length > 0) body.stop_sequences = request.stop;
  if (request.endUserId) body.metadata = { user_id: request.endUserId };
  if (request.responseFormat && request.responseFormat.type !== 'text') {
    warnings.push({ code: 'response_format_adjusted', message: `${target.vendor} has no JSON mode; the format was asked for in the system prompt instead.`, detail: { requested: request.responseFormat.type } });
    const schema = request.responseFormat.type === 'json_schema' ? ` matching this JSON Schema: ${JSON.stringify(request.responseFormat.schema)}` : '';
    const note = { type: 'text', text: `Answer with a single JSON object${schema}, and nothing else.` };
    body.system = [...((body.system as Json[] | undefined) ?? []), note];
  }
  if (target.serviceTier) body.service_tier = target.serviceTier;
  return body;
}

export function anthropicUsage(usage: unknown, searchResults = 0): NormalizedUsage {
  const u = (usage ?? {}) as Json;
  const searches = count(((u.server_tool_use ?? {}) as Json).web_search_requests);
  const read = count(u.cache_read_input_tokens);
  const write = count(u.cache_creation_input_tokens);
  const creation = (u.cache_creation ?? {}) as Json;
  return {
    inputTokens: count(u.input_tokens) + read + write,
    cachedInputTokens: read,
    cacheWriteInputTokens: write,
    cacheWrite1hInputTokens: count(creation.ephemeral_1h_input_tokens),
    outputTokens: count(u.output_tokens),
    reasoningTokens: 0,
    // Priced by the gateway (the catalog's price of the vendor's search), not here.
    ...(searches > 0 ? { serverToolUse: { webSearchRequests: searches, webSearchResults: searchResults, costMicros: 0 } } : {}),
  };
}

function malformed(target: VendorTarget, message: string, body?: unknown): VendorError {
  return new VendorError({ kind: 'malformed', message, vendor: target.vendor, model: target.model, vendorBody: body });
}

export function classifyAnthropicError(status: number, body: unknown, headers: ResponseHeaders | null, target: VendorTarget): VendorErrorInit {
  const error = (body && typeof body === 'object' ? ((body as Json).error ?? {}) : {}) as Json;
  const type = typeof error.type === 'string' ? error.type : null;
  const message = vendorMessage(body, `${target.vendor} answered ${status}`);
  let kind = status ? kindByStatus(status) : 'server';
  if (/credit balance|billing|purchase credits/i.test(message)) kind = 'billing';
  else if (type === 'overloaded_error') kind = 'overloaded';
  else if (type === 'rate_limit_error') kind = 'rate_limit';
  else if (type === 'api_error') kind = 'server';
  else if (type === 'authentication_error' || type === 'permission_error') kind = 'auth';
  else if (type === 'not_found_error') kind = 'not_found';
  else if (type === 'request_too_large' || (type === 'invalid_request_error' && looksLikeContextLength(message))) kind = looksLikeContextLength(message) || type === 'request_too_large' ? 'context_length' : 'invalid_request';
  else if (type === 'timeout_error') kind = 'timeout';
  return vendorErrorInit(kind, status, message, body, headers, target, type);
}

/** Anthropic's web search citations on a text block, as url_citation annotations over the whole block. */
function citationsOf(block: Json, text: string): UrlCitation[] {
  if (!Array.isArray(block.citations)) return [];
  return (block.citations as Json[])
    .filter((c) => c?.type === 'web_search_result_location' && typeof c.url === 'string')
    .map((c) => ({ type: 'url_citation', url: String(c.url), title: String(c.title ?? c.url), startIndex: 0, endIndex: text.length, ...(typeof c.cited_text === 'string' ? { citedText: c.cited_text } : {}) }));
}

/** A web_search_tool_result's sources (or its error code) onto the search call it answers. */
function applySearchResult(call: WebSearchCallBlock | undefined, result: Json): void {
  if (!call) return;
  if (Array.isArray(result.content)) {
    call.sources = (result.content as Json[]).filter((r) => typeof r?.url === 'string').map((r) => ({ url: String(r.url), title: String(r.title ?? r.url), pageAge: typeof r.page_age === 'string' ? r.page_age : null }));
  } else {
    call.status = 'failed';
    call.errorCode = String((result.content as Json | undefined)?.error_code ?? 'unavailable');
  }
}

function searchCall(block: Json): WebSearchCallBlock {
  const input = (block.input ?? {}) as Json;
  return { type: 'web_search_call', id: String(block.id), queries: typeof input.query === 'string' ? [input.query] : [], sources: [], status: 'completed' };
}

function outputBlocks(content: unknown): OutputBlock[] {
  const out: OutputBlock[] = [];
  if (!Array.isArray(content)) return out;
  const searches = new Map<string, WebSearchCallBlock>();
  for (const block of content as Json[]) {
    if (block.type === 'server_tool_use' && block.name === 'web_search') {
      const call = searchCall(block);
      searches.set(call.id, call);
      out.push(call);
    } else if (block.type === 'web_search_tool_result') applySearchResult(searches.get(String(block.tool_use_id)), block);
    else if (block.type === 'text' && typeof block.text === 'string') {
      const annotations = citationsOf(block, block.text);
      out.push(annotations.length > 0 ? { type: 'text', text: block.text, annotations } : { type: 'text', text: block.text });
    }
    else if (block.type === 'tool_use') out.push({ type: 'tool_use', id: String(block.id), name: String(block.name), input: block.input ?? {} });
    else if (block.type === 'thinking') out.push({ type: 'thinking', thinking: String(block.thinking ?? ''), ...(typeof block.signature === 'string' ? { signature: block.signature } : {}), origin: 'anthropic' });
    else if (block.type === 'redacted_thinking') out.push({ type: 'redacted_thinking', data: String(block.data ?? ''), origin: 'anthropic' });
  }
  return out;
}

/** message_start … message_stop into canonical events; `message_stop` is the terminal frame, `error` a VendorError. */
class MessagesStreamDecoder implements StreamDecoder {
  announcedInputTokens: number | null = null;
  private done = false;
  private started = false;
  private usage: Json = {};
  private stop: FinishReason | null = null;
  private stopSequence: string | null = null;
  private id: string | null = null;
  private model: string;
  private tier: string | null = null;
  /** Anthropic's block index → canonical index (the same unless a block is skipped). */
  private readonly kinds = new Map<number, string>();
  /** Anthropic's own web searches in flight: the server_tool_use block (its query JSON), by its id. */
  private readonly searches = new Map<string, { index: number; json: string; id: string }>();
  private readonly searchByIndex = new Map<number, { index: number; json: string; id: string }>();
  private searchResults = 0;
  /** Characters of each text block so far (a citation covers its block). */
  private readonly textLength = new Map<number, number>();

  constructor(private readonly target: VendorTarget, private readonly headers: ResponseHeaders) {
    this.model = target.vendorModel;
  }

  frame(frame: { event: string | null; data: string }, out: CanonicalStreamEvent[]): void {
    if (this.done) return;
    if (frame.event === 'ping') return;
    let event: Json;
    try {
      event = JSON.parse(frame.data) as Json;
    } catch {
      throw malformed(this.target, `${this.target.vendor} sent a stream event that is not JSON`, frame.data.slice(0, 200));
    }
    if (!event || typeof event !== 'object') throw malformed(this.target, `${this.target.vendor} sent a stream event that is not an object`);
    const type = frame.event ?? event.type;
    switch (type) {
      case 'error':
        throw new VendorError(classifyAnthropicError(0, event, null, this.target));
      case 'message_start': {
        const message = (event.message ?? {}) as Json;
        this.started = true;
        if (typeof message.id === 'string') this.id = message.id;
        if (typeof message.model === 'string') this.model = message.model;
        this.usage = { ...((message.usage ?? {}) as Json) };
        if (typeof this.usage.service_tier === 'string') this.tier = this.usage.service_tier;
        this.announcedInputTokens = anthropicUsage(this.usage).inputTokens;
        return;
      }
      case 'content_block_start': {
        this.requireStarted();
        const index = Number(event.index);
        const block = (event.content_block ?? {}) as Json;
        this.kinds.set(index, String(block.type));
        if (block.type === 'server_tool_use') {
          const pending = { index, json: '', id: String(block.id) };
          this.searches.set(pending.id, pending);
          this.searchByIndex.set(index, pending);
        } else if (block.type === 'web_search_tool_result') {
          // The search is shown whole once its results are in, at the server_tool_use's place.
          const pending = this.searches.get(String(block.tool_use_id));
          if (pending) {
            let input: Json = {};
            try {
              input = JSON.parse(pending.json || '{}') as Json;
            } catch {
              input = {};
            }
            const call = searchCall({ id: pending.id, input });
            applySearchResult(call, block);
            this.searchResults += call.sources.length;
            out.push({ type: 'web_search_call', index: pending.index, call });
          }
        } else if (block.type === 'tool_use') out.push({ type: 'tool_call_start', index, id: String(block.id), name: String(block.name) });
        else if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') out.push({ type: 'text_delta', index, text: block.text });
        else if (block.type === 'thinking' && typeof block.thinking === 'string' && block.thinking !== '') out.push({ type: 'thinking_delta', index, thinking: block.thinking });
        else if (block.type === 'redacted_thinking') out.push({ type: 'redacted_thinking', index, data: String(block.data ?? ''), origin: 'anthropic' });
        return;
      }
      case 'content_block_delta': {
        this.requireStarted();
        const index = Number(event.index);
        const delta = (event.delta ?? {}) as Json;
        if (delta.type === 'text_delta' && typeof delta.text === 'string') {
          this.textLength.set(index, (this.textLength.get(index) ?? 0) + delta.text.length);
          out.push({ type: 'text_delta', index, text: delta.text });
        }
        else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string' && this.searchByIndex.has(index)) this.searchByIndex.get(index)!.json += delta.partial_json;
        else if (delta.type === 'citations_delta') {
          const c = (delta.citation ?? {}) as Json;
          if (c.type === 'web_search_result_location' && typeof c.url === 'string') {
            // Anthropic cites a whole text block: the span is the block as streamed so far.
            out.push({ type: 'annotation', index, annotation: { type: 'url_citation', url: c.url, title: String(c.title ?? c.url), startIndex: 0, endIndex: this.textLength.get(index) ?? 0, ...(typeof c.cited_text === 'string' ? { citedText: c.cited_text } : {}) } });
          }
        } else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
          if (delta.partial_json !== '') out.push({ type: 'tool_call_delta', index, argumentsDelta: delta.partial_json });
        } else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') out.push({ type: 'thinking_delta', index, thinking: delta.thinking });
        else if (delta.type === 'signature_delta' && typeof delta.signature === 'string') out.push({ type: 'thinking_signature', index, signature: delta.signature });
        return;
      }
      case 'content_block_stop':
        return;
      case 'message_delta': {
        this.requireStarted();
        const delta = (event.delta ?? {}) as Json;
        if (typeof delta.stop_reason === 'string') this.stop = STOP[delta.stop_reason] ?? 'stop';
        if (typeof delta.stop_sequence === 'string') this.stopSequence = delta.stop_sequence;
        const usage = (event.usage ?? {}) as Json;
        for (const key of Object.keys(usage)) if (usage[key] !== null && usage[key] !== undefined) this.usage[key] = usage[key];
        return;
      }
      case 'message_stop': {
        this.requireStarted();
        this.done = true;
        out.push({
          type: 'finish',
          finishReason: this.stop ?? 'stop',
          stopSequence: this.stopSequence,
          usage: anthropicUsage(this.usage, this.searchResults),
          providerRequestId: this.id ?? this.headers.get('request-id'),
          vendorModel: this.model,
          serviceTier: this.tier,
          refusal: null,
        });
        return;
      }
      default:
        return; // new event types are ignored, as the SDK does
    }
  }

  private requireStarted(): void {
    if (!this.started) throw malformed(this.target, `${this.target.vendor} sent stream events before message_start`);
  }

  end(): void {
    if (!this.done) throw new VendorError({ kind: 'stream_cut', message: `${this.target.vendor} closed the stream without message_stop`, vendor: this.target.vendor, model: this.target.model });
  }
}


function headersFor(target: VendorTarget, stream: boolean): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    'x-api-key': target.apiKey,
    'anthropic-version': ANTHROPIC_VERSION,
    ...target.extraHeaders,
  };
}

export const anthropicAdapter: DialectAdapter = {
  buildRequest(target, canonical, stream) {
    const prepared = prepareRequest(target, canonical);
    const body = buildMessagesBody(target, prepared.request, prepared.warnings, false);
    if (stream) body.stream = true;
    return { url: vendorUrl(target.baseUrl, '/v1/messages'), headers: headersFor(target, stream), body: JSON.stringify(body), warnings: prepared.warnings };
  },
  parseAnswer(json, target, headers): VendorAnswer {
    if (!json || typeof json !== 'object' || (json as Json).type !== 'message') throw malformed(target, `${target.vendor} answered with something that is not a message`, json);
    const message = json as Json;
    const output = outputBlocks(message.content);
    const results = output.reduce((n, b) => n + (b.type === 'web_search_call' ? b.sources.length : 0), 0);
    return {
      output,
      finishReason: STOP[String(message.stop_reason)] ?? 'stop',
      stopSequence: typeof message.stop_sequence === 'string' ? message.stop_sequence : null,
      refusal: null,
      usage: anthropicUsage(message.usage, results),
      providerRequestId: typeof message.id === 'string' ? message.id : headers.get('request-id'),
      vendorModel: typeof message.model === 'string' ? message.model : target.vendorModel,
      serviceTier: typeof (message.usage as Json | undefined)?.service_tier === 'string' ? ((message.usage as Json).service_tier as string) : null,
    };
  },
  streamDecoder(target, headers) {
    return new MessagesStreamDecoder(target, headers);
  },
  classifyError(status, body, headers, target) {
    return classifyAnthropicError(status, body, headers, target);
  },
  buildCountTokens(target, canonical) {
    const prepared = prepareRequest(target, canonical);
    const body = buildMessagesBody(target, prepared.request, prepared.warnings, true);
    return { url: vendorUrl(target.baseUrl, '/v1/messages/count_tokens'), headers: headersFor(target, false), body: JSON.stringify(body), warnings: prepared.warnings };
  },
  parseCountTokens(json) {
    return count((json as Json | null)?.input_tokens);
  },
};
