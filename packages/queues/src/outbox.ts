import { randomUUID } from 'node:crypto';
import type { JobsOptions, Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import { describeError, type QueueLogger } from './logger';
import type { QueueName } from './names';
import type { QueuePayloads } from './payloads';
import { TRACE_FIELD, injectTraceContext } from './trace';

/**
 * The outbox table. Each producing service copies this statement into one of its own Prisma
 * migrations (a migration.sql file), so the table lives in the service's schema next to the rows
 * whose changes it announces. Unqualified: it lands in the migration's search_path.
 */
export const OUTBOX_TABLE_SQL = `CREATE TABLE IF NOT EXISTS "event_outbox" (
    "id" UUID NOT NULL,
    "queue" TEXT NOT NULL,
    "job_name" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "next_attempt_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    CONSTRAINT "event_outbox_pkey" PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "event_outbox_next_attempt_at_idx" ON "event_outbox" ("next_attempt_at");
`;

/**
 * What addToOutbox needs: a Prisma transaction client (`tx` in `prisma.$transaction(async (tx) => ...)`)
 * fits, and so does a PrismaClient outside a transaction.
 */
export interface OutboxWriter {
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

/** What the relay needs: a PrismaClient fits. */
export interface OutboxDatabase extends OutboxWriter {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

export interface OutboxEvent<Q extends QueueName> {
  queue: Q;
  payload: QueuePayloads[Q];
  /** BullMQ job id and outbox row id, a uuid. Defaults to payload.event_id. */
  jobId?: string;
  /** BullMQ job name (shown in dashboards). Defaults to the queue name. */
  jobName?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Records an event to send once the caller's transaction commits. Pass the transaction client so
 * the event commits or rolls back with the business change it announces; then call
 * `relay.kick()` after the commit for immediate delivery. The active trace context is stored with
 * the payload so the consumer's span links to the producer's.
 *
 * Adding the same jobId twice keeps the first row (an event id names one event).
 */
export async function addToOutbox<Q extends QueueName>(executor: OutboxWriter, event: OutboxEvent<Q>): Promise<string> {
  const jobId = event.jobId ?? event.payload.event_id;
  if (!UUID.test(jobId)) throw new TypeError('addToOutbox: jobId (default payload.event_id) must be a uuid');
  const carrier = injectTraceContext();
  const data = carrier ? { ...event.payload, [TRACE_FIELD]: carrier } : event.payload;
  await executor.$executeRawUnsafe(
    `INSERT INTO "event_outbox" ("id", "queue", "job_name", "payload") VALUES ($1::uuid, $2, $3, $4::jsonb) ON CONFLICT ("id") DO NOTHING`,
    jobId,
    event.queue,
    event.jobName ?? event.queue,
    JSON.stringify(data),
  );
  return jobId;
}

/**
 * Rows whose `queue` starts with this are not BullMQ jobs but Redis pub/sub messages: the relay
 * PUBLISHes their payload on the channel named after the prefix. Cache invalidations travel this way,
 * so one that could not be published when its change committed is kept and sent once Redis answers.
 */
export const CHANNEL_ROW_PREFIX = 'channel:';

/** How long the relay waits for a PUBLISH before counting it as failed (and retrying it). */
const CHANNEL_PUBLISH_TIMEOUT_MS = 2_000;

/**
 * ioredis options for the relay's `publisher`: a publish fails at once while Redis is down (the row
 * waits), and reconnect attempts are at most 250 ms apart, so the rows kept during an outage go out
 * within about a quarter of a second of Redis answering again (ioredis's default waits up to 2 s).
 */
export const CHANNEL_PUBLISHER_OPTIONS = {
  enableOfflineQueue: false,
  retryStrategy: (times: number): number => Math.min(times * 50, 250),
} as const;

export interface OutboxMessage {
  /** The pub/sub channel. */
  channel: string;
  /** Sent as JSON, as is (no trace context: pub/sub listeners parse a fixed shape). */
  payload: unknown;
  /** Outbox row id, a uuid; a new one by default. */
  id?: string;
}

/**
 * Records a pub/sub message to publish once the caller's transaction commits (see CHANNEL_ROW_PREFIX).
 * Pass the transaction client of the change the message announces, then `relay.kick()` after the commit.
 */
export async function addMessageToOutbox(executor: OutboxWriter, message: OutboxMessage): Promise<string> {
  const id = message.id ?? randomUUID();
  if (!UUID.test(id)) throw new TypeError('addMessageToOutbox: id must be a uuid');
  await executor.$executeRawUnsafe(
    `INSERT INTO "event_outbox" ("id", "queue", "job_name", "payload") VALUES ($1::uuid, $2, $3, $4::jsonb) ON CONFLICT ("id") DO NOTHING`,
    id,
    `${CHANNEL_ROW_PREFIX}${message.channel}`,
    message.channel,
    JSON.stringify(message.payload),
  );
  return id;
}

/**
 * Options every relayed job gets. The worker retries a failing handler 10 times with exponential
 * backoff (2 s, 4 s, ... about 17 minutes in all); a job that still fails stays in the failed set
 * for 7 days, where it can be inspected and retried. Completed jobs stay a day so a re-sent job id
 * is recognized by BullMQ as a duplicate.
 */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: { age: 24 * 3600, count: 10000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

/** The part of a BullMQ Queue the relay uses. */
export type RelayQueue = Pick<Queue, 'add'>;

export type QueueResolver = ((queue: string) => RelayQueue | undefined) | Partial<Record<string, RelayQueue>>;

export interface OutboxRelayOptions {
  /** A PrismaClient (not a transaction client: each claim is its own short statement). */
  executor: OutboxDatabase;
  /** The BullMQ Queue for a queue name; a function may change its answer over time. */
  queues: QueueResolver;
  logger: QueueLogger;
  /** How often to look for rows when nobody kicks. Default 500 ms. */
  pollIntervalMs?: number;
  /** Rows claimed per statement. Default 100. */
  batchSize?: number;
  /** First retry delay after a failed enqueue, doubled each attempt up to maxBackoffMs. Default 1000 ms. */
  retryBaseMs?: number;
  /** Default 30 s. */
  maxBackoffMs?: number;
  /** An enqueue that has not answered after this long counts as failed. Default 10 s. */
  enqueueTimeoutMs?: number;
  /**
   * How long a claimed row stays invisible to other relays. If this relay dies mid-batch, the rows
   * come back after the lease. Must exceed enqueueTimeoutMs. Default 60 s.
   */
  leaseMs?: number;
  /** Options for each BullMQ job; jobId is always the outbox row id. Default DEFAULT_JOB_OPTIONS. */
  jobOptions?: JobsOptions;
  /**
   * Where pub/sub rows (addMessageToOutbox) are PUBLISHed. Give it `enableOfflineQueue: false`, so a
   * publish fails at once while Redis is down, and a short reconnect delay: each time this connection
   * becomes ready again, every pub/sub row that failed is sent at once. A relay without one leaves
   * pub/sub rows alone (another relay of the service, given a publisher, sends them).
   */
  publisher?: Redis | Cluster;
  /**
   * Retry delay of a pub/sub row whose publish failed, fixed rather than growing: a cache invalidation
   * is worth sending the moment Redis answers. Default 250 ms.
   */
  channelRetryMs?: number;
}

interface OutboxRow {
  id: string;
  queue: string;
  job_name: string;
  payload: unknown;
  attempts: number;
  created_at: Date | string;
}

/**
 * Moves outbox rows to BullMQ. Several replicas can run one each: a claim takes rows with
 * `FOR UPDATE SKIP LOCKED` and, in the same statement, leases them (pushes next_attempt_at past the
 * time the enqueue may take), so no two relays work on a row at once and no transaction stays open
 * while Redis is called. A delivered row is deleted; a failed one keeps its payload, counts the
 * attempt, records the error and waits a capped exponential backoff. No row is ever dropped.
 *
 * Delivery is at least once: if the relay dies between the enqueue and the delete, the row is sent
 * again after its lease with the same job id, which BullMQ ignores while the first job is kept.
 */
export class OutboxRelay {
  private readonly executor: OutboxDatabase;
  private readonly resolveQueue: (queue: string) => RelayQueue | undefined;
  private readonly logger: QueueLogger;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly retryBaseMs: number;
  private readonly maxBackoffMs: number;
  private readonly enqueueTimeoutMs: number;
  private readonly leaseMs: number;
  private readonly jobOptions: JobsOptions;
  private readonly publisher: Redis | Cluster | undefined;
  private readonly channelRetryMs: number;
  /** When the publisher last became ready: a publish that failed on the connection before it is retried at once. */
  private publisherReadyAt = 0;
  private readonly onPublisherReady = (): void => {
    this.publisherReadyAt = Date.now();
    void this.retryChannelsNow();
  };

  private started = false;
  private stopping = false;
  private pending = false;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: OutboxRelayOptions) {
    this.executor = options.executor;
    const queues = options.queues;
    this.resolveQueue = typeof queues === 'function' ? queues : (name) => queues[name];
    this.logger = options.logger;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.batchSize = options.batchSize ?? 100;
    this.retryBaseMs = options.retryBaseMs ?? 1000;
    this.maxBackoffMs = options.maxBackoffMs ?? 30_000;
    this.enqueueTimeoutMs = options.enqueueTimeoutMs ?? 10_000;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.jobOptions = options.jobOptions ?? DEFAULT_JOB_OPTIONS;
    this.publisher = options.publisher;
    this.channelRetryMs = options.channelRetryMs ?? 250;
    if (this.leaseMs <= this.enqueueTimeoutMs) {
      throw new RangeError('OutboxRelay: leaseMs must exceed enqueueTimeoutMs, or a slow enqueue could be claimed twice');
    }
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1) throw new RangeError('OutboxRelay: batchSize must be a positive integer');
  }

  /** Drains now and then every pollIntervalMs until stop(). */
  start(): void {
    if (this.started || this.stopping) return;
    this.started = true;
    this.publisher?.on('ready', this.onPublisherReady);
    void this.kick();
  }

  /**
   * Makes every pub/sub row that failed due now and drains: what the relay does when its publisher
   * reconnects. Rows another relay holds may be published twice; invalidations are idempotent.
   * Never rejects.
   */
  async retryChannelsNow(): Promise<void> {
    if (this.stopping) return;
    try {
      await this.executor.$executeRawUnsafe(
        `UPDATE "event_outbox" SET "next_attempt_at" = now() WHERE "queue" LIKE $1 AND "attempts" > 0 AND "next_attempt_at" > now()`,
        `${CHANNEL_ROW_PREFIX}%`,
      );
    } catch (err) {
      this.logger.error({ error: describeError(err) }, 'outbox drain failed');
    }
    await this.kick();
  }

  /**
   * Drains now. Call it right after the transaction that added an event commits, so delivery is
   * immediate in the normal case; the poll is only the safety net. Resolves once a drain that
   * began after this call has finished; never rejects (failures are logged and retried).
   */
  kick(): Promise<void> {
    if (this.stopping) return this.running ?? Promise.resolve();
    this.pending = true;
    this.running ??= this.runPending();
    return this.running;
  }

  /**
   * kick(), waiting at most `ms`: true when the drain finished in time. For a change whose answer
   * should follow its invalidation's publish, yet must not hang while Redis does not answer (the row
   * then stays and the relay publishes it later).
   */
  async kickWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    try {
      return await Promise.race([this.kick().then(() => true as const), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops polling and waits for the current drain to finish. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.publisher?.off('ready', this.onPublisherReady);
    this.clearTimer();
    await this.running;
  }

  private async runPending(): Promise<void> {
    this.clearTimer();
    try {
      while (this.pending && !this.stopping) {
        this.pending = false;
        try {
          await this.drain();
        } catch (err) {
          // The database is unreachable or the table is missing: nothing was lost, the next poll tries again.
          this.logger.error({ error: describeError(err) }, 'outbox drain failed');
        }
      }
    } finally {
      // No await between the last `pending` check and here, so a kick cannot slip in unseen.
      this.running = undefined;
      this.scheduleNext();
    }
  }

  private async drain(): Promise<void> {
    for (;;) {
      const rows = await this.claim();
      if (rows.length > 0) await this.deliver(rows);
      if (rows.length < this.batchSize || this.stopping) return;
    }
  }

  private async claim(): Promise<OutboxRow[]> {
    const rows = await this.executor.$queryRawUnsafe<OutboxRow[]>(
      `UPDATE "event_outbox" AS o
          SET "next_attempt_at" = now() + make_interval(secs => $2::double precision / 1000)
         FROM (SELECT "id" FROM "event_outbox"
                WHERE "next_attempt_at" <= now()
                  AND ($3::boolean OR "queue" NOT LIKE $4)
                ORDER BY "created_at"
                LIMIT $1::int
                FOR UPDATE SKIP LOCKED) AS claimed
        WHERE o."id" = claimed."id"
      RETURNING o."id", o."queue", o."job_name", o."payload", o."attempts", o."created_at"`,
      this.batchSize,
      this.leaseMs,
      // A relay without a publisher leaves pub/sub rows to one that has it, rather than failing them.
      this.publisher !== undefined,
      `${CHANNEL_ROW_PREFIX}%`,
    );
    // RETURNING does not keep the subquery's order; enqueue oldest first.
    return rows.sort((a, b) => new Date(a.created_at).getTime() - new Date(b.created_at).getTime());
  }

  private async deliver(rows: OutboxRow[]): Promise<void> {
    const attemptedAt = Date.now();
    const outcomes = await Promise.all(
      rows.map(async (row) => {
        try {
          await this.enqueue(row);
          return { row, error: undefined };
        } catch (err) {
          return { row, error: describeError(err) };
        }
      }),
    );
    const delivered = outcomes.filter((o) => o.error === undefined).map((o) => o.row.id);
    if (delivered.length > 0) {
      const placeholders = delivered.map((_, i) => `$${i + 1}::uuid`).join(', ');
      await this.executor.$executeRawUnsafe(`DELETE FROM "event_outbox" WHERE "id" IN (${placeholders})`, ...delivered);
    }
    for (const { row, error } of outcomes) {
      if (error === undefined) continue;
      const attempts = row.attempts + 1;
      const channel = row.queue.startsWith(CHANNEL_ROW_PREFIX);
      // Failed on the connection the publisher has just replaced (it reconnected meanwhile): once more, now.
      const reconnected = channel && this.publisherReadyAt >= attemptedAt;
      if (reconnected) this.pending = true;
      const delayMs = reconnected ? 0 : channel ? this.channelRetryMs : Math.min(this.maxBackoffMs, this.retryBaseMs * 2 ** Math.min(row.attempts, 30));
      await this.executor.$executeRawUnsafe(
        `UPDATE "event_outbox"
            SET "attempts" = "attempts" + 1,
                "last_error" = $2,
                "next_attempt_at" = now() + make_interval(secs => $3::double precision / 1000)
          WHERE "id" = $1::uuid`,
        row.id,
        error,
        delayMs,
      );
      this.logger.warn(
        { outbox_id: row.id, queue: row.queue, job_name: row.job_name, attempts, retry_in_ms: delayMs, error },
        'outbox enqueue failed; the event is kept and retried',
      );
    }
  }

  private async enqueue(row: OutboxRow): Promise<void> {
    const payload = typeof row.payload === 'string' ? (JSON.parse(row.payload) as unknown) : row.payload;
    const send = row.queue.startsWith(CHANNEL_ROW_PREFIX) ? this.publish(row.queue.slice(CHANNEL_ROW_PREFIX.length), payload) : this.add(row, payload);
    // A PUBLISH answers in microseconds; one that has not after a moment went down with its connection
    // unnoticed, and is sent again (an invalidation twice is harmless) rather than waited for.
    const timeoutMs = row.queue.startsWith(CHANNEL_ROW_PREFIX) ? Math.min(this.enqueueTimeoutMs, CHANNEL_PUBLISH_TIMEOUT_MS) : this.enqueueTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`enqueue did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([send, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async add(row: OutboxRow, payload: unknown): Promise<void> {
    const queue = this.resolveQueue(row.queue);
    if (!queue) throw new Error(`no BullMQ queue configured for "${row.queue}"`);
    await queue.add(row.job_name, payload, { ...this.jobOptions, jobId: row.id });
  }

  private async publish(channel: string, payload: unknown): Promise<void> {
    if (!this.publisher) throw new Error(`no publisher configured for channel "${channel}"`);
    await this.publisher.publish(channel, JSON.stringify(payload));
  }

  private scheduleNext(): void {
    if (!this.started || this.stopping) return;
    this.clearTimer();
    this.timer = setTimeout(() => void this.kick(), this.pollIntervalMs);
    // The relay alone should not keep a process alive; the service's server or worker does.
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
