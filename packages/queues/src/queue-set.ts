import { Queue, type ConnectionOptions } from 'bullmq';
import type { QueueLogger } from './logger';
import { describeError } from './logger';
import { isQueueName, type QueueName } from './names';
import { queuePrefix } from './prefix';

export interface QueueSetOptions {
  /**
   * Redis for the producer side: an ioredis instance or its options. Adds should fail fast while
   * Redis is down (the outbox keeps the event), so prefer `enableOfflineQueue: false` here; the
   * relay's enqueue timeout bounds the wait either way.
   */
  connection: ConnectionOptions;
  /** BullMQ key prefix; producers and consumers must use the same one. Default 'bull'. Hash-tagged per queue on a cluster (see queuePrefix). */
  prefix?: string;
  logger?: QueueLogger;
}

/**
 * One BullMQ Queue per known queue name, opened on first use. `get` suits OutboxRelay's `queues`
 * option: `queues: (name) => set.get(name)`.
 */
export class QueueSet {
  private readonly queues = new Map<QueueName, Queue>();

  constructor(private readonly options: QueueSetOptions) {}

  /** The Queue for a name, or undefined for a name this package does not define. */
  get(name: string): Queue | undefined {
    if (!isQueueName(name)) return undefined;
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.options.connection, prefix: queuePrefix(this.options.prefix, name, this.options.connection) });
      // Without a listener an EventEmitter 'error' would crash the process; a Redis outage is expected.
      queue.on('error', (err) => this.options.logger?.warn({ queue: name, error: describeError(err) }, 'queue connection error'));
      this.queues.set(name, queue);
    }
    return queue;
  }

  async close(): Promise<void> {
    const queues = [...this.queues.values()];
    this.queues.clear();
    await Promise.all(queues.map((q) => q.close()));
  }
}
