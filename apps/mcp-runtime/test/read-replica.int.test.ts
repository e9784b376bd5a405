import { randomUUID } from 'node:crypto';
import { applyMigrations, ensureDatabase } from '@patchbay/db';
import type { ToolCallRecordJob } from '@patchbay/queues';
import { TEST_DATABASE_URL } from '@patchbay/testing';
import { DB_SCHEMA, MIGRATIONS_DIR } from '../src/config';
import { createDatabase, type Database } from '../src/db';
import { storeToolCallRecords } from '../src/domain/tool-call-records';
import { request, scenario, startHarness, type Harness } from './harness';

/**
 * What this proves, and what it does not: the "replica" is a second database on the same server,
 * migrated like the primary but never replicated, so the two hold different records on purpose. A
 * record only the replica has can come back from an endpoint only if that endpoint reads
 * DATABASE_READ_URL; one only the primary has, only if it reads DATABASE_URL. It does not exercise
 * streaming replication or its lag (PostgreSQL's concern, not ours); it pins which endpoint reads
 * which database, and that a record by id is read from the primary (readable as soon as it is stored).
 */
const REPLICA_URL = (() => {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `${url.pathname}_read_replica`;
  return url.toString();
})();

let h: Harness;
let primary: Database;
let replica: Database;
beforeAll(async () => {
  await ensureDatabase(REPLICA_URL);
  await applyMigrations({ databaseUrl: REPLICA_URL, schema: DB_SCHEMA, migrationsDir: MIGRATIONS_DIR });
  h = await startHarness({ DATABASE_READ_URL: REPLICA_URL });
  primary = createDatabase(TEST_DATABASE_URL, 2);
  replica = createDatabase(REPLICA_URL, 2);
}, 90_000);
afterAll(async () => {
  await primary.close();
  await replica.close();
  await h.close();
});

function record(organizationId: string, registeredUserId: string, toolName: string): ToolCallRecordJob {
  return {
    event_id: randomUUID(),
    organization_id: organizationId,
    environment: 'production',
    tool_pack_id: randomUUID(),
    registered_user_id: registeredUserId,
    access_key_id: randomUUID(),
    tool_name: toolName,
    connector_slug: 'github',
    status: 'success',
    duration_ms: 5,
    credits: 1,
    billing_cycle: new Date().toISOString().slice(0, 7),
    overage: false,
    detections: [],
    error_code: null,
    occurred_at: new Date().toISOString(),
  };
}

describe('DATABASE_READ_URL: lists and daily usage read the replica, a record by id the primary', () => {
  it('lists the replica\'s records and finds a record by id on the primary only', async () => {
    const s = await scenario(h, { connect: false });
    const userId = randomUUID();
    const onPrimary = record(s.org.organization_id, userId, 'github__get_issue');
    const onReplica = [record(s.org.organization_id, userId, 'github__list_issues'), record(s.org.organization_id, userId, 'github__list_issues')];
    expect(await storeToolCallRecords(primary, [onPrimary], 90)).toEqual(['stored']);
    expect(await storeToolCallRecords(replica, onReplica, 90)).toEqual(['stored', 'stored']);

    const list = await request(h.url, s.org.master_key, 'GET', `/api/v1/tool-call-records/?registered_user_id=${userId}`);
    expect(list.status).toBe(200);
    expect(list.body.results.map((r: { id: string }) => r.id).sort()).toEqual(onReplica.map((r) => r.event_id).sort());

    // Read-your-writes where the API promises it: a record by id is there as soon as the primary has it.
    const byId = await request(h.url, s.org.master_key, 'GET', `/api/v1/tool-call-records/${onPrimary.event_id}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({ id: onPrimary.event_id, tool_name: 'github__get_issue' });
    expect((await request(h.url, s.org.master_key, 'GET', `/api/v1/tool-call-records/${onReplica[0]!.event_id}`)).status).toBe(404);
  });

  it('sums the daily usage from the replica', async () => {
    const s = await scenario(h, { connect: false });
    const userId = randomUUID();
    await storeToolCallRecords(primary, [record(s.org.organization_id, userId, 'github__get_issue')], 90);
    await storeToolCallRecords(replica, [1, 2, 3].map(() => record(s.org.organization_id, userId, 'github__list_issues')), 90);

    const daily = await request(h.url, s.org.master_key, 'GET', '/api/v1/usage/daily');
    expect(daily.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    const day = daily.body.days.find((d: { date: string }) => d.date === today);
    expect(day).toMatchObject({ tool_calls: 3 });
  });
});
