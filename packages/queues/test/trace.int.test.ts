import { context, propagation, trace, type SpanContext } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Worker } from 'bullmq';
import { createConsumer } from '../src/consumer';
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

  it('links the consumer span to the producer span and runs the handler inside it, without _trace in the payload', async () => {
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
    await waitFor(() => exporter.getFinishedSpans().some((s) => s.name === `${AUDIT} process`), 'the consumer span');

    const consumerSpan = exporter.getFinishedSpans().find((s) => s.name === `${AUDIT} process`)!;
    expect(consumerSpan.links.map((l) => l.context)).toEqual([expect.objectContaining({ traceId: producer.traceId, spanId: producer.spanId })]);
    expect(consumerSpan.parentSpanContext).toBeUndefined();
    expect(consumerSpan.attributes).toMatchObject({ 'messaging.system': 'bullmq', 'messaging.destination.name': AUDIT, 'messaging.message.id': event.event_id });
    expect(handlerSpan).toEqual(consumerSpan.spanContext());
    expect(handlerPayload).toEqual(event);
  });
});
