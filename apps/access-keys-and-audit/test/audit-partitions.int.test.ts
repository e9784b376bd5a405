import { randomUUID } from 'node:crypto';
import { applyMigrations, migrationsBefore, pgAdapter, pgPool } from '@patchbay/db';
import { TEST_DATABASE_URL } from './env';
import { MIGRATIONS_DIR } from '../src/config';
import type { Db } from '../src/db';
import { exportAuditEventsCsv, listAuditEvents, maintainAuditLog, storeDeliveredAuditEvent } from '../src/domain/audit-log';
import { PrismaClient } from '../src/generated/prisma/client';

const DAY_MS = 86_400_000;
const CONVERSION = '20261129073000_partition_audit_events';
const month = (at: Date) => at.toISOString().slice(0, 7).replace('-', '');

/**
 * The audit log on a private schema: migrated up to the conversion, filled with events over five
 * months, converted, then kept by the retention job. The list and the CSV export are what
 * GET /api/v1/audit-log/ and /export run.
 */
describe('the audit log partitioned by month, with an archive past retention', () => {
  const schema = `access_keys_audit_partitions_${process.pid}`;
  const pool = pgPool(TEST_DATABASE_URL, schema, 2);
  let db: Db;
  const now = Date.now();
  const orgA = randomUUID();
  const orgB = randomUUID();
  // 25 events per organization, one every 6 days: the last 144 days, over five or six months.
  const events = (organizationId: string) => Array.from({ length: 25 }, (_, i) => ({ id: randomUUID(), organizationId, createdAt: new Date(now - i * 6 * DAY_MS - 60_000) }));
  const ofA = events(orgA);
  const ofB = events(orgB);
  const page = (offset: number, pageSize: number) => ({ page: offset / pageSize + 1, pageSize, offset });
  const everything = { createdAfter: new Date(now - 400 * DAY_MS).toISOString() };
  const principal = (organizationId: string) => ({ organizationId, environment: 'production' as const });

  afterAll(async () => {
    await db?.$disconnect();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  it('the conversion keeps every event, each in its month\'s partition', async () => {
    await applyMigrations({ databaseUrl: TEST_DATABASE_URL, schema, migrationsDir: await migrationsBefore(MIGRATIONS_DIR, CONVERSION) });
    for (const id of [orgA, orgB]) await pool.query(`INSERT INTO organizations (id, name, monthly_credits, callback_origins, updated_at) VALUES ($1, 'Acme', 100, '{}', now())`, [id]);
    for (const e of [...ofA, ...ofB]) {
      await pool.query(
        `INSERT INTO audit_events (id, organization_id, environment, event_type, actor_type, source_service, details, created_at) VALUES ($1, $2, 'production', 'access_key.created', 'admin_cli', 'access-keys-and-audit', $3, $4)`,
        [e.id, e.organizationId, JSON.stringify({ n: e.createdAt.getTime() }), e.createdAt],
      );
    }
    const snapshot = async () => (await pool.query(`SELECT to_jsonb(e) AS row FROM audit_events e ORDER BY id`)).rows;
    const before = await snapshot();
    expect(before).toHaveLength(50);

    expect((await applyMigrations({ databaseUrl: TEST_DATABASE_URL, schema, migrationsDir: MIGRATIONS_DIR })).applied).toContain(CONVERSION);
    expect((await snapshot()).map((r) => ({ ...r.row, actor_member_id: r.row.actor_member_id ?? null }))).toEqual(before.map((r) => ({ ...r.row, actor_member_id: r.row.actor_member_id ?? null })));
    const { rows } = await pool.query(`SELECT created_at, tableoid::regclass::text AS partition FROM audit_events`);
    for (const row of rows) expect(row.partition).toBe(`audit_events_p${month(row.created_at)}`);
    db = new PrismaClient({ adapter: pgAdapter(TEST_DATABASE_URL, schema, 2) }) as unknown as Db;
  });

  it('moves months past the 90 days to the archive whole, and the log still pulls them when asked for older events', async () => {
    const done = await maintainAuditLog(db, { retentionDays: 90, archiveRetentionDays: null }, new Date(now));
    expect(done.archivedPartitions.length).toBeGreaterThan(0);
    const live = Number((await pool.query(`SELECT count(*) FROM audit_events WHERE created_at < $1`, [new Date(now - 90 * DAY_MS)])).rows[0].count);
    expect(live).toBe(0);

    // The default window (90 days) shows only the live events...
    const recent = ofA.filter((e) => e.createdAt.getTime() >= now - 90 * DAY_MS);
    const window = await listAuditEvents(db, principal(orgA), {}, page(0, 100), new Date(now));
    expect(window.results.map((r) => r.id)).toEqual(recent.map((e) => e.id));
    // ...an earlier created_after all of them, newest first, page after page across the live log and the archive.
    const pulled: string[] = [];
    for (let offset = 0; offset < 25; offset += 7) {
      const { count, results } = await listAuditEvents(db, principal(orgA), everything, page(offset, 7), new Date(now));
      expect(count).toBe(25);
      pulled.push(...results.map((r) => r.id));
    }
    expect(pulled).toEqual(ofA.map((e) => e.id));
    // The CSV export, too.
    let csv = '';
    for await (const chunk of exportAuditEventsCsv(db, principal(orgA), everything, new Date(now))) csv += chunk;
    expect(csv.trim().split('\r\n').slice(1).map((line) => JSON.parse(line.split(',')[0]!))).toEqual(ofA.map((e) => e.id));
  });

  it('an organization with a shorter retention has its older events archived one by one; the others keep theirs', async () => {
    await db.organization.update({ where: { id: orgB }, data: { auditRetentionDays: 30 } });
    const done = await maintainAuditLog(db, { retentionDays: 90, archiveRetentionDays: null }, new Date(now));
    const olderThan30 = ofB.filter((e) => e.createdAt.getTime() < now - 30 * DAY_MS && e.createdAt.getTime() >= now - 90 * DAY_MS);
    expect(done.archivedRows).toBeGreaterThanOrEqual(olderThan30.length);
    const liveB = await listAuditEvents(db, principal(orgB), {}, page(0, 100), new Date(now));
    expect(liveB.results.map((r) => r.id)).toEqual(ofB.filter((e) => e.createdAt.getTime() >= now - 30 * DAY_MS).map((e) => e.id));
    const allB = await listAuditEvents(db, principal(orgB), everything, page(0, 100), new Date(now));
    expect(allB.results.map((r) => r.id)).toEqual(ofB.map((e) => e.id));
    // Organization A (default 90 days) lost nothing from its live log.
    const liveA = await listAuditEvents(db, principal(orgA), {}, page(0, 100), new Date(now));
    expect(liveA.count).toBe(ofA.filter((e) => e.createdAt.getTime() >= now - 90 * DAY_MS).length);
  });

  it('stores a redelivered event once, even one delivered again after its month was archived', async () => {
    const event = { id: randomUUID(), organizationId: orgA, environment: 'production' as const, eventType: 'tool_pack.created', actorType: 'service' as const, sourceService: 'connector-registry', createdAt: new Date(now - 1000) };
    expect(await storeDeliveredAuditEvent(db, event)).toBe(true);
    expect(await storeDeliveredAuditEvent(db, event)).toBe(false);
    const archived = ofA[ofA.length - 1]!;
    // A very late redelivery of an archived event lands in the live log's DEFAULT partition; the next run archives nothing twice.
    expect(await storeDeliveredAuditEvent(db, { ...event, id: archived.id, eventType: 'access_key.created', createdAt: archived.createdAt })).toBe(true);
    await maintainAuditLog(db, { retentionDays: 90, archiveRetentionDays: null }, new Date(now));
    const copies = await pool.query(`SELECT (SELECT count(*) FROM audit_events WHERE id = $1)::int AS live, (SELECT count(*) FROM audit_event_archive WHERE id = $1)::int AS archived`, [archived.id]);
    expect(copies.rows).toEqual([{ live: 0, archived: 1 }]);
  });

  it('deletes archived events past the archive\'s own retention, and an organization\'s archive goes with it', async () => {
    const done = await maintainAuditLog(db, { retentionDays: 90, archiveRetentionDays: 120 }, new Date(now));
    expect(done.droppedArchivePartitions.length + done.deletedArchivedRows).toBeGreaterThan(0);
    const left = await listAuditEvents(db, principal(orgA), everything, page(0, 100), new Date(now));
    expect(left.results.map((r) => r.id)).toEqual([expect.any(String), ...ofA.filter((e) => e.createdAt.getTime() >= now - 120 * DAY_MS).map((e) => e.id)]);
    await db.organization.delete({ where: { id: orgB } });
    expect((await pool.query(`SELECT count(*)::int AS n FROM audit_event_archive WHERE organization_id = $1`, [orgB])).rows[0].n).toBe(0);
  });

  it('a page of recent events reads only the recent months\' partitions, by index', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      const { rows } = await client.query(
        `EXPLAIN SELECT * FROM audit_events WHERE organization_id = $1 AND environment = 'production' AND created_at >= $2 ORDER BY created_at DESC, id DESC LIMIT 20`,
        [orgA, new Date(now - 20 * DAY_MS)],
      );
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toContain(`audit_events_p${month(new Date(now))}`);
      expect(plan).not.toContain(`audit_events_p${month(new Date(now - 70 * DAY_MS))}`);
      expect(plan).toMatch(/Index (Only )?Scan|Bitmap Index Scan/);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });
});
