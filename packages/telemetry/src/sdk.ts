// Loaded only when tracing is on: requiring the SDK and the instrumentations is the cost a
// service without OTEL_* variables must not pay.
import type { IncomingMessage } from 'node:http';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK, resources, type tracing } from '@opentelemetry/sdk-node';
import { nonBlank } from './env';
import { redactSecretPath } from '@patchbay/service-kit';
import { redactQuery, redisStatement, SENSITIVE_QUERY_PARAMS } from './redaction';

/** Paths polled by orchestrators and load balancers: a span per probe would drown real traffic. */
export const UNTRACED_PATHS: readonly string[] = ['/healthz'];

export interface SdkOptions {
  serviceName: string;
  serviceVersion?: string;
  spanProcessors?: tracing.SpanProcessor[];
  env: NodeJS.ProcessEnv;
}

export function createInstrumentations() {
  return [
    // No headersToSpanAttributes: headers (Authorization, X-Service-Token, cookies) stay out of spans.
    // The instrumentation never reads bodies.
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req: IncomingMessage) => UNTRACED_PATHS.includes(pathOf(req.url)),
      redactedQueryParams: [...SENSITIVE_QUERY_PARAMS],
      redactedQueryParamsServer: [...SENSITIVE_QUERY_PARAMS],
      // A magic-link token travels in the path: overwrite every attribute that carries the path.
      requestHook: (span, request) => {
        const raw = 'method' in request && 'url' in request ? (request as IncomingMessage).url : (request as { path?: string }).path;
        const path = pathOf(raw);
        const redacted = redactSecretPath(path);
        if (redacted === path) return;
        span.setAttribute('url.path', redacted);
        span.setAttribute('http.target', redacted);
        span.setAttribute('http.route', redacted);
        span.updateName(`${(request as { method?: string }).method ?? 'HTTP'} ${redacted}`);
      },
    }),
    // Middleware spans (request id, JSON parsing, auth) would multiply each request's spans for
    // little insight; routers and handlers keep the route name on the trace.
    new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
    // fetch() goes through Node's bundled undici, not node:http.
    new UndiciInstrumentation({
      startSpanHook: (request) => {
        const url = new URL(request.path, request.origin);
        const query = redactQuery(url.search);
        if (query === url.search) return {};
        url.search = query;
        return { 'url.full': url.toString(), 'url.query': query };
      },
    }),
    // requireParentSpan: background polling (BullMQ workers, pub/sub) outside any request or job
    // span would otherwise produce a root trace per command.
    new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: redisStatement }),
    // enhancedDatabaseReporting stays off so query parameter values are never recorded.
    new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
  ];
}

export function createSdk(options: SdkOptions): NodeSDK {
  const { env } = options;
  const attributes: Record<string, string> = {};
  if (options.serviceVersion) attributes['service.version'] = options.serviceVersion;
  return new NodeSDK({
    // OTEL_SERVICE_NAME is read by the SDK's env detector; a name passed here would override it.
    serviceName: nonBlank(env.OTEL_SERVICE_NAME) ? undefined : options.serviceName,
    // Detected attributes (OTEL_RESOURCE_ATTRIBUTES) are merged over this one, so they win.
    resource: resources.defaultResource().merge(resources.resourceFromAttributes(attributes)),
    instrumentations: createInstrumentations(),
    // Exporter, protocol, endpoint and sampler come from the SDK's reading of OTEL_* unless a
    // caller (a test) hands its own processors.
    ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}),
    // This package is about traces. The SDK would otherwise start OTLP metric and log exporters by
    // default (a periodic push to localhost:4318 and more work at shutdown); they stay off unless
    // their own variables ask for them.
    ...(nonBlank(env.OTEL_METRICS_EXPORTER) ? {} : { metricReaders: [] }),
    ...(nonBlank(env.OTEL_LOGS_EXPORTER) ? {} : { logRecordProcessors: [] }),
  });
}

function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
