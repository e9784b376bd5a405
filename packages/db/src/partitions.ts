import type pg from 'pg';

/**
 * Native PostgreSQL range partitioning by time for a service's append-heavy tables: partitions made
 * ahead of time, a DEFAULT partition as a safety net, and retention that detaches whole partitions
 * (dropping them, or attaching them to an archive table) instead of deleting rows one by one.
 *
 * Every statement runs on one connection, in a transaction with TimeZone set to UTC so partition
 * bounds read and write as UTC whatever the server's setting, and under a transaction-level advisory
 * lock per table so replicas running the same maintenance never race each other.
 */

export type PartitionPeriod = 'day' | 'month';

/** Statements on one connection: a row-returning query and a statement whose affected-row count matters. */
export interface SqlSession {
  query<R = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<R[]>;
  execute(sql: string, values?: unknown[]): Promise<number>;
}

/** Where partition maintenance runs: statements, and transactions on one connection. */
export interface PartitionDatabase extends SqlSession {
  transaction<T>(work: (tx: SqlSession) => Promise<T>): Promise<T>;
}

function pgSession(client: pg.Pool | pg.ClientBase): SqlSession {
  return {
    query: async <R>(sql: string, values?: unknown[]) => (await client.query(sql, values)).rows as R[],
    execute: async (sql: string, values?: unknown[]) => (await client.query(sql, values)).rowCount ?? 0,
  };
}

/** A `pg` pool as a PartitionDatabase. */
export function pgPartitionDatabase(pool: pg.Pool): PartitionDatabase {
  return {
    ...pgSession(pool),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(pgSession(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
  };
}

/** The raw-SQL side of a Prisma client (a service's own), as a PartitionDatabase. */
export interface PrismaRawClient {
  $queryRawUnsafe<R = unknown>(sql: string, ...values: unknown[]): Promise<R>;
  $executeRawUnsafe(sql: string, ...values: unknown[]): Promise<number>;
  $transaction<T>(work: (tx: Omit<PrismaRawClient, '$transaction'>) => Promise<T>, options?: { timeout?: number; maxWait?: number }): Promise<T>;
}

function prismaSession(client: Omit<PrismaRawClient, '$transaction'>): SqlSession {
  return {
    query: <R>(sql: string, values: unknown[] = []) => client.$queryRawUnsafe<R[]>(sql, ...values),
    execute: (sql: string, values: unknown[] = []) => client.$executeRawUnsafe(sql, ...values),
  };
}

export function prismaPartitionDatabase(prisma: PrismaRawClient): PartitionDatabase {
  return {
    ...prismaSession(prisma),
    // Maintenance may wait for its locks (lock_timeout) and move a DEFAULT partition's rows: more than Prisma's 5 s default.
    transaction: (work) => prisma.$transaction((tx) => work(prismaSession(tx)), { timeout: 120_000, maxWait: 10_000 }),
  };
}

export interface PartitionedTable {
  /** The partitioned table, unqualified (it resolves in the connection's search_path). */
  table: string;
  /** Its partition key column (timestamptz or date). */
  column: string;
  period: PartitionPeriod;
  /**
   * A table partitioned the same way with the same columns: partitions past retention are detached
   * and attached there (no row is copied) instead of dropped, so the rows stay readable.
   */
  archiveTable?: string;
}

export interface Partition {
  name: string;
  /** Inclusive lower and exclusive upper bound; null for the DEFAULT partition. */
  from: Date | null;
  to: Date | null;
}

const DAY_MS = 86_400_000;

/** The start (UTC midnight, or the first of the month) of the period that holds `at`. */
export function periodStart(at: Date, period: PartitionPeriod): Date {
  return period === 'day'
    ? new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()))
    : new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/** The start of the period after the one starting at `start`. */
export function nextPeriod(start: Date, period: PartitionPeriod): Date {
  return period === 'day' ? new Date(start.getTime() + DAY_MS) : new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}

/** `<table>_p20261129` for a day, `<table>_p202611` for a month. */
export function partitionName(table: string, start: Date, period: PartitionPeriod): string {
  const iso = start.toISOString();
  return `${table}_p${iso.slice(0, 4)}${iso.slice(5, 7)}${period === 'day' ? iso.slice(8, 10) : ''}`;
}

function ident(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain SQL identifier: ${name}`);
  return `"${name}"`;
}

function literal(at: Date): string {
  return `'${at.toISOString()}'`;
}

function inMaintenanceTransaction<T>(db: PartitionDatabase, table: string, work: (tx: SqlSession) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(`SET LOCAL TimeZone = 'UTC'`);
    // Short waits only: maintenance must never queue behind a long query and block inserts behind itself.
    await tx.execute(`SET LOCAL lock_timeout = '5s'`);
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('patchbay_partitions'), hashtext($1))::text AS locked`, [table]);
    return work(tx);
  });
}

async function partitionsOf(tx: SqlSession, table: string): Promise<Partition[]> {
  // Bounds print as UTC literals here (TimeZone is UTC in the maintenance transaction) and cast back exactly.
  return tx.query<Partition>(
    `SELECT c.relname AS name, b.m[1]::timestamptz AS "from", b.m[2]::timestamptz AS "to"
       FROM pg_inherits i
       JOIN pg_class c ON c.oid = i.inhrelid
       CROSS JOIN LATERAL (SELECT regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\) TO \\(''([^'']+)''\\)') AS m) b
      WHERE i.inhparent = to_regclass($1)
      ORDER BY b.m[1]::timestamptz NULLS FIRST`,
    [ident(table)],
  );
}

/** The table's partitions, oldest first, the DEFAULT one (null bounds) before them. */
export function listPartitions(db: PartitionDatabase, table: string): Promise<Partition[]> {
  return inMaintenanceTransaction(db, table, (tx) => partitionsOf(tx, table));
}

/**
 * Adds the partition [from, to). When the DEFAULT partition already holds rows of that range (they
 * arrived while no partition covered it), they move into the new partition: PostgreSQL refuses to
 * add a partition whose rows sit in the default one. The rows go straight from partition to
 * partition, so the parent's statement triggers (the rollups) do not count them again.
 */
async function addPartition(tx: SqlSession, spec: PartitionedTable, into: string, from: Date, to: Date, defaultPartition: string | null): Promise<void> {
  const parent = ident(spec.table);
  const column = ident(spec.column);
  const range = `${column} >= ${literal(from)} AND ${column} < ${literal(to)}`;
  const stranded = defaultPartition ? (await tx.query(`SELECT 1 AS found FROM ${ident(defaultPartition)} WHERE ${range} LIMIT 1`)).length : 0;
  if (!stranded) {
    await tx.execute(`CREATE TABLE IF NOT EXISTS ${ident(into)} PARTITION OF ${parent} FOR VALUES FROM (${literal(from)}) TO (${literal(to)})`);
    return;
  }
  const fallback = ident(defaultPartition!);
  await tx.execute(`ALTER TABLE ${parent} DETACH PARTITION ${fallback}`);
  await tx.execute(`CREATE TABLE ${ident(into)} PARTITION OF ${parent} FOR VALUES FROM (${literal(from)}) TO (${literal(to)})`);
  await tx.execute(`INSERT INTO ${ident(into)} SELECT * FROM ${fallback} WHERE ${range}`);
  await tx.execute(`DELETE FROM ${fallback} WHERE ${range}`);
  await tx.execute(`ALTER TABLE ${parent} ATTACH PARTITION ${fallback} DEFAULT`);
}

export interface EnsurePartitionsOptions {
  /** Periods made ahead of the current one (default: 7 days or 2 months). */
  ahead?: number;
  now?: Date;
}

/**
 * Makes sure the DEFAULT partition exists and that every period from the current one to `ahead`
 * periods after it has its partition. Returns the partitions it created. Idempotent.
 */
export async function ensurePartitions(db: PartitionDatabase, spec: PartitionedTable, options: EnsurePartitionsOptions = {}): Promise<string[]> {
  const ahead = options.ahead ?? (spec.period === 'day' ? 7 : 2);
  const now = options.now ?? new Date();
  return inMaintenanceTransaction(db, spec.table, async (tx) => {
    const created: string[] = [];
    const existing = await partitionsOf(tx, spec.table);
    let fallback = existing.find((p) => p.from === null)?.name ?? null;
    if (!fallback) {
      fallback = `${spec.table}_default`;
      await tx.execute(`CREATE TABLE ${ident(fallback)} PARTITION OF ${ident(spec.table)} DEFAULT`);
      created.push(fallback);
    }
    const covered = existing.filter((p) => p.from !== null);
    let start = periodStart(now, spec.period);
    for (let i = 0; i <= ahead; i += 1) {
      const end = nextPeriod(start, spec.period);
      const overlaps = covered.some((p) => p.from! < end && p.to! > start);
      if (!overlaps) {
        const name = partitionName(spec.table, start, spec.period);
        await addPartition(tx, spec, name, start, end, fallback);
        created.push(name);
      }
      start = end;
    }
    return created;
  });
}

export interface RetiredPartitions {
  /** Partitions detached and attached to the archive table. */
  archived: string[];
  /** Partitions detached and dropped. */
  dropped: string[];
}

/**
 * Detaches every partition that ends at or before `cutoff` (all its rows are older): attached to
 * the archive table when the spec names one, dropped otherwise. Rows of a partially expired
 * partition stay; deleteRowsBefore handles those where the retention needs it. Detaching fires no
 * DELETE trigger, so rollups kept by triggers keep what happened.
 */
export async function retirePartitions(db: PartitionDatabase, spec: PartitionedTable, cutoff: Date): Promise<RetiredPartitions> {
  return inMaintenanceTransaction(db, spec.table, async (tx) => {
    const retired: RetiredPartitions = { archived: [], dropped: [] };
    const archiveDefault = spec.archiveTable ? (await partitionsOf(tx, spec.archiveTable)).find((p) => p.from === null)?.name ?? null : null;
    for (const partition of await partitionsOf(tx, spec.table)) {
      if (partition.from === null || partition.to === null || partition.to > cutoff) continue;
      await tx.execute(`ALTER TABLE ${ident(spec.table)} DETACH PARTITION ${ident(partition.name)}`);
      if (spec.archiveTable) {
        if (archiveDefault) {
          // Rows archived one by one earlier (a shorter organization retention) wait in the archive's
          // DEFAULT partition: they join their period's partition, or the attach would be refused.
          const range = `${ident(spec.column)} >= ${literal(partition.from)} AND ${ident(spec.column)} < ${literal(partition.to)}`;
          await tx.execute(`INSERT INTO ${ident(partition.name)} SELECT * FROM ${ident(archiveDefault)} WHERE ${range}`);
          await tx.execute(`DELETE FROM ${ident(archiveDefault)} WHERE ${range}`);
        }
        await tx.execute(`ALTER TABLE ${ident(spec.archiveTable)} ATTACH PARTITION ${ident(partition.name)} FOR VALUES FROM (${literal(partition.from)}) TO (${literal(partition.to)})`);
        retired.archived.push(partition.name);
      } else {
        await tx.execute(`DROP TABLE ${ident(partition.name)}`);
        retired.dropped.push(partition.name);
      }
    }
    return retired;
  });
}

export interface DeleteRowsOptions {
  /** Only rows of this organization (column organization_id); all organizations when absent. */
  organizationId?: string;
  /** Organizations left out (they have a retention of their own). */
  exceptOrganizations?: string[];
  /** Rows per statement, so no statement holds its locks long. Default 5,000. */
  batchSize?: number;
}

/**
 * Deletes the rows older than `cutoff` (moving them to the archive table when the spec names one; a
 * row the archive already holds, a redelivered copy stored again after its month was archived, is
 * just deleted),
 * by primary key (id plus the partition key) in batches. For what retirePartitions cannot do: a
 * partition whose newest rows are still within retention, an organization whose retention is
 * shorter than the longest, rows a late delivery put in the DEFAULT partition.
 */
export async function deleteRowsBefore(db: PartitionDatabase, spec: PartitionedTable, cutoff: Date, options: DeleteRowsOptions = {}): Promise<number> {
  const batchSize = options.batchSize ?? 5_000;
  const table = ident(spec.table);
  const column = ident(spec.column);
  const conditions = [`${column} < $1`];
  const values: unknown[] = [cutoff];
  if (options.organizationId) {
    values.push(options.organizationId);
    conditions.push(`"organization_id" = $${values.length}::uuid`);
  }
  if (options.exceptOrganizations && options.exceptOrganizations.length > 0) {
    values.push(options.exceptOrganizations);
    conditions.push(`"organization_id" <> ALL($${values.length}::uuid[])`);
  }
  values.push(batchSize);
  const picked = `SELECT "id", ${column} FROM ${table} WHERE ${conditions.join(' AND ')} LIMIT $${values.length}`;
  const statement = spec.archiveTable
    ? `WITH moved AS (DELETE FROM ${table} WHERE ("id", ${column}) IN (${picked}) RETURNING *)
       INSERT INTO ${ident(spec.archiveTable)} SELECT * FROM moved ON CONFLICT DO NOTHING`
    : `DELETE FROM ${table} WHERE ("id", ${column}) IN (${picked})`;
  let total = 0;
  for (;;) {
    const count = await db.execute(statement, values);
    total += count;
    if (count < batchSize) return total;
  }
}

export interface RetentionPolicy {
  /** Days a row is kept unless its organization has its own retention. */
  defaultDays: number;
  /** Organizations with their own retention, shorter or longer than the default. */
  organizations?: ReadonlyArray<{ organizationId: string; days: number }>;
  /**
   * Days a row is kept in the spec's archive table, counted like the live retention from the row's
   * own time: past it, archive partitions are dropped whole and archived rows deleted in batches.
   * Absent or null: archived rows stay. Only for a spec with an archive table.
   */
  archiveDays?: number | null;
}

export interface RetentionResult extends RetiredPartitions {
  /** Rows deleted (or moved to the archive) one by one. */
  rows: number;
  /** With archiveDays: archive partitions past it, dropped. */
  droppedArchivePartitions: string[];
  /** With archiveDays: archived rows past it deleted one by one (the rest of a period, rows archived singly). */
  deletedArchivedRows: number;
}

/**
 * Applies a retention policy. A partition holds every organization's rows, so whole partitions go
 * only past the LONGEST retention of the policy; past their own, shorter retention the rows of the
 * other organizations are deleted (or archived) row by row, by the same batched statements. With no
 * per-organization retention that row pass only meets what a partition boundary left (the rest of
 * a day, or of a month) and late arrivals in the DEFAULT partition.
 */
export async function applyRetention(db: PartitionDatabase, spec: PartitionedTable, policy: RetentionPolicy, now = new Date()): Promise<RetentionResult> {
  const archiveDays = policy.archiveDays ?? null;
  if (archiveDays !== null && !spec.archiveTable) throw new Error(`${spec.table} has no archive table: a retention policy for it cannot set archiveDays`);
  const cutoffOf = (days: number) => new Date(now.getTime() - days * DAY_MS);
  const own = policy.organizations ?? [];
  const longest = Math.max(policy.defaultDays, ...own.map((o) => o.days));
  const retired = await retirePartitions(db, spec, cutoffOf(longest));
  let rows = await deleteRowsBefore(db, spec, cutoffOf(policy.defaultDays), { exceptOrganizations: own.map((o) => o.organizationId) });
  for (const organization of own) {
    rows += await deleteRowsBefore(db, spec, cutoffOf(organization.days), { organizationId: organization.organizationId });
  }
  if (archiveDays === null || !spec.archiveTable) return { ...retired, rows, droppedArchivePartitions: [], deletedArchivedRows: 0 };
  // The archive is partitioned as the live table is (see PartitionedTable.archiveTable), and has no archive of its own.
  const archive: PartitionedTable = { table: spec.archiveTable, column: spec.column, period: spec.period };
  const archiveCutoff = cutoffOf(archiveDays);
  const droppedArchivePartitions = (await retirePartitions(db, archive, archiveCutoff)).dropped;
  const deletedArchivedRows = await deleteRowsBefore(db, archive, archiveCutoff);
  return { ...retired, rows, droppedArchivePartitions, deletedArchivedRows };
}
