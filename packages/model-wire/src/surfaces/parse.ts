import type { ChatSurface, ParsedChatRequest, ParsedEmbeddingsRequest, Surface } from '../types';
import { parseAnthropicRequest } from './anthropic-messages';
import { parseNativeRequest } from './native-responses';
import { parseOpenAIChatRequest } from './openai-chat';
import { parseEmbeddingsRequest } from './openai-embeddings';
import { parseOpenAIResponsesRequest } from './openai-responses';

/**
 * A surface's JSON body (already parsed) into the canonical request and the gateway's fields.
 * Throws WireError: a 400 with a code of the spec's table, or on the native surface a 422 with the
 * `detail` array for schema failures.
 */
export function parseSurfaceRequest(surface: 'openai-embeddings', body: unknown): ParsedEmbeddingsRequest;
export function parseSurfaceRequest(surface: ChatSurface, body: unknown): ParsedChatRequest;
export function parseSurfaceRequest(surface: Surface, body: unknown): ParsedChatRequest | ParsedEmbeddingsRequest;
export function parseSurfaceRequest(surface: Surface, body: unknown): ParsedChatRequest | ParsedEmbeddingsRequest {
  switch (surface) {
    case 'native-responses':
      return parseNativeRequest(body);
    case 'openai-chat':
      return parseOpenAIChatRequest(body);
    case 'openai-responses':
      return parseOpenAIResponsesRequest(body);
    case 'anthropic-messages':
      return parseAnthropicRequest(body);
    case 'openai-embeddings':
      return parseEmbeddingsRequest(body);
  }
}

/** Anthropic `POST /v1/messages/count_tokens`: the messages body without max_tokens. */
export function parseCountTokensRequest(body: unknown): ParsedChatRequest {
  return parseAnthropicRequest(body, { countTokens: true });
}
