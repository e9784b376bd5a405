import { context } from '@opentelemetry/api';
import http, { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { AppError } from '@patchbay/errors';
import { clientResponseHeaders } from './forwarding';
import { sendError } from './respond';
import type { ServiceName } from './routes';

/** One deployed service and its pool of kept-alive connections. */
export interface Upstream {
  name: ServiceName;
  /** Host name without IPv6 brackets, as node:http wants it. */
  hostname: string;
  port: number;
  /** Path prefix of the base URL, without a trailing slash ('' for most installations). */
  basePath: string;
  agent: http.Agent;
}

export function createUpstream(name: ServiceName, baseUrl: URL): Upstream {
  return {
    name,
    hostname: baseUrl.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: baseUrl.port === '' ? 80 : Number(baseUrl.port),
    basePath: baseUrl.pathname.replace(/\/+$/, ''),
    // Reused connections keep the edge's cost per request well under a millisecond; noDelay so a body
    // written after the headers is not held back by Nagle's algorithm.
    agent: new http.Agent({ keepAlive: true, keepAliveMsecs: 1_000, maxFreeSockets: 256, scheduling: 'lifo', noDelay: true }),
  };
}

/** Errors meaning the service could not be reached or dropped the connection before answering. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNABORTED']);

/** Seconds a client is told to wait before retrying an unreachable service (typically a restart). */
const RETRY_AFTER_SECONDS = '2';

export interface ProxyOptions {
  /** The request target to send: canonical path plus the client's query string. */
  path: string;
  headers: OutgoingHttpHeaders;
  /** Time allowed for the service's response headers. */
  timeoutMs: number;
  /** Largest request body forwarded; past it the upstream request is dropped and `reject` answers (413). */
  bodyLimit?: { bytes: number; reject: (res: ServerResponse) => void } | undefined;
}

/**
 * Bodies up to this size are read before the request is sent, so the request can be sent again when
 * a pooled connection turns out to be closed; larger ones stream through unbuffered.
 */
export const REPLAY_BUFFER_MAX = 64 * 1024;

/**
 * After the client's answer, what is left of its request body is read and discarded so the next
 * request on the keep-alive connection can be parsed; beyond this many bytes (or DRAIN_MS) the
 * connection is closed instead.
 */
export const DRAIN_MAX_BYTES = 4 * 1024 * 1024;
const DRAIN_MS = 10_000;

/** What is sent to the service: nothing, a body read in full (replayable), or the client's stream. */
type Body = { kind: 'none' } | { kind: 'buffered'; data: Buffer } | { kind: 'stream' };

/**
 * Sends the request to the service and streams both bodies through (small request bodies are read
 * first, see REPLAY_BUFFER_MAX). A client that goes away aborts the upstream request; a service that
 * fails mid-response cuts the client's connection, so the client sees a truncated response rather
 * than a complete-looking one. However the exchange ends, the client's connection is left ready for
 * its next request (see drainClientBody).
 */
export function proxyRequest(req: IncomingMessage, res: ServerResponse, upstream: Upstream, options: ProxyOptions): void {
  res.once('finish', () => drainClientBody(req));
  const length = declaredLength(req);
  if (length === 0) {
    attempt(req, res, upstream, options, { kind: 'none' }, true);
    return;
  }
  if (length !== null && length <= REPLAY_BUFFER_MAX) {
    // Bound to the context active now (the edge's forward span): the request's 'end' listener runs in the
    // context the http instrumentation gave the request (the server span), and the upstream request must
    // be a child of the forward span, as a promise continuation would have kept it.
    readBody(
      req,
      length,
      context.bind(context.active(), (data: Buffer | null) => {
        if (data === null) res.destroy();
        else if (!res.destroyed) attempt(req, res, upstream, options, { kind: 'buffered', data }, true);
      }),
    );
    return;
  }
  // A body of unknown length is chunked on to the service too, whatever the method: node:http only
  // chunks POST, PUT and PATCH by default, and would send a GET's body unframed.
  const headers = length === null ? { ...options.headers, 'transfer-encoding': 'chunked' } : options.headers;
  attempt(req, res, upstream, { ...options, headers }, { kind: 'stream' }, false);
}

/** The request body's length: 0 for none, null when chunked (unknown until it ends). */
function declaredLength(req: IncomingMessage): number | null {
  if (req.headers['transfer-encoding'] !== undefined) return null;
  const length = Number(req.headers['content-length'] ?? 0);
  return Number.isSafeInteger(length) && length >= 0 ? length : null;
}

/**
 * Reads a small body whole, then calls `done` once: with the body, or with null when the client failed
 * or went away first. A callback rather than a promise: the body usually arrives with the headers, and
 * the request is then sent in the same turn of the event loop (a promise would add a microtask turn and
 * its allocations to every request).
 */
function readBody(req: IncomingMessage, length: number, done: (data: Buffer | null) => void): void {
  let first: Buffer | undefined;
  let chunks: Buffer[] | undefined;
  let settled = false;
  const settle = (data: Buffer | null) => {
    if (settled) return;
    settled = true;
    done(data);
  };
  req.on('data', (chunk: Buffer) => {
    if (first === undefined) first = chunk;
    else (chunks ??= [first]).push(chunk);
  });
  req.once('end', () => settle(chunks ? Buffer.concat(chunks, length) : (first ?? Buffer.alloc(0))));
  req.once('error', () => settle(null));
  req.once('close', () => {
    if (!req.complete) settle(null);
  });
}

const draining = new WeakSet<IncomingMessage>();

/**
 * Reads and discards the rest of a request body the service did not take (it answered early: a 400,
 * 413 or 415 before reading a large body), so node:http can parse the client's next request on the
 * same connection instead of waiting for a body nobody reads: without this the client's pooled
 * connection stalls. A body too long or too slow to drain closes the connection instead.
 */
export function drainClientBody(req: IncomingMessage): void {
  if (req.complete || req.destroyed || draining.has(req)) return;
  draining.add(req);
  req.unpipe();
  let drained = 0;
  const close = () => req.socket.destroy();
  const timer = setTimeout(close, DRAIN_MS);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_MAX_BYTES) {
      clearTimeout(timer);
      close();
    }
  });
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => clearTimeout(timer));
  req.resume();
}

function attempt(req: IncomingMessage, res: ServerResponse, upstream: Upstream, options: ProxyOptions, body: Body, replayable: boolean): void {
  const upstreamReq = http.request({
    host: upstream.hostname,
    port: upstream.port,
    method: req.method,
    path: upstream.basePath + options.path,
    headers: options.headers,
    agent: upstream.agent,
  });
  let timedOut = false;
  let responded = false;
  const timer = setTimeout(() => {
    timedOut = true;
    upstreamReq.destroy();
  }, options.timeoutMs);

  const onClientClose = () => {
    clearTimeout(timer);
    if (!res.writableFinished) upstreamReq.destroy();
  };
  res.once('close', onClientClose);
  const onClientError = () => upstreamReq.destroy();
  req.once('error', onClientError);

  upstreamReq.on('response', (upstreamRes) => {
    clearTimeout(timer);
    responded = true;
    if (body.kind === 'stream' && !req.complete) {
      // The service answered before taking the whole body: stop sending it (the rest is drained from
      // the client), and do not return this connection to the pool with a request half written.
      req.unpipe(upstreamReq);
      drainClientBody(req);
      upstreamRes.once('end', () => upstreamReq.destroy());
    }
    if (res.destroyed) {
      upstreamRes.destroy();
      return;
    }
    const headers = clientResponseHeaders(upstreamRes.headers, res.getHeader('x-request-id') as string);
    if (upstreamRes.statusMessage) res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, headers);
    else res.writeHead(upstreamRes.statusCode ?? 502, headers);
    // A streamed answer (SSE, chunked) may wait a long time for its first byte: the client gets the headers now.
    if (upstreamRes.headers['content-length'] === undefined) res.flushHeaders();
    upstreamRes.pipe(res);
    upstreamRes.once('error', () => res.destroy());
    upstreamRes.once('close', () => {
      if (!upstreamRes.complete) res.destroy();
    });
  });

  let tooLarge = false;
  upstreamReq.on('error', (error: NodeJS.ErrnoException) => {
    clearTimeout(timer);
    if (tooLarge) return;
    // Already answered in full (an error sent earlier, or a response the service completed): nothing to undo.
    if (res.writableEnded || res.destroyed) return;
    if (responded || res.headersSent) {
      res.destroy();
      return;
    }
    // A pooled connection the service closed while idle fails on first use, before any answer: a
    // request whose body is in hand is sent again, once, on a fresh connection.
    if (replayable && !timedOut && upstreamReq.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
      res.removeListener('close', onClientClose);
      req.removeListener('error', onClientError);
      attempt(req, res, upstream, options, body, false);
      return;
    }
    sendError(res, upstreamFailure(upstream.name, error, timedOut, options.timeoutMs));
  });

  if (body.kind !== 'stream') {
    upstreamReq.end(body.kind === 'buffered' ? body.data : undefined);
    return;
  }
  const limit = options.bodyLimit;
  if (limit) {
    // Counted as it streams through (chunked bodies have no length up front); nothing is buffered.
    let seen = 0;
    req.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen <= limit.bytes || tooLarge) return;
      tooLarge = true;
      clearTimeout(timer);
      req.unpipe(upstreamReq);
      upstreamReq.destroy();
      if (!res.headersSent) limit.reject(res);
      else res.destroy();
      req.resume();
    });
  }
  req.pipe(upstreamReq);
}

function upstreamFailure(service: ServiceName, error: NodeJS.ErrnoException, timedOut: boolean, timeoutMs: number): AppError {
  if (timedOut) {
    return new AppError('gateway_timeout', `The ${service} service did not answer within ${describeDuration(timeoutMs)}.`);
  }
  if (error.code !== undefined && UNREACHABLE.has(error.code)) {
    return new AppError('service_unavailable', `The ${service} service is unavailable right now; retry shortly.`, { headers: { 'retry-after': RETRY_AFTER_SECONDS } });
  }
  return new AppError('bad_gateway', `The ${service} service sent a response the edge could not read.`);
}

function describeDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}
