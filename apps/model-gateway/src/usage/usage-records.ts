import { randomUUID } from 'node:crypto';
import { QUEUE_NAMES, createConsumer, type DirectProducer, type GatewayUsageRecordBatchJob, type GatewayUsageRecordJob, type QueueLogger } from '@patchbay/queues';
import type { ConnectionOptions, Worker } from 'bullmq';
import { ensurePartitions, prismaPartitionDatabase, type PartitionedTable } from '@patchbay/db';
import type { Db, SqlPool } from '../db';
import type { SpendControl } from '../spend/spend-control';

/** Queue options of a batch: the consumer's primary key deduplicates, so completed jobs need not stay in Redis. */
const BATCH_JOB_OPTIONS = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: true,
  removeOnFail: { age: 7 * 24 * 3600 },
} as const;

/** Records handed to the queue together: one job and one Redis round trip per batch instead of per request. */
export const USAGE_BATCH_MAX = 200;
/**
 * How long a record may wait in memory by default (GATEWAY_USAGE_FLUSH_MS): what a replica that
 * crashes loses (shutdown sends it at once). Longer batches save the worker, Redis and PostgreSQL
 * CPU per request (100 ms took about 14% off the machine's CPU per request in pnpm bench gateway,
 * see the README) but not the gateway's; records are what usage and billing history are made of,
 * so the default window stays short.
 */
export const USAGE_FLUSH_DELAY_MS = 20;

/**
 * The direct path of usage records (GATEWAY_USAGE_DIRECT): the replica stores its batch in
 * PostgreSQL itself, one INSERT per flush window, and hands it to the queue (or the outbox) only when
 * PostgreSQL does not answer within `timeoutMs`. The event id is the primary key, so a batch that
 * reached the table although its INSERT timed out is stored once when the queue brings it again.
 */
export interface DirectUsageStore {
  store(records: GatewayUsageRecordJob[]): Promise<void>;
  /** After the records committed (the spend counters reconcile records of an epoch Redis lost). */
  onStored?(records: GatewayUsageRecordJob[]): void;
  timeoutMs: number;
  onFallback?(err: unknown, records: number): void;
}

/**
 * Every model request is recorded: the hot path hands the record over after the response, and the
 * records of up to USAGE_FLUSH_DELAY_MS (at most USAGE_BATCH_MAX) are stored together: straight into
 * PostgreSQL with `direct` (one INSERT, no queue job, no worker), else, or when PostgreSQL does not
 * answer, to the queue as one job (the outbox table while Redis is unreachable), whose consumer
 * stores each record once. A job per request cost the gateway more CPU (BullMQ's scripts and
 * bookkeeping) than the rest of the request; a job per batch still cost the worker, Redis and
 * PostgreSQL more than the INSERT itself (README, "The hot path").
 */
export class UsageRecorder {
  private readonly pending = new Set<Promise<unknown>>();
  private queued: GatewayUsageRecordJob[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly producer: Pick<DirectProducer, 'send'>,
    private readonly flushDelayMs = USAGE_FLUSH_DELAY_MS,
    private readonly direct: DirectUsageStore | null = null,
  ) {}

  /** Fire and forget: the client's answer never waits for its record. */
  record(job: GatewayUsageRecordJob): void {
    this.queued.push(job);
    if (this.queued.length >= USAGE_BATCH_MAX) this.sendQueued();
    else this.timer ??= setTimeout(() => this.sendQueued(), this.flushDelayMs);
  }

  private sendQueued(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const records = this.queued;
    if (records.length === 0) return;
    this.queued = [];
    const sent = (this.direct ? this.storeDirect(this.direct, records) : this.enqueue(records)).finally(() => this.pending.delete(sent));
    this.pending.add(sent);
  }

  private enqueue(records: GatewayUsageRecordJob[]): Promise<unknown> {
    return this.producer.send(QUEUE_NAMES.gatewayUsageRecords, { event_id: randomUUID(), records }, BATCH_JOB_OPTIONS);
  }

  private async storeDirect(direct: DirectUsageStore, records: GatewayUsageRecordJob[]): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        direct.store(records),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`PostgreSQL did not store the usage records within ${direct.timeoutMs} ms`)), direct.timeoutMs);
        }),
      ]);
    } catch (err) {
      direct.onFallback?.(err, records.length);
      return this.enqueue(records);
    } finally {
      clearTimeout(timer);
    }
    direct.onStored?.(records);
    return undefined;
  }

  /** Stores (or hands over) what is waiting and waits for every batch to be in PostgreSQL, Redis or the outbox (shutdown, tests). */
  async flush(): Promise<void> {
    this.sendQueued();
    await Promise.all([...this.pending]);
  }
}

/** The records a job carries: a batch, or one record from a gateway that predates batching. */
export function recordsOf(payload: GatewayUsageRecordBatchJob | GatewayUsageRecordJob): GatewayUsageRecordJob[] {
  return 'records' in payload ? payload.records : [payload];
}

/**
 * The queue's record fields as a PostgreSQL row type: json_to_recordset reads the whole batch from one
 * JSON parameter, so neither Prisma nor the pg driver handles 30 parameters per record.
 */
const RECORD_FIELDS = [
  'event_id uuid', 'organization_id uuid', 'environment "Environment"', 'key_hash text', 'project_id uuid', 'customer_id uuid',
  'surface text', 'model text', 'vendor text', 'outcome text', 'error_code text', 'status int', 'stream boolean', 'byok boolean',
  'input_tokens int', 'cached_input_tokens int', 'cache_write_tokens int', 'output_tokens int', 'reasoning_tokens int',
  'usage_estimated boolean', 'cost_micros bigint', 'tags jsonb', 'latency_ms int', 'ttft_ms int', 'spend_epoch text',
  'counted_at timestamptz', 'counted_model_request boolean', 'counted_in_rate_limit boolean', 'spend_grant text', 'billed_unit text', 'billed_units double precision', 'web_search_requests int', 'occurred_at timestamptz',
].join(', ');

// At-least-once delivery: the key is (event id, day), and a redelivery carries the same occurred_at, so
// the same day: it stores nothing (and adds nothing to key_month_spend: RETURNING yields only the rows
// stored). The day is part of the key because usage_records is partitioned by it (migration
// 20261129071500_partition_usage_records). The same statement adds each
// stored record's cost to its key's month, in key order so concurrent flushes of replicas lock rows in
// one order (no deadlock); GET /v1/keys sorts by that month's spend without summing records.
const INSERT_RECORDS = `WITH stored AS (INSERT INTO "usage_records" (
    "id", "organization_id", "environment", "key_hash", "project_id", "customer_id", "surface", "model", "vendor", "outcome", "error_code",
    "status", "stream", "byok", "input_tokens", "cached_input_tokens", "cache_write_tokens", "output_tokens", "reasoning_tokens",
    "usage_estimated", "cost_micros", "tags", "latency_ms", "ttft_ms", "spend_epoch", "counted_at", "counted_model_request",
    "counted_in_rate_limit", "spend_grant", "billed_unit", "billed_units", "web_search_requests", "created_at", "day")
  SELECT r.event_id, r.organization_id, r.environment, r.key_hash, r.project_id, r.customer_id, r.surface, r.model, r.vendor, r.outcome, r.error_code,
    r.status, r.stream, r.byok, r.input_tokens, r.cached_input_tokens, r.cache_write_tokens, r.output_tokens, r.reasoning_tokens,
    r.usage_estimated, r.cost_micros, COALESCE(r.tags, '[]'::jsonb), r.latency_ms, r.ttft_ms, r.spend_epoch, r.counted_at, COALESCE(r.counted_model_request, false),
    COALESCE(r.counted_in_rate_limit, false), r.spend_grant, r.billed_unit, r.billed_units, COALESCE(r.web_search_requests, 0), r.occurred_at, (r.occurred_at AT TIME ZONE 'UTC')::date
  FROM json_to_recordset($1::json) AS r(${RECORD_FIELDS})
  ON CONFLICT ("id", "day") DO NOTHING
  RETURNING "key_hash", "day", "organization_id", "cost_micros")
INSERT INTO "key_month_spend" ("key_hash", "month", "organization_id", "cost_micros")
  SELECT "key_hash", date_trunc('month', "day")::date, "organization_id", sum("cost_micros") FROM stored GROUP BY 1, 2, 3 ORDER BY 1, 2
  ON CONFLICT ("key_hash", "month") DO UPDATE SET "cost_micros" = "key_month_spend"."cost_micros" + EXCLUDED."cost_micros"`;

/**
 * Stores usage records in one INSERT with one parameter, the records as JSON. Prisma's createMany
 * spent more CPU mapping each row than the database spent storing it, and 30 bound parameters per
 * record still cost the worker more than the rest of its work. The INSERT goes to the pg pool under
 * Prisma itself: Prisma's $executeRawUnsafe cost the worker 200-380 µs more CPU per statement than
 * pg's query (2-3 times as much), paid once per batch (see the README). It is a named statement:
 * PostgreSQL parsed and planned the unnamed one (partition routing, the CTE, the daily trigger) at
 * every flush, which cost it 15 to 50% more CPU per batch (1,950-2,750 against 1,400-1,800 µs for 36
 * records, four A/B pairs). Behind a connection pooler in transaction mode, PgBouncer needs
 * max_prepared_statements (1.21 and later).
 */
export async function storeUsageRecords(sql: SqlPool, jobs: readonly GatewayUsageRecordJob[]): Promise<void> {
  if (jobs.length === 0) return;
  await sql.query({ name: 'gateway_store_usage_records', text: INSERT_RECORDS, values: [JSON.stringify(jobs)] });
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

/** usage_records is partitioned by month on "day" (migration 20261129071500_partition_usage_records). */
export const USAGE_RECORD_PARTITIONS: PartitionedTable = { table: 'usage_records', column: 'day', period: 'month' };

/** Makes this month's partition and the next two (and the DEFAULT one, if gone); returns those it made. */
export function ensureUsageRecordPartitions(db: Db, now = new Date()): Promise<string[]> {
  return ensurePartitions(prismaPartitionDatabase(db), USAGE_RECORD_PARTITIONS, { now, ahead: 2 });
}

const PARTITION_CHECK_MS = 6 * 60 * 60 * 1000;

/**
 * Stores the records of the usage queue. `onStored` gets each job's records once they are in
 * PostgreSQL (the spend counters reconcile with records of an epoch Redis lost; see packages/gateway-spend).
 * With `db`, it also keeps the coming months' partitions of usage_records made (at start, then every
 * six hours; an advisory lock keeps replicas from racing): a record for a month with none would still be
 * stored, in the DEFAULT partition, but every month's records there would make that partition the big one.
 */
export function startUsageConsumer(options: { sql: SqlPool; db?: Db; connection: ConnectionOptions; logger: QueueLogger; prefix?: string; concurrency: number; onStored?: (records: GatewayUsageRecordJob[]) => void }): { close(): Promise<void> } {
  const { db } = options;
  const maintain = () => {
    if (!db) return;
    ensureUsageRecordPartitions(db).then(
      (created) => { if (created.length > 0) options.logger.info({ partitions: created }, 'made usage record partitions ahead'); },
      (err: unknown) => options.logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'making usage record partitions failed; retrying later'),
    );
  };
  maintain();
  const timer = db ? setInterval(maintain, PARTITION_CHECK_MS) : null;
  timer?.unref();
  // A batch job brings up to USAGE_BATCH_MAX records; jobs finishing together share an INSERT (30 parameters a row, well under PostgreSQL's 65,535).
  const batcher = new UsageRecordBatcher((jobs) => storeUsageRecords(options.sql, jobs), Math.max(options.concurrency, USAGE_BATCH_MAX * 2));
  const worker: Worker = createConsumer({
    queue: QUEUE_NAMES.gatewayUsageRecords,
    connection: options.connection,
    logger: options.logger,
    prefix: options.prefix,
    concurrency: options.concurrency,
    handler: async (payload) => {
      const records = recordsOf(payload);
      await Promise.all(records.map((record) => batcher.add(record)));
      options.onStored?.(records);
    },
  });
  return {
    close: () => {
      if (timer) clearInterval(timer);
      return worker.close();
    },
  };
}

/** Tells the spend counters which epochs the stored records were counted in, one call per organization. */
export function noteStored(spend: Pick<SpendControl, 'noteRecorded'>, records: readonly GatewayUsageRecordJob[]): void {
  const epochs = new Map<string, Set<string | null>>();
  for (const record of records) {
    const set = epochs.get(record.organization_id) ?? new Set<string | null>();
    set.add(record.spend_epoch);
    epochs.set(record.organization_id, set);
  }
  for (const [organizationId, set] of epochs) void spend.noteRecorded(organizationId, set).catch(() => undefined);
}
