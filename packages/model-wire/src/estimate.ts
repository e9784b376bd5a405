import { WireError } from './errors';
import type { CanonicalEmbeddingsRequest, CanonicalRequest, ContentBlock, MediaSource } from './types';

/**
 * The approximation behind every estimate (documented in the README): one token per three UTF-8
 * bytes of text (real tokenizers average about four for English, fewer for code and other scripts,
 * so three errs high), plus fixed costs per message, tool and media item.
 */
const BYTES_PER_TOKEN = 3;
const PER_MESSAGE = 4;
const PER_TOOL = 8;
const PER_IMAGE = 1600; // Anthropic's ceiling for a full-size image; OpenAI high detail and Gemini cost less
const PER_DOCUMENT_MIN = 1500;
const DOCUMENT_BYTES_PER_TOKEN = 50;
const AUDIO_BYTES_PER_TOKEN = 500;
const VIDEO_BYTES_PER_TOKEN = 1000;

function textTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / BYTES_PER_TOKEN);
}

/** Decoded size of base64 text, from its length alone (no decoding, no copy). */
export function base64DecodedBytes(data: string): number {
  const length = data.length;
  if (length === 0) return 0;
  let padding = 0;
  if (data.charCodeAt(length - 1) === 61) padding++;
  if (length > 1 && data.charCodeAt(length - 2) === 61) padding++;
  return Math.floor((length * 3) / 4) - padding;
}

function mediaBytes(source: MediaSource): number {
  return source.kind === 'base64' ? base64DecodedBytes(source.data) : 0;
}

function blockTokens(block: ContentBlock): number {
  switch (block.type) {
    case 'text':
      return textTokens(block.text);
    case 'image':
      return PER_IMAGE;
    case 'document':
      if (block.source.kind === 'base64' && block.source.mediaType.startsWith('text/')) return Math.ceil(mediaBytes(block.source) / BYTES_PER_TOKEN);
      return Math.max(PER_DOCUMENT_MIN, Math.ceil(mediaBytes(block.source) / DOCUMENT_BYTES_PER_TOKEN));
    case 'audio':
      return Math.max(100, Math.ceil(mediaBytes(block.source) / AUDIO_BYTES_PER_TOKEN));
    case 'video':
      return Math.max(1000, Math.ceil(mediaBytes(block.source) / VIDEO_BYTES_PER_TOKEN));
    case 'tool_use':
      return PER_TOOL + textTokens(block.name) + textTokens(block.inputJson ?? JSON.stringify(block.input ?? {}));
    case 'tool_result': {
      let n = PER_TOOL;
      for (const part of block.content) n += blockTokens(part);
      return n;
    }
    case 'thinking':
      return textTokens(block.thinking);
    case 'redacted_thinking':
      return Math.ceil(block.data.length / 4);
  }
}

/**
 * A deterministic upper estimate of a request's input tokens, for reserving money before the call.
 * The same request always gives the same number.
 */
export function estimateInputTokens(request: CanonicalRequest): number {
  let tokens = 3;
  for (const block of request.system) tokens += textTokens(block.text) + 1;
  for (const message of request.messages) {
    tokens += PER_MESSAGE;
    for (const block of message.content) tokens += blockTokens(block);
  }
  for (const tool of request.tools) {
    tokens += PER_TOOL + textTokens(tool.name) + (tool.description ? textTokens(tool.description) : 0) + textTokens(JSON.stringify(tool.parameters));
  }
  if (request.responseFormat?.type === 'json_schema') tokens += textTokens(JSON.stringify(request.responseFormat.schema));
  return tokens;
}

/** The same estimate for embeddings input (token arrays count as they are). */
export function estimateEmbeddingTokens(request: CanonicalEmbeddingsRequest): number {
  let tokens = 0;
  for (const item of request.input) tokens += typeof item === 'string' ? textTokens(item) : item.length;
  return tokens;
}

/** The output cap the client asked for, or null (the app then uses the model's max output). */
export function requestedMaxOutputTokens(request: CanonicalRequest): number | null {
  return request.maxOutputTokens;
}

export const INLINE_MEDIA_LIMITS = { visual: 20 * 1024 * 1024, audio: 25 * 1024 * 1024 } as const;

/**
 * 413 payload_too_large when the request's inline base64 media, decoded, is over 20 MB of images,
 * 20 MB of documents, 20 MB of video or 25 MB of audio (each kind summed over the request). Decided
 * from the base64 lengths, without decoding or copying anything.
 */
export function checkInlineMedia(request: CanonicalRequest): void {
  const totals = { image: 0, document: 0, video: 0, audio: 0 };
  const visit = (block: ContentBlock): void => {
    if (block.type === 'image' || block.type === 'document' || block.type === 'video' || block.type === 'audio') totals[block.type] += mediaBytes(block.source);
    else if (block.type === 'tool_result') for (const part of block.content) visit(part);
  };
  for (const message of request.messages) for (const block of message.content) visit(block);
  const mb = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  for (const kind of ['image', 'document', 'video'] as const) {
    if (totals[kind] > INLINE_MEDIA_LIMITS.visual) {
      throw new WireError(413, 'payload_too_large', `Inline base64 ${kind} data is ${mb(totals[kind])} decoded; the limit is 20 MB per request. Send a URL instead.`);
    }
  }
  if (totals.audio > INLINE_MEDIA_LIMITS.audio) {
    throw new WireError(413, 'payload_too_large', `Inline base64 audio is ${mb(totals.audio)} decoded; the limit is 25 MB per request. Send a URL instead.`);
  }
}
