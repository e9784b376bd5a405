import { QUEUE_NAMES, createConsumer, type QueueLogger, type ToolCallRecordJob } from '@patchbay/queues';
import type { ConnectionOptions, Worker } from 'bullmq';
import type { Config } from '../config';
import type { Db, SqlPool } from '../db';
import { OrganizationRetentionClient, type OrganizationRetentionSource } from './organization-retention';
import { RecordBatcher, deleteRegisteredUserRecords, ensureToolCallRecordPartitions, logRecordOutcome, storeToolCallRecordBatch, sweepExpiredRecords } from './tool-call-records';

const HOUR_MS = 60 * 60 * 1000;

export interface RecordWorkersOptions {
  db: Db;
  /** The pg pool under `db`, for the records' INSERT (see storeToolCallRecords). */
  sql: SqlPool;
  /** A connection with maxRetriesPerRequest: null (BullMQ workers block). */
  connection: ConnectionOptions;
  logger: QueueLogger;
  /** Days records stay live before the archive, for organizations without a retention of their own. */
  retentionDays: number;
  /** The organizations' own retention (access-keys-and-audit's audit_retention_days). Without it the default applies to all. */
  organizationRetention?: OrganizationRetentionSource;
  /** Days a record is kept at all, archive included; null keeps archived records until their registered user is deleted. */
  archiveRetentionDays?: number | null;
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
 * deleted registered user's records (archived ones too), makes the coming days' partitions and moves
 * records past retention to the archive. Any number of replicas can run it: each job goes to one worker, partition maintenance
 * takes an advisory lock, and every step is idempotent.
 */
export function startRecordWorkers(options: RecordWorkersOptions): RecordWorkers {
  const { db, logger, retentionDays } = options;
  const records = { prisma: db, sql: options.sql };
  const batcher = new RecordBatcher(records, retentionDays);
  const workers: Worker[] = [
    createConsumer({
      queue: QUEUE_NAMES.toolCallRecordBatches,
      connection: options.connection,
      logger,
      prefix: options.prefix,
      concurrency: options.concurrency,
      handler: async (batch) => {
        await storeToolCallRecordBatch(records, batch, retentionDays, logger);
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
    (async () => {
      const organizations = options.organizationRetention ? await options.organizationRetention.organizations() : [];
      return sweepExpiredRecords(db, retentionDays, new Date(), { organizations, archiveRetentionDays: options.archiveRetentionDays ?? null });
    })().then(
      (done) => {
        if (done.rows > 0 || done.archived.length > 0 || done.droppedArchivePartitions.length > 0 || done.deletedArchivedRows > 0) {
          logger.info({ archived_rows: done.rows, archived_partitions: done.archived, dropped_archive_partitions: done.droppedArchivePartitions, deleted_archived_rows: done.deletedArchivedRows, retention_days: retentionDays }, 'moved tool-call records past retention to the archive');
        }
      },
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

/** The record workers' retention settings from the service's configuration: the default, the organizations' own (asked of access-keys-and-audit), the archive's. */
export function recordRetention(config: Pick<Config, 'TOOL_CALL_RETENTION_DAYS' | 'TOOL_CALL_ARCHIVE_RETENTION_DAYS' | 'ACCESS_KEYS_URL' | 'PATCHBAY_SERVICE_TOKEN' | 'RETENTION_CACHE_TTL_MS'>): Pick<RecordWorkersOptions, 'retentionDays' | 'organizationRetention' | 'archiveRetentionDays'> {
  return {
    retentionDays: config.TOOL_CALL_RETENTION_DAYS,
    organizationRetention: new OrganizationRetentionClient({ baseUrl: config.ACCESS_KEYS_URL, serviceToken: config.PATCHBAY_SERVICE_TOKEN, cacheTtlMs: config.RETENTION_CACHE_TTL_MS }),
    archiveRetentionDays: config.TOOL_CALL_ARCHIVE_RETENTION_DAYS ?? null,
  };
}
