import type { ResponseHeaders } from '@patchbay/outbound';
import { VendorError, WireError, type VendorErrorInit } from '../errors';
import type { CanonicalRequest, CanonicalStreamEvent, ContentBlock, FinishReason, MediaSource, NormalizedUsage, OutputBlock, ReasoningEffort, UrlCitation, VendorTarget, Warning, WebSearchCallBlock } from '../types';
import { count, kindByStatus, looksLikeContextLength, vendorErrorInit, vendorMessage, zeroUsage, type DialectAdapter, type StreamDecoder, type VendorAnswer } from './adapter';
import { prepareRequest } from './prepare';

type Json = Record<string, unknown>;

const FINISH: Record<string, FinishReason> = {
  STOP: 'stop',
  MAX_TOKENS: 'max_tokens',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  LANGUAGE: 'content_filter',
  MALFORMED_FUNCTION_CALL: 'stop',
  UNEXPECTED_TOOL_CALL: 'stop',
  OTHER: 'stop',
  FINISH_REASON_UNSPECIFIED: 'stop',
};

/** Thinking budgets for effort levels, as Google's OpenAI-compatible endpoint maps them. */
const BUDGET: Record<ReasoningEffort, number> = { none: 0, minimal: 512, low: 1024, medium: 8192, high: 24576, xhigh: 24576, max: 32768 };

function part(src: MediaSource, target: VendorTarget, kind: string): Json {
  if (src.kind === 'base64') return { inlineData: { mimeType: src.mediaType, data: src.data } };
  if (src.kind === 'url') return { fileData: { fileUri: src.url, ...(src.mediaType ? { mimeType: src.mediaType } : {}) } };
  if (src.fileId.startsWith('https://generativelanguage.googleapis.com/') || src.fileId.startsWith('files/')) return { fileData: { fileUri: src.fileId, ...(src.mediaType ? { mimeType: src.mediaType } : {}) } };
  throw WireError.invalid('unsupported_params', `${target.vendor} cannot read another vendor's file id "${src.fileId}"; send the ${kind} inline or as a URL.`, 'input');
}

/** Gemini's functionResponse.response must be an object: a JSON object result stays as it is, anything else is wrapped. */
function functionResponse(text: string, isError: boolean): Json {
  if (!isError) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Json;
    } catch {
      // plain text
    }
  }
  return isError ? { error: text } : { result: text };
}

function parts(content: ContentBlock[], target: VendorTarget, names: Map<string, string>): Json[] {
  const out: Json[] = [];
  for (const block of content) {
    switch (block.type) {
      case 'text':
        if (block.text !== '') out.push({ text: block.text });
        break;
      case 'image':
      case 'document':
      case 'audio':
      case 'video':
        out.push(part(block.source, target, block.type));
        break;
      case 'tool_use': {
        const args = block.input !== null && typeof block.input === 'object' ? block.input : {};
        const json: Json = { functionCall: { name: block.name, args } };
        if (block.signature) json.thoughtSignature = block.signature;
        out.push(json);
        break;
      }
      case 'tool_result': {
        const text = block.content.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).join('\n');
        out.push({ functionResponse: { name: names.get(block.toolUseId) ?? block.toolUseId, response: functionResponse(text, block.isError) } });
        for (const media of block.content) if (media.type !== 'text') out.push(part(media.source, target, media.type));
        break;
      }
      case 'thinking':
      case 'redacted_thinking':
        break; // Gemini carries thought signatures on the parts themselves
    }
  }
  return out;
}

export function buildGeminiBody(target: VendorTarget, request: CanonicalRequest, warnings: Warning[]): Json {
  // Gemini answers a function call by name: map each call id to its function's name.
  const names = new Map<string, string>();
  for (const message of request.messages) for (const block of message.content) if (block.type === 'tool_use') names.set(block.id, block.name);
  const contents: Json[] = [];
  for (const message of request.messages) {
    const p = parts(message.content, target, names);
    if (p.length > 0) contents.push({ role: message.role === 'assistant' ? 'model' : 'user', parts: p });
  }
  const body: Json = { contents };
  if (request.system.length > 0) body.systemInstruction = { parts: request.system.map((b) => ({ text: b.text })) };
  if (request.tools.length > 0) {
    body.tools = [{ functionDeclarations: request.tools.map((t) => ({ name: t.name, ...(t.description !== undefined ? { description: t.description } : {}), parametersJsonSchema: t.parameters })) }];
    const choice = request.toolChoice;
    if (choice) {
      const mode = choice.type === 'none' ? 'NONE' : choice.type === 'auto' ? 'AUTO' : 'ANY';
      body.toolConfig = { functionCallingConfig: { mode, ...(choice.type === 'tool' ? { allowedFunctionNames: [choice.name] } : {}) } };
    }
  }
  if (request.webSearch) {
    // Gemini's own search (native mode): grounding with Google Search. It takes no domain lists or location.
    const ws = request.webSearch;
    body.tools = [...((body.tools as Json[] | undefined) ?? []), { google_search: {} }];
    const dropped = [...(ws.allowedDomains.length > 0 ? ['allowed_domains'] : []), ...(ws.blockedDomains.length > 0 ? ['excluded_domains'] : []), ...(ws.userLocation ? ['user_location'] : [])];
    if (dropped.length > 0) {
      warnings.push({ code: 'web_search_filter_dropped', message: `${target.vendor}'s google_search takes no ${dropped.join(', ')}: not applied.`, detail: { parameters: dropped } });
    }
  }
  const config: Json = {};
  if (request.maxOutputTokens !== null) config.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== null) config.temperature = request.temperature;
  if (request.topP !== null) config.topP = request.topP;
  if (request.topK !== null) config.topK = request.topK;
  if (request.seed !== null) config.seed = request.seed;
  if (request.presencePenalty !== null) config.presencePenalty = request.presencePenalty;
  if (request.frequencyPenalty !== null) config.frequencyPenalty = request.frequencyPenalty;
  if (request.stop.length > 0) {
    if (request.stop.length > 5) warnings.push({ code: 'parameter_clamped', message: `only the first 5 stop sequences were sent: ${target.vendor} takes at most 5.`, detail: { parameter: 'stop' } });
    config.stopSequences = request.stop.slice(0, 5);
  }
  const format = request.responseFormat;
  if (format && format.type !== 'text') {
    config.responseMimeType = 'application/json';
    if (format.type === 'json_schema') config.responseJsonSchema = format.schema;
  }
  const reasoning = request.reasoning;
  if (reasoning) {
    let budget: number | null = null;
    if (reasoning.enabled === false) budget = 0;
    else if (reasoning.budgetTokens !== undefined) budget = reasoning.budgetTokens;
    else if (reasoning.effort) budget = BUDGET[reasoning.effort];
    if (budget !== null) config.thinkingConfig = { thinkingBudget: budget, ...(budget > 0 && reasoning.summary ? { includeThoughts: true } : {}) };
  }
  if (Object.keys(config).length > 0) body.generationConfig = config;
  return body;
}

export function geminiUsage(metadata: unknown): NormalizedUsage {
  const m = (metadata ?? {}) as Json;
  const thoughts = count(m.thoughtsTokenCount);
  return {
    inputTokens: count(m.promptTokenCount) + count(m.toolUsePromptTokenCount),
    cachedInputTokens: count(m.cachedContentTokenCount),
    cacheWriteInputTokens: 0,
    cacheWrite1hInputTokens: 0,
    outputTokens: count(m.candidatesTokenCount) + thoughts,
    reasoningTokens: thoughts,
  };
}

function malformed(target: VendorTarget, message: string, body?: unknown): VendorError {
  return new VendorError({ kind: 'malformed', message, vendor: target.vendor, model: target.model, vendorBody: body });
}

export function classifyGeminiError(status: number, body: unknown, headers: ResponseHeaders | null, target: VendorTarget): VendorErrorInit {
  const error = (body && typeof body === 'object' ? ((body as Json).error ?? {}) : {}) as Json;
  const grpc = typeof error.status === 'string' ? error.status : null;
  const code = typeof error.code === 'number' ? error.code : status;
  const message = vendorMessage(body, `${target.vendor} answered ${status}`);
  let kind = kindByStatus(code || status);
  if (status === 402 || /prepay(ment)? credits|credits? (are|is) depleted|billing account (is|has been) (disabled|closed)/i.test(message)) kind = 'billing';
  else if (grpc === 'RESOURCE_EXHAUSTED') kind = 'rate_limit';
  else if (grpc === 'UNAVAILABLE') kind = 'overloaded';
  else if (grpc === 'DEADLINE_EXCEEDED') kind = 'timeout';
  else if (grpc === 'UNAUTHENTICATED' || grpc === 'PERMISSION_DENIED' || /API key not valid/i.test(message)) kind = 'auth';
  else if (grpc === 'NOT_FOUND') kind = 'not_found';
  else if (grpc === 'INTERNAL') kind = 'server';
  else if (grpc === 'INVALID_ARGUMENT' && looksLikeContextLength(message)) kind = 'context_length';
  return vendorErrorInit(kind, status, message, body, headers, target, grpc);
}

/** Gemini's grounding with Google Search: the searches it ran and the spans of the answer each source supports. */
interface Grounding {
  call: WebSearchCallBlock;
  /** Spans over the candidate's whole text (its text parts in order), in characters. */
  citations: UrlCitation[];
}

function grounding(metadata: unknown, text: string, id: string): Grounding | null {
  const m = (metadata ?? {}) as Json;
  const queries = (Array.isArray(m.webSearchQueries) ? (m.webSearchQueries as unknown[]) : []).filter((q): q is string => typeof q === 'string');
  const chunks = (Array.isArray(m.groundingChunks) ? (m.groundingChunks as Json[]) : []).map((c) => (c?.web ?? {}) as Json);
  if (queries.length === 0 && chunks.length === 0) return null;
  const sources = chunks.filter((w) => typeof w.uri === 'string').map((w) => ({ url: String(w.uri), title: String(w.title ?? w.uri) }));
  // Segment indices count UTF-8 bytes of the text; the gateway's spans count characters.
  const bytes = new TextEncoder().encode(text);
  const decoder = new TextDecoder();
  const charAt = (byteIndex: number) => decoder.decode(bytes.subarray(0, Math.min(byteIndex, bytes.length))).length;
  const citations: UrlCitation[] = [];
  for (const support of Array.isArray(m.groundingSupports) ? (m.groundingSupports as Json[]) : []) {
    const segment = (support?.segment ?? {}) as Json;
    const startIndex = charAt(count(segment.startIndex));
    const endIndex = charAt(count(segment.endIndex));
    for (const i of Array.isArray(support.groundingChunkIndices) ? (support.groundingChunkIndices as unknown[]) : []) {
      const web = typeof i === 'number' ? chunks[i] : undefined;
      if (!web || typeof web.uri !== 'string') continue;
      citations.push({ type: 'url_citation', url: web.uri, title: String(web.title ?? web.uri), startIndex, endIndex, ...(typeof segment.text === 'string' ? { citedText: segment.text } : {}) });
    }
  }
  return { call: { type: 'web_search_call', id, queries, sources, status: 'completed' }, citations };
}

/** Usage with the grounding's searches (Gemini bills each query; one when it names none). */
function withSearches(usage: NormalizedUsage, found: Grounding | null): NormalizedUsage {
  if (!found) return usage;
  return { ...usage, serverToolUse: { webSearchRequests: Math.max(1, found.call.queries.length), webSearchResults: found.call.sources.length, costMicros: 0 } };
}

/** Each citation onto the text block its span starts in, with the span made relative to that block. */
function placeCitations(blocks: Array<{ index: number; text: string }>, citations: UrlCitation[]): Map<number, UrlCitation[]> {
  const placed = new Map<number, UrlCitation[]>();
  let offset = 0;
  for (const block of blocks) {
    const end = offset + block.text.length;
    for (const c of citations) {
      if (c.startIndex < offset || (c.startIndex >= end && block !== blocks[blocks.length - 1])) continue;
      const list = placed.get(block.index) ?? [];
      list.push({ ...c, startIndex: c.startIndex - offset, endIndex: Math.min(c.endIndex, end) - offset });
      placed.set(block.index, list);
    }
    offset = end;
  }
  return placed;
}

function searchId(): string {
  return `ws_${Math.random().toString(36).slice(2, 12)}`;
}

/** A Gemini candidate's parts as output blocks; function calls get ids (Gemini's own `id` when it sends one). */
function candidateBlocks(parts: unknown, nextId: () => string): OutputBlock[] {
  const out: OutputBlock[] = [];
  if (!Array.isArray(parts)) return out;
  for (const p of parts as Json[]) {
    const call = p.functionCall as Json | undefined;
    if (call) {
      out.push({ type: 'tool_use', id: typeof call.id === 'string' && call.id !== '' ? call.id : nextId(), name: String(call.name ?? ''), input: call.args ?? {}, ...(typeof p.thoughtSignature === 'string' ? { signature: p.thoughtSignature } : {}) });
    } else if (typeof p.text === 'string') {
      if (p.thought === true) out.push({ type: 'thinking', thinking: p.text, ...(typeof p.thoughtSignature === 'string' ? { signature: p.thoughtSignature } : {}), origin: 'gemini' });
      else out.push({ type: 'text', text: p.text });
    }
  }
  return out;
}

function callIds(prefix: string): () => string {
  let n = 0;
  return () => `call_${prefix}_${n++}`;
}

class GeminiStreamDecoder implements StreamDecoder {
  readonly announcedInputTokens = null;
  private done = false;
  private usage: NormalizedUsage = zeroUsage();
  private sawUsage = false;
  private id: string | null = null;
  private model: string;
  private next = 0;
  private open: { kind: 'text' | 'thinking'; index: number } | null = null;
  private sawTool = false;
  private readonly nextId: () => string;
  /** Grounding with Google Search, as the chunks report it (the last one holds it whole). */
  private groundingMetadata: unknown = null;
  /** The answer's text blocks as streamed, for the grounding's spans. */
  private readonly texts: Array<{ index: number; text: string }> = [];

  constructor(private readonly target: VendorTarget, private readonly headers: ResponseHeaders) {
    this.model = target.vendorModel;
    this.nextId = callIds(Math.random().toString(36).slice(2, 10));
  }

  frame(frame: { data: string }, out: CanonicalStreamEvent[]): void {
    if (this.done) return;
    let chunk: Json;
    try {
      chunk = JSON.parse(frame.data) as Json;
    } catch {
      throw malformed(this.target, `${this.target.vendor} sent a stream chunk that is not JSON`, frame.data.slice(0, 200));
    }
    if (!chunk || typeof chunk !== 'object') throw malformed(this.target, `${this.target.vendor} sent a stream chunk that is not an object`);
    if (chunk.error) throw new VendorError(classifyGeminiError(0, chunk, null, this.target));
    if (typeof chunk.responseId === 'string') this.id = chunk.responseId;
    if (typeof chunk.modelVersion === 'string') this.model = chunk.modelVersion;
    if (chunk.usageMetadata) {
      this.usage = geminiUsage(chunk.usageMetadata);
      this.sawUsage = true;
    }
    const candidates = chunk.candidates;
    const candidate = (Array.isArray(candidates) ? candidates[0] : undefined) as Json | undefined;
    const blocked = (chunk.promptFeedback as Json | undefined)?.blockReason;
    if (!candidate) {
      if (blocked) this.finishWith('content_filter', out);
      return;
    }
    for (const block of candidateBlocks((candidate.content as Json | undefined)?.parts, this.nextId)) {
      if (block.type === 'tool_use') {
        const index = this.next++;
        this.open = null;
        this.sawTool = true;
        out.push({ type: 'tool_call_start', index, id: block.id, name: block.name, ...(block.signature ? { signature: block.signature } : {}) });
        out.push({ type: 'tool_call_delta', index, argumentsDelta: JSON.stringify(block.input ?? {}) });
      } else if (block.type === 'text' || block.type === 'thinking') {
        if (this.open?.kind !== block.type) this.open = { kind: block.type, index: this.next++ };
        if (block.type === 'text') {
          const last = this.texts[this.texts.length - 1];
          if (last?.index === this.open.index) last.text += block.text;
          else this.texts.push({ index: this.open.index, text: block.text });
          out.push({ type: 'text_delta', index: this.open.index, text: block.text });
        }
        else {
          out.push({ type: 'thinking_delta', index: this.open.index, thinking: block.thinking });
          if (block.signature) out.push({ type: 'thinking_signature', index: this.open.index, signature: block.signature });
        }
      }
    }
    if (candidate.groundingMetadata) this.groundingMetadata = candidate.groundingMetadata;
    if (typeof candidate.finishReason === 'string' && candidate.finishReason !== 'FINISH_REASON_UNSPECIFIED') {
      this.finishWith(FINISH[candidate.finishReason] ?? 'stop', out);
    }
  }

  private finishWith(reason: FinishReason, out: CanonicalStreamEvent[]): void {
    this.done = true;
    // Gemini reports its searches with the last chunk, after the text: the citations, then the search itself.
    const found = grounding(this.groundingMetadata, this.texts.map((t) => t.text).join(''), searchId());
    if (found) {
      for (const [index, citations] of placeCitations(this.texts, found.citations)) for (const annotation of citations) out.push({ type: 'annotation', index, annotation });
      out.push({ type: 'web_search_call', index: this.next++, call: found.call });
    }
    out.push({
      type: 'finish',
      finishReason: reason === 'stop' && this.sawTool ? 'tool_use' : reason,
      stopSequence: null,
      usage: withSearches(this.sawUsage ? this.usage : { ...zeroUsage(), estimated: true }, found),
      providerRequestId: this.id ?? this.headers.get('x-goog-request-id'),
      vendorModel: this.model,
      serviceTier: null,
      refusal: null,
    });
  }

  end(): void {
    if (!this.done) throw new VendorError({ kind: 'stream_cut', message: `${this.target.vendor} closed the stream before its final chunk (no finishReason)`, vendor: this.target.vendor, model: this.target.model });
  }
}

function modelUrl(target: VendorTarget, method: string, query = ''): URL {
  const model = target.vendorModel.startsWith('models/') ? target.vendorModel : `models/${target.vendorModel}`;
  return new URL(`${target.baseUrl.replace(/\/+$/, '')}/v1beta/${model}:${method}${query}`);
}

function headersFor(target: VendorTarget): Record<string, string> {
  return { 'content-type': 'application/json', 'x-goog-api-key': target.apiKey, ...target.extraHeaders };
}

export const geminiAdapter: DialectAdapter = {
  buildRequest(target, canonical, stream) {
    const prepared = prepareRequest(target, canonical);
    const body = buildGeminiBody(target, prepared.request, prepared.warnings);
    const url = stream ? modelUrl(target, 'streamGenerateContent', '?alt=sse') : modelUrl(target, 'generateContent');
    return { url, headers: headersFor(target), body: JSON.stringify(body), warnings: prepared.warnings };
  },
  parseAnswer(json, target, headers): VendorAnswer {
    if (!json || typeof json !== 'object') throw malformed(target, `${target.vendor} answered with something that is not a JSON object`, json);
    const answer = json as Json;
    const candidate = (Array.isArray(answer.candidates) ? answer.candidates[0] : undefined) as Json | undefined;
    const blocked = (answer.promptFeedback as Json | undefined)?.blockReason;
    if (!candidate && !blocked) throw malformed(target, `${target.vendor} answered without candidates`, json);
    let output = candidate ? candidateBlocks((candidate.content as Json | undefined)?.parts, callIds(Math.random().toString(36).slice(2, 10))) : [];
    let finish: FinishReason = candidate ? (FINISH[String(candidate.finishReason)] ?? 'stop') : 'content_filter';
    if (finish === 'stop' && output.some((b) => b.type === 'tool_use')) finish = 'tool_use';
    // Grounding with Google Search (native web search): the search first, as the other vendors show theirs, and its citations on the text.
    const texts = output.flatMap((b, index) => (b.type === 'text' ? [{ index, text: b.text }] : []));
    const found = candidate ? grounding(candidate.groundingMetadata, texts.map((t) => t.text).join(''), searchId()) : null;
    if (found) {
      const placed = placeCitations(texts, found.citations);
      output = [found.call, ...output.map((b, index) => (b.type === 'text' && placed.has(index) ? { ...b, annotations: placed.get(index)! } : b))];
    }
    return {
      output,
      finishReason: finish,
      stopSequence: null,
      refusal: null,
      usage: withSearches(geminiUsage(answer.usageMetadata), found),
      providerRequestId: typeof answer.responseId === 'string' ? answer.responseId : headers.get('x-goog-request-id'),
      vendorModel: typeof answer.modelVersion === 'string' ? answer.modelVersion : target.vendorModel,
      serviceTier: null,
    };
  },
  streamDecoder(target, headers) {
    return new GeminiStreamDecoder(target, headers);
  },
  classifyError(status, body, headers, target) {
    return classifyGeminiError(status, body, headers, target);
  },
  buildEmbeddings(target, request) {
    const model = target.vendorModel.startsWith('models/') ? target.vendorModel : `models/${target.vendorModel}`;
    const requests = request.input.map((item) => ({
      model,
      content: { parts: [{ text: typeof item === 'string' ? item : item.join(' ') }] },
      ...(request.dimensions !== null ? { outputDimensionality: request.dimensions } : {}),
    }));
    return { url: modelUrl(target, 'batchEmbedContents'), headers: headersFor(target), body: JSON.stringify({ requests }), warnings: [] };
  },
  parseEmbeddings(json, target) {
    const embeddings = (json as Json | null)?.embeddings;
    if (!Array.isArray(embeddings)) throw malformed(target, `${target.vendor} answered embeddings without "embeddings"`, json);
    const vectors = (embeddings as Json[]).map((e) => {
      if (!Array.isArray(e.values)) throw malformed(target, `${target.vendor} answered an embedding without "values"`);
      return e.values as number[];
    });
    return { vectors, usage: null, vendorModel: target.vendorModel };
  },
  buildCountTokens(target, canonical) {
    const prepared = prepareRequest(target, canonical);
    const body = buildGeminiBody(target, prepared.request, prepared.warnings);
    const model = target.vendorModel.startsWith('models/') ? target.vendorModel : `models/${target.vendorModel}`;
    return { url: modelUrl(target, 'countTokens'), headers: headersFor(target), body: JSON.stringify({ generateContentRequest: { model, ...body } }), warnings: prepared.warnings };
  },
  parseCountTokens(json) {
    return count((json as Json | null)?.totalTokens);
  },
};
