import type { JobsOptions } from 'bullmq';
import { describeError, type QueueLogger } from './logger';
import type { QueueName } from './names';
import { addToOutbox, type OutboxWriter, type RelayQueue } from './outbox';
import type { QueuePayloads } from './payloads';
import { TRACE_FIELD, injectTraceContext } from './trace';

export interface DirectProducerOptions {
  /** Where jobs go first: `(name) => queueSet.get(name)`. Give it a connection with `enableOfflineQueue: false` so a Redis outage fails fast. */
  queues: (queue: string) => RelayQueue | undefined;
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
    const target = this.options.queues(queue);
    if (!target) throw new TypeError(`unknown queue ${queue}`);
    const carrier = injectTraceContext();
    const data = carrier ? { ...payload, [TRACE_FIELD]: carrier } : payload;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        target.add(queue, data, { ...jobOptions, jobId: payload.event_id }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`Redis did not take the job within ${this.timeoutMs} ms`)), this.timeoutMs);
        }),
      ]);
      return 'queued';
    } catch (err) {
      this.options.logger.warn({ queue, event_id: payload.event_id, error: describeError(err) }, 'queue unavailable; event kept in the outbox');
    } finally {
      clearTimeout(timer);
    }
    try {
      await addToOutbox(this.options.outbox, { queue, payload });
      void this.options.relay.kick();
      return 'outbox';
    } catch (err) {
      this.options.logger.error({ queue, event_id: payload.event_id, error: describeError(err) }, 'event lost: neither the queue nor the outbox took it');
      return 'lost';
    }
  }
}
