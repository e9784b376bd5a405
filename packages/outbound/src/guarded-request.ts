import type { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
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
  /**
   * Read the whole body before answering, keeping at most this many bytes, for an answer that is
   * read whole anyway (a JSON answer): undici then builds no stream and no header object for it,
   * which took the gateway's CPU per model request from about 295 to 247 µs (A/B of two gateway
   * processes, 10 connections, apps/model-gateway README "The hot path"). The body is read
   * with `readBody` as usual; its limit and overflow apply to what was kept. A body that ended in an
   * error after its headers fails `readBody` with that error, as a streamed one does.
   */
  collectUpTo?: number;
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
  if (response instanceof CollectedResponse) return response.read(maxBytes, overflow);
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
  if (response instanceof CollectedResponse) return;
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
  if (request.collectUpTo !== undefined) return collect(dispatcher, target, request, request.collectUpTo);
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

/** Headers as undici hands them to a handler (name, value, name, value… as bytes), read by name when asked. */
class RawHeaderList implements ResponseHeaders {
  constructor(private readonly raw: Buffer[]) {}

  get(name: string): string | null {
    const wanted = name.toLowerCase();
    let value: string | null = null;
    for (let i = 0; i + 1 < this.raw.length; i += 2) {
      const key = this.raw[i]!;
      if (key.length !== wanted.length || key.toString('latin1').toLowerCase() !== wanted) continue;
      const part = this.raw[i + 1]!.toString('utf8');
      value = value === null ? part : `${value}, ${part}`;
    }
    return value;
  }
}

/** What a collected body came to: its bytes (at most the limit), whether there was more, or the error that ended it. */
interface CollectedBody {
  bytes: Buffer;
  overflowed: boolean;
  error: unknown;
}

/** A response whose body was read whole by the request itself (OutboundRequest.collectUpTo). */
class CollectedResponse implements OutboundResponse {
  private stream: Readable | null = null;

  constructor(
    readonly status: number,
    readonly headers: ResponseHeaders,
    private readonly collected: CollectedBody,
  ) {}

  /** The body as a stream, for a reader that wants one; built only then. */
  get body(): Readable {
    if (!this.stream) {
      const { bytes, error } = this.collected;
      this.stream =
        error === null
          ? Readable.from([bytes], { objectMode: false })
          : new Readable({
              read() {
                this.destroy(outboundFailure(error));
              },
            });
    }
    return this.stream;
  }

  read(maxBytes: number, overflow: 'error' | 'truncate'): { bytes: Buffer; truncated: boolean } {
    const { bytes, overflowed, error } = this.collected;
    if (error !== null) throw outboundFailure(error);
    // A body cut at collectUpTo is longer than any limit: its length is not known.
    if (!overflowed && bytes.byteLength <= maxBytes) return { bytes, truncated: false };
    if (overflow === 'error') throw new OutboundError('too_large', `the answer is larger than ${maxBytes} bytes`);
    return { bytes: bytes.subarray(0, maxBytes), truncated: true };
  }
}

/** Thrown into undici to stop reading a body past its limit; never seen by a caller. */
class CollectLimitReached extends Error {}

type AbortListening = AbortSignal | EventEmitter;

function onAbort(signal: AbortListening, listener: () => void): () => void {
  if ('addEventListener' in signal) {
    signal.addEventListener('abort', listener, { once: true });
    return () => signal.removeEventListener('abort', listener);
  }
  signal.once('abort', listener);
  return () => signal.removeListener('abort', listener);
}

/**
 * One request on undici's dispatch API with a handler of its own: the body is gathered from the
 * bytes undici hands over, the headers are kept as they came. Same errors as `request`: before the
 * headers the promise rejects (an OutboundError, kind aborted when the signal fired), after them
 * the error is kept for readBody.
 */
function collect(dispatcher: Dispatcher, target: URL, request: OutboundRequest, limit: number): Promise<OutboundResponse> {
  return new Promise<OutboundResponse>((resolve, reject) => {
    const signal = request.signal;
    if (signal && 'aborted' in signal && signal.aborted) {
      reject(new OutboundError('aborted', 'the request was cancelled'));
      return;
    }
    let abort: ((err: Error) => void) | null = null;
    let cancelled = false;
    let status = 0;
    let headers: Buffer[] = [];
    const chunks: Buffer[] = [];
    let size = 0;
    let overflowed = false;
    let settled = false;
    const stopListening = signal
      ? onAbort(signal, () => {
          cancelled = true;
          abort?.(new undiciErrors.RequestAbortedError());
        })
      : () => undefined;
    const finish = (error: unknown): void => {
      if (settled) return;
      settled = true;
      stopListening();
      if (status === 0) {
        reject(cancelled ? new OutboundError('aborted', 'the request was cancelled') : outboundFailure(error, signal));
        return;
      }
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      resolve(new CollectedResponse(status, new RawHeaderList(headers), { bytes, overflowed, error: overflowed ? null : error }));
    };
    const handler: Dispatcher.DispatchHandlers = {
      onConnect(abortRequest) {
        abort = abortRequest;
        if (cancelled) abortRequest(new undiciErrors.RequestAbortedError());
      },
      onHeaders(statusCode, rawHeaders) {
        // 1xx answers (100 Continue, 103 Early Hints) come before the real one.
        if (statusCode < 200) return true;
        status = statusCode;
        headers = rawHeaders as unknown as Buffer[];
        return true;
      },
      onData(chunk) {
        if (size + chunk.byteLength > limit) {
          if (size < limit) chunks.push(chunk.subarray(0, limit - size));
          size = limit;
          overflowed = true;
          // The rest is not read and the connection is not reused.
          abort?.(new CollectLimitReached());
          return false;
        }
        size += chunk.byteLength;
        chunks.push(chunk);
        return true;
      },
      onComplete() {
        finish(null);
      },
      onError(err) {
        finish(cancelled && status !== 0 ? new OutboundError('aborted', 'the request was cancelled') : err);
      },
    };
    try {
      dispatcher.dispatch(
        {
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          method: request.method,
          headers: request.headers,
          body: request.body,
          headersTimeout: request.timeoutMs,
          bodyTimeout: request.timeoutMs,
        },
        handler,
      );
    } catch (err) {
      finish(err);
    }
  });
}
