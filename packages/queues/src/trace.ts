import { ROOT_CONTEXT, context, isSpanContextValid, propagation, trace, type Context, type Link } from '@opentelemetry/api';

/** Job data field holding the producer's trace context (W3C `traceparent`/`tracestate` with the usual propagator). */
export const TRACE_FIELD = '_trace';

export type TraceCarrier = Record<string, string>;

/** What travels in a job: the payload plus, when a propagator is registered, the producer's trace context. */
export type JobData<P> = P & { [TRACE_FIELD]?: TraceCarrier };

/**
 * The active trace context as a carrier, or undefined when there is none to carry. With no
 * OpenTelemetry SDK registered the global propagator is a no-op, so this costs one empty object.
 */
export function injectTraceContext(from: Context = context.active()): TraceCarrier | undefined {
  const carrier: TraceCarrier = {};
  propagation.inject(from, carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/**
 * The producer's context, for the consumer's span to continue its trace: a tool call and the job that
 * records it read as one trace, with the job's span under the span that enqueued it. ROOT_CONTEXT (a new
 * trace) when the job carries none.
 */
export function contextFromCarrier(carrier: unknown): Context {
  if (!carrier || typeof carrier !== 'object') return ROOT_CONTEXT;
  const extracted = propagation.extract(ROOT_CONTEXT, carrier as TraceCarrier);
  const spanContext = trace.getSpanContext(extracted);
  return spanContext && isSpanContextValid(spanContext) ? extracted : ROOT_CONTEXT;
}

/**
 * Links to the producer's span. A queued job may be processed long after its request finished (or as
 * one of a batch), so besides being its child the consumer's span links to it, as the OpenTelemetry
 * messaging conventions describe.
 */
export function linksFromCarrier(carrier: unknown): Link[] {
  if (!carrier || typeof carrier !== 'object') return [];
  const spanContext = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier as TraceCarrier));
  return spanContext && isSpanContextValid(spanContext) ? [{ context: spanContext }] : [];
}

/** Splits job data into the handler's payload and the trace carrier, so handlers never see `_trace`. */
export function splitJobData<P>(data: JobData<P>): { payload: P; carrier: unknown } {
  const { [TRACE_FIELD]: carrier, ...payload } = data;
  return { payload: payload as P, carrier };
}
