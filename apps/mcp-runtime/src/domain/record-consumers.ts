import { QUEUE_NAMES, createConsumer, type QueueLogger, type ToolCallRecordJob } from '@patchbay/queues';
import type { ConnectionOptions, Worker } from 'bullmq';
import type { Db } from '../db';
import { RecordBatcher, deleteRegisteredUserRecords, ensureToolCallRecordPartitions, logRecordOutcome, storeToolCallRecordBatch, sweepExpiredRecords } from './tool-call-records';

const HOUR_MS = 60 * 60 * 1000;

export interface RecordWorkersOptions {
  db: Db;
  /** A connection with maxRetriesPerRequest: null (BullMQ workers block). */
  connection: ConnectionOptions;
  logger: QueueLogger;
  retentionDays: number;
  concurrency: number;
  prefix?: string;
  /** How often the day partitions ahead are made and expired records removed. Default hourly; the first run is at start. */
  sweepIntervalMs?: number;
  /** Called with the records of each delivery once they are in the database (the meter settles lost counts with them). */
  onStored?: (records: ToolCallRecordJob[]) => void;
}

export interface RecordWorkers {
  close(): Promise<void>;
}

/**
 * This replica's share of the record pipeline: stores tool-call records from the queue, deletes a
 * deleted registered user's records, makes the coming days' partitions and removes records past
 * retention. Any number of replicas can run it: each job goes to one worker, partition maintenance
 * takes an advisory lock, and every step is idempotent.
 */
export function startRecordWorkers(options: RecordWorkersOptions): RecordWorkers {
  const { db, logger, retentionDays } = options;
  const batcher = new RecordBatcher(db, retentionDays);
  const workers: Worker[] = [
    createConsumer({
      queue: QUEUE_NAMES.toolCallRecordBatches,
      connection: options.connection,
      logger,
      prefix: options.prefix,
      concurrency: options.concurrency,
      handler: async (batch) => {
        await storeToolCallRecordBatch(db, batch, retentionDays, logger);
        options.onStored?.(batch.records);
      },
    }),
    // Single records, from runtimes that predate batches (a rolling deploy) and from their outbox rows.
    createConsumer({
      queue: QUEUE_NAMES.toolCallRecords,
      connection: options.connection,
      logger,
      prefix: options.prefix,
      concurrency: options.concurrency,
      handler: async (job) => {
        logRecordOutcome(logger, job.event_id, await batcher.store(job));
        options.onStored?.([job]);
      },
    }),
    createConsumer({
      queue: QUEUE_NAMES.registeredUserDeletions,
      connection: options.connection,
      logger,
      prefix: options.prefix,
      handler: async (job) => {
        const deleted = await deleteRegisteredUserRecords(db, job);
        logger.info({ event_id: job.event_id, deleted }, 'deleted the tool-call records of a deleted registered user');
      },
    }),
  ];
  const sweep = () => {
    ensureToolCallRecordPartitions(db).then(
      (created) => { if (created.length > 0) logger.info({ partitions: created }, 'made tool-call record partitions ahead'); },
      (err: unknown) => logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'making tool-call record partitions failed (records land in the DEFAULT partition meanwhile); retrying at the next interval'),
    );
    sweepExpiredRecords(db, retentionDays).then(
      ({ rows, dropped }) => { if (rows > 0 || dropped.length > 0) logger.info({ deleted: rows, dropped_partitions: dropped, retention_days: retentionDays }, 'deleted tool-call records past retention'); },
      (err: unknown) => logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'retention sweep failed; retrying at the next interval'),
    );
  };
  sweep();
  const timer = setInterval(sweep, options.sweepIntervalMs ?? HOUR_MS);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}
