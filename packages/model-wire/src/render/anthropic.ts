import { sseFrame } from '../stream/sse';
import type { CanonicalResponse, CanonicalStreamEvent, FinishReason, GatewayErrorLike, NormalizedUsage, RenderExtras, StreamInit, StreamRenderer, UrlCitation, WebSearchCallBlock } from '../types';
import { envelope, idBody, serverToolUseBody, warningsOrNull } from './common';

type Json = Record<string, unknown>;

function stopReason(finish: FinishReason, stopSequence: string | null): string {
  switch (finish) {
    case 'stop':
      return stopSequence ? 'stop_sequence' : 'end_turn';
    case 'max_tokens':
      return 'max_tokens';
    case 'tool_use':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
  }
}

/** Anthropic's usage: `input_tokens` excludes cache reads and writes (the reverse of normalisation). */
export function anthropicUsageBody(usage: NormalizedUsage, costUsd?: number): Json {
  return {
    input_tokens: Math.max(0, usage.inputTokens - usage.cachedInputTokens - usage.cacheWriteInputTokens),
    cache_creation_input_tokens: usage.cacheWriteInputTokens,
    cache_read_input_tokens: usage.cachedInputTokens,
    output_tokens: usage.outputTokens,
    ...serverToolUseBody(usage),
    ...(costUsd !== undefined ? { cost_usd: costUsd } : {}),
  };
}

/** Anthropic's citation of a web search result on a text block. */
function anthropicCitation(a: UrlCitation): Json {
  return { type: 'web_search_result_location', url: a.url, title: a.title, cited_text: a.citedText ?? '', encrypted_index: '' };
}

/** A search as Anthropic shows its own: the server_tool_use block and its web_search_tool_result. */
function serverToolBlocks(call: WebSearchCallBlock): [Json, Json] {
  const id = call.id.startsWith('srvtoolu_') ? call.id : `srvtoolu_${call.id.replace(/^ws_/, '')}`;
  const use = { type: 'server_tool_use', id, name: 'web_search', input: { query: call.queries[0] ?? '' } };
  const content =
    call.status === 'completed'
      ? call.sources.map((s) => ({ type: 'web_search_result', url: s.url, title: s.title, encrypted_content: '', page_age: s.pageAge ?? null }))
      : { type: 'web_search_tool_result_error', error_code: call.errorCode ?? 'unavailable' };
  return [use, { type: 'web_search_tool_result', tool_use_id: id, content }];
}

/** An Anthropic `message` object. */
export function renderAnthropicMessage(response: CanonicalResponse, extras: RenderExtras): unknown {
  const content = response.output.flatMap((block): Json[] => {
    switch (block.type) {
      case 'text':
        return [block.annotations?.length ? { type: 'text', text: block.text, citations: block.annotations.map(anthropicCitation) } : { type: 'text', text: block.text }];
      case 'web_search_call':
        return serverToolBlocks(block);
      case 'tool_use':
        return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input !== null && typeof block.input === 'object' ? (block.input as Json) : {} }];
      case 'thinking':
        return [{ type: 'thinking', thinking: block.thinking, signature: block.signature ?? '' }];
      case 'redacted_thinking':
        return [{ type: 'redacted_thinking', data: block.data }];
    }
  });
  const body: Json = {
    id: `msg_${idBody(response.id)}`,
    type: 'message',
    role: 'assistant',
    model: response.model,
    content,
    stop_reason: stopReason(response.finishReason, response.stopSequence),
    stop_sequence: response.stopSequence,
    usage: anthropicUsageBody(response.usage, extras.costUsd),
  };
  const warnings = warningsOrNull(response.warnings, extras.warnings);
  if (warnings) body.warnings = warnings;
  return body;
}

/** `{type: "error", error: {...}}`: Anthropic's error shape carrying the gateway's envelope fields. */
export function anthropicErrorBody(error: GatewayErrorLike): unknown {
  return { type: 'error', error: envelope(error) };
}

/**
 * message_start, per block content_block_start / _delta / _stop, message_delta with the stop reason
 * and usage, message_stop. A failure after the stream opened is one `error` event (no message_stop).
 */
export class AnthropicStreamRenderer implements StreamRenderer {
  private readonly blockIndex = new Map<number, number>();
  private open: number | null = null;
  /** The next surface index (a web search takes two: server_tool_use and its result). */
  private next = 0;
  private finishEvent: Extract<CanonicalStreamEvent, { type: 'finish' }> | null = null;

  constructor(private readonly init: StreamInit) {}

  private emit(type: string, fields: Json): string {
    return sseFrame(JSON.stringify({ type, ...fields }), type);
  }

  start(): string {
    const message = {
      id: `msg_${idBody(this.init.id)}`,
      type: 'message',
      role: 'assistant',
      model: this.init.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: this.init.estimatedInputTokens ?? 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 },
    };
    return this.emit('message_start', { message });
  }

  /** The surface index of a canonical block, opening it (and closing the previous one) on first sight. */
  private block(index: number, start: () => Json): { out: string; at: number } {
    const known = this.blockIndex.get(index);
    if (known !== undefined) return { out: '', at: known };
    let out = '';
    if (this.open !== null) out += this.emit('content_block_stop', { index: this.open });
    const at = this.next++;
    this.blockIndex.set(index, at);
    this.open = at;
    out += this.emit('content_block_start', { index: at, content_block: start() });
    return { out, at };
  }

  event(event: CanonicalStreamEvent): string {
    switch (event.type) {
      case 'text_delta': {
        const { out, at } = this.block(event.index, () => ({ type: 'text', text: '' }));
        return out + this.emit('content_block_delta', { index: at, delta: { type: 'text_delta', text: event.text } });
      }
      case 'tool_call_start':
        return this.block(event.index, () => ({ type: 'tool_use', id: event.id, name: event.name, input: {} })).out;
      case 'tool_call_delta': {
        const { out, at } = this.block(event.index, () => ({ type: 'tool_use', id: `toolu_${event.index}`, name: '', input: {} }));
        return out + this.emit('content_block_delta', { index: at, delta: { type: 'input_json_delta', partial_json: event.argumentsDelta } });
      }
      case 'thinking_delta': {
        const { out, at } = this.block(event.index, () => ({ type: 'thinking', thinking: '', signature: '' }));
        return out + this.emit('content_block_delta', { index: at, delta: { type: 'thinking_delta', thinking: event.thinking } });
      }
      case 'thinking_signature': {
        const { out, at } = this.block(event.index, () => ({ type: 'thinking', thinking: '', signature: '' }));
        return out + this.emit('content_block_delta', { index: at, delta: { type: 'signature_delta', signature: event.signature } });
      }
      case 'redacted_thinking':
        return this.block(event.index, () => ({ type: 'redacted_thinking', data: event.data })).out;
      case 'web_search_call': {
        const [use, result] = serverToolBlocks(event.call);
        let out = this.block(event.index, () => ({ ...use, input: {} })).out;
        out += this.emit('content_block_delta', { index: this.open, delta: { type: 'input_json_delta', partial_json: JSON.stringify(use.input) } });
        out += this.emit('content_block_stop', { index: this.open });
        const at = this.next++;
        out += this.emit('content_block_start', { index: at, content_block: result });
        this.open = at;
        return out;
      }
      case 'annotation': {
        const at = this.blockIndex.get(event.index);
        if (at === undefined) return '';
        return this.emit('content_block_delta', { index: at, delta: { type: 'citations_delta', citation: anthropicCitation(event.annotation) } });
      }
      case 'finish':
        this.finishEvent = event;
        return '';
    }
  }

  finish(extras: RenderExtras): string {
    let out = '';
    if (this.open !== null) out += this.emit('content_block_stop', { index: this.open });
    this.open = null;
    const finish = this.finishEvent;
    const usage = finish ? anthropicUsageBody(finish.usage, extras.costUsd) : { output_tokens: 0 };
    const delta: Json = { delta: { stop_reason: stopReason(finish?.finishReason ?? 'stop', finish?.stopSequence ?? null), stop_sequence: finish?.stopSequence ?? null }, usage };
    const warnings = warningsOrNull(this.init.warnings, extras.warnings);
    if (warnings) delta.warnings = warnings;
    out += this.emit('message_delta', delta);
    return out + this.emit('message_stop', {});
  }

  error(error: GatewayErrorLike): string {
    return this.emit('error', anthropicErrorBody(error) as Json);
  }
}
