import { sseFrame } from '../stream/sse';
import type { CanonicalResponse, CanonicalStreamEvent, FinishReason, GatewayErrorLike, NormalizedUsage, RenderExtras, StreamInit, StreamRenderer, UrlCitation } from '../types';
import { envelope, idBody, serverToolUseBody, warningsOrNull } from './common';

export const CHAT_FINISH: Record<FinishReason, string> = { stop: 'stop', max_tokens: 'length', tool_use: 'tool_calls', content_filter: 'content_filter' };

export function chatUsage(usage: NormalizedUsage, costUsd: number | undefined): Record<string, unknown> {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    ...serverToolUseBody(usage),
    ...(costUsd !== undefined ? { cost_usd: costUsd } : {}),
  };
}

/** Chat's nested url_citation, its indices into the whole message content (`offset`: the text before the block). */
function chatAnnotation(a: UrlCitation, offset: number): unknown {
  return { type: 'url_citation', url_citation: { url: a.url, title: a.title, start_index: a.startIndex + offset, end_index: a.endIndex + offset } };
}

/** An OpenAI `chat.completion` object. */
export function renderChatCompletion(response: CanonicalResponse, extras: RenderExtras): unknown {
  let text = '';
  let reasoning = '';
  const calls: unknown[] = [];
  const annotations: unknown[] = [];
  for (const block of response.output) {
    if (block.type === 'text') {
      for (const a of block.annotations ?? []) annotations.push(chatAnnotation(a, text.length));
      text += block.text;
    }
    else if (block.type === 'thinking') reasoning += block.thinking;
    else if (block.type === 'tool_use') calls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: block.inputJson ?? JSON.stringify(block.input ?? {}) } });
  }
  const message: Record<string, unknown> = { role: 'assistant', content: text === '' && calls.length > 0 ? null : text, refusal: response.refusal, annotations };
  if (calls.length > 0) message.tool_calls = calls;
  if (reasoning) message.reasoning_content = reasoning;
  const body: Record<string, unknown> = {
    id: `chatcmpl-${idBody(response.id)}`,
    object: 'chat.completion',
    created: response.created,
    model: response.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: CHAT_FINISH[response.finishReason] }],
    usage: chatUsage(response.usage, extras.costUsd),
    service_tier: response.serviceTier,
    system_fingerprint: null,
  };
  const warnings = warningsOrNull(response.warnings, extras.warnings);
  if (warnings) body.warnings = warnings;
  return body;
}

export function chatErrorBody(error: GatewayErrorLike): unknown {
  return { error: envelope(error) };
}

/**
 * `chat.completion.chunk` frames: a role chunk, content / tool_calls / reasoning_content deltas, a
 * finish chunk, the usage chunk when the client asked for include_usage, then `[DONE]`. A failure
 * after the stream opened is one `{"error": …}` chunk and no [DONE] (the openai SDK throws on it).
 */
export class ChatStreamRenderer implements StreamRenderer {
  private readonly id: string;
  private readonly includeUsage: boolean;
  private readonly toolOrdinal = new Map<number, number>();
  private finishEvent: Extract<CanonicalStreamEvent, { type: 'finish' }> | null = null;
  /** Content characters sent so far, and where each text block began (annotation offsets). */
  private textLength = 0;
  private readonly textStart = new Map<number, number>();

  constructor(private readonly init: StreamInit) {
    this.id = `chatcmpl-${idBody(init.id)}`;
    this.includeUsage = init.render?.includeUsage ?? false;
  }

  private chunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
    const chunk: Record<string, unknown> = {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.init.created,
      model: this.init.model,
      system_fingerprint: null,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    };
    if (this.includeUsage) chunk.usage = null;
    return sseFrame(JSON.stringify(chunk));
  }

  start(): string {
    return this.chunk({ role: 'assistant', content: '', refusal: null });
  }

  event(event: CanonicalStreamEvent): string {
    switch (event.type) {
      case 'text_delta':
        if (!this.textStart.has(event.index)) this.textStart.set(event.index, this.textLength);
        this.textLength += event.text.length;
        return this.chunk({ content: event.text });
      case 'annotation':
        return this.chunk({ annotations: [chatAnnotation(event.annotation, this.textStart.get(event.index) ?? 0)] });
      case 'thinking_delta':
        return this.chunk({ reasoning_content: event.thinking });
      case 'tool_call_start': {
        const ordinal = this.toolOrdinal.size;
        this.toolOrdinal.set(event.index, ordinal);
        return this.chunk({ tool_calls: [{ index: ordinal, id: event.id, type: 'function', function: { name: event.name, arguments: '' } }] });
      }
      case 'tool_call_delta': {
        const ordinal = this.toolOrdinal.get(event.index) ?? 0;
        return this.chunk({ tool_calls: [{ index: ordinal, function: { arguments: event.argumentsDelta } }] });
      }
      case 'finish':
        this.finishEvent = event;
        return '';
      default:
        return '';
    }
  }

  finish(extras: RenderExtras): string {
    const finish = this.finishEvent;
    let out = this.chunk({}, CHAT_FINISH[finish?.finishReason ?? 'stop']);
    if (this.includeUsage && finish) {
      const chunk: Record<string, unknown> = {
        id: this.id,
        object: 'chat.completion.chunk',
        created: this.init.created,
        model: this.init.model,
        system_fingerprint: null,
        choices: [],
        usage: chatUsage(finish.usage, extras.costUsd),
      };
      const warnings = warningsOrNull(this.init.warnings, extras.warnings);
      if (warnings) chunk.warnings = warnings;
      out += sseFrame(JSON.stringify(chunk));
    }
    return out + 'data: [DONE]\n\n';
  }

  error(error: GatewayErrorLike): string {
    return sseFrame(JSON.stringify(chatErrorBody(error)));
  }
}
