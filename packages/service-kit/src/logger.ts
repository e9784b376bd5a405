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

/**
 * Lines to stdout are gathered in memory and written 4 KB at a time, and at least every 200 ms.
 * One synchronous write per line (pino's default) cost the model gateway a fifth of its throughput
 * at LOG_LEVEL=info, the access line of every request being one more syscall (and a wake-up of
 * whatever reads the pipe). What is gathered is written out when the process exits, on an error too
 * (pino flushes it synchronously at exit); only a process killed outright (SIGKILL, the OOM killer)
 * loses it: at most the last 200 ms of lines.
 */
const LOG_BUFFER_BYTES = 4096;
const LOG_FLUSH_MS = 200;

function bufferedStdout(): pino.DestinationStream {
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES });
  // Not sonic-boom's periodicFlush: it writes every 200 ms whether or not a line is waiting (an empty
  // write through libuv's thread pool, and a wake-up of the process, five times a second, forever). At
  // LOG_LEVEL=warn that was most of an idle service's CPU, and at a few hundred requests a second a
  // noticeable part of a proxy's (the edge router's) CPU per request. A timer armed by the first line
  // after a flush writes as promptly, and an idle logger costs nothing.
  let timer: NodeJS.Timeout | undefined;
  const flushSoon = () => {
    timer = undefined;
    try {
      destination.flush();
    } catch {
      // Destroyed at exit, after pino's final synchronous flush: nothing is left to write.
    }
  };
  const write = destination.write.bind(destination);
  destination.write = (line: string): boolean => {
    timer ??= setTimeout(flushSoon, LOG_FLUSH_MS).unref();
    return write(line);
  };
  return destination;
}

/** JSON logs with the service name, the request id and the trace id of the active span, to stdout (buffered, see LOG_BUFFER_BYTES) unless a destination is given. */
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
    destination ?? (level === 'silent' ? undefined : bufferedStdout()),
  );
}

const accessLoggers = new WeakMap<Logger, Logger>();

/**
 * The logger of access lines (one per request: method, path, status, duration, request id), a child
 * of `logger` without redaction. Such a line holds only the fields its writer picks, the path already
 * through redactSecretPath; matching REDACTED_PATHS' wildcards against it costs about 7 µs a line, two
 * thirds of writing it, on every request.
 */
export function accessLineLogger(logger: Logger): Logger {
  let child = accessLoggers.get(logger);
  if (!child) {
    child = logger.child({}, { redact: { paths: [] } });
    accessLoggers.set(logger, child);
  }
  return child;
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
