import { sseFrame } from '../stream/sse';
import type { CanonicalResponse, CanonicalStreamEvent, FinishReason, GatewayErrorLike, NormalizedUsage, OutputBlock, RenderExtras, StreamInit, StreamRenderer, UrlCitation, WebSearchCallBlock } from '../types';
import { envelope, idBody, serverToolUseBody, warningsOrNull } from './common';

type Json = Record<string, unknown>;

export function responsesUsage(usage: NormalizedUsage, costUsd?: number): Json {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.outputTokens,
    ...serverToolUseBody(usage),
    ...(costUsd !== undefined ? { cost_usd: costUsd } : {}),
  };
}

/** OpenAI marks an answer cut by its output cap or a content filter `incomplete`, everything else `completed`. */
function status(finish: FinishReason): { status: string; incomplete: Json | null } {
  if (finish === 'max_tokens') return { status: 'incomplete', incomplete: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete: { reason: 'content_filter' } };
  return { status: 'completed', incomplete: null };
}

/** Output blocks as Responses output items: consecutive text joins one message item. */
function items(output: OutputBlock[], id: string, done: boolean): Json[] {
  const out: Json[] = [];
  let message: Json | null = null;
  let n = 0;
  const itemStatus = done ? 'completed' : 'in_progress';
  for (const block of output) {
    if (block.type === 'text') {
      if (!message) {
        message = { id: `msg_${idBody(id)}_${n++}`, type: 'message', status: itemStatus, role: 'assistant', content: [] };
        out.push(message);
      }
      (message.content as Json[]).push({ type: 'output_text', text: block.text, annotations: (block.annotations ?? []).map(responsesAnnotation), logprobs: [] });
      continue;
    }
    message = null;
    if (block.type === 'web_search_call') {
      out.push(webSearchItem(block));
      continue;
    }
    if (block.type === 'tool_use') {
      out.push({ id: `fc_${idBody(id)}_${n++}`, type: 'function_call', status: itemStatus, call_id: block.id, name: block.name, arguments: block.inputJson ?? JSON.stringify(block.input ?? {}) });
    } else if (block.type === 'thinking') {
      out.push({ id: `rs_${idBody(id)}_${n++}`, type: 'reasoning', summary: block.thinking ? [{ type: 'summary_text', text: block.thinking }] : [] });
    } else if (block.type === 'redacted_thinking') {
      out.push({ id: `rs_${idBody(id)}_${n++}`, type: 'reasoning', summary: [], ...(block.origin === 'openai' ? { encrypted_content: block.data } : {}) });
    }
  }
  return out;
}

/** The Responses API's flat url_citation. */
export function responsesAnnotation(a: UrlCitation): Json {
  return { type: 'url_citation', start_index: a.startIndex, end_index: a.endIndex, url: a.url, title: a.title };
}

/** A `web_search_call` output item (one query, its sources). */
export function webSearchItem(block: WebSearchCallBlock): Json {
  return {
    id: block.id,
    type: 'web_search_call',
    status: block.status,
    action: { type: 'search', query: block.queries[0] ?? '', sources: block.sources.map((s) => ({ type: 'url', url: s.url })) },
  };
}

interface ResponseFields {
  id: string;
  created: number;
  model: string;
  status: string;
  incomplete: Json | null;
  error: Json | null;
  output: Json[];
  usage: Json | null;
  instructions: string | null;
  metadata: Record<string, string> | null;
  serviceTier: string | null;
  warnings: unknown;
}

function responseObject(f: ResponseFields): Json {
  const body: Json = {
    id: f.id,
    object: 'response',
    created_at: f.created,
    status: f.status,
    background: false,
    error: f.error,
    incomplete_details: f.incomplete,
    instructions: f.instructions,
    max_output_tokens: null,
    model: f.model,
    output: f.output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    service_tier: f.serviceTier,
    store: false,
    temperature: null,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    truncation: 'disabled',
    usage: f.usage,
    user: null,
    metadata: f.metadata ?? {},
  };
  if (f.warnings) body.warnings = f.warnings;
  return body;
}

/** An OpenAI `response` object. */
export function renderResponsesResponse(response: CanonicalResponse, extras: RenderExtras, init: { instructions?: string | null; metadata?: Record<string, string> | null } = {}): unknown {
  const s = status(response.finishReason);
  return responseObject({
    id: response.id,
    created: response.created,
    model: response.model,
    status: s.status,
    incomplete: s.incomplete,
    error: null,
    output: items(response.output, response.id, true),
    usage: responsesUsage(response.usage, extras.costUsd),
    instructions: init.instructions ?? null,
    metadata: init.metadata ?? null,
    serviceTier: response.serviceTier,
    warnings: warningsOrNull(response.warnings, extras.warnings),
  });
}

export function responsesErrorBody(error: GatewayErrorLike): unknown {
  return { error: envelope(error) };
}

interface OpenItem {
  kind: 'message' | 'function_call' | 'reasoning';
  annotations?: Json[];
  id: string;
  outputIndex: number;
  text: string;
  callId?: string;
  name?: string;
  encrypted?: string;
}

/**
 * The Responses event stream: response.created, response.in_progress, then per output item
 * output_item.added, content_part.added, output_text.delta… (function_call_arguments.delta,
 * reasoning_summary_text.delta), the matching .done events, and response.completed (or
 * response.incomplete when cut by max_output_tokens or a content filter). A failure after the
 * stream opened is an `error` event then `response.failed`. Every event has a sequence_number.
 */
export class ResponsesStreamRenderer implements StreamRenderer {
  private seq = 0;
  private item: OpenItem | null = null;
  private outputIndex = 0;
  private readonly done: Json[] = [];
  private readonly byIndex = new Map<number, OpenItem>();
  private finishEvent: Extract<CanonicalStreamEvent, { type: 'finish' }> | null = null;

  constructor(private readonly init: StreamInit) {}

  private emit(type: string, fields: Json): string {
    return sseFrame(JSON.stringify({ type, sequence_number: this.seq++, ...fields }), type);
  }

  private snapshot(status: string, extra: Partial<ResponseFields> = {}): Json {
    const response = responseObject({
      id: this.init.id,
      created: this.init.created,
      model: this.init.model,
      status,
      incomplete: null,
      error: null,
      output: this.done,
      usage: null,
      instructions: this.init.render?.instructions ?? null,
      metadata: this.init.metadata ?? null,
      serviceTier: null,
      warnings: null,
      ...extra,
    });
    return this.init.echo ? { ...response, ...this.init.echo } : response;
  }

  start(): string {
    const response = this.snapshot('in_progress');
    return this.emit('response.created', { response }) + this.emit('response.in_progress', { response });
  }

  private closeItem(): string {
    const item = this.item;
    if (!item) return '';
    this.item = null;
    let out = '';
    let done: Json;
    if (item.kind === 'message') {
      const part = { type: 'output_text', text: item.text, annotations: item.annotations ?? [], logprobs: [] };
      out += this.emit('response.output_text.done', { item_id: item.id, output_index: item.outputIndex, content_index: 0, text: item.text, logprobs: [] });
      out += this.emit('response.content_part.done', { item_id: item.id, output_index: item.outputIndex, content_index: 0, part });
      done = { id: item.id, type: 'message', status: 'completed', role: 'assistant', content: [part] };
    } else if (item.kind === 'function_call') {
      out += this.emit('response.function_call_arguments.done', { item_id: item.id, output_index: item.outputIndex, name: item.name, arguments: item.text });
      done = { id: item.id, type: 'function_call', status: 'completed', call_id: item.callId, name: item.name, arguments: item.text };
    } else {
      const summary = item.text ? [{ type: 'summary_text', text: item.text }] : [];
      if (item.text) {
        out += this.emit('response.reasoning_summary_text.done', { item_id: item.id, output_index: item.outputIndex, summary_index: 0, text: item.text });
        out += this.emit('response.reasoning_summary_part.done', { item_id: item.id, output_index: item.outputIndex, summary_index: 0, part: summary[0] });
      }
      done = { id: item.id, type: 'reasoning', summary, ...(item.encrypted ? { encrypted_content: item.encrypted } : {}) };
    }
    this.done.push(done);
    return out + this.emit('response.output_item.done', { output_index: item.outputIndex, item: done });
  }

  private open(kind: OpenItem['kind'], index: number, extra: Partial<OpenItem> = {}): string {
    let out = this.closeItem();
    const prefix = kind === 'message' ? 'msg' : kind === 'function_call' ? 'fc' : 'rs';
    const item: OpenItem = { kind, id: `${prefix}_${idBody(this.init.id)}_${this.outputIndex}`, outputIndex: this.outputIndex++, text: '', ...extra };
    this.item = item;
    this.byIndex.set(index, item);
    if (kind === 'message') {
      out += this.emit('response.output_item.added', { output_index: item.outputIndex, item: { id: item.id, type: 'message', status: 'in_progress', role: 'assistant', content: [] } });
      out += this.emit('response.content_part.added', { item_id: item.id, output_index: item.outputIndex, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
    } else if (kind === 'function_call') {
      out += this.emit('response.output_item.added', { output_index: item.outputIndex, item: { id: item.id, type: 'function_call', status: 'in_progress', call_id: item.callId, name: item.name, arguments: '' } });
    } else {
      out += this.emit('response.output_item.added', { output_index: item.outputIndex, item: { id: item.id, type: 'reasoning', summary: [] } });
    }
    return out;
  }

  event(event: CanonicalStreamEvent): string {
    const current = this.byIndex.get('index' in event ? (event as { index: number }).index : -1);
    switch (event.type) {
      case 'text_delta': {
        let out = current && current === this.item ? '' : this.open('message', event.index);
        const item = this.item!;
        item.text += event.text;
        out += this.emit('response.output_text.delta', { item_id: item.id, output_index: item.outputIndex, content_index: 0, delta: event.text, logprobs: [] });
        return out;
      }
      case 'tool_call_start':
        return this.open('function_call', event.index, { callId: event.id, name: event.name });
      case 'tool_call_delta': {
        if (!current || current.kind !== 'function_call') return '';
        current.text += event.argumentsDelta;
        return this.emit('response.function_call_arguments.delta', { item_id: current.id, output_index: current.outputIndex, delta: event.argumentsDelta });
      }
      case 'thinking_delta': {
        let out = '';
        if (!current || current !== this.item) {
          out += this.open('reasoning', event.index);
          out += this.emit('response.reasoning_summary_part.added', { item_id: this.item!.id, output_index: this.item!.outputIndex, summary_index: 0, part: { type: 'summary_text', text: '' } });
        }
        const item = this.item!;
        item.text += event.thinking;
        return out + this.emit('response.reasoning_summary_text.delta', { item_id: item.id, output_index: item.outputIndex, summary_index: 0, delta: event.thinking });
      }
      case 'redacted_thinking':
        return this.open('reasoning', event.index, event.origin === 'openai' ? { encrypted: event.data } : {});
      case 'web_search_call':
        return this.webSearchCall(event.call);
      case 'annotation': {
        if (!current || current.kind !== 'message') return '';
        const annotation = responsesAnnotation(event.annotation);
        current.annotations = [...(current.annotations ?? []), annotation];
        return this.emit('response.output_text.annotation.added', { item_id: current.id, output_index: current.outputIndex, content_index: 0, annotation_index: current.annotations.length - 1, annotation });
      }
      case 'finish':
        this.finishEvent = event;
        return '';
      default:
        return '';
    }
  }

  /** A whole web_search_call item: added, in_progress, searching, completed, done (OpenAI's order). */
  private webSearchCall(call: WebSearchCallBlock): string {
    let out = this.closeItem();
    const outputIndex = this.outputIndex++;
    const ids = { item_id: call.id, output_index: outputIndex };
    out += this.emit('response.output_item.added', { output_index: outputIndex, item: { id: call.id, type: 'web_search_call', status: 'in_progress' } });
    out += this.emit('response.web_search_call.in_progress', ids);
    out += this.emit('response.web_search_call.searching', ids);
    out += this.emit('response.web_search_call.completed', ids);
    const done = webSearchItem(call);
    this.done.push(done);
    return out + this.emit('response.output_item.done', { output_index: outputIndex, item: done });
  }

  finish(extras: RenderExtras): string {
    let out = this.closeItem();
    const finish = this.finishEvent;
    const s = status(finish?.finishReason ?? 'stop');
    const response = this.snapshot(s.status, {
      incomplete: s.incomplete,
      usage: finish ? responsesUsage(finish.usage, extras.costUsd) : null,
      serviceTier: finish?.serviceTier ?? null,
      warnings: warningsOrNull(this.init.warnings, extras.warnings),
    });
    out += this.emit(s.status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
    return out;
  }

  error(error: GatewayErrorLike): string {
    const e = envelope(error);
    let out = this.emit('error', { code: e.code ?? e.type, message: e.message, param: e.param });
    const response = this.snapshot('failed', { error: { code: e.code ?? e.type, message: e.message } });
    out += this.emit('response.failed', { response });
    return out;
  }
}
