import { QUEUE_NAMES, createConsumer, type DirectProducer, type GatewayUsageRecordJob, type QueueLogger } from '@patchbay/queues';
import type { ConnectionOptions, Worker } from 'bullmq';
import type { Db } from '../db';

/**
 * Every model request is recorded: the hot path hands the record to the queue (one Redis round trip,
 * after the response) and falls back to the outbox table while Redis is unreachable; the consumer
 * stores each event once.
 */
export class UsageRecorder {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly producer: DirectProducer) {}

  record(job: GatewayUsageRecordJob): void {
    const sent = this.producer.send(QUEUE_NAMES.gatewayUsageRecords, job).finally(() => this.pending.delete(sent));
    this.pending.add(sent);
  }

  /** Waits for records still being handed over (shutdown, tests). */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}

export async function storeUsageRecord(db: Db, job: GatewayUsageRecordJob): Promise<void> {
  const createdAt = new Date(job.occurred_at);
  await db.usageRecord.createMany({
    data: [
      {
        id: job.event_id,
        organizationId: job.organization_id,
        environment: job.environment,
        keyHash: job.key_hash,
        projectId: job.project_id,
        customerId: job.customer_id,
        surface: job.surface,
        model: job.model,
        vendor: job.vendor,
        outcome: job.outcome,
        errorCode: job.error_code,
        status: job.status,
        stream: job.stream,
        byok: job.byok,
        inputTokens: job.input_tokens,
        cachedInputTokens: job.cached_input_tokens,
        cacheWriteTokens: job.cache_write_tokens,
        outputTokens: job.output_tokens,
        reasoningTokens: job.reasoning_tokens,
        usageEstimated: job.usage_estimated,
        costMicros: BigInt(job.cost_micros),
        tags: job.tags,
        latencyMs: job.latency_ms,
        ttftMs: job.ttft_ms,
        spendEpoch: job.spend_epoch,
        countedAt: job.counted_at ? new Date(job.counted_at) : null,
        countedModelRequest: job.counted_model_request,
        countedInRateLimit: job.counted_in_rate_limit,
        createdAt,
        day: new Date(Date.UTC(createdAt.getUTCFullYear(), createdAt.getUTCMonth(), createdAt.getUTCDate())),
      },
    ],
    // At-least-once delivery: the event id is the primary key, so a redelivery stores nothing.
    skipDuplicates: true,
  });
}

export function startUsageConsumer(options: { db: Db; connection: ConnectionOptions; logger: QueueLogger; prefix?: string; concurrency: number; onStored?: (job: GatewayUsageRecordJob) => void }): { close(): Promise<void> } {
  const worker: Worker = createConsumer({
    queue: QUEUE_NAMES.gatewayUsageRecords,
    connection: options.connection,
    logger: options.logger,
    prefix: options.prefix,
    concurrency: options.concurrency,
    handler: async (job) => {
      await storeUsageRecord(options.db, job);
      options.onStored?.(job);
    },
  });
  return { close: () => worker.close() };
}
