import { AsyncLocalStorage } from 'node:async_hooks';
import { trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/** Per-request values every log line carries. */
export interface RequestContext {
  requestId: string;
}

export const requestContextStorage = new AsyncLocalStorage<RequestContext>();

/**
 * Paths pino removes before a line is written. Keys, secrets and credentials never reach a log,
 * whatever object they sit in.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-service-token"]',
  'req.headers["x-account-token"]',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'key',
  'password',
  'secret',
  'client_secret',
  'access_token',
  'refresh_token',
  'credentials',
  '*.key',
  '*.password',
  '*.secret',
  '*.client_secret',
  '*.access_token',
  '*.refresh_token',
  '*.api_key',
  '*.token',
  '*.credentials',
  '*.authorization',
];

/** JSON logs with the service name, the request id and the trace id of the active span. */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info', destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
      formatters: { level: (label) => ({ level: label }) },
      mixin() {
        const fields: Record<string, string> = {};
        const ctx = requestContextStorage.getStore();
        if (ctx) fields.request_id = ctx.requestId;
        const spanContext = trace.getActiveSpan()?.spanContext();
        if (spanContext && spanContext.traceId !== '00000000000000000000000000000000') {
          fields.trace_id = spanContext.traceId;
          fields.span_id = spanContext.spanId;
        }
        return fields;
      },
    },
    destination,
  );
}

/**
 * Paths that carry a secret in a segment: a magic-link token (`/link/lt_…`). Logs and traces write
 * `[REDACTED]` in its place; the edge router and the services share this one list.
 */
const SECRET_PATH_SEGMENTS = [/^(\/link\/)(lt_[^/]+)/];

export function redactSecretPath(path: string): string {
  let out = path;
  for (const pattern of SECRET_PATH_SEGMENTS) out = out.replace(pattern, '$1[REDACTED]');
  return out;
}
