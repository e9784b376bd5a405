import { randomFillSync, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { context, isSpanContextValid, propagation, trace } from '@opentelemetry/api';

/** Request ids are kept from the client (or a load balancer) when they look like ids, and made here otherwise. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFrom(headers: IncomingHttpHeaders): string {
  const incoming = headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
}

// W3C Trace Context: version-traceid-parentid-flags; later versions may append fields after another dash.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

export interface ParsedTraceparent {
  traceId: string;
  parentId: string;
  flags: string;
}

export function parseTraceparent(value: string | undefined): ParsedTraceparent | undefined {
  if (value === undefined) return undefined;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return undefined;
  const [, version, traceId, parentId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE_ID || parentId === ZERO_SPAN_ID) return undefined;
  return { traceId, parentId, flags };
}

/**
 * Sets `traceparent` (and `tracestate`) on the upstream request.
 *
 * With OpenTelemetry running, the active span (the edge's server span) is the parent, injected through the
 * registered propagator. Without it, the edge still continues the client's trace under a new span id, so
 * the services' spans join the client's trace, or starts a sampled trace so they can be recorded at all.
 */
export function setTraceHeaders(incoming: IncomingHttpHeaders, outgoing: OutgoingHttpHeaders): void {
  const active = context.active();
  const span = trace.getSpan(active);
  if (span && isSpanContextValid(span.spanContext())) {
    propagation.inject(active, outgoing);
    if (typeof outgoing.traceparent === 'string') return;
  }
  const inboundHeader = incoming.traceparent;
  const inbound = parseTraceparent(typeof inboundHeader === 'string' ? inboundHeader : undefined);
  if (inbound) {
    outgoing.traceparent = `00-${inbound.traceId}-${randomHex(8, ZERO_SPAN_ID)}-${inbound.flags}`;
    const tracestate = incoming.tracestate;
    if (typeof tracestate === 'string' && tracestate !== '') outgoing.tracestate = tracestate;
    return;
  }
  outgoing.traceparent = `00-${randomHex(16, ZERO_TRACE_ID)}-${randomHex(8, ZERO_SPAN_ID)}-01`;
}

// Ids are taken from a pooled random buffer: one getrandom call per few hundred requests instead of one each.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomHex(bytes: number, zero: string): string {
  for (;;) {
    if (poolOffset + bytes > pool.length) {
      randomFillSync(pool);
      poolOffset = 0;
    }
    const hex = pool.toString('hex', poolOffset, poolOffset + bytes);
    poolOffset += bytes;
    if (hex !== zero) return hex;
  }
}
