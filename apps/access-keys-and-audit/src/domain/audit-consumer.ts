import { QUEUE_NAMES, UnrecoverableError, createConsumer, type AuditEventJob, type QueueLogger } from '@patchbay/queues';
import type { ConnectionOptions, Worker } from 'bullmq';
import type { Db } from '../db';
import { maintainAuditLog, storeDeliveredAuditEvent, type AuditRetention } from './audit-log';
import { EVENT_TYPE_PATTERN } from './event-types';
import { isUuid } from '@patchbay/service-kit';

const ACTOR_TYPES = new Set(['access_key', 'member', 'admin_cli', 'system', 'service']);

/** Checks an event from another service; a malformed one can never succeed, so it is not retried. */
export function validateAuditJob(job: AuditEventJob): string[] {
  const problems: string[] = [];
  if (!isUuid(job.event_id ?? '')) problems.push('event_id must be a UUID');
  if (!isUuid(job.organization_id ?? '')) problems.push('organization_id must be a UUID');
  if (job.environment !== 'production' && job.environment !== 'test') problems.push('environment must be production or test');
  if (!EVENT_TYPE_PATTERN.test(job.event_type ?? '')) problems.push('event_type must look like resource.action');
  if (!ACTOR_TYPES.has(job.actor?.type)) problems.push('actor.type is unknown');
  if (Number.isNaN(Date.parse(job.occurred_at))) problems.push('occurred_at must be an ISO 8601 date-time');
  for (const [field, value] of [['actor.access_key_id', job.actor?.access_key_id], ['actor.member_id', job.actor?.member_id], ['target_key_id', job.target_key_id], ['user_id', job.user_id]] as const) {
    if (value != null && !isUuid(value)) problems.push(`${field} must be a UUID`);
  }
  if (typeof job.source_service !== 'string' || job.source_service === '') problems.push('source_service is required');
  return problems;
}

/** Stores one delivered event; the event id makes a redelivery a no-op. */
export async function handleAuditJob(db: Db, job: AuditEventJob, logger: QueueLogger): Promise<void> {
  const problems = validateAuditJob(job);
  if (problems.length > 0) throw new UnrecoverableError(`invalid audit event: ${problems.join('; ')}`);
  try {
    const stored = await storeDeliveredAuditEvent(db, {
      id: job.event_id,
      organizationId: job.organization_id,
      environment: job.environment,
      eventType: job.event_type,
      actorType: job.actor.type,
      actorKeyId: job.actor.access_key_id ?? null,
      actorMemberId: job.actor.type === 'member' ? job.actor.member_id ?? null : null,
      targetKeyId: job.target_key_id ?? null,
      userId: job.user_id ?? null,
      resourceType: job.resource_type ?? null,
      resourceId: job.resource_id ?? null,
      sourceService: job.source_service,
      details: job.details ?? {},
      createdAt: new Date(job.occurred_at),
    });
    if (!stored) logger.info({ event_id: job.event_id }, 'audit event already stored; redelivery ignored');
  } catch (err) {
    // The organization was deleted: the event has nothing to belong to.
    if ((err as { code?: string }).code === 'P2003') throw new UnrecoverableError('audit event for an unknown organization');
    throw err;
  }
}

const MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Stores the events other services queue, and keeps the audit log's partitions and retention
 * (maintainAuditLog: at start, then hourly, until the worker closes). Retention defaults to the
 * spec's 90 days with no end to the archive.
 */
export function startAuditConsumer(options: { db: Db; connection: ConnectionOptions; logger: QueueLogger; prefix?: string; concurrency?: number; retention?: AuditRetention; maintenanceIntervalMs?: number }): Worker {
  const worker = createConsumer({
    queue: QUEUE_NAMES.auditEvents,
    connection: options.connection,
    logger: options.logger,
    prefix: options.prefix,
    concurrency: options.concurrency ?? 10,
    handler: (job) => handleAuditJob(options.db, job, options.logger),
  });
  const retention = options.retention ?? { retentionDays: 90, archiveRetentionDays: null };
  const maintain = () => {
    maintainAuditLog(options.db, retention).then(
      (done) => {
        if (done.createdPartitions.length + done.archivedPartitions.length + done.archivedRows + done.droppedArchivePartitions.length + done.deletedArchivedRows > 0) {
          options.logger.info({ ...done, retention_days: retention.retentionDays }, 'audit log partitions made and events past retention archived');
        }
      },
      (err: unknown) => options.logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'audit log maintenance failed; retrying at the next interval'),
    );
  };
  maintain();
  const timer = setInterval(maintain, options.maintenanceIntervalMs ?? MAINTENANCE_INTERVAL_MS);
  timer.unref();
  worker.on('closing', () => clearInterval(timer));
  return worker;
}
