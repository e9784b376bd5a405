import { ROOT_CONTEXT, SpanKind, context, propagation, trace, type SpanContext } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Worker } from 'bullmq';
import { consumerSpanName, createConsumer } from '../src/consumer';
import { DirectProducer } from '../src/direct';
import { contextFromCarrier } from '../src/trace';
import { QUEUE_NAMES } from '../src/names';
import { OutboxRelay, addToOutbox } from '../src/outbox';
import { TestQueues, auditEvent, createTestDatabase, memoryLogger, redisConnection, uniquePrefix, waitFor, type TestDatabase } from './harness';

const AUDIT = QUEUE_NAMES.auditEvents;

describe('trace propagation', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager();
  let db: TestDatabase;
  let queues: TestQueues;
  let worker: Worker | undefined;

  beforeAll(async () => {
    trace.setGlobalTracerProvider(provider);
    context.setGlobalContextManager(contextManager.enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    db = await createTestDatabase('trace');
    queues = new TestQueues(uniquePrefix('trace'));
  });
  afterAll(async () => {
    await worker?.close();
    await queues.cleanup();
    await db.drop();
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  it('continues the producer\'s trace: the consumer span is a child of the producer span, links to it, and runs the handler inside it, without _trace in the payload', async () => {
    const queue = queues.open(AUDIT);
    const relay = new OutboxRelay({ executor: db.prisma, queues: { [AUDIT]: queue }, logger: memoryLogger() });
    const event = auditEvent();
    const tracer = trace.getTracer('test');
    const producer = await tracer.startActiveSpan('RegisteredUsers.create', async (span) => {
      await db.prisma.$transaction((tx) => addToOutbox(tx, { queue: AUDIT, payload: event }));
      span.end();
      return span.spanContext();
    });
    await relay.kick();
    expect((await queue.getJob(event.event_id))?.data._trace).toEqual({ traceparent: `00-${producer.traceId}-${producer.spanId}-01` });

    let handlerSpan: SpanContext | undefined;
    let handlerPayload: unknown;
    worker = createConsumer({
      queue: AUDIT,
      connection: redisConnection(),
      prefix: queues.prefix,
      logger: memoryLogger(),
      handler: async (payload) => {
        handlerPayload = payload;
        handlerSpan = trace.getActiveSpan()?.spanContext();
      },
    });
    await waitFor(() => exporter.getFinishedSpans().some((s) => s.name === 'AuditEventsConsumer.process'), 'the consumer span');

    const consumerSpan = exporter.getFinishedSpans().find((s) => s.name === 'AuditEventsConsumer.process')!;
    expect(consumerSpan.links.map((l) => l.context)).toEqual([expect.objectContaining({ traceId: producer.traceId, spanId: producer.spanId })]);
    expect(consumerSpan.spanContext().traceId).toBe(producer.traceId);
    expect(consumerSpan.parentSpanContext?.spanId).toBe(producer.spanId);
    expect(consumerSpan.attributes).toMatchObject({ 'messaging.system': 'bullmq', 'messaging.destination.name': AUDIT, 'messaging.message.id': event.event_id });
    expect(handlerSpan).toEqual(consumerSpan.spanContext());
    expect(handlerPayload).toEqual(event);
  });

  it('DirectProducer sends in a PRODUCER span DirectProducer.sendMany whose context the job carries; a job without one starts its own trace', async () => {
    const queue = queues.open(QUEUE_NAMES.toolCallRecordBatches);
    const producer = new DirectProducer({ queues: () => queue, outbox: db.prisma, relay: { kick: () => undefined }, logger: memoryLogger() });
    const tracer = trace.getTracer('test');
    const request = await tracer.startActiveSpan('ToolExecutor.call', async (span) => {
      await producer.send(QUEUE_NAMES.toolCallRecordBatches, { event_id: '6f1c3c1e-2a41-4d57-9f5b-0c2a3c5e7d11', records: [] });
      span.end();
      return span.spanContext();
    });
    const send = exporter.getFinishedSpans().find((s) => s.name === 'DirectProducer.sendMany')!;
    expect(send.kind).toBe(SpanKind.PRODUCER);
    expect(send.spanContext().traceId).toBe(request.traceId);
    expect(send.parentSpanContext?.spanId).toBe(request.spanId);
    expect(send.attributes).toMatchObject({ 'messaging.destination.name': QUEUE_NAMES.toolCallRecordBatches, 'patchbay.outcomes': 'queued' });
    const job = await queue.getJob('6f1c3c1e-2a41-4d57-9f5b-0c2a3c5e7d11');
    expect(job?.data._trace).toEqual({ traceparent: `00-${send.spanContext().traceId}-${send.spanContext().spanId}-01` });

    // No trace context in the job (a producer without tracing): a new trace, no link.
    expect(contextFromCarrier(undefined)).toBe(ROOT_CONTEXT);
    expect(contextFromCarrier({ traceparent: 'not-a-traceparent' })).toBe(ROOT_CONTEXT);
    expect(consumerSpanName(QUEUE_NAMES.toolCallRecordBatches)).toBe('ToolCallRecordBatchesConsumer.process');
  });
});
