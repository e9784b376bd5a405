import { readFileSync } from 'node:fs';
import type { Client } from 'pg';
import type Redis from 'ioredis';

/**
 * The counters pnpm bench capacity reads before and after each request kind: CPU of each process from
 * /proc, Redis's INFO commandstats, PostgreSQL's pg_stat_database for the bench's own database, and the
 * on-disk size and row count of the tables that grow with requests. Snapshots are plain data, so a
 * difference of two is a plain function (and testable without any server).
 */

/** CPU microseconds (user + system) a process has used so far, from /proc/<pid>/stat; null when it is gone. */
export function processCpuUs(pid: number): number | null {
  try {
    return parseProcStatCpuUs(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** utime + stime of a /proc/<pid>/stat line, in microseconds (clock ticks are 1/100 s on Linux). */
export function parseProcStatCpuUs(stat: string): number {
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of proc(5); after the name, index 11 and 12.
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** calls per command from INFO commandstats (`cmdstat_get:calls=3,usec=...`). */
export function parseCommandStats(info: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const line of info.split(/\r?\n/)) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line);
    if (m) calls.set(m[1]!, Number(m[2]));
  }
  return calls;
}

/** Commands run between two commandstats readings, by command (commands that did not run left out). */
export function commandDelta(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const delta = new Map<string, number>();
  for (const [command, calls] of after) {
    const ran = calls - (before.get(command) ?? 0);
    if (ran > 0) delta.set(command, ran);
  }
  return delta;
}

export function sumOf(values: Iterable<number>): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

/** The pg_stat_database columns the bench reports: transactions and rows touched. */
export interface PgDatabaseStats {
  xactCommit: number;
  xactRollback: number;
  tupReturned: number;
  tupFetched: number;
  tupInserted: number;
  tupUpdated: number;
  tupDeleted: number;
}

export const PG_STAT_FIELDS: Array<keyof PgDatabaseStats> = ['xactCommit', 'xactRollback', 'tupReturned', 'tupFetched', 'tupInserted', 'tupUpdated', 'tupDeleted'];

export async function readPgDatabaseStats(db: Client): Promise<PgDatabaseStats> {
  // A fresh snapshot each time: within a transaction PostgreSQL would serve the first one again.
  await db.query('SELECT pg_stat_clear_snapshot()');
  const res = await db.query<Record<string, string>>(
    `SELECT xact_commit, xact_rollback, tup_returned, tup_fetched, tup_inserted, tup_updated, tup_deleted
       FROM pg_stat_database WHERE datname = current_database()`,
  );
  const row = res.rows[0];
  if (!row) throw new Error('pg_stat_database has no row for the bench database');
  return {
    xactCommit: Number(row.xact_commit),
    xactRollback: Number(row.xact_rollback),
    tupReturned: Number(row.tup_returned),
    tupFetched: Number(row.tup_fetched),
    tupInserted: Number(row.tup_inserted),
    tupUpdated: Number(row.tup_updated),
    tupDeleted: Number(row.tup_deleted),
  };
}

export function pgDelta(before: PgDatabaseStats, after: PgDatabaseStats): PgDatabaseStats {
  const out = { ...after };
  for (const field of PG_STAT_FIELDS) out[field] = after[field] - before[field];
  return out;
}

/**
 * pg_stat_database once every backend has reported: a backend holds its counters while busy and sends
 * them once idle, within PostgreSQL's idle interval (10 s, PGSTAT_IDLE_INTERVAL in PostgreSQL 15+), and
 * no other session can make it send them sooner. So the reading waits that long first; the services'
 * own polling meanwhile is part of the idle baseline the bench takes off.
 */
export async function settledPgStats(db: Client, waitMs = 11_000): Promise<PgDatabaseStats> {
  await new Promise((r) => setTimeout(r, waitMs));
  return readPgDatabaseStats(db);
}

/** Bytes on disk (tables, their indexes and TOAST) of every table of a schema. */
export async function schemaBytes(db: Client, schema: string): Promise<number> {
  const size = await db.query<{ bytes: string }>(
    `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')`,
    [schema],
  );
  return Number(size.rows[0]?.bytes);
}

/**
 * Rows ever inserted into the named tables (and their partitions, should they be partitioned: a plain
 * table has no partition tree, hence the table itself beside it), from
 * pg_stat_user_tables: counting them with count(*) would scan the tables and add the bench's own reads
 * to the figures it reports.
 */
export async function rowsInserted(db: Client, schema: string, tables: string[]): Promise<number> {
  await db.query('SELECT pg_stat_clear_snapshot()');
  const res = await db.query<{ n: string | null }>(
    `WITH tables AS (SELECT to_regclass(quote_ident($1) || '.' || quote_ident(name)) AS rel FROM unnest($2::text[]) AS name)
     SELECT sum(s.n_tup_ins)::bigint AS n
       FROM pg_stat_user_tables s
      WHERE s.relid IN (SELECT rel FROM tables UNION SELECT tree.relid FROM tables CROSS JOIN LATERAL pg_partition_tree(tables.rel) AS tree)`,
    [schema, tables],
  );
  return Number(res.rows[0]?.n ?? 0);
}

export async function commandStats(redis: Redis): Promise<Map<string, number>> {
  return parseCommandStats(await redis.info('commandstats'));
}

/** A process or a set of them (PostgreSQL's backends of the bench database come and go with pools). */
export type CpuWatched = { name: string; pid: number } | { name: string; pids: () => Promise<number[]> };

export type CpuSnapshot = Map<string, Map<number, number>>;

export async function cpuSnapshot(watched: CpuWatched[]): Promise<CpuSnapshot> {
  const snapshot: CpuSnapshot = new Map();
  for (const w of watched) {
    const pids = 'pid' in w ? [w.pid] : await w.pids();
    const used = new Map<number, number>();
    for (const pid of pids) {
      const cpu = processCpuUs(pid);
      if (cpu !== null) used.set(pid, cpu);
    }
    snapshot.set(w.name, used);
  }
  return snapshot;
}

/**
 * CPU µs used between two snapshots, by name: a process present at both ends counts its difference, one
 * that appeared in between counts in full, one that exited in between is lost (a pool's closed backend).
 */
export function cpuDelta(before: CpuSnapshot, after: CpuSnapshot): Map<string, number> {
  const delta = new Map<string, number>();
  for (const [name, pids] of after) {
    let used = 0;
    for (const [pid, cpu] of pids) used += cpu - (before.get(name)?.get(pid) ?? 0);
    delta.set(name, used);
  }
  return delta;
}
