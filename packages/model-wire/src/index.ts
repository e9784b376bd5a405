export { adapterFor, callVendor, countTokensVendor, embedVendor, emptyAnswerKind, newResponseId, responsesTarget, streamVendor } from './call';
export type { AnswerOptions, VendorStream } from './call';
export { VendorError, WireError } from './errors';
export type { VendorErrorInit } from './errors';
export { base64DecodedBytes, checkInlineMedia, estimateEmbeddingTokens, estimateInputTokens, INLINE_MEDIA_LIMITS, requestedMaxOutputTokens } from './estimate';
export { createVendorHttp } from './http';
export { createStreamRenderer, renderError, renderResponse } from './render';
export { OutputAccumulator } from './render/common';
export { float32Base64, renderEmbeddings } from './surfaces/openai-embeddings';
export { parseCountTokensRequest, parseSurfaceRequest } from './surfaces/parse';
export { SseParser, sseFrame } from './stream/sse';
export { Cancellation } from './stream/deadline';
export { REASONING_EFFORTS } from './types';
export type {
  AudioBlock,
  CacheMarker,
  CallOptions,
  CancelSignal,
  CanonicalEmbeddings,
  CanonicalEmbeddingsRequest,
  CanonicalMessage,
  CanonicalRequest,
  CanonicalResponse,
  CanonicalStreamEvent,
  ChatSurface,
  ContentBlock,
  Dialect,
  DocumentBlock,
  ErrorType,
  FinishReason,
  GatewayErrorLike,
  GatewayFields,
  ImageBlock,
  MediaSource,
  NativeWebSearch,
  NormalizedUsage,
  OutputBlock,
  ParsedChatRequest,
  ParsedEmbeddingsRequest,
  PriorityOrderEntry,
  ReasoningEffort,
  ReasoningOptions,
  RedactedThinkingBlock,
  RenderExtras,
  RenderHints,
  ResponseFormat,
  RouteCapabilities,
  ServerToolUse,
  StreamInit,
  StreamRenderer,
  StreamTimeouts,
  Surface,
  TextBlock,
  ThinkingBlock,
  ThinkingOrigin,
  ToolChoice,
  ToolDefinition,
  ToolResultBlock,
  ToolUseBlock,
  UrlCitation,
  ValidationDetail,
  VendorErrorKind,
  VendorHttp,
  VendorTarget,
  VideoBlock,
  Warning,
  WebSearchCallBlock,
} from './types';
