import { sseFrame } from '../stream/sse';
import type { CanonicalResponse, CanonicalStreamEvent, FinishReason, GatewayErrorLike, NormalizedUsage, OutputBlock, RenderExtras, StreamInit, StreamRenderer, Warning } from '../types';
import { envelope, idBody, OutputAccumulator, serverToolUseBody, warningsOrNull } from './common';

function contentBlocks(output: OutputBlock[]): unknown[] {
  return output.map((block) => {
    switch (block.type) {
      case 'text':
        return block.annotations?.length
          ? { type: 'text', text: block.text, annotations: block.annotations.map((a) => ({ type: 'url_citation', url: a.url, title: a.title, start_index: a.startIndex, end_index: a.endIndex })) }
          : { type: 'text', text: block.text };
      case 'web_search_call':
        return { type: 'web_search_call', id: block.id, status: block.status, queries: block.queries, sources: block.sources.map((s) => ({ url: s.url, title: s.title })), ...(block.errorCode ? { error_code: block.errorCode } : {}) };
      case 'tool_use':
        return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
      case 'thinking':
        return { type: 'thinking', thinking: block.thinking, signature: block.signature ?? null };
      case 'redacted_thinking':
        return { type: 'redacted_thinking', data: block.data };
    }
  });
}

export function nativeUsage(usage: NormalizedUsage, costUsd: number): Record<string, unknown> {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens, cache_write_tokens: usage.cacheWriteInputTokens },
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    ...serverToolUseBody(usage),
    cost_usd: costUsd,
  };
}

interface NativeFields {
  id: string;
  object: string;
  created: number;
  model: string;
  vendor: string;
  providerRequestId: string | null;
  serviceTier: string | null;
  output: OutputBlock[];
  finishReason: FinishReason | null;
  usage: Record<string, unknown> | null;
  routing: unknown;
  warnings: Warning[] | null;
}

function body(f: NativeFields): Record<string, unknown> {
  return {
    id: f.id,
    object: f.object,
    created_at: new Date(f.created * 1000).toISOString(),
    model: f.model,
    vendor: f.vendor,
    provider_request_id: f.providerRequestId,
    service_tier: f.serviceTier,
    output: [{ id: `msg_${idBody(f.id)}`, type: 'message', role: 'assistant', finish_reason: f.finishReason, content: contentBlocks(f.output) }],
    usage: f.usage,
    routing: f.routing ?? null,
    warnings: f.warnings,
  };
}

/** The native `/v1/responses` body (facts file §1). */
export function renderNativeResponse(response: CanonicalResponse, extras: RenderExtras): unknown {
  return body({
    id: response.id,
    object: 'response',
    created: response.created,
    model: response.model,
    vendor: response.vendor,
    providerRequestId: response.providerRequestId,
    serviceTier: response.serviceTier,
    output: response.output,
    finishReason: response.finishReason,
    usage: nativeUsage(response.usage, extras.costUsd),
    routing: extras.routing,
    warnings: warningsOrNull(response.warnings, extras.warnings),
  });
}

export function nativeErrorBody(error: GatewayErrorLike): unknown {
  return { error: { ...envelope(error), status_code: error.status } };
}

/**
 * The native stream: each `response.stream` frame is the whole response so far (a client replaces
 * its copy), `response.done` the final one with usage and cost, `response.error` a failure. No [DONE].
 */
export class NativeStreamRenderer implements StreamRenderer {
  private output = new OutputAccumulator();
  private finishReason: FinishReason | null = null;
  private usage: NormalizedUsage | null = null;
  private providerRequestId: string | null = null;
  private serviceTier: string | null = null;
  private model: string;
  private vendor: string;

  constructor(private readonly init: StreamInit) {
    this.model = init.model;
    this.vendor = init.vendor;
  }

  start(): string {
    return '';
  }

  private frame(object: string, extras?: RenderExtras): string {
    return sseFrame(
      JSON.stringify(
        body({
          id: this.init.id,
          object,
          created: this.init.created,
          model: this.model,
          vendor: this.vendor,
          providerRequestId: this.providerRequestId,
          serviceTier: this.serviceTier,
          output: this.output.blocks,
          finishReason: this.finishReason,
          usage: extras && this.usage ? nativeUsage(this.usage, extras.costUsd) : null,
          routing: extras?.routing,
          warnings: warningsOrNull(this.init.warnings, extras?.warnings),
        }),
      ),
    );
  }

  event(event: CanonicalStreamEvent): string {
    this.output.add(event);
    if (event.type === 'finish') {
      this.finishReason = event.finishReason;
      this.usage = event.usage;
      this.providerRequestId = event.providerRequestId;
      this.serviceTier = event.serviceTier;
      return '';
    }
    if (event.type === 'thinking_signature' || event.type === 'tool_call_start') return '';
    return this.frame('response.stream');
  }

  finish(extras: RenderExtras): string {
    return this.frame('response.done', extras);
  }

  error(error: GatewayErrorLike): string {
    return sseFrame(JSON.stringify({ object: 'response.error', id: this.init.id, ...(nativeErrorBody(error) as object) }));
  }

  /** A failover restart before the first token reached the client (issue 10): earlier content is discarded. */
  restart(info: { model: string; vendor: string }): string {
    this.model = info.model;
    this.vendor = info.vendor;
    this.output = new OutputAccumulator();
    return sseFrame(JSON.stringify({ fallback_restart: true, model: info.model, vendor: info.vendor }));
  }
}
