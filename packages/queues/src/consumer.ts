import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { Worker, type ConnectionOptions, type Job, type WorkerOptions } from 'bullmq';
import { describeError, type QueueLogger } from './logger';
import type { QueueName } from './names';
import type { QueuePayloads } from './payloads';
import { contextFromCarrier, linksFromCarrier, splitJobData, type JobData } from './trace';
import { queuePrefix } from './prefix';

const TRACER_NAME = '@patchbay/queues';

/** What a handler may want to know about the delivery besides the payload. */
export interface DeliveryInfo {
  jobId: string;
  jobName: string;
  /** 1 on the first delivery, higher on retries. */
  attempt: number;
  maxAttempts: number;
}

/**
 * Processes one event. It MUST be idempotent on payload.event_id: delivery is at least once (a
 * relay retry, a stalled job or a retry after a partial failure delivers the same event again).
 * Store with a unique key on event_id and `ON CONFLICT DO NOTHING`, in the same transaction as
 * the handler's other writes. Throw to have the job retried; throw bullmq's UnrecoverableError
 * for a payload that can never succeed.
 */
export type EventHandler<Q extends QueueName> = (payload: QueuePayloads[Q], delivery: DeliveryInfo) => Promise<void>;

export interface ConsumerOptions<Q extends QueueName> {
  queue: Q;
  /** Redis for the worker: an ioredis instance must have `maxRetriesPerRequest: null`. */
  connection: ConnectionOptions;
  handler: EventHandler<Q>;
  /** Jobs processed at once by this worker. Default 5. */
  concurrency?: number;
  logger: QueueLogger;
  /** BullMQ key prefix, the same as the producer's. Default 'bull'. */
  prefix?: string;
  /** Further BullMQ worker settings (lockDuration, limiter, ...). */
  workerOptions?: Omit<WorkerOptions, 'connection' | 'concurrency' | 'prefix' | 'autorun'>;
  /** Name of each job's span, `Class.method`. Default: from the queue, e.g. `ToolCallRecordBatchesConsumer.process`. */
  spanName?: string;
  /** How long `close()` waits for the running jobs before it closes anyway. Default 10 s. */
  closeGraceMs?: number;
}

const DEFAULT_CLOSE_GRACE_MS = 10_000;

/**
 * A Worker whose `close()` always ends. BullMQ 6.7's graceful close waits for its fetch loop, and
 * that loop never ends when the worker's Redis (or, on a cluster, the node its blocking connection
 * was on) is gone: the BZPOPMIN watchdog then asks to reconnect the blocking connection that
 * close() has just disconnected, and waits for a `ready` that never comes (upstream
 * taskforcesh/bullmq#4656, still open). A service's SIGTERM, or a test's teardown, then waits
 * forever. So the graceful part is done here: stop fetching (pause without waiting), wait up to
 * `closeGraceMs` for the jobs this worker's handler is running, then BullMQ's forced close, which
 * does not wait on the fetch loop.
 */
class ConsumerWorker<Data> extends Worker<Data> {
  private closingGracefully: Promise<void> | null = null;

  constructor(
    name: string,
    processor: (job: Job<Data>) => Promise<void>,
    options: WorkerOptions,
    private readonly handlerJobs: RunningJobs,
    private readonly closeGraceMs: number,
    private readonly closeLogger: QueueLogger,
  ) {
    super(name, processor, options);
  }

  override close(force = false): Promise<void> {
    if (force) return super.close(true);
    this.closingGracefully ??= (async () => {
      await this.pause(true);
      if (!(await this.handlerJobs.settled(this.closeGraceMs))) {
        this.closeLogger.warn({ queue: this.name, running_jobs: this.handlerJobs.count, grace_ms: this.closeGraceMs }, 'jobs still running when the worker closed; they are delivered again once found stalled');
      }
      await super.close(true);
    })();
    return this.closingGracefully;
  }
}

/** The jobs a consumer's handler is running, so close() can wait for them without BullMQ's fetch loop. */
class RunningJobs {
  count = 0;
  private idle: Array<() => void> = [];

  async track<T>(work: () => Promise<T>): Promise<T> {
    this.count += 1;
    try {
      return await work();
    } finally {
      this.count -= 1;
      if (this.count === 0) for (const resolve of this.idle.splice(0)) resolve();
    }
  }

  /** True once no job is running, false if some still are after `timeoutMs`. */
  settled(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}

/** `patchbay-tool-call-record-batches` → `ToolCallRecordBatchesConsumer.process`: spans read like the code. */
export function consumerSpanName(queue: string): string {
  const words = queue.replace(/^patchbay-/, '').split(/[^A-Za-z0-9]+/).filter(Boolean);
  return `${words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}Consumer.process`;
}

/**
 * A BullMQ Worker for one queue. Retries are the job's: the relay adds jobs with 10 attempts and
 * exponential backoff (DEFAULT_JOB_OPTIONS), so a throwing handler is retried for about 17 minutes
 * and then kept in the failed set. BullMQ's defaults apply otherwise: a job whose worker dies is
 * found stalled after 30 s and delivered again once.
 *
 * Each job runs inside a CONSUMER span named `Class.method` (see `spanName`) that continues the
 * producer's trace, as a child of the span that enqueued it and linked to it. Failures
 * are logged with the job id, event id and error message, never the payload. `close()` on the
 * returned worker stops taking jobs and waits for the running ones (at most `closeGraceMs`, and it
 * ends even when Redis is gone); it leaves a connection instance you passed open.
 */
export function createConsumer<Q extends QueueName>(options: ConsumerOptions<Q>): Worker<JobData<QueuePayloads[Q]>> {
  const { queue, handler, logger } = options;
  const spanName = options.spanName ?? consumerSpanName(queue);
  type Data = JobData<QueuePayloads[Q]>;

  const running = new RunningJobs();
  const processor = (job: Job<Data>): Promise<void> => running.track(() => handle(job));
  const handle = async (job: Job<Data>): Promise<void> => {
    const { payload, carrier } = splitJobData<QueuePayloads[Q]>(job.data);
    const delivery: DeliveryInfo = {
      jobId: job.id ?? '',
      jobName: job.name,
      attempt: job.attemptsMade + 1,
      maxAttempts: job.opts.attempts ?? 1,
    };
    const tracer = trace.getTracer(TRACER_NAME);
    await tracer.startActiveSpan(
      spanName,
      {
        kind: SpanKind.CONSUMER,
        links: linksFromCarrier(carrier),
        attributes: {
          'messaging.system': 'bullmq',
          'messaging.operation.type': 'process',
          'messaging.destination.name': queue,
          'messaging.message.id': delivery.jobId,
        },
      },
      contextFromCarrier(carrier),
      async (span) => {
        try {
          await handler(payload, delivery);
        } catch (err) {
          span.recordException(err instanceof Error ? err : new Error(String(err)));
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw err;
        } finally {
          span.end();
        }
      },
    );
  };

  const worker = new ConsumerWorker<Data>(
    queue,
    processor,
    {
      ...options.workerOptions,
      connection: options.connection,
      concurrency: options.concurrency ?? 5,
      prefix: queuePrefix(options.prefix, queue, options.connection),
      autorun: true,
    },
    running,
    options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS,
    logger,
  );

  worker.on('failed', (job, err) => {
    const maxAttempts = job?.opts.attempts ?? 1;
    const attemptsMade = job?.attemptsMade ?? 0;
    const final = attemptsMade >= maxAttempts || err.name === 'UnrecoverableError';
    const eventId = job?.data && typeof job.data.event_id === 'string' ? job.data.event_id : undefined;
    const fields = { queue, job_id: job?.id, job_name: job?.name, event_id: eventId, attempts_made: attemptsMade, max_attempts: maxAttempts, error: describeError(err) };
    if (final) logger.error(fields, 'job failed and will not be retried');
    else logger.warn(fields, 'job failed; it will be retried');
  });
  // A Redis outage surfaces here; BullMQ reconnects on its own. Unhandled, it would crash the process.
  worker.on('error', (err) => logger.error({ queue, error: describeError(err) }, 'queue worker error'));

  return worker;
}
