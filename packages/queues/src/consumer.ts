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
 * returned worker stops taking jobs and waits for the running ones; it leaves a connection
 * instance you passed open.
 */
export function createConsumer<Q extends QueueName>(options: ConsumerOptions<Q>): Worker<JobData<QueuePayloads[Q]>> {
  const { queue, handler, logger } = options;
  const spanName = options.spanName ?? consumerSpanName(queue);
  type Data = JobData<QueuePayloads[Q]>;

  const processor = async (job: Job<Data>): Promise<void> => {
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

  const worker = new Worker<Data>(queue, processor, {
    ...options.workerOptions,
    connection: options.connection,
    concurrency: options.concurrency ?? 5,
    prefix: queuePrefix(options.prefix, queue, options.connection),
    autorun: true,
  });

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
