import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorMiddleware, notFoundHandler, type AppError } from '@patchbay/errors';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { accessLineLogger, requestContextStorage } from './logger';
import { requestTextCheck, verifyJsonDepth } from './request-text';

/** Request ids are accepted from the edge router when they look like ids, and made here otherwise. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Rewrites a path before it is logged, for paths that carry a secret (a magic-link token). */
export type PathRedactor = (path: string) => string;

/**
 * The request id (the edge router's when it looks like one, else a new one) as X-Request-Id and in
 * `res.locals.requestId` where express made the response, and the access log line (with `request_id`)
 * when the response finishes. For handlers served outside express (a hot path); express apps get it
 * from `requestContext`. Whether other lines carry the id is the caller's choice: see `ServiceAppOptions.requestIdInEveryLine`.
 */
export function beginRequest(logger: Logger, req: IncomingMessage, res: ServerResponse, redactPath: PathRedactor = (p) => p): string {
  const incoming = req.headers['x-request-id'];
  const requestId = typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', requestId);
  if (logger.isLevelEnabled('info')) {
    const access = accessLineLogger(logger);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const path = (req.url ?? '/').split('?', 1)[0]!;
      // The id is written here rather than through requestContextStorage: entering an AsyncLocalStorage
      // turns on promise hooks for the whole process (see requestIdInEveryLine).
      access.info({ request_id: requestId, method: req.method, path: redactPath(path), status: res.statusCode, duration_ms: Math.round(durationMs * 100) / 100 }, 'request');
    });
  }
  return requestId;
}

/** The request id of a response begun by beginRequest (its X-Request-Id), for log lines that name it themselves. */
export function requestIdOf(res: ServerResponse): string | undefined {
  const id = res.getHeader('x-request-id');
  return typeof id === 'string' ? id : undefined;
}

export function requestContext(logger: Logger, redactPath: PathRedactor = (p) => p, requestIdInEveryLine = true): RequestHandler {
  return (req, res, next) => {
    const requestId = beginRequest(logger, req, res, redactPath);
    res.locals.requestId = requestId;
    if (requestIdInEveryLine) requestContextStorage.run({ requestId }, () => next());
    else next();
  };
}

export interface ServiceAppOptions {
  logger: Logger;
  /** Largest JSON body accepted; beyond it the client gets a 413. `false`: no app-wide body parser (the routes mount their own). */
  jsonLimit?: string | false;
  /** Masks secrets carried in paths before the access log writes them. */
  redactPath?: PathRedactor;
  /**
   * Every line logged while a request is served carries its `request_id`, through an AsyncLocalStorage
   * (requestContextStorage). Default true. On Node 20 entering an AsyncLocalStorage turns on promise
   * hooks for the whole process, for good: every promise of every request then pays a hook (in the
   * model gateway, about 30 µs of its ~280 µs per request). A service on a hot path sets false: the
   * access line and the error middleware's line still carry the id, and its own lines name it from
   * `res.locals.requestId` (or requestIdOf(res)).
   */
  requestIdInEveryLine?: boolean;
}

/** The express app every service starts from: request id, access log, JSON bodies, the request text checks. */
export function createServiceApp(options: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestContext(options.logger, options.redactPath, options.requestIdInEveryLine ?? true));
  // Depth is checked on the raw bytes before JSON.parse; then the text of path, query and body, once for every route.
  // An app that parses its own bodies (jsonLimit: false) applies verifyJsonDepth / findTextProblem itself.
  if (options.jsonLimit !== false) app.use(express.json({ limit: options.jsonLimit ?? '1mb', verify: verifyJsonDepth }));
  app.use(requestTextCheck());
  return app;
}

/** Call after the routes: JSON 404 for unknown routes, then the one error middleware. */
export function finishServiceApp(app: Express, logger: Logger): void {
  app.use(notFoundHandler());
  app.use(
    errorMiddleware({
      logger,
      onError: (error: AppError) => {
        // Expected client errors are not span errors; server errors are.
        if (!error.isServerError) return;
        trace.getActiveSpan()?.setStatus({ code: SpanStatusCode.ERROR, message: error.code });
      },
    }),
  );
}

export interface HealthCheck {
  name: string;
  check: () => Promise<void>;
}

/** GET /healthz: 200 with every dependency ok, 503 naming the one that is not. */
export function healthHandler(service: string, checks: HealthCheck[]): RequestHandler {
  return async (_req, res) => {
    const results: Record<string, string> = {};
    let healthy = true;
    await Promise.all(
      checks.map(async ({ name, check }) => {
        try {
          await withTimeout(check(), 2000);
          results[name] = 'ok';
        } catch {
          healthy = false;
          results[name] = 'unavailable';
        }
      }),
    );
    res.status(healthy ? 200 : 503).json({ status: healthy ? 'ok' : 'unavailable', service, checks: results });
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timeout')), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

export interface RunningService {
  server: Server;
  port: number;
  /** Stops accepting connections, lets in-flight requests finish, then runs the shutdown hooks in reverse order. */
  stop: () => Promise<void>;
}

/**
 * Listens and wires graceful shutdown on SIGTERM and SIGINT: the server stops accepting,
 * in-flight requests finish (bounded by `drainMs`), then queues and connections close.
 */
export async function startHttpService(options: {
  name: string;
  app: Express | ((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void);
  port: number;
  host?: string;
  logger: Logger;
  onShutdown?: Array<() => Promise<void>>;
  drainMs?: number;
  /** The longest one shutdown hook may take before the next runs (a client waiting on a dead Redis). Default 10 s. */
  hookTimeoutMs?: number;
  handleSignals?: boolean;
}): Promise<RunningService> {
  const { createServer } = await import('node:http');
  const server = createServer(options.app);
  server.on('clientError', handleClientError);
  // Keep-alive longer than typical proxy idle timeouts so the edge router's pooled sockets are not cut mid-request.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  options.logger.info({ port }, `${options.name} listening`);

  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      options.logger.info(`${options.name} shutting down`);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Sockets that finish their last response while we drain become idle: close them as they do.
      server.closeIdleConnections();
      const sweeper = setInterval(() => server.closeIdleConnections(), 50);
      const drain = new Promise<void>((resolve) => setTimeout(resolve, options.drainMs ?? 10_000).unref());
      await Promise.race([closed, drain]);
      clearInterval(sweeper);
      server.closeAllConnections();
      // Each hook is bounded: one that waits forever (a queue worker or client on a Redis that is gone)
      // must not keep the process from exiting until the orchestrator kills it.
      const hookTimeoutMs = options.hookTimeoutMs ?? 10_000;
      for (const [index, hook] of [...(options.onShutdown ?? [])].reverse().entries()) {
        let timer: NodeJS.Timeout | undefined;
        try {
          const bound = new Promise<'timed out'>((resolve) => (timer = setTimeout(resolve, hookTimeoutMs, 'timed out')));
          if ((await Promise.race([hook(), bound])) === 'timed out') {
            options.logger.error({ hook: index, timeout_ms: hookTimeoutMs }, 'shutdown hook did not finish in time; going on without it');
          }
        } catch (err) {
          options.logger.error({ err }, 'shutdown hook failed');
        } finally {
          clearTimeout(timer);
        }
      }
    })();
    return stopping;
  };

  if (options.handleSignals !== false) {
    const onSignal = (signal: NodeJS.Signals) => {
      options.logger.info({ signal }, 'signal received');
      stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
  return { server, port, stop };
}

/**
 * Requests node:http cannot parse never reach the handler; they still get the JSON envelope and a
 * request id, instead of a bare status line.
 */
export function handleClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // A response already under way on this connection cannot be followed by another status line.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || error.code === 'ECONNRESET' || inFlight?.headersSent === true) {
    socket.destroy();
    return;
  }
  const [status, reason, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'The request headers are too large.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'The request was not received in time.']
        : [400, 'Bad Request', 'The request could not be parsed as HTTP.'];
  const body = JSON.stringify({ detail, code: 'invalid_request' });
  // A HEAD answer has no body, even this one: a client would read the body as garbage after the response.
  const raw = (error as NodeJS.ErrnoException & { rawPacket?: Buffer }).rawPacket;
  const head = raw !== undefined && raw.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${randomUUID()}\r\nconnection: close\r\n\r\n${head ? '' : body}`,
  );
}
