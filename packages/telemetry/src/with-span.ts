import { type Span, type SpanOptions, SpanStatusCode, trace } from '@opentelemetry/api';
import { AppError } from '@patchbay/errors';

// A proxy tracer: it starts delegating once an SDK registers, and is a no-op (no allocation per
// span beyond a non-recording span) while tracing is off.
const tracer = trace.getTracer('@patchbay/telemetry');

/**
 * Runs `fn` inside a span named `Class.method` (so a trace reads like the code). The span is the
 * active one inside `fn`, so database, Redis and HTTP spans started there become its children.
 *
 * A thrown error is recorded on the span only when it is the server's fault: an AppError with a
 * status below 500 (validation, not found, scope) is an expected answer, not a span error.
 * `options` passes kind, attributes and links (a queue job's link to the request that enqueued it).
 */
export function withSpan<T>(name: string, fn: (span: Span) => Promise<T> | T, options: SpanOptions = {}): Promise<T> {
  return tracer.startActiveSpan(name, options, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      markSpanError(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Whether an error counts as a span error: anything but an expected (4xx) AppError. */
export function isSpanError(error: unknown): boolean {
  return !(error instanceof AppError) || error.isServerError;
}

/** Records `error` on `span` as `withSpan` does: client errors only leave their code. */
export function markSpanError(span: Span, error: unknown): void {
  if (error instanceof AppError) span.setAttribute('patchbay.error_code', error.code);
  if (!isSpanError(error)) return;
  if (error instanceof Error) {
    span.recordException(error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  } else {
    span.recordException(String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
  }
}
