import type { CanonicalResponse, ChatSurface, GatewayErrorLike, RenderExtras, StreamInit, StreamRenderer, Surface } from '../types';
import { AnthropicStreamRenderer, anthropicErrorBody, renderAnthropicMessage } from './anthropic';
import { NativeStreamRenderer, nativeErrorBody, renderNativeResponse } from './native';
import { ChatStreamRenderer, chatErrorBody, renderChatCompletion } from './openai-chat';
import { ResponsesStreamRenderer, renderResponsesResponse, responsesErrorBody } from './openai-responses';

/** One chat surface's response body. `init` echoes the client's instructions/metadata where the surface does. */
export function renderResponse(surface: ChatSurface, response: CanonicalResponse, extras: RenderExtras, init: { instructions?: string | null; metadata?: Record<string, string> | null } = {}): unknown {
  switch (surface) {
    case 'native-responses':
      return renderNativeResponse(response, extras);
    case 'openai-chat':
      return renderChatCompletion(response, extras);
    case 'openai-responses':
      return renderResponsesResponse(response, extras, init);
    case 'anthropic-messages':
      return renderAnthropicMessage(response, extras);
  }
}

/** A renderer of one stream's frames for a surface. */
export function createStreamRenderer(surface: ChatSurface, init: StreamInit): StreamRenderer {
  switch (surface) {
    case 'native-responses':
      return new NativeStreamRenderer(init);
    case 'openai-chat':
      return new ChatStreamRenderer(init);
    case 'openai-responses':
      return new ResponsesStreamRenderer(init);
    case 'anthropic-messages':
      return new AnthropicStreamRenderer(init);
  }
}

/**
 * An error as the surface sends it: the spec's envelope `{error: {type, message, code, param, source,
 * provider}}` (Anthropic's surface wraps it as `{type: "error", error: {...}}`, as its SDK reads it);
 * a native schema failure is 422 `{detail: [...]}`. Vendor 429s carry no Retry-After (spec).
 */
export function renderError(surface: Surface, error: GatewayErrorLike): { status: number; body: unknown; headers?: Record<string, string> } {
  const headers = error.headers;
  if (error.detail && surface === 'native-responses') return { status: 422, body: { detail: error.detail }, ...(headers ? { headers } : {}) };
  let body: unknown;
  switch (surface) {
    case 'native-responses':
      body = nativeErrorBody(error);
      if (body && typeof body === 'object') delete ((body as { error: Record<string, unknown> }).error as Record<string, unknown>).status_code;
      break;
    case 'anthropic-messages':
      body = anthropicErrorBody(error);
      break;
    case 'openai-responses':
      body = responsesErrorBody(error);
      break;
    default:
      body = chatErrorBody(error);
  }
  return { status: error.status, body, ...(headers ? { headers } : {}) };
}
