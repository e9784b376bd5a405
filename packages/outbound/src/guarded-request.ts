import type { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import { errors as undiciErrors, type Dispatcher } from 'undici';
import { BlockedDestinationError } from './blocked-destination-error';
import { checkUrl, systemLookup } from './check-url';
import { createGuardedAgent } from './guarded-agent';
import type { GuardedFetchOptions } from './guarded-fetch';
import type { OutboundPolicy } from './policy';

export interface OutboundRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
  /** Lower-case names. */
  headers: Record<string, string>;
  /** A string, bytes, or a stream sent as it is read (a multipart upload spooled to disk). */
  body?: string | Buffer | Readable;
  /**
   * Cancels the request (the caller's own deadline, the client going away): an AbortSignal, or an
   * EventEmitter that emits 'abort', as undici takes either.
   */
  signal?: AbortSignal | EventEmitter;
  /**
   * Longest wait for the response's headers, and then for each part of its body, in milliseconds:
   * past it the request fails with an OutboundError of kind `timeout`.
   */
  timeoutMs: number;
}

/** A response's headers, read by name (case-insensitive); repeated headers are joined with ", ". */
export interface ResponseHeaders {
  get(name: string): string | null;
}

/** A response whose body has not been read yet: read it with `readBody`, or `discard` it. */
export interface OutboundResponse {
  status: number;
  headers: ResponseHeaders;
  body: Readable;
}

/** Sends one request; redirects are never followed (a 3xx comes back as it is). */
export type OutboundHttp = (url: URL, request: OutboundRequest) => Promise<OutboundResponse>;

export type OutboundFailure = 'timeout' | 'aborted' | 'network' | 'too_large';

/**
 * Why a request got no usable answer, besides a blocked destination (a BlockedDestinationError).
 * `code` is the network error's own code (ECONNREFUSED...) when there is one.
 */
export class OutboundError extends Error {
  readonly kind: OutboundFailure;
  readonly code: string | undefined;

  constructor(kind: OutboundFailure, message: string, code?: string) {
    super(message);
    this.name = 'OutboundError';
    this.kind = kind;
    this.code = code;
  }
}

class RawHeaders implements ResponseHeaders {
  constructor(private readonly raw: Record<string, string | string[] | undefined>) {}

  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
}

/** Any error of a request or its body as a BlockedDestinationError or an OutboundError. */
export function outboundFailure(err: unknown, signal?: AbortSignal | EventEmitter): BlockedDestinationError | OutboundError {
  if (err instanceof BlockedDestinationError || err instanceof OutboundError) return err;
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError || err instanceof undiciErrors.ConnectTimeoutError) {
    return new OutboundError('timeout', 'no answer in time', (err as { code?: string }).code);
  }
  if ((signal !== undefined && 'aborted' in signal && signal.aborted) || err instanceof undiciErrors.RequestAbortedError || (err as { name?: string }).name === 'AbortError') return new OutboundError('aborted', 'the request was cancelled');
  const code = (err as { code?: string }).code;
  return new OutboundError('network', code ?? 'network error', code);
}

/**
 * Reads a response body up to `maxBytes`. Over it, `overflow: 'error'` rejects with an
 * OutboundError of kind `too_large` and `'truncate'` keeps the first `maxBytes`; either way the rest
 * is not read and the connection is not reused.
 */
export async function readBody(response: OutboundResponse, maxBytes: number, overflow: 'error' | 'truncate'): Promise<{ bytes: Buffer; truncated: boolean }> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (overflow === 'error' && declared > maxBytes) {
    response.body.destroy();
    throw new OutboundError('too_large', `the answer is larger than ${maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      if (total + chunk.byteLength > maxBytes) {
        response.body.destroy();
        if (overflow === 'error') throw new OutboundError('too_large', `the answer is larger than ${maxBytes} bytes`);
        chunks.push(chunk.subarray(0, maxBytes - total));
        return { bytes: Buffer.concat(chunks), truncated: true };
      }
      total += chunk.byteLength;
      chunks.push(chunk);
    }
  } catch (err) {
    throw outboundFailure(err);
  }
  return { bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), truncated: false };
}

/** Drops a body that will not be read, so its connection can be reused or closed. */
export function discard(response: OutboundResponse): void {
  response.body.resume();
  response.body.on('error', () => undefined);
}

/**
 * The request-style counterpart of createGuardedFetch, for the hot path of tool calls: the same
 * checks (checkUrl before every request, the guarded Agent at every connection), on undici's
 * `request` instead of fetch, which skips the WHATWG Request, Response, Headers and stream objects
 * and the AbortSignal plumbing a fetch builds per call. Timeouts are undici's own header and body
 * timers. Refusals reject with a BlockedDestinationError, everything else with an OutboundError.
 */
export function createGuardedRequest(policy: OutboundPolicy, options: GuardedFetchOptions = {}): OutboundHttp {
  const requireHttps = options.requireHttps ?? true;
  const lookup = options.lookup ?? systemLookup;
  const agent = createGuardedAgent(policy, requireHttps, lookup);

  return async function guardedRequest(url, request) {
    const target = (await checkUrl(url, policy, { requireHttps, lookup })).url;
    return sendThrough(agent, target, request);
  };
}

/**
 * One request on an undici dispatcher, with the same error mapping and response shape as the
 * guarded request. For destinations that are not user-supplied (an operator's own vendor base URL),
 * which need no check: `sendThrough(new Agent(), url, request)`.
 */
export async function sendThrough(dispatcher: Dispatcher, target: URL, request: OutboundRequest): Promise<OutboundResponse> {
  let answer: Dispatcher.ResponseData;
  try {
    answer = await dispatcher.request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: request.signal,
      headersTimeout: request.timeoutMs,
      bodyTimeout: request.timeoutMs,
    });
  } catch (err) {
    throw outboundFailure(err, request.signal);
  }
  return { status: answer.statusCode, headers: new RawHeaders(answer.headers), body: answer.body };
}
