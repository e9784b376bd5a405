import { SpanKind, trace } from '@opentelemetry/api';
import type { JobsOptions, Queue } from 'bullmq';
import { describeError, type QueueLogger } from './logger';
import type { QueueName } from './names';
import { addToOutbox, type OutboxWriter, type RelayQueue } from './outbox';
import type { QueuePayloads } from './payloads';
import { TRACE_FIELD, injectTraceContext } from './trace';

const tracer = trace.getTracer('@patchbay/queues');

export interface DirectProducerOptions {
  /** Where jobs go first: `(name) => queueSet.get(name)`. Give it a connection with `enableOfflineQueue: false` so a Redis outage fails fast. */
  queues: (queue: string) => (RelayQueue & Pick<Queue, 'addBulk'>) | undefined;
  /** Where a job goes when Redis cannot take it: the service's outbox table (a PrismaClient fits). */
  outbox: OutboxWriter;
  /** Delivers outbox rows; kicked after a fallback write. */
  relay: { kick(): Promise<void> | void };
  logger: QueueLogger;
  /** Longest wait for Redis before falling back to the outbox. Default 1000 ms. */
  enqueueTimeoutMs?: number;
}

/**
 * A producer for events that are not part of a database change (a tool call happened): it adds the
 * job straight to its queue, which costs one Redis round trip and no database write, and falls back
 * to the outbox table when Redis is unreachable, so the event is kept and delivered later instead
 * of lost. The job id is the event id, so a job that reached Redis late and the outbox copy are one job.
 */
export class DirectProducer {
  private readonly timeoutMs: number;

  constructor(private readonly options: DirectProducerOptions) {
    this.timeoutMs = options.enqueueTimeoutMs ?? 1000;
  }

  /** Resolves once the event is in Redis or in the outbox; never rejects (a double failure is logged). */
  async send<Q extends QueueName>(queue: Q, payload: QueuePayloads[Q], jobOptions: JobsOptions = {}): Promise<'queued' | 'outbox' | 'lost'> {
    const [outcome] = await this.sendMany(queue, [payload], jobOptions);
    return outcome ?? 'lost';
  }

  /**
   * Several events in one Redis round trip (BullMQ addBulk: all or none), each falling back to the
   * outbox when Redis cannot take them. Resolves to each event's outcome, in order; never rejects.
   */
  async sendMany<Q extends QueueName>(queue: Q, payloads: Array<QueuePayloads[Q]>, jobOptions: JobsOptions = {}): Promise<Array<'queued' | 'outbox' | 'lost'>> {
    const target = this.options.queues(queue);
    if (!target) throw new TypeError(`unknown queue ${queue}`);
    if (payloads.length === 0) return [];
    // A PRODUCER span: the jobs carry its context, so their consumer's span is its child in the same trace.
    return tracer.startActiveSpan(
      'DirectProducer.sendMany',
      { kind: SpanKind.PRODUCER, attributes: { 'messaging.system': 'bullmq', 'messaging.operation.type': 'send', 'messaging.destination.name': queue, 'messaging.batch.message_count': payloads.length } },
      async (span) => {
        try {
          const outcomes = await this.enqueue(queue, target, payloads, jobOptions);
          span.setAttribute('patchbay.outcomes', [...new Set(outcomes)].join(','));
          return outcomes;
        } finally {
          span.end();
        }
      },
    );
  }

  private async enqueue<Q extends QueueName>(
    queue: Q,
    target: RelayQueue & Pick<Queue, 'addBulk'>,
    payloads: Array<QueuePayloads[Q]>,
    jobOptions: JobsOptions,
  ): Promise<Array<'queued' | 'outbox' | 'lost'>> {
    const carrier = injectTraceContext();
    const jobs = payloads.map((payload) => ({
      name: queue,
      data: carrier ? { ...payload, [TRACE_FIELD]: carrier } : payload,
      opts: { ...jobOptions, jobId: payload.event_id },
    }));
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        jobs.length === 1 ? target.add(jobs[0]!.name, jobs[0]!.data, jobs[0]!.opts) : target.addBulk(jobs),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`Redis did not take the jobs within ${this.timeoutMs} ms`)), this.timeoutMs);
        }),
      ]);
      return payloads.map(() => 'queued');
    } catch (err) {
      this.options.logger.warn({ queue, events: payloads.length, error: describeError(err) }, 'queue unavailable; events kept in the outbox');
    } finally {
      clearTimeout(timer);
    }
    const outcomes = await Promise.all(
      payloads.map(async (payload) => {
        try {
          await addToOutbox(this.options.outbox, { queue, payload });
          return 'outbox' as const;
        } catch (err) {
          this.options.logger.error({ queue, event_id: payload.event_id, error: describeError(err) }, 'event lost: neither the queue nor the outbox took it');
          return 'lost' as const;
        }
      }),
    );
    void this.options.relay.kick();
    return outcomes;
  }
}
