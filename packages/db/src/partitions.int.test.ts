import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { pgPool } from './adapter';
import { ensureDatabase } from './database';
import { applyRetention, ensurePartitions, listPartitions, pgPartitionDatabase, retirePartitions, type PartitionDatabase, type PartitionedTable } from './partitions';

const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/patchbay_test';
const schema = `partitions_test_${process.pid}`;
const NOW = new Date('2026-11-29T12:00:00Z');
const day = (iso: string) => new Date(`${iso}T06:00:00Z`);

describe('time partitions', () => {
  let admin: pg.Client;
  let pool: pg.Pool;
  let db: PartitionDatabase;
  const events: PartitionedTable = { table: 'events', column: 'created_at', period: 'month', archiveTable: 'events_archive' };
  const calls: PartitionedTable = { table: 'calls', column: 'occurred_at', period: 'day' };

  async function insertEvent(organizationId: string, at: Date): Promise<string> {
    const id = randomUUID();
    await pool.query(`INSERT INTO events (id, organization_id, created_at) VALUES ($1, $2, $3)`, [id, organizationId, at]);
    return id;
  }
  const count = async (sql: string, values: unknown[] = []) => Number((await pool.query<{ n: string }>(sql, values)).rows[0]!.n);

  beforeAll(async () => {
    await ensureDatabase(databaseUrl);
    admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    pool = pgPool(databaseUrl, schema, 3);
    db = pgPartitionDatabase(pool);
    await pool.query(`
      CREATE TABLE events (id uuid NOT NULL, organization_id uuid NOT NULL, created_at timestamptz(3) NOT NULL, PRIMARY KEY (id, created_at)) PARTITION BY RANGE (created_at);
      CREATE INDEX ON events (organization_id, created_at DESC, id DESC);
      CREATE TABLE events_archive (id uuid NOT NULL, organization_id uuid NOT NULL, created_at timestamptz(3) NOT NULL, PRIMARY KEY (id, created_at)) PARTITION BY RANGE (created_at);
      CREATE TABLE events_archive_default PARTITION OF events_archive DEFAULT;
      CREATE TABLE calls (id uuid NOT NULL, organization_id uuid NOT NULL, occurred_at timestamptz NOT NULL, PRIMARY KEY (id, occurred_at)) PARTITION BY RANGE (occurred_at);
      CREATE TABLE call_days (day date PRIMARY KEY, calls int NOT NULL);
      CREATE FUNCTION count_calls() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        INSERT INTO call_days SELECT (occurred_at AT TIME ZONE 'UTC')::date, count(*) FROM new_rows GROUP BY 1
        ON CONFLICT (day) DO UPDATE SET calls = call_days.calls + EXCLUDED.calls; RETURN NULL; END $$;
      CREATE TRIGGER calls_counted AFTER INSERT ON calls REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_calls();`);
  });
  afterAll(async () => {
    await pool.end();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  it('creates the default partition and the partitions ahead, once', async () => {
    expect(await ensurePartitions(db, calls, { now: NOW, ahead: 3 })).toEqual(['calls_default', 'calls_p20261129', 'calls_p20261130', 'calls_p20261201', 'calls_p20261202']);
    expect(await ensurePartitions(db, calls, { now: NOW, ahead: 3 })).toEqual([]);
    const partitions = await listPartitions(db, 'calls');
    expect(partitions[0]).toEqual({ name: 'calls_default', from: null, to: null });
    expect(partitions[1]).toEqual({ name: 'calls_p20261129', from: new Date('2026-11-29T00:00:00Z'), to: new Date('2026-11-30T00:00:00Z') });
    expect(await ensurePartitions(db, events, { now: NOW })).toEqual(['events_default', 'events_p202611', 'events_p202612', 'events_p202701']);
  });

  it('stores a row for a time no partition covers in the default partition, and moves it when its partition is made', async () => {
    const id = randomUUID();
    await pool.query(`INSERT INTO calls (id, organization_id, occurred_at) VALUES ($1, $2, '2026-12-20T10:00:00Z')`, [id, randomUUID()]);
    expect(await count(`SELECT count(*) AS n FROM calls_default WHERE id = $1`, [id])).toBe(1);
    await ensurePartitions(db, calls, { now: new Date('2026-12-19T00:00:00Z'), ahead: 2 });
    expect(await count(`SELECT count(*) AS n FROM calls_p20261220 WHERE id = $1`, [id])).toBe(1);
    expect(await count(`SELECT count(*) AS n FROM calls_default`)).toBe(0);
    // Moving rows between partitions is not a new call: the statement trigger on the parent counted it once.
    expect(await count(`SELECT calls AS n FROM call_days WHERE day = '2026-12-20'`)).toBe(1);
  });

  it('keeps one row per id and time under ON CONFLICT DO NOTHING on the partitioned key', async () => {
    const id = randomUUID();
    const insert = `INSERT INTO calls (id, organization_id, occurred_at) VALUES ($1, $2, '2026-11-29T13:00:00Z') ON CONFLICT (id, occurred_at) DO NOTHING`;
    const organization = randomUUID();
    expect((await pool.query(insert, [id, organization])).rowCount).toBe(1);
    expect((await pool.query(insert, [id, organization])).rowCount).toBe(0);
    expect(await count(`SELECT calls AS n FROM call_days WHERE day = '2026-11-29'`)).toBe(1);
  });

  it('drops whole partitions past retention without touching the rollup, and deletes what a partition boundary leaves', async () => {
    const organization = randomUUID();
    await pool.query(`INSERT INTO calls (id, organization_id, occurred_at) VALUES ($1, $2, '2026-12-01T01:00:00Z'), ($3, $2, '2026-12-01T23:00:00Z')`, [randomUUID(), organization, randomUUID()]);
    const result = await applyRetention(db, calls, { defaultDays: 1 }, new Date('2026-12-02T12:00:00Z'));
    expect(result.dropped).toEqual(['calls_p20261129', 'calls_p20261130']);
    // 2026-12-01 ends after the cutoff (12-01 12:00): its partition stays, its morning row goes.
    expect(result.rows).toBe(1);
    expect(await count(`SELECT count(*) AS n FROM calls WHERE organization_id = $1`, [organization])).toBe(1);
    expect(await count(`SELECT calls AS n FROM call_days WHERE day = '2026-11-29'`)).toBe(1);
  });

  it('archives instead of dropping, and applies each organization its own retention', async () => {
    const short = randomUUID();
    const long = randomUUID();
    const usual = randomUUID();
    const rows = {
      shortOld: await insertEvent(short, day('2026-11-02')),
      shortRecent: await insertEvent(short, day('2026-11-25')),
      longOld: await insertEvent(long, day('2026-11-02')),
      usualOld: await insertEvent(usual, day('2026-11-02')),
      usualRecent: await insertEvent(usual, day('2026-11-25')),
    };
    // Default 20 days, one organization 10, another 60: the November partition cannot go (60 days keeps
    // it), so the short and usual organizations' old rows move to the archive one by one.
    const first = await applyRetention(db, events, { defaultDays: 20, organizations: [{ organizationId: short, days: 10 }, { organizationId: long, days: 60 }] }, NOW);
    expect(first).toEqual({ archived: [], dropped: [], rows: 2, droppedArchivePartitions: [], deletedArchivedRows: 0 });
    const live = (await pool.query<{ id: string }>(`SELECT id FROM events ORDER BY created_at, id`)).rows.map((r) => r.id).sort();
    expect(live).toEqual([rows.shortRecent, rows.longOld, rows.usualRecent].sort());
    expect(await count(`SELECT count(*) AS n FROM events_archive WHERE id = ANY($1::uuid[])`, [[rows.shortOld, rows.usualOld]])).toBe(2);

    // Two months later the November partition is past every retention: it joins the archive whole,
    // with the rows archived one by one before it.
    const later = new Date('2027-02-05T00:00:00Z');
    const second = await applyRetention(db, events, { defaultDays: 20, organizations: [{ organizationId: short, days: 10 }, { organizationId: long, days: 60 }] }, later);
    expect(second.archived).toEqual(['events_p202611']);
    expect(await count(`SELECT count(*) AS n FROM events WHERE created_at < '2026-12-01'`)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM events_archive WHERE id = ANY($1::uuid[])`, [Object.values(rows)])).toBe(5);
    expect(await count(`SELECT count(*) AS n FROM events_archive_default`)).toBe(0);
    expect((await listPartitions(db, 'events_archive')).map((p) => p.name)).toEqual(['events_archive_default', 'events_p202611']);

    // The archive has its own, longer retention (archiveDays): past it, its partitions are dropped, not
    // archived again, and rows it holds singly (in its DEFAULT partition) are deleted.
    const singly = randomUUID();
    await pool.query(`INSERT INTO events_archive (id, organization_id, created_at) VALUES ($1, $2, '2026-12-10T00:00:00Z')`, [singly, usual]);
    // (A live retention long enough to leave December's partition live for the next test.)
    const policy = { defaultDays: 400, archiveDays: 365 };
    const third = await applyRetention(db, events, policy, new Date('2028-01-01T00:00:00Z'));
    expect(third).toEqual({ archived: [], dropped: [], rows: 0, droppedArchivePartitions: ['events_p202611'], deletedArchivedRows: 1 });
    expect(await count(`SELECT count(*) AS n FROM events_archive`)).toBe(0);
    expect(await retirePartitions(db, { table: 'events_archive', column: 'created_at', period: 'month' }, new Date('2028-01-01T00:00:00Z'))).toEqual({ archived: [], dropped: [] });
    // A table without an archive has no archive retention to apply.
    await expect(applyRetention(db, calls, { defaultDays: 1, archiveDays: 30 }, NOW)).rejects.toThrow('calls has no archive table');
  });

  it('prunes partitions for a time-bounded page and reads it by index', async () => {
    const organization = randomUUID();
    for (let i = 0; i < 50; i += 1) await insertEvent(organization, new Date(Date.parse('2026-12-10T00:00:00Z') + i * 3_600_000));
    // A test table is small enough for a sequential scan to win: forbid it to see that the index serves the page.
    const client = await pool.connect();
    await client.query('BEGIN');
    await client.query('SET LOCAL enable_seqscan = off');
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (COSTS OFF) SELECT id, created_at FROM events WHERE organization_id = $1 AND created_at >= '2026-12-01' AND created_at < '2026-12-12'
       ORDER BY created_at DESC, id DESC LIMIT 20`,
      [organization],
    );
    await client.query('ROLLBACK');
    client.release();
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/Index (Only )?Scan/);
    expect(plan).toContain('events_p202612');
    expect(plan).not.toContain('events_p202701');
    expect(plan).not.toContain('events_default');
  });
});
