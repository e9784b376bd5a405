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
  bodyLimit?: { bytes: number; reject: (res: ServerResponse) => void };
}

/**
 * Sends the request to the service and streams both bodies through without buffering.
 * A client that goes away aborts the upstream request; a service that fails mid-response
 * cuts the client's connection, so the client sees a truncated response rather than a complete-looking one.
 */
export function proxyRequest(req: IncomingMessage, res: ServerResponse, upstream: Upstream, options: ProxyOptions): void {
  // A pooled connection the service closed while idle fails on first use; a request without a body
  // can be sent again safely, on a fresh connection.
  attempt(req, res, upstream, options, isReplayable(req));
}

function attempt(req: IncomingMessage, res: ServerResponse, upstream: Upstream, options: ProxyOptions, replayable: boolean): void {
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
    if (replayable && !timedOut && upstreamReq.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
      res.removeListener('close', onClientClose);
      req.removeListener('error', onClientError);
      attempt(req, res, upstream, options, false);
      return;
    }
    sendError(res, upstreamFailure(upstream.name, error, timedOut, options.timeoutMs));
  });

  if (replayable) {
    // Nothing to stream; do not tie the request body to this attempt so a retry can be made.
    upstreamReq.end();
  } else {
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
}

function isReplayable(req: IncomingMessage): boolean {
  const method = req.method;
  if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
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
