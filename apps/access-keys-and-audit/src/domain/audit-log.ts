import type { Environment, KeyPrincipal } from '@patchbay/auth';
import { applyRetention, ensurePartitions, prismaPartitionDatabase, type PartitionedTable } from '@patchbay/db';
import { ValidationError, type FieldError } from '@patchbay/errors';
import { parseDateTimeQuery, type PageParams } from '@patchbay/pagination';
import type { Db, Tx } from '../db';
import type { AuditEvent as AuditEventRow, Prisma } from '../generated/prisma/client';
import { EVENT_TYPE_PATTERN, type ActorType } from './event-types';
import { isUuid } from '@patchbay/service-kit';

/** Default listing window; older events stay stored (live or archived) and are returned when asked for explicitly. */
export const AUDIT_DEFAULT_WINDOW_DAYS = 90;
const DAY_MS = 86_400_000;

export interface NewAuditEvent {
  /** Given for events that arrive over the queue, so a retried delivery is stored once. */
  id?: string;
  organizationId: string;
  environment: Environment;
  eventType: string;
  actorType: ActorType;
  actorKeyId?: string | null;
  /** The acting member (membership id), for actor_type member. */
  actorMemberId?: string | null;
  targetKeyId?: string | null;
  userId?: string | null;
  resourceType?: string | null;
  resourceId?: string | null;
  sourceService: string;
  details?: Record<string, unknown>;
  createdAt?: Date;
}

/** The wire shape of an audit event (documented in the README). */
export interface AuditEventRecord {
  id: string;
  event_type: string;
  created_at: string;
  environment: Environment;
  /** Who acted: access_key, member, admin_cli, system or service. */
  actor_type: string;
  /** The acting key, when a key acted. */
  actor_key_id: string | null;
  /** The acting member (their member id), when a member signed in to the console acted. */
  actor_member_id: string | null;
  /** The key acted upon, for access_key.* events; with actor_key_id it names both keys of a rotation. */
  target_key_id: string | null;
  /** The registered user the event concerns. */
  user_id: string | null;
  resource_type: string | null;
  resource_id: string | null;
  source_service: string;
  details: Record<string, unknown>;
}

/** Records an event inside the caller's transaction, so the change and its audit entry commit together. */
export async function recordAuditEvent(tx: Tx, event: NewAuditEvent): Promise<void> {
  await tx.auditEvent.create({ data: toRow(event) });
}

/**
 * Stores an event delivered by the queue; a redelivered event is ignored. Returns whether it was new.
 * The key is (id, created_at), as audit_events is partitioned by created_at: the time is the event's
 * own (the job's occurred_at), the same on every delivery, so the id alone still decides.
 */
export async function storeDeliveredAuditEvent(db: Db, event: NewAuditEvent & { id: string; createdAt: Date }): Promise<boolean> {
  const result = await db.auditEvent.createMany({ data: [toRow(event)], skipDuplicates: true });
  return result.count === 1;
}

function toRow(event: NewAuditEvent): Prisma.AuditEventUncheckedCreateInput {
  if (!EVENT_TYPE_PATTERN.test(event.eventType)) throw new Error(`invalid audit event type ${event.eventType}`);
  return {
    id: event.id,
    organizationId: event.organizationId,
    environment: event.environment,
    eventType: event.eventType,
    actorType: event.actorType,
    actorKeyId: event.actorKeyId ?? null,
    actorMemberId: event.actorMemberId ?? null,
    targetKeyId: event.targetKeyId ?? null,
    userId: event.userId ?? null,
    resourceType: event.resourceType ?? null,
    resourceId: event.resourceId ?? null,
    sourceService: event.sourceService,
    details: (event.details ?? {}) as Prisma.InputJsonValue,
    createdAt: event.createdAt,
  };
}

export interface AuditLogFilters {
  createdAfter?: string;
  createdBefore?: string;
  eventType?: string;
  userId?: string;
}


/**
 * The environment's events, newest first. Without created_after the list covers the last 90 days of
 * the live log; asking with an earlier created_after returns older events too, the archived ones
 * (past the organization's retention) after the live ones. Archived events are older than every live
 * one of the organization, so the two read one after the other keep the order; the page offset runs
 * over both.
 */
export async function listAuditEvents(
  db: Db,
  /** Whose log: a key's or a member session's organization and environment. */
  principal: Pick<KeyPrincipal, 'organizationId' | 'environment'>,
  filters: AuditLogFilters,
  page: PageParams,
  now: Date = new Date(),
): Promise<{ count: number; results: AuditEventRecord[] }> {
  const where = auditLogWhere(principal, filters, now);
  const order = [{ createdAt: 'desc' }, { id: 'desc' }] as const;
  if (filters.createdAfter === undefined) {
    const [count, rows] = await Promise.all([
      db.auditEvent.count({ where }),
      db.auditEvent.findMany({ where, orderBy: [...order], skip: page.offset, take: page.pageSize }),
    ]);
    return { count, results: rows.map(toAuditEventRecord) };
  }
  const [live, archived] = await Promise.all([db.auditEvent.count({ where }), db.auditEventArchive.count({ where })]);
  const fromLive = page.offset < live ? await db.auditEvent.findMany({ where, orderBy: [...order], skip: page.offset, take: page.pageSize }) : [];
  const rest = page.pageSize - fromLive.length;
  const fromArchive = rest > 0 && archived > 0 ? await db.auditEventArchive.findMany({ where, orderBy: [...order], skip: Math.max(0, page.offset - live), take: rest }) : [];
  return { count: live + archived, results: [...fromLive, ...fromArchive].map(toAuditEventRecord) };
}

/** One filter for both tables (the live log and its archive have the same columns). */
type AuditWhere = Prisma.AuditEventWhereInput & Prisma.AuditEventArchiveWhereInput;

/** The filters as a query, refusing invalid ones with 400 (shared by the list and the CSV export). */
function auditLogWhere(principal: Pick<KeyPrincipal, 'organizationId' | 'environment'>, filters: AuditLogFilters, now: Date): AuditWhere {
  const errors: FieldError[] = [];
  const after = parseDateTimeQuery('created_after', filters.createdAfter, errors);
  const before = parseDateTimeQuery('created_before', filters.createdBefore, errors);
  if (filters.userId !== undefined && !isUuid(filters.userId)) errors.push({ field: 'query.user_id', message: 'must be a UUID' });
  if (after && before && after > before) errors.push({ field: 'query.created_after', message: 'must not be later than created_before' });
  if (errors.length > 0) throw new ValidationError(errors);

  const windowStart = new Date(now.getTime() - AUDIT_DEFAULT_WINDOW_DAYS * DAY_MS);
  return {
    organizationId: principal.organizationId,
    environment: principal.environment,
    createdAt: { gte: after ?? windowStart, ...(before ? { lte: before } : {}) },
    ...(filters.eventType ? { eventType: filters.eventType } : {}),
    ...(filters.userId ? { userId: filters.userId } : {}),
  };
}

/** At most this many events in one CSV export; the last line says so when there were more. */
export const AUDIT_EXPORT_MAX_ROWS = 100_000;
const EXPORT_BATCH = 1_000;
const CSV_COLUMNS = ['id', 'created_at', 'event_type', 'environment', 'actor_type', 'actor_key_id', 'actor_member_id', 'target_key_id', 'user_id', 'resource_type', 'resource_id', 'source_service', 'details'] as const;

/** One CSV cell: quoted, and a leading = + - @ defused so a spreadsheet never runs it as a formula. */
function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

/**
 * The filtered log as CSV lines, newest first, read in batches by keyset (never one huge query, never
 * offset paging), so an export of a large log keeps the service's memory flat.
 */
export async function* exportAuditEventsCsv(db: Db, principal: Pick<KeyPrincipal, 'organizationId' | 'environment'>, filters: AuditLogFilters, now: Date = new Date()): AsyncGenerator<string> {
  const where = auditLogWhere(principal, filters, now);
  yield `${CSV_COLUMNS.join(',')}\r\n`;
  // The live log, then (for an explicit created_after, as the list) the archive: older than every live event.
  const tables = filters.createdAfter === undefined ? [db.auditEvent] : [db.auditEvent, db.auditEventArchive];
  let sent = 0;
  for (const table of tables) {
    let last: { createdAt: Date; id: string } | null = null;
    while (sent < AUDIT_EXPORT_MAX_ROWS) {
      const batch = Math.min(EXPORT_BATCH, AUDIT_EXPORT_MAX_ROWS - sent);
      const rows: AuditEventRow[] = await (table as typeof db.auditEvent).findMany({
        where: last ? { AND: [where, { OR: [{ createdAt: { lt: last.createdAt } }, { createdAt: last.createdAt, id: { lt: last.id } }] }] } : where,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: batch,
      });
      if (rows.length === 0) break;
      let chunk = '';
      for (const row of rows) {
        const record = toAuditEventRecord(row);
        chunk += `${CSV_COLUMNS.map((c) => csvCell(record[c])).join(',')}\r\n`;
      }
      yield chunk;
      sent += rows.length;
      const tail = rows[rows.length - 1]!;
      last = { createdAt: tail.createdAt, id: tail.id };
      if (rows.length < batch) break;
    }
  }
}

export function toAuditEventRecord(row: AuditEventRow): AuditEventRecord {
  return {
    id: row.id,
    event_type: row.eventType,
    created_at: row.createdAt.toISOString(),
    environment: row.environment,
    actor_type: row.actorType,
    actor_key_id: row.actorKeyId,
    actor_member_id: row.actorMemberId,
    target_key_id: row.targetKeyId,
    user_id: row.userId,
    resource_type: row.resourceType,
    resource_id: row.resourceId,
    source_service: row.sourceService,
    details: row.details as Record<string, unknown>,
  };
}

/** audit_events is partitioned by month on created_at (migration 20261129073000_partition_audit_events); retired months go to the archive whole. */
export const AUDIT_EVENT_PARTITIONS: PartitionedTable = { table: 'audit_events', column: 'created_at', period: 'month', archiveTable: 'audit_event_archive' };

export interface AuditRetention {
  /** Days events stay in the live log, unless their organization has its own audit_retention_days. */
  retentionDays: number;
  /** Days an event is kept at all (live, then archived); null keeps the archive forever. */
  archiveRetentionDays: number | null;
}

export interface AuditMaintenance {
  createdPartitions: string[];
  /** Months moved to the archive whole. */
  archivedPartitions: string[];
  /** Events moved to the archive one by one (a shorter organization retention, the rest of a month, late arrivals). */
  archivedRows: number;
  /** Archive months, and archived events, past the archive's own retention: deleted. */
  droppedArchivePartitions: string[];
  deletedArchivedRows: number;
}

/**
 * The audit log's upkeep, run at start and then periodically by the service (any replica; each step
 * takes an advisory lock and is idempotent): makes the coming months' partitions, moves what is past
 * each organization's retention to the archive (whole months past the longest retention, single
 * events for the shorter ones), and deletes archived events past the archive's retention, if any.
 */
export async function maintainAuditLog(db: Db, retention: AuditRetention, now = new Date()): Promise<AuditMaintenance> {
  const partitions = prismaPartitionDatabase(db);
  const createdPartitions = await ensurePartitions(partitions, AUDIT_EVENT_PARTITIONS, { now, ahead: 2 });
  const own = await db.organization.findMany({ where: { auditRetentionDays: { not: null } }, select: { id: true, auditRetentionDays: true } });
  const moved = await applyRetention(
    partitions,
    AUDIT_EVENT_PARTITIONS,
    { defaultDays: retention.retentionDays, organizations: own.map((o) => ({ organizationId: o.id, days: o.auditRetentionDays! })), archiveDays: retention.archiveRetentionDays },
    now,
  );
  return { createdPartitions, archivedPartitions: moved.archived, archivedRows: moved.rows, droppedArchivePartitions: moved.droppedArchivePartitions, deletedArchivedRows: moved.deletedArchivedRows };
}
