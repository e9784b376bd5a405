import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { periodsAt } from './periods';
import { sqlSpendLedger } from './sql-ledger';
import { newKeyHash } from './test-support/fixtures';
import { MemoryLedger, type UsageRecord } from './test-support/memory-ledger';

/**
 * The SQL ledger must read exactly what the reference (MemoryLedger) reads from the same records:
 * a table with the gateway's usage-record columns in a schema of its own, dropped afterwards.
 */
const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const schema = `gateway_spend_test_${randomUUID().replaceAll('-', '')}`;
let pool: Pool;

beforeAll(async () => {
  pool = new Pool({ connectionString: databaseUrl, max: 2 });
  await pool.query(`CREATE SCHEMA ${schema}`);
  await pool.query(`CREATE TYPE ${schema}."Environment" AS ENUM ('production', 'test')`);
  await pool.query(`CREATE TABLE ${schema}.usage_records (
    id uuid PRIMARY KEY, organization_id uuid NOT NULL, environment ${schema}."Environment" NOT NULL, key_hash text NOT NULL,
    project_id uuid, customer_id uuid, byok boolean NOT NULL, cost_micros bigint NOT NULL, spend_epoch text,
    counted_at timestamptz(3), counted_model_request boolean NOT NULL DEFAULT false, counted_in_rate_limit boolean NOT NULL DEFAULT false, spend_grant text)`);
  await pool.query(`CREATE INDEX ON ${schema}.usage_records (organization_id, spend_epoch)`);
});

afterAll(async () => {
  await pool.query(`DROP SCHEMA ${schema} CASCADE`);
  await pool.end();
});

it('sums the usage records exactly as the reference ledger does: epochs left out, windows by counted_at, BYOK parts, per project and customer', async () => {
  const now = Date.parse('2026-11-25T12:00:30Z');
  const organizationId = randomUUID();
  const keys = [newKeyHash(), newKeyHash(), newKeyHash()];
  const projects = [randomUUID(), randomUUID()];
  const customers = [randomUUID(), randomUUID()];
  const epochs = ['epoch-a', 'epoch-b', null];
  const grants = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const offsets = [0, -20_000, -45_000, -3_600_000, -13 * 3_600_000, -2 * 86_400_000, -9 * 86_400_000, -40 * 86_400_000];
  const records: UsageRecord[] = [];
  for (let i = 0; i < 400; i += 1) {
    records.push({
      id: randomUUID(),
      organizationId: i % 10 === 9 ? randomUUID() : organizationId,
      environment: i % 3 === 0 ? 'test' : 'production',
      keyHash: keys[i % keys.length]!,
      projectId: i % 4 === 0 ? null : projects[i % projects.length]!,
      customerId: i % 5 === 0 ? customers[i % customers.length]! : null,
      byok: i % 7 === 0,
      costMicros: i % 11 === 0 ? 0 : 1 + ((i * 7919) % 90_000),
      epoch: epochs[i % epochs.length]!,
      countedAtMs: now + offsets[i % offsets.length]!,
      countedModelRequest: i % 6 !== 0,
      countedInRateLimit: i % 2 === 0,
      grant: i % 3 === 1 ? grants[i % grants.length]! : null,
    });
  }
  for (const r of records) {
    await pool.query(`INSERT INTO ${schema}.usage_records VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`, [
      r.id, r.organizationId, r.environment, r.keyHash, r.projectId, r.customerId, r.byok, r.costMicros, r.epoch, new Date(r.countedAtMs), r.countedModelRequest, r.countedInRateLimit, r.grant,
    ]);
  }
  const reference = new MemoryLedger();
  reference.add(...records);
  const sql = sqlSpendLedger(async (text, values) => (await pool.query(text, values)).rows, `${schema}.usage_records`);
  const p = periodsAt(now);
  const window = (b: { startMs: number; endMs: number }) => ({ startMs: b.startMs, endMs: b.endMs });
  for (const excludeEpoch of ['epoch-a', 'epoch-b', 'no-such-epoch']) {
    const q = { organizationId, excludeEpoch, day: window(p.day), week: window(p.week), month: window(p.month), minute: window(p.minute) };
    const [got, want] = [await sql.recorded(q), await reference.recorded(q)];
    const byId = <T,>(list: T[], id: (x: T) => string) => [...list].sort((a, b) => id(a).localeCompare(id(b)));
    expect(got.organizationCreditMicros).toBe(want.organizationCreditMicros);
    expect(got.modelRequestsInDay).toBe(want.modelRequestsInDay);
    expect(got.rateLimitedRequestsInMinute).toBe(want.rateLimitedRequestsInMinute);
    expect(byId(got.keys, (k) => k.keyHash)).toEqual(byId(want.keys, (k) => k.keyHash));
    expect(byId(got.projects, (x) => x.environment + x.projectId)).toEqual(byId(want.projects, (x) => x.environment + x.projectId));
    expect(byId(got.customers, (x) => x.environment + x.customerId)).toEqual(byId(want.customers, (x) => x.environment + x.customerId));
    expect(want.modelRequestsInDay).toBeGreaterThan(0);
  }
  // A lapsed grant is reconciled from the records stamped with it.
  const ids = [...grants, randomUUID()];
  const sortById = <T extends { grantId: string }>(list: T[]) => [...list].sort((a, b) => a.grantId.localeCompare(b.grantId));
  const [gotGrants, wantGrants] = [await sql.grants!({ organizationId, grantIds: ids }), await reference.grants({ organizationId, grantIds: ids })];
  expect(sortById(gotGrants)).toEqual(sortById(wantGrants));
  expect(wantGrants.length).toBeGreaterThan(1);
});

it('refuses a table name that is not a plain identifier', () => {
  expect(() => sqlSpendLedger(async () => [], 'usage_records; DROP TABLE x')).toThrow(RangeError);
});
