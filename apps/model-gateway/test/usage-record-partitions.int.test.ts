import { randomUUID } from 'node:crypto';
import { applyMigrations, listPartitions, migrationsBefore, pgAdapter, pgPartitionDatabase, pgPool } from '@patchbay/db';
import type { GatewayUsageRecordJob } from '@patchbay/queues';
import { TEST_DATABASE_URL } from '@patchbay/testing';
import { DB_SCHEMA, MIGRATIONS_DIR } from '../src/config';
import type { Db } from '../src/db';
import { PrismaClient } from '../src/generated/prisma/client';
import { readUsage } from '../src/usage/usage-api';
import { readUsageDaily } from '../src/usage/usage-daily';
import { ensureUsageRecordPartitions, storeUsageRecords } from '../src/usage/usage-records';

const DAY_MS = 86_400_000;
const CONVERSION = '20261129071500_partition_usage_records';
const month = (at: Date) => at.toISOString().slice(0, 7).replace('-', '');

function record(overrides: Partial<GatewayUsageRecordJob> = {}): GatewayUsageRecordJob {
  return {
    event_id: randomUUID(), organization_id: randomUUID(), environment: 'production', key_hash: `hash-${randomUUID()}`, project_id: null, customer_id: null,
    surface: 'openai', model: 'gpt-4o-mini', vendor: 'openai', outcome: 'finished', error_code: null, status: 200, stream: false, byok: false,
    input_tokens: 10, cached_input_tokens: 0, cache_write_tokens: 0, output_tokens: 5, reasoning_tokens: 0, usage_estimated: false, cost_micros: 1_000,
    tags: [], latency_ms: 20, ttft_ms: null, spend_epoch: null, counted_at: null, counted_model_request: false, counted_in_rate_limit: false,
    occurred_at: new Date().toISOString(), ...overrides,
  };
}

describe('usage records are partitioned by month', () => {
  const pool = pgPool(TEST_DATABASE_URL, DB_SCHEMA, 2);
  const db = new PrismaClient({ adapter: pgAdapter(TEST_DATABASE_URL, DB_SCHEMA, 1) }) as unknown as Db;
  afterAll(async () => {
    await db.$disconnect();
    await pool.end();
  });

  it('has this month and the next two, a DEFAULT partition, and stores a redelivered record, its daily usage and its key\'s month spend once', async () => {
    await ensureUsageRecordPartitions(db);
    const names = (await listPartitions(pgPartitionDatabase(pool), 'usage_records')).map((p) => p.name);
    const now = new Date();
    for (const ahead of [0, 1, 2]) expect(names).toContain(`usage_records_p${month(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + ahead, 1)))}`);
    expect(names).toContain('usage_records_default');
    // Months later (the consumer's six-hourly run): the partitions of that month and the two after it, on the date column.
    const later = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 3, 15));
    await ensureUsageRecordPartitions(db, later);
    const bounds = (await listPartitions(pgPartitionDatabase(pool), 'usage_records')).find((p) => p.name === `usage_records_p${month(later)}`);
    expect(bounds).toEqual({ name: `usage_records_p${month(later)}`, from: new Date(Date.UTC(later.getUTCFullYear(), later.getUTCMonth(), 1)), to: new Date(Date.UTC(later.getUTCFullYear(), later.getUTCMonth() + 1, 1)) });

    const once = record();
    await storeUsageRecords(pool, [once]);
    await storeUsageRecords(pool, [once]);
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM usage_records WHERE id = $1`, [once.event_id]);
    expect(rows[0].n).toBe(1);
    const daily = await pool.query(`SELECT requests::int FROM usage_daily WHERE organization_id = $1`, [once.organization_id]);
    expect(daily.rows).toEqual([{ requests: 1 }]);
    const spend = await pool.query(`SELECT cost_micros::int FROM key_month_spend WHERE key_hash = $1`, [once.key_hash]);
    expect(spend.rows).toEqual([{ cost_micros: 1_000 }]);
  });

  it('stores through one statement each connection plans once, and still into a partition made after the plan', async () => {
    const one = pgPool(TEST_DATABASE_URL, DB_SCHEMA, 1);
    const now = new Date();
    const farther = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 7, 10));
    const partition = `usage_records_p${month(farther)}`;
    try {
      await storeUsageRecords(one, [record()]);
      await ensureUsageRecordPartitions(db, farther);
      const later = record({ occurred_at: farther.toISOString() });
      await storeUsageRecords(one, [later]);
      const { rows } = await one.query(`SELECT tableoid::regclass::text AS partition FROM usage_records WHERE id = $1`, [later.event_id]);
      expect(rows).toEqual([{ partition }]);
      // The connection kept the statement: PostgreSQL parsed and planned it once, not at every flush.
      const prepared = await one.query(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = 'gateway_store_usage_records'`);
      expect(prepared.rows[0].n).toBe(1);
      await one.query(`DELETE FROM usage_records WHERE id = $1`, [later.event_id]);
    } finally {
      await one.end();
      await pool.query(`DROP TABLE IF EXISTS "${partition}"`);
    }
  });

  it('a usage read of a date range reads only its months\' partitions', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      const { rows } = await client.query(`EXPLAIN SELECT count(*) FROM usage_records r WHERE r.organization_id = $1::uuid AND r.day >= $2::date AND r.day <= $3::date`, [randomUUID(), '2026-11-02', '2026-11-20']);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toContain('usage_records_p202611');
      expect(plan).not.toMatch(/usage_records_p2026(10|12)|usage_records_default/);
      expect(plan).toMatch(/Index (Only )?Scan|Bitmap Index Scan/);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });
});

describe('the conversion of usage_records to a partitioned table', () => {
  const schema = `model_gateway_conversion_${process.pid}`;
  const pool = pgPool(TEST_DATABASE_URL, schema, 2);
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  it('keeps every record, the daily rollup, the keys\' month spend and the usage reads, and the triggers work after it', async () => {
    await applyMigrations({ databaseUrl: TEST_DATABASE_URL, schema, migrationsDir: await migrationsBefore(MIGRATIONS_DIR, CONVERSION) });
    const organizationId = randomUUID();
    const now = Date.now();
    const keyHash = `hash-${randomUUID()}`;
    // 30 records over four months, inserted into the table as it was (its triggers fill usage_daily).
    const olds = Array.from({ length: 30 }, (_, i) => record({ organization_id: organizationId, key_hash: keyHash, model: i % 2 ? 'gpt-4o-mini' : 'claude-sonnet', outcome: i % 5 === 0 ? 'failed' : 'finished', cost_micros: 100 * (i + 1), occurred_at: new Date(now - i * 4 * DAY_MS).toISOString() }));
    for (const r of olds) {
      await pool.query(
        `INSERT INTO usage_records (id, organization_id, environment, key_hash, surface, model, vendor, outcome, status, stream, byok, input_tokens, cached_input_tokens,
           cache_write_tokens, output_tokens, reasoning_tokens, usage_estimated, cost_micros, tags, latency_ms, created_at, day)
         VALUES ($1, $2, 'production', $3, 'openai', $4, 'openai', $5, 200, false, false, 10, 0, 0, 5, 0, false, $6, '[{"key":"team","value":"a"}]', 20, $7, ($7::timestamptz AT TIME ZONE 'UTC')::date)`,
        [r.event_id, organizationId, keyHash, r.model, r.outcome, r.cost_micros, r.occurred_at],
      );
    }
    await pool.query(`INSERT INTO key_month_spend (key_hash, month, organization_id, cost_micros) SELECT key_hash, date_trunc('month', day)::date, organization_id, sum(cost_micros) FROM usage_records GROUP BY 1, 2, 3`);
    const before = new PrismaClient({ adapter: pgAdapter(TEST_DATABASE_URL, schema, 1) }) as unknown as Db;
    const range = { start_date: new Date(now - 130 * DAY_MS).toISOString().slice(0, 10), end_date: new Date(now).toISOString().slice(0, 10) };
    const snapshot = async () => ({
      rows: (await pool.query(`SELECT to_jsonb(r) AS row FROM usage_records r ORDER BY id`)).rows,
      daily: (await pool.query(`SELECT * FROM usage_daily WHERE organization_id = $1 ORDER BY day, model`, [organizationId])).rows,
      spend: (await pool.query(`SELECT * FROM key_month_spend WHERE key_hash = $1 ORDER BY month`, [keyHash])).rows,
      byModel: await readUsage(before, organizationId, { ...range, group_by: 'model' }),
      byTag: await readUsage(before, organizationId, { ...range, group_by: 'tag' }),
      dailyByModel: await readUsageDaily(before, organizationId, { ...range, group_by: 'model' }, new Date(now)),
    });
    const wasBefore = await snapshot();
    expect(wasBefore.rows).toHaveLength(30);

    expect((await applyMigrations({ databaseUrl: TEST_DATABASE_URL, schema, migrationsDir: MIGRATIONS_DIR })).applied).toContain(CONVERSION);
    expect(await snapshot()).toEqual(wasBefore);
    await before.$disconnect();
    const { rows: placed } = await pool.query(`SELECT day, tableoid::regclass::text AS partition FROM usage_records`);
    for (const row of placed) expect(row.partition).toBe(`usage_records_p${month(row.day)}`);

    // Today's INSERT on the converted table: stored once, its day and month counted once.
    const fresh = record({ organization_id: organizationId, key_hash: keyHash, cost_micros: 7 });
    await storeUsageRecords(pool, [fresh]);
    await storeUsageRecords(pool, [fresh]);
    const today = new Date(now).toISOString().slice(0, 10);
    const spend = async () => Number((await pool.query(`SELECT cost_micros FROM key_month_spend WHERE key_hash = $1 AND month = date_trunc('month', $2::date)::date`, [keyHash, today])).rows[0].cost_micros);
    const monthBefore = wasBefore.spend.find((s) => s.month.toISOString().slice(0, 7) === today.slice(0, 7));
    expect(await spend()).toBe(Number(monthBefore.cost_micros) + 7);
    const requestsToday = async () => (await pool.query(`SELECT sum(requests)::int AS n FROM usage_daily WHERE organization_id = $1 AND day = $2::date`, [organizationId, today])).rows[0].n;
    const olderToday = olds.filter((r) => r.occurred_at.slice(0, 10) === today).length;
    expect(await requestsToday()).toBe(olderToday + 1);
    // The DELETE trigger still takes rows off the rollup (an organization's usage being erased).
    await pool.query(`DELETE FROM usage_records WHERE id = $1`, [fresh.event_id]);
    expect(await requestsToday()).toBe(olderToday);
  });
});
