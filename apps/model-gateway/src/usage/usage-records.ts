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
  private queued: GatewayUsageRecordJob[] = [];
  private scheduled = false;

  constructor(private readonly producer: DirectProducer) {}

  /** Records finished in the same turn of the event loop go to the queue together (one addBulk). */
  record(job: GatewayUsageRecordJob): void {
    this.queued.push(job);
    if (this.queued.length >= 100) this.sendQueued();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.sendQueued());
    }
  }

  private sendQueued(): void {
    this.scheduled = false;
    const jobs = this.queued;
    if (jobs.length === 0) return;
    this.queued = [];
    const sent = this.producer.sendMany(QUEUE_NAMES.gatewayUsageRecords, jobs).finally(() => this.pending.delete(sent));
    this.pending.add(sent);
  }

  /** Waits for records still being handed over (shutdown, tests). */
  async flush(): Promise<void> {
    this.sendQueued();
    await Promise.all([...this.pending]);
  }
}

function usageRow(job: GatewayUsageRecordJob) {
  const createdAt = new Date(job.occurred_at);
  return {
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
  };
}

/** Stores usage records in one INSERT. */
export async function storeUsageRecords(db: Db, jobs: readonly GatewayUsageRecordJob[]): Promise<void> {
  if (jobs.length === 0) return;
  await db.usageRecord.createMany({
    data: jobs.map(usageRow),
    // At-least-once delivery: the event id is the primary key, so a redelivery stores nothing.
    skipDuplicates: true,
  });
}

/**
 * Gathers the jobs the consumer runs within a few milliseconds (at most its concurrency, when no
 * further job can start) and stores them together: the per-INSERT cost (query planning in Prisma, a
 * database round trip) is paid once per batch, not once per request. Each job's promise settles with its batch's INSERT, so a failed INSERT retries every job
 * in it (the event id keeps the retry from storing one twice).
 */
export class UsageRecordBatcher {
  private pending: Array<{ job: GatewayUsageRecordJob; resolve: () => void; reject: (err: unknown) => void }> = [];
  private scheduled = false;

  constructor(
    private readonly store: (jobs: GatewayUsageRecordJob[]) => Promise<void>,
    private readonly maxBatch: number,
    private readonly windowMs = 10,
  ) {}

  add(job: GatewayUsageRecordJob): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ job, resolve, reject });
      if (this.pending.length >= this.maxBatch) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setTimeout(() => this.flush(), this.windowMs);
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    this.store(batch.map((b) => b.job)).then(
      () => batch.forEach((b) => b.resolve()),
      (err: unknown) => batch.forEach((b) => b.reject(err)),
    );
  }
}

export function startUsageConsumer(options: { db: Db; connection: ConnectionOptions; logger: QueueLogger; prefix?: string; concurrency: number; onStored?: (job: GatewayUsageRecordJob) => void }): { close(): Promise<void> } {
  const batcher = new UsageRecordBatcher((jobs) => storeUsageRecords(options.db, jobs), options.concurrency);
  const worker: Worker = createConsumer({
    queue: QUEUE_NAMES.gatewayUsageRecords,
    connection: options.connection,
    logger: options.logger,
    prefix: options.prefix,
    concurrency: options.concurrency,
    handler: async (job) => {
      await batcher.add(job);
      options.onStored?.(job);
    },
  });
  return { close: () => worker.close() };
}
