import { context, propagation, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { OutgoingHttpHeaders } from 'node:http';
import { parseTraceparent, setTraceHeaders } from './trace-context';

describe('parseTraceparent', () => {
  it('reads a version 00 header', () => {
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toEqual({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentId: '00f067aa0ba902b7', flags: '01' });
  });

  it.each([
    ['version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['an all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['an all-zero parent id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['upper-case hex', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01'],
    ['extra fields in version 00', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra'],
    ['a short trace id', '00-4bf92f3577b34da6-00f067aa0ba902b7-01'],
  ])('rejects %s', (_what, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });

  it('accepts a later version with extra fields', () => {
    expect(parseTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more')).toMatchObject({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736' });
  });
});

describe('setTraceHeaders with OpenTelemetry active', () => {
  const contextManager = new AsyncLocalStorageContextManager();

  beforeAll(() => {
    context.setGlobalContextManager(contextManager.enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });

  afterAll(() => {
    context.disable();
    propagation.disable();
  });

  it('injects the active span as the parent instead of the inbound one', () => {
    const spanContext = { traceId: 'aaaabbbbccccddddeeeeffff00001111', spanId: '1234567890abcdef', traceFlags: TraceFlags.SAMPLED };
    const outgoing: OutgoingHttpHeaders = {};
    context.with(trace.setSpanContext(context.active(), spanContext), () => {
      setTraceHeaders({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' }, outgoing);
    });
    expect(outgoing.traceparent).toBe('00-aaaabbbbccccddddeeeeffff00001111-1234567890abcdef-01');
  });

  it('falls back to continuing the inbound trace when no span is active', () => {
    const outgoing: OutgoingHttpHeaders = {};
    setTraceHeaders({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00' }, outgoing);
    expect(outgoing.traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-00$/);
  });
});
