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

/** usage_records' columns with the casts their parameters need, in the order usageValues gives them. */
const USAGE_COLUMNS: Array<[string, string]> = [
  ['id', 'uuid'], ['organization_id', 'uuid'], ['environment', '"Environment"'], ['key_hash', 'text'], ['project_id', 'uuid'], ['customer_id', 'uuid'],
  ['surface', 'text'], ['model', 'text'], ['vendor', 'text'], ['outcome', 'text'], ['error_code', 'text'], ['status', 'int'], ['stream', 'boolean'], ['byok', 'boolean'],
  ['input_tokens', 'int'], ['cached_input_tokens', 'int'], ['cache_write_tokens', 'int'], ['output_tokens', 'int'], ['reasoning_tokens', 'int'],
  ['usage_estimated', 'boolean'], ['cost_micros', 'bigint'], ['tags', 'jsonb'], ['latency_ms', 'int'], ['ttft_ms', 'int'], ['spend_epoch', 'text'],
  ['counted_at', 'timestamptz'], ['counted_model_request', 'boolean'], ['counted_in_rate_limit', 'boolean'], ['created_at', 'timestamptz'], ['day', 'date'],
];
const COLUMN_LIST = USAGE_COLUMNS.map(([name]) => `"${name}"`).join(', ');

function usageValues(job: GatewayUsageRecordJob): Array<string | number | boolean | null> {
  const createdAt = new Date(job.occurred_at);
  return [
    job.event_id, job.organization_id, job.environment, job.key_hash, job.project_id, job.customer_id,
    job.surface, job.model, job.vendor, job.outcome, job.error_code, job.status, job.stream, job.byok,
    job.input_tokens, job.cached_input_tokens, job.cache_write_tokens, job.output_tokens, job.reasoning_tokens,
    job.usage_estimated, String(job.cost_micros), JSON.stringify(job.tags), job.latency_ms, job.ttft_ms, job.spend_epoch,
    job.counted_at ? new Date(job.counted_at).toISOString() : null, job.counted_model_request, job.counted_in_rate_limit,
    createdAt.toISOString(), createdAt.toISOString().slice(0, 10),
  ];
}

/**
 * Stores usage records in one INSERT. Plain parameterized SQL: Prisma's createMany spent more CPU
 * mapping each row than the database spent storing it (a quarter of the gateway's busy time).
 */
export async function storeUsageRecords(db: Db, jobs: readonly GatewayUsageRecordJob[]): Promise<void> {
  if (jobs.length === 0) return;
  const params: Array<string | number | boolean | null> = [];
  const rows = jobs.map((job) => {
    const base = params.length;
    params.push(...usageValues(job));
    return `(${USAGE_COLUMNS.map(([, cast], i) => `$${base + i + 1}::${cast}`).join(', ')})`;
  });
  // At-least-once delivery: the event id is the primary key, so a redelivery stores nothing.
  await db.$executeRawUnsafe(`INSERT INTO "usage_records" (${COLUMN_LIST}) VALUES ${rows.join(', ')} ON CONFLICT ("id") DO NOTHING`, ...params);
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
