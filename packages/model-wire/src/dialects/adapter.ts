import type { ResponseHeaders } from '@patchbay/outbound';
import type { VendorErrorInit } from '../errors';
import type { VendorErrorKind } from '../types';
import type { SseFrame } from '../stream/sse';
import type {
  CanonicalEmbeddingsRequest,
  CanonicalRequest,
  CanonicalStreamEvent,
  FinishReason,
  NormalizedUsage,
  OutputBlock,
  VendorTarget,
  Warning,
} from '../types';

/** One HTTP request to a vendor, ready to send. */
export interface VendorRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
  warnings: Warning[];
}

/** What a vendor's non-streaming answer says, before the gateway adds its own fields. */
export interface VendorAnswer {
  output: OutputBlock[];
  finishReason: FinishReason;
  stopSequence: string | null;
  refusal: string | null;
  usage: NormalizedUsage;
  providerRequestId: string | null;
  vendorModel: string;
  serviceTier: string | null;
}

/**
 * Turns a vendor's SSE frames into canonical events. `frame` may throw a VendorError (a malformed
 * frame, an error frame); `end` is called when the body ends cleanly and throws unless the vendor
 * sent its terminal frame.
 */
export interface StreamDecoder {
  frame(frame: SseFrame, out: CanonicalStreamEvent[]): void;
  end(out: CanonicalStreamEvent[]): void;
  /** Input tokens the vendor announced up front (Anthropic message_start), for billing a cut stream. */
  readonly announcedInputTokens: number | null;
}

export interface DialectAdapter {
  buildRequest(target: VendorTarget, request: CanonicalRequest, stream: boolean): VendorRequest;
  parseAnswer(json: unknown, target: VendorTarget, headers: ResponseHeaders): VendorAnswer;
  streamDecoder(target: VendorTarget, headers: ResponseHeaders): StreamDecoder;
  /** A non-2xx answer as a VendorError's fields. */
  classifyError(status: number, body: unknown, headers: ResponseHeaders, target: VendorTarget): VendorErrorInit;
  buildEmbeddings?(target: VendorTarget, request: CanonicalEmbeddingsRequest): VendorRequest;
  parseEmbeddings?(json: unknown, target: VendorTarget, request: CanonicalEmbeddingsRequest): { vectors: Array<number[] | Float32Array>; usage: NormalizedUsage | null; vendorModel: string };
  buildCountTokens?(target: VendorTarget, request: CanonicalRequest): VendorRequest;
  parseCountTokens?(json: unknown): number;
}

export function zeroUsage(): NormalizedUsage {
  return { inputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, cacheWrite1hInputTokens: 0, outputTokens: 0, reasoningTokens: 0 };
}

/** A whole non-negative number from a vendor's usage field (absent, null or garbage reads as 0). */
export function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/** Seconds from `retry-after` (seconds or an HTTP date) or `retry-after-ms`. */
export function retryAfterSeconds(headers: ResponseHeaders, now = Date.now()): number | null {
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms) / 1000);
  const value = headers.get('retry-after');
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, (date - now) / 1000) : null;
}

/** The vendor's error message from the usual shapes, for logs and for the client's message. */
export function vendorMessage(body: unknown, fallback: string): string {
  if (typeof body === 'string') return body.slice(0, 500) || fallback;
  if (body && typeof body === 'object') {
    const error = (body as { error?: unknown }).error;
    if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') return (error as { message: string }).message;
    if (typeof (body as { message?: unknown }).message === 'string') return (body as { message: string }).message;
  }
  return fallback;
}

/** Status-based kind when the body says nothing more specific. */
export function kindByStatus(status: number): VendorErrorInit['kind'] {
  if (status === 429) return 'rate_limit';
  if (status === 401 || status === 403) return 'auth';
  if (status === 402) return 'billing';
  if (status === 404) return 'not_found';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 503 || status === 529) return 'overloaded';
  if (status >= 500) return 'server';
  return 'invalid_request';
}

const CONTEXT_LENGTH = /context[_ ]length|context window|maximum context|too many tokens|prompt is too long|input token count .* exceeds|exceeds the maximum number of tokens|reduce the length/i;

export function looksLikeContextLength(message: string): boolean {
  return CONTEXT_LENGTH.test(message);
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The fields every dialect's classification fills the same way. */
export function vendorErrorInit(
  kind: VendorErrorKind,
  status: number,
  message: string,
  body: unknown,
  headers: ResponseHeaders | null,
  target: VendorTarget,
  vendorCode: string | null,
): VendorErrorInit {
  return {
    kind,
    message: `${target.vendor}: ${message}`,
    vendor: target.vendor,
    model: target.model,
    vendorStatus: status || null,
    retryAfterSeconds: headers ? retryAfterSeconds(headers) : null,
    vendorBody: body,
    vendorCode,
  };
}
