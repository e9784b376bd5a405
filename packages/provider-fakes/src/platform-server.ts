import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeClock } from './platform-clock';
import { FaultQueue, type FaultKind, type FaultRule } from './platform-faults';
import type { FakeReply, FakeRequest, FakeRoutes, RecordedRequest } from './fake-server';

/** A request in a platform fake's log: what arrived, what it was answered, and when on the fake clock. */
export interface PlatformLoggedRequest extends RecordedRequest {
  /** The status answered (for a cut connection, the status line that was sent before the cut). */
  status: number;
  /** When it arrived, on the fake's clock (epoch ms). */
  at: number;
  /** The fault it met, if any. */
  fault?: FaultKind;
}

/** A request as a platform's handlers see it: the parsed request plus who sent it. */
export interface PlatformRequest<I> extends FakeRequest {
  identity: I;
}

export type AuthResult<I> = { identity: I } | { reply: FakeReply };

export interface PlatformHooks<I> {
  /** Routes answered without authentication (an OAuth token endpoint, the fake's control routes). */
  publicRoutes?: FakeRoutes;
  /** Routes answered after authentication; handlers read `(req as PlatformRequest<I>).identity`. */
  routes: FakeRoutes;
  /** Who is calling, or the platform's 401 (403, …) answer. */
  authenticate(req: FakeRequest): AuthResult<I>;
  /** Counts the request against the caller's limits: the platform's 429, or headers to add to the answer. */
  limit?(req: FakeRequest, identity: I): { reply: FakeReply } | { headers?: Record<string, string> };
  /** The platform's 5xx body for a queued server-error fault. */
  serverError(status: number): FakeReply;
  /** The platform's 429 for a queued rate-limit fault (a storm), naming `policy` when given. */
  rateLimited(policy: string | undefined, req: FakeRequest): FakeReply;
  /** No route matches the path. */
  notFound(req: FakeRequest): FakeReply;
  /** The path exists with other methods. */
  methodNotAllowed(allowed: string[], req: FakeRequest): FakeReply;
  /** A handler threw: the platform's 500. Default: serverError(500). */
  internalError?(err: Error): FakeReply;
}

export interface PlatformServerOptions<I> extends PlatformHooks<I> {
  clock: FakeClock;
  /** Port to listen on (default 0: any free port). */
  port?: number;
  faults?: FaultQueue;
  /** Keep every request in `requests` (default true). A long benchmark turns it off to keep memory flat. */
  recordRequests?: boolean;
  /**
   * The most requests the log holds (default 100,000): past it the oldest half is dropped, so a
   * benchmark that forgot `recordRequests: false` does not grow without bound.
   */
  maxRecordedRequests?: number;
  /** Awaited before every answer: a real API's network and server time, for benchmarks. None by default. */
  latency?: () => Promise<void>;
}

export interface PlatformServer {
  /** Root URL of the server (`http://127.0.0.1:PORT`). */
  url: string;
  /** Every request so far, oldest first (see `recordRequests`); tests may clear it with `requests.length = 0`. */
  requests: PlatformLoggedRequest[];
  faults: FaultQueue;
  close(): Promise<void>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Starts a platform fake on 127.0.0.1 with a random port. Every request goes through, in order: the
 * fault queue (5xx bursts, 429 storms, slow answers, connections cut mid-body); the public routes
 * (a token endpoint, the test controls); authentication; the rate limits; the routes. Unlike
 * `startFakeServer`, it owns the socket, so it can send headers and half a body and then drop the
 * connection the way a real network does.
 */
export async function startPlatformServer<I>(options: PlatformServerOptions<I>): Promise<PlatformServer> {
  const requests: PlatformLoggedRequest[] = [];
  const faults = options.faults ?? new FaultQueue();
  const record = options.recordRequests ?? true;
  const maxRecorded = Math.max(1, options.maxRecordedRequests ?? 100_000);

  const handle = async (req: IncomingMessage, res: ServerResponse, body: string): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const recorded: PlatformLoggedRequest = {
      method,
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
      json: parseBody(body, req.headers['content-type']),
      status: 0,
      at: options.clock.now(),
    };
    // The fake's own test controls (/__fake/) are plumbing, not traffic: they stay out of the log.
    if (record && !url.pathname.startsWith('/__fake/')) {
      if (requests.length >= maxRecorded) requests.splice(0, Math.ceil(maxRecorded / 2));
      requests.push(recorded);
    }
    const send = (reply: FakeReply, fault?: FaultRule) => {
      recorded.status = reply.status ?? 200;
      if (fault) recorded.fault = fault.kind;
      write(res, reply, fault?.kind === 'cut' ? fault : undefined);
    };

    const base: FakeRequest = { ...recorded, params: {} };
    // Faults hit every request of the platform, its token endpoint included, never the fake's own controls.
    const fault = url.pathname.startsWith('/__fake/') ? undefined : faults.take(url.pathname, url.pathname + url.search);
    if (fault?.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, fault.delayMs ?? 0));
    if (fault?.kind === 'server-error') return send(options.serverError(fault.status ?? 503), fault);
    if (fault?.kind === 'rate-limit') return send(options.rateLimited(fault.policy, base), fault);

    const publicMatch = options.publicRoutes?.match(method, url.pathname);
    if (publicMatch && 'handler' in publicMatch) {
      const reply = await run(() => publicMatch.handler({ ...base, params: publicMatch.params }));
      if (options.latency) await options.latency();
      send(reply, fault);
      return;
    }

    const auth = options.authenticate(base);
    if ('reply' in auth) return send(auth.reply, fault);
    const limited = options.limit?.(base, auth.identity);
    if (limited && 'reply' in limited) return send(limited.reply, fault);

    const found = options.routes.match(method, url.pathname);
    let reply: FakeReply;
    if (!found) reply = options.notFound(base);
    else if ('allowed' in found) reply = options.methodNotAllowed(found.allowed, base);
    else {
      const request: PlatformRequest<I> = { ...base, params: found.params, identity: auth.identity };
      reply = await run(() => found.handler(request));
    }
    if (limited && 'headers' in limited && limited.headers) reply = { ...reply, headers: { ...limited.headers, ...reply.headers } };
    if (options.latency) await options.latency();
    send(reply, fault);
  };

  const run = async (fn: () => FakeReply | Promise<FakeReply>): Promise<FakeReply> => {
    try {
      return await fn();
    } catch (err) {
      return options.internalError ? options.internalError(err as Error) : options.serverError(500);
    }
  };

  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' || req.method === 'HEAD') {
      // Nothing to read: skip collecting a body on the hot path of a sync.
      req.resume();
      void handle(req, res, '');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    faults,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parseBody(body: string, type: string | undefined): unknown {
  if (!body) return undefined;
  if (type?.includes('json')) {
    try {
      return JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  if (type?.includes('x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(body));
  return undefined;
}

function write(res: ServerResponse, reply: FakeReply, cut: FaultRule | undefined): void {
  const isText = typeof reply.body === 'string';
  const payload = Buffer.from(reply.body === undefined ? '' : isText ? (reply.body as string) : JSON.stringify(reply.body));
  res.writeHead(reply.status ?? 200, {
    'content-type': isText ? 'text/plain; charset=utf-8' : JSON_TYPE,
    'content-length': String(payload.length),
    ...reply.headers,
  });
  if (!cut) {
    res.end(payload);
    return;
  }
  // Headers and the first part of the body go out; then the connection drops, as when a proxy or the
  // network fails mid-page. The client sees a body shorter than its Content-Length.
  const keep = Math.min(cut.keepBytes ?? Math.floor(payload.length / 2), Math.max(0, payload.length - 1));
  res.flushHeaders();
  res.write(payload.subarray(0, keep), () => res.socket?.destroy());
}
