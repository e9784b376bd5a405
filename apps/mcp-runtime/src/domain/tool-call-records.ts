import { randomUUID } from 'node:crypto';
import { applyRetention, ensurePartitions, prismaPartitionDatabase, type PartitionedTable } from '@patchbay/db';
import { registeredUserIdFilter, toolPackIdFilter, type KeyPrincipal } from '@patchbay/auth';
import { NotFoundError, ValidationError, type FieldError } from '@patchbay/errors';
import { cursorList, decodeCursor, parseDateTimeQuery, type CursorList } from '@patchbay/pagination';
import { QUEUE_NAMES, UnrecoverableError, type DirectProducer, type QueueLogger, type RegisteredUserDeletedJob, type ToolCallRecordBatchJob, type ToolCallRecordJob } from '@patchbay/queues';
import { isUuid } from '@patchbay/service-kit';
import type { Database, Db } from '../db';
import type { Prisma, ToolCallRecord as RecordRow } from '../generated/prisma/client';
import type { OrganizationRetention } from './organization-retention';

const DAY_MS = 24 * 60 * 60 * 1000;
const STATUSES = ['success', 'error', 'blocked'] as const;
type Status = (typeof STATUSES)[number];

/** A tool-call record as lists show it: what happened, never the payloads, credentials or matched values. */
export interface ToolCallRecordView {
  id: string;
  /** `<connector_slug>__<tool_name>`, as the agent called it. */
  tool_name: string;
  connector_slug: string;
  tool_pack_id: string;
  registered_user_id: string;
  /** The key the agent called with. */
  access_key_id: string;
  /** success, error (the tool answered with isError) or blocked (a security rule of action block fired). */
  status: Status;
  /** Why it failed: invalid_input, credential_missing, credential_invalid, timeout, rate_limited, provider_error, remote_error, security_rule_blocked... */
  error_code: string | null;
  duration_ms: number;
  /** Credits the call cost (1; every tools/call costs one whatever its outcome). */
  credits: number;
  /** 'YYYY-MM' (UTC): the billing cycle the credit counts in. */
  billing_cycle: string;
  /** Whether the credit was beyond a paid plan's monthly allotment. */
  overage: boolean;
  /** Security-gateway rules that matched: rule, kind, direction, action, JSON path and count; never the matched value. */
  detections: ToolCallRecordJob['detections'];
  occurred_at: string;
}

/** One record with its payloads as stored: after security scanning (redaction markers in place), cut at 16,384 characters of JSON each. */
export interface ToolCallRecordDetail extends ToolCallRecordView {
  /** The arguments as the tool received them (after the inbound rules). Null when the tool never ran (unknown tool, or a rule blocked them), or for records made before payloads were kept. A payload too long is `{patchbay_truncated: true, original_chars, json_prefix}`. */
  arguments: unknown;
  /** The tools/call result the agent received (after the outbound rules): `content`, `isError`, `structuredContent`... Same limits as arguments. */
  result: unknown;
}

function detailOf(row: RecordRow): ToolCallRecordDetail {
  return { ...viewOf(row), arguments: row.arguments ?? null, result: row.result ?? null };
}

function viewOf(row: Omit<RecordRow, 'arguments' | 'result'>): ToolCallRecordView {
  return {
    id: row.id,
    tool_name: row.toolName,
    connector_slug: row.connectorSlug,
    tool_pack_id: row.toolPackId,
    registered_user_id: row.registeredUserId,
    access_key_id: row.accessKeyId,
    status: row.status,
    error_code: row.errorCode,
    duration_ms: row.durationMs,
    credits: row.credits,
    billing_cycle: row.billingCycle,
    overage: row.overage,
    detections: row.detections as unknown as ToolCallRecordJob['detections'],
    occurred_at: row.occurredAt.toISOString(),
  };
}

/** Queue options of a record: deduplicated by the consumer's primary key, so completed jobs need not stay in Redis. */
const RECORD_JOB_OPTIONS = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: true,
  removeOnFail: { age: 7 * 24 * 3600 },
} as const;

/** Records sent to Redis together: one job and one round trip per batch instead of per call. */
const RECORD_BATCH_MAX = 200;
const RECORD_FLUSH_DELAY_MS = 20;

/**
 * Stores each tool call's record after the call, in small batches (one INSERT for all records of a
 * few milliseconds), straight into PostgreSQL: a record never waits in Redis, so Redis losing its
 * data loses no record and no credit the meter rebuilds from them. Only when the database refuses
 * the batch does it go onto the queue (or the outbox while Redis is unreachable too), for the
 * record workers to store later. A record waits at most RECORD_FLUSH_DELAY_MS in memory; `close()`
 * stores or sends what is waiting.
 */
export class ToolCallRecorder {
  private pending: ToolCallRecordJob[] = [];
  private timer: NodeJS.Timeout | null = null;
  private inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly producer: Pick<DirectProducer, 'send'>,
    /** Stores a batch in the database; resolves once it committed. Without it every batch goes to the queue. */
    private readonly store?: (records: ToolCallRecordJob[]) => Promise<void>,
    private readonly logger?: Pick<QueueLogger, 'warn'>,
  ) {}

  /** Fire and forget: the agent's answer never waits for its record. */
  record(job: ToolCallRecordJob): void {
    this.pending.push(job);
    if (this.pending.length >= RECORD_BATCH_MAX) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), RECORD_FLUSH_DELAY_MS);
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const sent = this.deliver(batch);
    this.inFlight.add(sent);
    void sent.finally(() => this.inFlight.delete(sent));
  }

  private async deliver(batch: ToolCallRecordJob[]): Promise<void> {
    if (this.store) {
      try {
        await this.store(batch);
        return;
      } catch (err) {
        this.logger?.warn({ records: batch.length, error: err instanceof Error ? err.message : String(err) }, 'tool-call records not stored directly; sent to the queue');
      }
    }
    await this.producer.send(QUEUE_NAMES.toolCallRecordBatches, { event_id: randomUUID(), records: batch }, RECORD_JOB_OPTIONS);
  }

  /** Stores or sends the waiting records and waits for every batch to be in PostgreSQL, Redis or the outbox. */
  async close(): Promise<void> {
    this.flush();
    await Promise.all([...this.inFlight]);
  }
}

function validateRecordJob(job: ToolCallRecordJob): string[] {
  const problems: string[] = [];
  for (const field of ['event_id', 'organization_id', 'tool_pack_id', 'registered_user_id', 'access_key_id'] as const) {
    if (!isUuid(job[field] ?? '')) problems.push(`${field} must be a UUID`);
  }
  if (job.environment !== 'production' && job.environment !== 'test') problems.push('environment must be production or test');
  if (!STATUSES.includes(job.status)) problems.push('status is unknown');
  if (!/^\d{4}-\d{2}$/.test(job.billing_cycle ?? '')) problems.push('billing_cycle must be YYYY-MM');
  if (Number.isNaN(Date.parse(job.occurred_at))) problems.push('occurred_at must be an ISO 8601 date-time');
  if (!Array.isArray(job.detections)) problems.push('detections must be a list');
  if (job.meter_epoch !== undefined && job.meter_epoch !== null && !isUuid(job.meter_epoch)) problems.push('meter_epoch must be a UUID or null');
  return problems;
}

/** A payload's JSON text for a jsonb column; absent or null is SQL NULL. JSON text cannot hold U+0000 in jsonb, so it is escaped away. */
function jsonOrNull(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return JSON.stringify(value).replace(/\\u0000/g, '\\ufffd');
}

export type StoreOutcome = 'stored' | 'duplicate' | 'expired' | 'user_deleted';

/** What storing records runs on: Prisma, and the pg pool under it for the INSERT. */
export type RecordDatabase = Pick<Database, 'prisma' | 'sql'>;

// One statement for the batch, one array per column: Prisma's query builder cost more CPU than the
// insert. Unqualified names resolve to the service's schema, which pgPool sets on each connection.
const INSERT_RECORDS = `INSERT INTO "tool_call_records" ("id", "organization_id", "environment", "tool_pack_id", "registered_user_id", "access_key_id",
    "tool_name", "connector_slug", "status", "error_code", "duration_ms", "credits", "billing_cycle", "overage", "detections", "occurred_at", "meter_epoch",
    "arguments", "result")
  SELECT u.id, u.organization_id, u.environment::"Environment", u.tool_pack_id, u.registered_user_id, u.access_key_id,
    u.tool_name, u.connector_slug, u.status::"ToolCallStatus", u.error_code, u.duration_ms, u.credits, u.billing_cycle, u.overage, u.detections::jsonb, u.occurred_at, u.meter_epoch,
    u.arguments::jsonb, u.result::jsonb
  FROM unnest(
    $1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::uuid[], $6::uuid[], $7::text[], $8::text[], $9::text[], $10::text[], $11::int[],
    $12::int[], $13::text[], $14::boolean[], $15::text[], $16::timestamptz[], $17::uuid[], $18::text[], $19::text[]
  ) AS u(id, organization_id, environment, tool_pack_id, registered_user_id, access_key_id, tool_name, connector_slug, status,
         error_code, duration_ms, credits, billing_cycle, overage, detections, occurred_at, meter_epoch, arguments, result)
  ON CONFLICT ("id", "occurred_at") DO NOTHING
  RETURNING "id"::text`;

/**
 * Stores delivered records in one INSERT. Idempotent on event_id: the table's key is (id, occurred_at),
 * as a partitioned table's key must hold its partition key, and a redelivery carries the same
 * occurred_at, so it meets the first copy. A record of a registered user
 * deleted in the meantime is removed right after the insert (the deletion's tombstone is permanent,
 * so whichever of the two jobs runs second removes it), and one older than the retention window is
 * not stored. A malformed record throws UnrecoverableError (it can never succeed).
 *
 * The INSERT is a named statement on the pg pool under Prisma: each connection has PostgreSQL parse
 * and plan it once (partition routing included) instead of at every batch, which cost PostgreSQL
 * 10-25% more CPU for the INSERT (90-240 µs per 36 records; see the README). Tuple routing picks the partition per row at run
 * time, so a day partition made after the plan still receives its rows. Behind a connection pooler in
 * transaction mode, PgBouncer needs max_prepared_statements (1.21 and later). The DELETE stays on
 * Prisma, planned each time: its plan prunes to the batch's days by their values, which a plan kept
 * across batches could not do when planned.
 */
export async function storeToolCallRecords(database: RecordDatabase, jobs: ToolCallRecordJob[], retentionDays: number, now = new Date()): Promise<StoreOutcome[]> {
  const outcomes = new Map<string, StoreOutcome>();
  const rows: ToolCallRecordJob[] = [];
  for (const job of jobs) {
    const problems = validateRecordJob(job);
    if (problems.length > 0) throw new UnrecoverableError(`invalid tool-call record: ${problems.join('; ')}`);
    if (Date.parse(job.occurred_at) < now.getTime() - retentionDays * DAY_MS) outcomes.set(job.event_id, 'expired');
    else rows.push(job);
  }
  if (rows.length > 0) {
    const ids = rows.map((r) => r.event_id);
    const { rows: inserted } = await database.sql.query<{ id: string }>({
      name: 'mcp_store_tool_call_records',
      text: INSERT_RECORDS,
      values: [
        ids, rows.map((r) => r.organization_id), rows.map((r) => r.environment),
        rows.map((r) => r.tool_pack_id), rows.map((r) => r.registered_user_id), rows.map((r) => r.access_key_id),
        rows.map((r) => r.tool_name.slice(0, 255)), rows.map((r) => r.connector_slug.slice(0, 255)), rows.map((r) => r.status),
        rows.map((r) => r.error_code?.slice(0, 64) ?? null), rows.map((r) => Math.max(0, Math.round(r.duration_ms))),
        rows.map((r) => r.credits), rows.map((r) => r.billing_cycle), rows.map((r) => r.overage),
        rows.map((r) => JSON.stringify(r.detections)), rows.map((r) => r.occurred_at), rows.map((r) => r.meter_epoch ?? null),
        rows.map((r) => jsonOrNull(r.arguments)), rows.map((r) => jsonOrNull(r.result)),
      ],
    });
    const fresh = new Set(inserted.map((r) => r.id));
    // Bounded by the batch's times, so only the partitions of those days are searched.
    const times = rows.map((r) => Date.parse(r.occurred_at));
    const removed = await database.prisma.$queryRaw<Array<{ id: string }>>`
      DELETE FROM "tool_call_records" r USING "deleted_registered_users" d
      WHERE r."id" = ANY(${ids}::uuid[]) AND d."registered_user_id" = r."registered_user_id"
        AND r."occurred_at" BETWEEN ${new Date(Math.min(...times))} AND ${new Date(Math.max(...times))} RETURNING r."id"::text`;
    const gone = new Set(removed.map((r) => r.id));
    for (const id of ids) outcomes.set(id, gone.has(id) ? 'user_deleted' : fresh.has(id) ? 'stored' : 'duplicate');
  }
  return jobs.map((job) => outcomes.get(job.event_id) ?? 'duplicate');
}

/**
 * Stores a batch job's records. A malformed record is dropped and logged rather than failing the
 * batch (retrying could never store it, and the rest must not wait on it); a batch that is not a
 * list of records at all is refused without retries.
 */
export async function storeToolCallRecordBatch(database: RecordDatabase, batch: ToolCallRecordBatchJob, retentionDays: number, logger: QueueLogger): Promise<StoreOutcome[]> {
  if (!Array.isArray(batch.records)) throw new UnrecoverableError('invalid tool-call record batch: records must be a list');
  const valid = batch.records.filter((job) => {
    const problems = typeof job === 'object' && job !== null ? validateRecordJob(job) : ['not an object'];
    if (problems.length > 0) logger.warn({ batch: batch.event_id, event_id: (job as { event_id?: unknown } | null)?.event_id, problems }, 'malformed tool-call record dropped from its batch');
    return problems.length === 0;
  });
  const outcomes = await storeToolCallRecords(database, valid, retentionDays);
  valid.forEach((job, i) => logRecordOutcome(logger, job.event_id, outcomes[i] ?? 'duplicate'));
  return outcomes;
}

/** One record: see storeToolCallRecords. */
export async function storeToolCallRecord(database: RecordDatabase, job: ToolCallRecordJob, retentionDays: number, now = new Date()): Promise<StoreOutcome> {
  const [outcome] = await storeToolCallRecords(database, [job], retentionDays, now);
  return outcome ?? 'duplicate';
}

/**
 * Gathers the records the queue worker is processing at once (up to its concurrency) into one
 * storeToolCallRecords call: each job's promise settles with its batch, so BullMQ still completes,
 * retries or fails every job on its own.
 */
export class RecordBatcher {
  private waiting: Array<{ job: ToolCallRecordJob; resolve: (o: StoreOutcome) => void; reject: (e: unknown) => void }> = [];
  private scheduled = false;

  constructor(
    private readonly database: RecordDatabase,
    private readonly retentionDays: number,
  ) {}

  store(job: ToolCallRecordJob): Promise<StoreOutcome> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ job, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // Jobs fetched in the same turn of the event loop join one batch.
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.waiting;
    this.waiting = [];
    // A malformed job must fail alone, not take its batch with it.
    const valid = batch.filter((entry) => {
      const problems = validateRecordJob(entry.job);
      if (problems.length > 0) entry.reject(new UnrecoverableError(`invalid tool-call record: ${problems.join('; ')}`));
      return problems.length === 0;
    });
    try {
      const outcomes = await storeToolCallRecords(this.database, valid.map((e) => e.job), this.retentionDays);
      valid.forEach((entry, i) => entry.resolve(outcomes[i] ?? 'duplicate'));
    } catch (err) {
      for (const entry of valid) entry.reject(err);
    }
  }
}

/**
 * A registered user was deleted in connector-registry: all their records go, the archived ones too
 * (the spec: deletion "irreversibly deletes ... all associated tool-call records"), and a tombstone
 * stops late ones. The live table first, then the archive, as two statements: a record the sweep is
 * moving meanwhile is either still live when the first runs (it waits for the move, then finds the
 * row gone) or already archived, and the second statement, with a new snapshot, sees it there.
 */
export async function deleteRegisteredUserRecords(db: Db, job: RegisteredUserDeletedJob): Promise<number> {
  if (!isUuid(job.registered_user_id ?? '') || !isUuid(job.organization_id ?? '') || (job.environment !== 'production' && job.environment !== 'test')) {
    throw new UnrecoverableError('invalid registered-user deletion: registered_user_id and organization_id must be UUIDs, environment production or test');
  }
  await db.deletedRegisteredUser.createMany({
    data: [{ registeredUserId: job.registered_user_id, organizationId: job.organization_id, environment: job.environment, deletedAt: new Date(job.deleted_at || Date.now()) }],
    skipDuplicates: true,
  });
  const where = { registeredUserId: job.registered_user_id, organizationId: job.organization_id, environment: job.environment };
  const live = await db.toolCallRecord.deleteMany({ where });
  const archived = await db.toolCallRecordArchive.deleteMany({ where });
  return live.count + archived.count;
}

/**
 * tool_call_records is partitioned by UTC day on occurred_at (migration 20261129065000_partition_tool_call_records);
 * days past retention move whole to tool_call_record_archive (migration 20261129103623_tool_call_record_archive).
 */
export const TOOL_CALL_RECORD_PARTITIONS: PartitionedTable = { table: 'tool_call_records', column: 'occurred_at', period: 'day', archiveTable: 'tool_call_record_archive' };

/** Makes the day partitions of the coming week (and the DEFAULT one, if gone); returns those it made. */
export function ensureToolCallRecordPartitions(db: Db, now = new Date()): Promise<string[]> {
  return ensurePartitions(prismaPartitionDatabase(db), TOOL_CALL_RECORD_PARTITIONS, { now, ahead: 7 });
}

export interface SweepOptions {
  /** Organizations with their own retention (access-keys-and-audit's audit_retention_days), shorter or longer than the default. */
  organizations?: readonly OrganizationRetention[];
  /** Days a record is kept at all, archive included; null or absent keeps archived records until their registered user is deleted. */
  archiveRetentionDays?: number | null;
}

export interface SweepResult {
  /** Records moved to the archive one by one (an organization's shorter retention, the rest of a day, late arrivals). */
  rows: number;
  /** Day partitions moved to the archive whole. */
  archived: string[];
  /** Archived day partitions, and archived records, past the archive's own retention (only with archiveRetentionDays): deleted. */
  droppedArchivePartitions: string[];
  deletedArchivedRows: number;
}

/**
 * Moves records past retention to the archive, with the audit log's mechanism (@patchbay/db
 * applyRetention with an archive table): whole days past the longest retention in force by detaching
 * their partition from tool_call_records and attaching it to tool_call_record_archive (no row copied,
 * no table bloat), then, in batches, the records of organizations with a shorter retention, the part
 * of the oldest kept day past the window and late records in the DEFAULT partition. The daily usage
 * counts stay (moving fires no insert trigger on tool_call_records). Archived records stay until their
 * registered user is deleted, unless archiveRetentionDays is set. Also drops tombstones old enough that
 * no record of theirs can still arrive (one older than the default window is not stored). Idempotent,
 * and safe on several replicas at once (each step takes an advisory lock).
 */
export async function sweepExpiredRecords(db: Db, retentionDays: number, now = new Date(), options: SweepOptions = {}): Promise<SweepResult> {
  const partitions = prismaPartitionDatabase(db);
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
  const moved = await applyRetention(
    partitions,
    TOOL_CALL_RECORD_PARTITIONS,
    {
      defaultDays: retentionDays,
      organizations: (options.organizations ?? []).map((o) => ({ organizationId: o.organization_id, days: o.retention_days })),
      archiveDays: options.archiveRetentionDays ?? null,
    },
    now,
  );
  await db.deletedRegisteredUser.deleteMany({ where: { deletedAt: { lt: new Date(cutoff.getTime() - DAY_MS) } } });
  return { rows: moved.rows, archived: moved.archived, droppedArchivePartitions: moved.droppedArchivePartitions, deletedArchivedRows: moved.deletedArchivedRows };
}

/** Without created_after a list covers this many days, as the audit log's does; older records (live or archived) are listed when asked for with an earlier created_after. */
export const TOOL_CALL_DEFAULT_WINDOW_DAYS = 90;

export interface RecordFilters {
  registered_user_id?: string;
  tool_pack_id?: string;
  tool_name?: string;
  connector_slug?: string;
  status?: string;
  created_after?: string;
  created_before?: string;
}

/** Only ids the key may see: an id outside its restrictions matches nothing, like one that does not exist. */
function restrictedIds(allowed: string[] | null, asked: string | undefined): string | { in: string[] } | undefined {
  if (asked !== undefined) return allowed === null || allowed.includes(asked) ? asked : { in: [] };
  return allowed === null ? undefined : { in: allowed };
}

export class ToolCallRecordService {
  /**
   * Lists read `readDb` (a replica when DATABASE_READ_URL is set): records arrive asynchronously
   * anyway, and a replica's lag only adds to that. A record by id reads the primary, so a record the
   * caller has just been told about (by id, in a list) is there when it asks for it.
   */
  constructor(
    private readonly db: Db,
    private readonly readDb: Db = db,
  ) {}

  /** What the principal may see at all: its organization and environment, within its key's restrictions. */
  private scope(principal: KeyPrincipal, filters: Pick<RecordFilters, 'registered_user_id' | 'tool_pack_id'> = {}): RecordWhere {
    return {
      organizationId: principal.organizationId,
      environment: principal.environment,
      registeredUserId: restrictedIds(registeredUserIdFilter(principal), filters.registered_user_id),
      toolPackId: restrictedIds(toolPackIdFilter(principal), filters.tool_pack_id),
    };
  }

  /** The list's filters as a query, refusing invalid ones with 400; without created_after, the default window. */
  private where(principal: KeyPrincipal, filters: RecordFilters, now: Date): RecordWhere {
    const errors: FieldError[] = [];
    for (const field of ['registered_user_id', 'tool_pack_id'] as const) {
      const value = filters[field];
      if (value !== undefined && !isUuid(value)) errors.push({ field: `query.${field}`, message: 'must be a UUID' });
    }
    if (filters.status !== undefined && !STATUSES.includes(filters.status as Status)) errors.push({ field: 'query.status', message: `must be one of ${STATUSES.join(', ')}` });
    const after = parseDateTimeQuery('created_after', filters.created_after, errors);
    const before = parseDateTimeQuery('created_before', filters.created_before, errors);
    if (after && before && after > before) errors.push({ field: 'query.created_after', message: 'must not be later than created_before' });
    if (errors.length > 0) throw new ValidationError(errors);
    const windowStart = new Date(now.getTime() - TOOL_CALL_DEFAULT_WINDOW_DAYS * DAY_MS);
    return {
      ...this.scope(principal, filters),
      ...(filters.tool_name ? { toolName: filters.tool_name } : {}),
      ...(filters.connector_slug ? { connectorSlug: filters.connector_slug } : {}),
      ...(filters.status ? { status: filters.status as Status } : {}),
      occurredAt: { gte: after ?? windowStart, ...(before ? { lte: before } : {}) },
    };
  }

  /**
   * Newest first, with keyset cursors (stable while new calls are recorded). Without created_after the
   * list covers the last 90 days of the live records; with it, the archive too (records past the
   * organization's retention). Both are read with the same filters and cursor bound, and the two
   * pages merged in (occurred_at, id) order: a cursor is a position in that order, whichever table
   * the records come from, so paging runs across both even where their times interleave (an
   * organization's retention changed, a late record).
   */
  async list(principal: KeyPrincipal, filters: RecordFilters, cursor: string | undefined, pageSize: number, now = new Date()): Promise<CursorList<ToolCallRecordView>> {
    const where = this.where(principal, filters, now);
    const from = cursor ? decodeCursor(cursor) : null;
    let position: RecordWhere = {};
    if (from) {
      const [at, id] = from.key;
      if (typeof at !== 'number' || typeof id !== 'string' || !isUuid(id)) throw ValidationError.forField('query.cursor', 'is not a cursor this API returned; send the next or previous value of an earlier page unchanged');
      const t = new Date(at);
      position =
        from.direction === 'next'
          ? { OR: [{ occurredAt: { lt: t } }, { occurredAt: t, id: { lt: id } }] }
          : { OR: [{ occurredAt: { gt: t } }, { occurredAt: t, id: { gt: id } }] };
    }
    const backwards = from?.direction === 'previous';
    const query = {
      where: { AND: [where, position] },
      orderBy: backwards ? [{ occurredAt: 'asc' as const }, { id: 'asc' as const }] : [{ occurredAt: 'desc' as const }, { id: 'desc' as const }],
      take: pageSize + 1,
      // Lists never carry the payloads (up to 32 KB a record): the detail does.
      omit: { arguments: true, result: true },
    };
    const [live, archived] = await Promise.all([
      this.readDb.toolCallRecord.findMany(query),
      filters.created_after !== undefined ? this.readDb.toolCallRecordArchive.findMany(query) : Promise.resolve([]),
    ]);
    const rows = archived.length === 0 ? live : [...live, ...archived].sort(backwards ? (a, b) => -newestFirst(a, b) : newestFirst).slice(0, pageSize + 1);
    const ordered = backwards ? rows.reverse() : rows;
    const page = cursorList(ordered, { pageSize, from, keyOf: (row) => [row.occurredAt.getTime(), row.id] });
    return { ...page, results: page.results.map(viewOf) };
  }

  /** A record by id, live or archived (an archived record stays readable by id until its registered user is deleted). */
  async get(principal: KeyPrincipal, id: string): Promise<ToolCallRecordDetail> {
    if (!isUuid(id)) throw notFound();
    const where = { id, ...this.scope(principal) };
    const row = (await this.db.toolCallRecord.findFirst({ where })) ?? (await this.db.toolCallRecordArchive.findFirst({ where }));
    if (!row) throw notFound();
    return detailOf(row);
  }
}

/** One filter for both tables (the live records and their archive have the same columns). */
type RecordWhere = Prisma.ToolCallRecordWhereInput & Prisma.ToolCallRecordArchiveWhereInput;

/** (occurred_at, id) descending, as PostgreSQL orders them: uuids compare as their lowercase hex text does. */
function newestFirst(a: { occurredAt: Date; id: string }, b: { occurredAt: Date; id: string }): number {
  return b.occurredAt.getTime() - a.occurredAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

function notFound(): NotFoundError {
  return new NotFoundError('No tool-call record with this id in the organization and environment of the key (a deleted registered user\'s records are deleted).');
}

/** Logs what a consumer did with a delivery worth mentioning. */
export function logRecordOutcome(logger: QueueLogger, eventId: string, outcome: string): void {
  if (outcome !== 'stored') logger.info({ event_id: eventId, outcome }, 'tool-call record not stored');
}
