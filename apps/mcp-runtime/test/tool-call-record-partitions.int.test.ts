import { randomUUID } from 'node:crypto';
import type { KeyPrincipal } from '@patchbay/auth';
import { applyMigrations, listPartitions, migrationsBefore, pgAdapter, pgPartitionDatabase, pgPool, prismaOnPool } from '@patchbay/db';
import type { ToolCallRecordJob } from '@patchbay/queues';
import { TEST_DATABASE_URL } from '@patchbay/testing';
import { DB_SCHEMA, MIGRATIONS_DIR } from '../src/config';
import { createDatabase, type Database, type Db } from '../src/db';
import { ToolCallRecordService, ensureToolCallRecordPartitions, storeToolCallRecords, sweepExpiredRecords } from '../src/domain/tool-call-records';
import { PrismaClient } from '../src/generated/prisma/client';

const DAY_MS = 86_400_000;
const CONVERSION = '20261129065000_partition_tool_call_records';

function job(overrides: Partial<ToolCallRecordJob> = {}): ToolCallRecordJob {
  return {
    event_id: randomUUID(), organization_id: randomUUID(), environment: 'production', tool_pack_id: randomUUID(), registered_user_id: randomUUID(),
    access_key_id: randomUUID(), tool_name: 'github__list_issues', connector_slug: 'github', status: 'success', duration_ms: 12, credits: 1,
    billing_cycle: new Date().toISOString().slice(0, 7), overage: false, detections: [], error_code: null, occurred_at: new Date().toISOString(),
    ...overrides,
  };
}

const principalOf = (organizationId: string) => ({ keyId: randomUUID(), organizationId, environment: 'production', scopes: ['management:all'], toolPackIds: null, registeredUserIds: null }) as unknown as KeyPrincipal;
const utcDay = (at: Date) => at.toISOString().slice(0, 10).replace(/-/g, '');

let database: Database;
let db: Db;
let admin: ReturnType<typeof pgPool>;
beforeAll(async () => {
  database = createDatabase(TEST_DATABASE_URL, 2);
  db = database.prisma;
  admin = pgPool(TEST_DATABASE_URL, 'public', 1);
});
afterAll(async () => {
  await database.close();
  await admin.end();
});

describe('tool-call records are partitioned by day', () => {
  it('the partitions of the coming week exist, and a record for a day without one lands in the DEFAULT partition', async () => {
    await ensureToolCallRecordPartitions(db);
    const pool = pgPool(TEST_DATABASE_URL, DB_SCHEMA, 1);
    const names = (await listPartitions(pgPartitionDatabase(pool), 'tool_call_records')).map((p) => p.name);
    await pool.end();
    for (let i = 0; i <= 7; i += 1) expect(names).toContain(`tool_call_records_p${utcDay(new Date(Date.now() + i * DAY_MS))}`);
    expect(names).toContain('tool_call_records_default');

    // Three weeks ahead (a clock far off on some producer): no partition yet, the row is still stored.
    const early = job({ occurred_at: new Date(Date.now() + 21 * DAY_MS).toISOString() });
    expect(await storeToolCallRecords(database, [early], 90)).toEqual(['stored']);
    const { rows } = await admin.query(`SELECT tableoid::regclass::text AS partition FROM ${DB_SCHEMA}.tool_call_records WHERE id = $1`, [early.event_id]);
    expect(rows).toEqual([{ partition: 'mcp_runtime.tool_call_records_default' }]);
    await admin.query(`DELETE FROM ${DB_SCHEMA}.tool_call_records WHERE id = $1`, [early.event_id]);
  });

  it('a redelivered record is stored and counted in the daily usage once', async () => {
    const organizationId = randomUUID();
    const record = job({ organization_id: organizationId });
    expect(await storeToolCallRecords(database, [record], 90)).toEqual(['stored']);
    expect(await storeToolCallRecords(database, [record, { ...record }], 90)).toEqual(['duplicate', 'duplicate']);
    expect(await db.toolCallRecord.count({ where: { id: record.event_id } })).toBe(1);
    const usage = await db.toolCallDailyUsage.findMany({ where: { organizationId } });
    expect(usage.map((u) => u.toolCalls)).toEqual([1]);
  });

  it('stores through one statement each connection plans once, and still into a day partition made after the plan', async () => {
    const one = createDatabase(TEST_DATABASE_URL, 1);
    // Past the week made ahead, so its partitions are made only after the statement was planned.
    const farther = new Date(Date.now() + 40 * DAY_MS);
    try {
      for (let i = 0; i < 6; i += 1) expect(await storeToolCallRecords(one, [job(), job()], 90)).toEqual(['stored', 'stored']);
      await ensureToolCallRecordPartitions(one.prisma, farther);
      const later = job({ occurred_at: farther.toISOString() });
      expect(await storeToolCallRecords(one, [later], 90)).toEqual(['stored']);
      const { rows } = await one.sql.query(`SELECT tableoid::regclass::text AS partition FROM tool_call_records WHERE id = $1`, [later.event_id]);
      expect(rows).toEqual([{ partition: `tool_call_records_p${utcDay(farther)}` }]);
      // The connection kept the statement: PostgreSQL parsed it once and ran it for each of the seven batches.
      const prepared = await one.sql.query(`SELECT (generic_plans + custom_plans)::int AS runs FROM pg_prepared_statements WHERE name = 'mcp_store_tool_call_records'`, []);
      expect(prepared.rows).toEqual([{ runs: 7 }]);
    } finally {
      await one.close();
      for (let i = 0; i <= 7; i += 1) await admin.query(`DROP TABLE IF EXISTS ${DB_SCHEMA}.tool_call_records_p${utcDay(new Date(farther.getTime() + i * DAY_MS))}`);
    }
  });

  it('the sweep moves the days past retention whole to the archive and keeps their calls in the daily usage', async () => {
    const organizationId = randomUUID();
    const now = Date.now();
    const old = job({ organization_id: organizationId, occurred_at: new Date(now - 89 * DAY_MS).toISOString() });
    const fresh = job({ organization_id: organizationId, occurred_at: new Date(now - DAY_MS).toISOString() });
    // 89 days back has no partition of its own here (none is made backwards): make it, as the conversion did for old rows.
    const oldDay = new Date(Math.floor((now - 89 * DAY_MS) / DAY_MS) * DAY_MS);
    // A rerun the same day finds it in the archive, where the earlier run's sweep moved it: start again from a live day.
    await admin.query(`DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent WHERE i.inhrelid = to_regclass('${DB_SCHEMA}.tool_call_records_p${utcDay(oldDay)}') AND p.relname = 'tool_call_record_archive') THEN DROP TABLE ${DB_SCHEMA}.tool_call_records_p${utcDay(oldDay)}; END IF; END $$`);
    await admin.query(`CREATE TABLE IF NOT EXISTS ${DB_SCHEMA}.tool_call_records_p${utcDay(oldDay)} PARTITION OF ${DB_SCHEMA}.tool_call_records FOR VALUES FROM ('${oldDay.toISOString()}') TO ('${new Date(oldDay.getTime() + DAY_MS).toISOString()}')`);
    expect(await storeToolCallRecords(database, [old, fresh], 90, new Date(now))).toEqual(['stored', 'stored']);

    // Three days later the old record's whole day is past the 90 days: its partition moves to the archive.
    const result = await sweepExpiredRecords(db, 90, new Date(now + 3 * DAY_MS));
    expect(result.archived).toContain(`tool_call_records_p${utcDay(oldDay)}`);
    const left = await db.toolCallRecord.findMany({ where: { organizationId }, select: { id: true } });
    expect(left.map((r) => r.id)).toEqual([fresh.event_id]);
    const usage = await db.toolCallDailyUsage.aggregate({ where: { organizationId }, _sum: { toolCalls: true } });
    expect(usage._sum.toolCalls).toBe(2);
  });

  it('a page of the list endpoint reads only the partitions of its time filter, by index', async () => {
    const organizationId = randomUUID();
    const now = Date.now();
    await storeToolCallRecords(database, Array.from({ length: 30 }, (_, i) => job({ organization_id: organizationId, occurred_at: new Date(now - (i % 3) * DAY_MS).toISOString() })), 90);
    // The exact statement Prisma sends for GET /api/v1/tool-call-records/?created_after=... (a cursor page), then its plan.
    const statements: Array<{ query: string; params: string }> = [];
    const logged = new PrismaClient({ adapter: pgAdapter(TEST_DATABASE_URL, DB_SCHEMA, 1), log: [{ emit: 'event', level: 'query' }] });
    logged.$on('query', (e) => statements.push({ query: e.query, params: e.params }));
    const service = new ToolCallRecordService(logged as unknown as Db);
    const first = await service.list(principalOf(organizationId), { created_after: new Date(now - DAY_MS - 60_000).toISOString() }, undefined, 5);
    await service.list(principalOf(organizationId), { created_after: new Date(now - DAY_MS - 60_000).toISOString() }, first.next ?? undefined, 5);
    await logged.$disconnect();
    const page = statements.filter((s) => s.query.includes('tool_call_records')).at(-1)!;
    const plan = (await db.$transaction(async (tx) => {
      // The table is small here; forbid sequential scans to see what serves the page at volume.
      await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
      return tx.$queryRawUnsafe<Array<{ 'QUERY PLAN': string }>>(`EXPLAIN ${page.query}`, ...(JSON.parse(page.params) as unknown[]));
    })).map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/Index (Only )?Scan/);
    expect(plan).toContain(`tool_call_records_p${utcDay(new Date(now))}`);
    expect(plan).not.toContain(`tool_call_records_p${utcDay(new Date(now - 2 * DAY_MS))}`);
    // The cursor's keyset bound prunes the days after the page too (the week made ahead).
    expect(plan).not.toContain(`tool_call_records_p${utcDay(new Date(now + 3 * DAY_MS))}`);
    expect(plan).not.toMatch(/Seq Scan/);
  });
});

describe('the conversion to a partitioned table keeps every record', () => {
  const schema = `mcp_runtime_conversion_${process.pid}`;
  const pool = pgPool(TEST_DATABASE_URL, schema, 2);
  afterAll(async () => {
    await pool.end();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });

  it('moves rows across several months into their days, keeps the daily usage, and the tables work after it', async () => {
    await applyMigrations({ databaseUrl: TEST_DATABASE_URL, schema, migrationsDir: await migrationsBefore(MIGRATIONS_DIR, CONVERSION) });
    const organizationId = randomUUID();
    const now = Date.now();
    // 40 records over the last 100 days (four months), inserted as the runtime did before: the trigger counts them per day.
    const jobs = Array.from({ length: 40 }, (_, i) => job({ organization_id: organizationId, status: i % 4 === 0 ? 'error' : 'success', occurred_at: new Date(now - i * 2.5 * DAY_MS).toISOString(), arguments: { i }, result: { content: [{ type: 'text', text: `r${i}` }] } }));
    const before = new PrismaClient({ adapter: pgAdapter(TEST_DATABASE_URL, schema, 1) });
    // The pre-conversion INSERT (ON CONFLICT ("id")) is what ran then; storeToolCallRecords is today's, so insert by SQL.
    for (const j of jobs) {
      await pool.query(
        `INSERT INTO tool_call_records (id, organization_id, environment, tool_pack_id, registered_user_id, access_key_id, tool_name, connector_slug, status, error_code, duration_ms, credits, billing_cycle, overage, detections, occurred_at, arguments, result)
         VALUES ($1, $2, 'production', $3, $4, $5, $6, $7, $8::"ToolCallStatus", NULL, 12, 1, $9, false, '[]', $10, $11, $12)`,
        [j.event_id, j.organization_id, j.tool_pack_id, j.registered_user_id, j.access_key_id, j.tool_name, j.connector_slug, j.status, j.billing_cycle, j.occurred_at, JSON.stringify(j.arguments), JSON.stringify(j.result)],
      );
    }
    const snapshot = async () => (await pool.query(`SELECT to_jsonb(r) AS row FROM tool_call_records r ORDER BY id`)).rows.map((r) => r.row);
    const usageSnapshot = async () => (await pool.query(`SELECT * FROM tool_call_daily_usage WHERE organization_id = $1 ORDER BY day`, [organizationId])).rows;
    const rowsBefore = await snapshot();
    const usageBefore = await usageSnapshot();
    expect(rowsBefore).toHaveLength(40);
    expect(usageBefore.reduce((n, u) => n + u.tool_calls, 0)).toBe(40);
    await before.$disconnect();

    expect((await applyMigrations({ databaseUrl: TEST_DATABASE_URL, schema, migrationsDir: MIGRATIONS_DIR })).applied).toContain(CONVERSION);

    const { rows: kind } = await pool.query(`SELECT c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = 'tool_call_records'`, [schema]);
    expect(kind).toEqual([{ relkind: 'p' }]);
    expect(await snapshot()).toEqual(rowsBefore);
    expect(await usageSnapshot()).toEqual(usageBefore);
    // Each record sits in its own day's partition, none in the DEFAULT one.
    const { rows: placed } = await pool.query(`SELECT id, occurred_at, tableoid::regclass::text AS partition FROM tool_call_records`);
    for (const row of placed) expect(row.partition).toBe(`tool_call_records_p${utcDay(row.occurred_at)}`);

    const after = prismaOnPool((adapter) => new PrismaClient({ adapter }), TEST_DATABASE_URL, schema, 2);
    // New records: stored once, counted once, by the trigger recreated on the partitioned table.
    const fresh = job({ organization_id: organizationId });
    expect(await storeToolCallRecords(after, [fresh], 90)).toEqual(['stored']);
    expect(await storeToolCallRecords(after, [{ ...fresh }], 90)).toEqual(['duplicate']);
    expect((await usageSnapshot()).reduce((n, u) => n + u.tool_calls, 0)).toBe(41);
    // The list reads across the months, newest first, page after page (past the default 90-day window: asked with created_after).
    const service = new ToolCallRecordService(after.prisma);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await service.list(principalOf(organizationId), { created_after: new Date(now - 120 * DAY_MS).toISOString() }, cursor, 15);
      seen.push(...page.results.map((r) => r.id));
      cursor = page.next ?? undefined;
    } while (cursor);
    expect(seen).toEqual([fresh.event_id, ...jobs.map((j) => j.event_id)]);
    expect((await service.get(principalOf(organizationId), jobs[39]!.event_id)).arguments).toEqual({ i: 39 });
    await after.close();
  });
});
