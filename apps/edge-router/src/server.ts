import type { IncomingMessage, ServerResponse } from 'node:http';
import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import { AppError } from '@patchbay/errors';
import { accessLineLogger, redactSecretPath, type Logger } from '@patchbay/service-kit';
import type { EdgeConfig } from './config';
import { DOCS_ASSETS_PREFIX, DocsSite } from './docs';
import { publicBaseUrl, publicOrigin, upstreamRequestHeaders } from './forwarding';
import { checkHealth } from './health';
import { OpenApiCatalog, withServers } from './openapi';
import { createUpstream, proxyRequest, type Upstream } from './proxy';
import { parseRequestTarget } from './request-target';
import { methodNotAllowed, notFound, sendError, sendJson } from './respond';
import { RouteTable, SERVICES, type ServiceName } from './routes';
import { requestIdFrom } from './trace-context';

export interface EdgeDeps {
  logger: Logger;
  /**
   * Whether an OpenTelemetry SDK runs in the process (`telemetry.enabled`). Off, the edge makes no span
   * per request: the no-op API would still cost a span object, a context and a close listener each time.
   * Default true, so a caller that registers its own tracer provider gets the edge's spans.
   */
  tracing?: boolean;
  /** Clock for the OpenAPI cache; tests may pass their own. */
  now?: () => number;
}

/** The edge's request handler, plus `close()` to drop its pooled upstream connections at shutdown. */
export type EdgeHandler = ((req: IncomingMessage, res: ServerResponse) => void) & { close: () => void };

const READ_METHODS = ['GET', 'HEAD'];

const tracer = trace.getTracer('@patchbay/edge-router');

/**
 * `EdgeRouter.forward`: the edge's own span around one forwarded request, from routing until the
 * client's response closes, so a trace reads edge, then service. A no-op while tracing is off.
 */
function forwardInSpan(service: ServiceName, res: ServerResponse, forward: () => void): void {
  const span = tracer.startSpan('EdgeRouter.forward', { attributes: { 'patchbay.service': service } });
  res.once('close', () => {
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500 || !res.writableFinished) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  context.with(trace.setSpan(context.active(), span), forward);
}

/** The model gateway's body limit, refused in the gateway's own error envelope. */
function gatewayBodyLimit(bytes: number): { bytes: number; reject: (res: ServerResponse) => void } {
  return {
    bytes,
    reject: (res) =>
      sendJson(res, 413, {
        error: { type: 'invalid_request_error', message: `The request body is over ${bytes} bytes; send media as URLs instead of inline base64.`, code: 'payload_too_large', param: null, source: 'gateway', provider: null },
      }, { connection: 'close' }),
  };
}

export function createEdgeServer(config: EdgeConfig, deps: EdgeDeps): EdgeHandler {
  const { logger } = deps;
  // The line every request writes: its fields are chosen here (the path through redactSecretPath), so no redaction pass.
  const accessLog = accessLineLogger(logger);
  // Decided once: at a level that drops the access line (warn and above), no request times itself or
  // builds a line only to have it thrown away.
  const logAccess = accessLog.isLevelEnabled('info');
  const tracing = deps.tracing ?? true;
  const routes = new RouteTable();
  const upstreams = new Map<ServiceName, Upstream>();
  for (const name of SERVICES) {
    const url = config.upstreams[name];
    if (url) upstreams.set(name, createUpstream(name, url));
  }
  const openApi = new OpenApiCatalog(upstreams, routes, { timeoutMs: config.probeTimeoutMs, cacheMs: config.openApiCacheMs, now: deps.now });
  const docs = new DocsSite();
  const gatewayLimit = gatewayBodyLimit(config.gatewayBodyLimitBytes);

  /** The edge's own endpoints; they answer before the route table. */
  const ownEndpoints = new Map<string, (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void> | void>([
    [
      '/healthz',
      async (_req, res, requestId) => {
        const report = await checkHealth(upstreams, config.probeTimeoutMs, requestId);
        sendJson(res, report.status === 'ok' ? 200 : 503, report, { 'cache-control': 'no-store' });
      },
    ],
    [
      '/openapi.json',
      async (req, res, requestId) => {
        const merged = await openApi.get(requestId);
        sendJson(res, 200, withServers(merged, publicBaseUrl(publicOrigin(req, config.trustForwarded))), { 'cache-control': 'no-cache' });
      },
    ],
    ['/docs', (_req, res) => docs.sendPage(res)],
    ['/docs/', (_req, res) => docs.sendPage(res)],
  ]);

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const method = req.method ?? 'GET';
    const requestId = requestIdFrom(req.headers);
    res.setHeader('x-request-id', requestId);
    const target = parseRequestTarget(req.url ?? '/');
    let upstreamName: ServiceName | null = null;

    if (logAccess) {
      const started = process.hrtime.bigint();
      const logPath = redactSecretPath(target.valid ? target.path : target.rawPath);
      res.once('close', () => {
        const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
        // 499 (as nginx logs it): the client went away before any answer was sent.
        const status = res.headersSent ? res.statusCode : 499;
        const line: Record<string, unknown> = { request_id: requestId, method, path: logPath, status, duration_ms: Math.round(durationMs * 1000) / 1000, upstream: upstreamName };
        if (!res.writableFinished) line.aborted = true;
        accessLog.info(line, 'request');
      });
    }

    const fail = (error: unknown) => {
      logger.error({ request_id: requestId, err: error instanceof Error ? { type: error.name, message: error.message } : { type: typeof error } }, 'edge endpoint failed');
      if (res.headersSent) res.destroy();
      else sendError(res, new AppError('internal_error', 'An unexpected error occurred in the edge router. Retry later or contact support with the X-Request-Id.'));
    };

    if (!target.valid) {
      sendError(res, notFound(method, target.rawPath));
      return;
    }

    const own = ownEndpoints.get(target.path);
    const asset = own === undefined && target.path.startsWith(DOCS_ASSETS_PREFIX) ? target.path.slice(DOCS_ASSETS_PREFIX.length) : undefined;
    if (own !== undefined || asset !== undefined) {
      if (!READ_METHODS.includes(method)) {
        sendError(res, methodNotAllowed(method, target.path, READ_METHODS));
        return;
      }
      if (own !== undefined) {
        Promise.resolve()
          .then(() => own(req, res, requestId))
          .catch(fail);
      } else {
        docs.sendAsset(res, asset!).then((sent) => {
          if (!sent) sendError(res, notFound(method, target.path));
        }, fail);
      }
      return;
    }

    // Service-to-service routes are never reachable from outside, whatever a table row might say.
    const service = target.segments[0]?.toLowerCase() === 'internal' ? undefined : routes.match(target.segments);
    if (service === undefined) {
      sendError(res, notFound(method, target.path));
      return;
    }
    upstreamName = service;
    const upstream = upstreams.get(service);
    if (!upstream) {
      sendError(res, new AppError('service_unavailable', `The ${service} service is not deployed on this Patchbay installation.`));
      return;
    }
    const origin = publicOrigin(req, config.trustForwarded);
    const bodyLimit = service === 'model-gateway' ? gatewayLimit : undefined;
    if (bodyLimit && Number(req.headers['content-length'] ?? 0) > bodyLimit.bytes) {
      bodyLimit.reject(res);
      req.resume();
      return;
    }
    const forward = () =>
      proxyRequest(req, res, upstream, {
        path: target.path + target.search,
        // Inside the span: the traceparent the service receives names it as the parent.
        headers: upstreamRequestHeaders(req, requestId, origin, config.trustForwarded),
        timeoutMs: config.upstreamTimeoutMs,
        bodyLimit,
      });
    if (tracing) forwardInSpan(service, res, forward);
    else forward();
  };

  return Object.assign(handler, {
    close: () => {
      for (const upstream of upstreams.values()) upstream.agent.destroy();
    },
  });
}
