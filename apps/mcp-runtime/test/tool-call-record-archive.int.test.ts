import { randomUUID } from 'node:crypto';
import type { ToolCallRecordJob } from '@patchbay/queues';
import { TEST_DATABASE_URL, TEST_SERVICE_TOKEN, waitFor } from '@patchbay/testing';
import { DB_SCHEMA } from '../src/config';
import { createDatabase, type Database, type Db } from '../src/db';
import { OrganizationRetentionClient } from '../src/domain/organization-retention';
import { storeToolCallRecords, sweepExpiredRecords } from '../src/domain/tool-call-records';
import { api, request, scenario, startHarness, type Harness } from './harness';

/**
 * Tool-call records past retention move to tool_call_record_archive instead of being deleted (the
 * spec: "log endpoints allow older events to be pulled past the retention window"), the list reads
 * the archive when created_after reaches past the window, the organization's audit_retention_days
 * (access-keys-and-audit) governs them, and deleting a registered user deletes the archived ones too.
 */

const DAY_MS = 86_400_000;

let h: Harness;
let database: Database;
let db: Db;
beforeAll(async () => {
  h = await startHarness();
  database = createDatabase(TEST_DATABASE_URL, 2);
  db = database.prisma;
}, 90_000);
afterAll(async () => {
  await database.close();
  await h.close();
});

type Scenario = Awaited<ReturnType<typeof scenario>>;

/** A record of the scenario's organization, pack and user, `daysAgo` days before `now`, stored as the runtime stores it. */
async function recordAt(s: Scenario, daysAgo: number, now: number, overrides: Partial<ToolCallRecordJob> = {}): Promise<string> {
  const job: ToolCallRecordJob = {
    event_id: randomUUID(), organization_id: s.org.organization_id, environment: 'production', tool_pack_id: s.packId, registered_user_id: s.userId,
    access_key_id: s.org.master_key_id, tool_name: 'github__list_issues', connector_slug: 'github', status: 'success', duration_ms: 12, credits: 1,
    billing_cycle: new Date(now - daysAgo * DAY_MS).toISOString().slice(0, 7), overage: false, detections: [], error_code: null,
    occurred_at: new Date(now - daysAgo * DAY_MS).toISOString(), arguments: { input: { owner: 'octo-org', repo: 'hello' } }, result: { content: [] },
    ...overrides,
  };
  // Stored when it happened (a record older than the window when it arrives is refused).
  expect(await storeToolCallRecords(database, [job], 90, new Date(Date.parse(job.occurred_at) + 1000))).toEqual(['stored']);
  return job.event_id;
}

const retention = () => new OrganizationRetentionClient({ baseUrl: h.accessKeys.url, serviceToken: TEST_SERVICE_TOKEN, cacheTtlMs: 0 });
const sweep = async (now: number) => sweepExpiredRecords(db, 90, new Date(now), { organizations: await retention().organizations() });
const list = (s: Scenario, query: string, key = s.org.master_key) => request(h.url, key, 'GET', `/api/v1/tool-call-records/?registered_user_id=${s.userId}${query}`);
const ids = (res: { body: { results: Array<{ id: string }> } }) => res.body.results.map((r) => r.id);
const since = (now: number, days: number) => `&created_after=${encodeURIComponent(new Date(now - days * DAY_MS).toISOString())}`;
const where = (id: string) => ({ where: { id } });

describe('records past the retention window move to the archive', () => {
  it('are listed with an earlier created_after and readable by id, and not listed without it', async () => {
    const s = await scenario(h, { connect: false });
    const now = Date.now();
    const old = await recordAt(s, 100, now);
    const recent = await recordAt(s, 1, now);
    const done = await sweep(now);
    expect(done.rows).toBeGreaterThanOrEqual(1);
    expect(await db.toolCallRecord.count(where(old))).toBe(0);
    expect(await db.toolCallRecordArchive.count(where(old))).toBe(1);

    expect(ids(await list(s, ''))).toEqual([recent]);
    expect(ids(await list(s, since(now, 200)))).toEqual([recent, old]);
    // A created_after inside the window reads the archive too, and finds nothing older there.
    expect(ids(await list(s, since(now, 30)))).toEqual([recent]);
    const detail = await request(h.url, s.org.master_key, 'GET', `/api/v1/tool-call-records/${old}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ id: old, registered_user_id: s.userId, arguments: { input: { owner: 'octo-org', repo: 'hello' } } });
  });

  it('a whole day past retention moves as a partition, and the sweep run again moves nothing more', async () => {
    const s = await scenario(h, { connect: false });
    const now = Date.now();
    // A day of its own, 95 days back (the conversion made such partitions for old rows; none is made backwards).
    const day = new Date(Math.floor((now - 95 * DAY_MS) / DAY_MS) * DAY_MS);
    const name = `tool_call_records_p${day.toISOString().slice(0, 10).replace(/-/g, '')}`;
    await db.$executeRawUnsafe(`DROP TABLE IF EXISTS ${DB_SCHEMA}.${name}`);
    await db.$executeRawUnsafe(`CREATE TABLE ${DB_SCHEMA}.${name} PARTITION OF ${DB_SCHEMA}.tool_call_records FOR VALUES FROM ('${day.toISOString()}') TO ('${new Date(day.getTime() + DAY_MS).toISOString()}')`);
    const old = await recordAt(s, (now - day.getTime()) / DAY_MS - 0.5, now);
    const recent = await recordAt(s, 2, now);

    const first = await sweep(now);
    expect(first.archived).toContain(name);
    const parent = await db.$queryRawUnsafe<Array<{ parent: string }>>(`SELECT p.relname AS parent FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent WHERE i.inhrelid = '${DB_SCHEMA}.${name}'::regclass`);
    expect(parent).toEqual([{ parent: 'tool_call_record_archive' }]);
    const counts = async () => [await db.toolCallRecord.count({ where: { organizationId: s.org.organization_id } }), await db.toolCallRecordArchive.count({ where: { organizationId: s.org.organization_id } })];
    expect(await counts()).toEqual([1, 1]);

    const again = await sweep(now);
    expect(again).toEqual({ rows: 0, archived: [], droppedArchivePartitions: [], deletedArchivedRows: 0 });
    expect(await counts()).toEqual([1, 1]);
    expect(ids(await list(s, since(now, 120)))).toEqual([recent, old]);
    // The calls stay counted in the daily usage: moving a record is not a new call.
    const usage = await db.toolCallDailyUsage.aggregate({ where: { organizationId: s.org.organization_id }, _sum: { toolCalls: true } });
    expect(usage._sum.toolCalls).toBe(2);
  });

  it('cursor pages run across live and archived records, newest first, forwards and back', async () => {
    const s = await scenario(h, { connect: false });
    const now = Date.now();
    const expected: string[] = [];
    for (const daysAgo of [1, 2, 3, 100, 101, 102]) expected.push(await recordAt(s, daysAgo, now));
    await sweep(now);
    expect(await db.toolCallRecordArchive.count({ where: { organizationId: s.org.organization_id } })).toBe(3);

    const pages: Array<{ ids: string[]; next: string | null; previous: string | null }> = [];
    let cursor = '';
    do {
      const res = await list(s, `${since(now, 365)}&page_size=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      pages.push({ ids: ids(res), next: res.body.next, previous: res.body.previous });
      cursor = res.body.next ?? '';
    } while (cursor && pages.length < 10);
    expect(pages.flatMap((p) => p.ids)).toEqual(expected);
    // The page that straddles nothing but the archive, read back through the previous cursor of the last.
    const back = await list(s, `${since(now, 365)}&page_size=2&cursor=${encodeURIComponent(pages[2]!.previous!)}`);
    expect(ids(back)).toEqual(pages[1]!.ids);
  });

  it('key restrictions and environment scoping apply to the archive', async () => {
    const s = await scenario(h, { connect: false });
    const now = Date.now();
    const otherPack = randomUUID();
    const otherUser = randomUUID();
    const ofPack = await recordAt(s, 100, now);
    const ofOtherPack = await recordAt(s, 100, now, { tool_pack_id: otherPack });
    const ofOtherUser = await recordAt(s, 100, now, { registered_user_id: otherUser });
    await sweep(now);
    expect(await db.toolCallRecordArchive.count({ where: { id: { in: [ofPack, ofOtherPack, ofOtherUser] } } })).toBe(3);

    const packKey = await h.accessKeys.createKey(s.org.master_key, { name: 'pack only', scopes: ['management:all'], tool_pack_ids: [s.packId] });
    const userKey = await h.accessKeys.createKey(s.org.master_key, { name: 'user only', scopes: ['management:all'], registered_user_ids: [otherUser] });
    const all = (key: string) => request(h.url, key, 'GET', `/api/v1/tool-call-records/?${since(now, 365).slice(1)}`);
    expect(new Set(ids(await all(s.org.master_key)))).toEqual(new Set([ofPack, ofOtherPack, ofOtherUser]));
    expect(new Set(ids(await all(packKey.key)))).toEqual(new Set([ofPack, ofOtherUser]));
    expect(ids(await all(userKey.key))).toEqual([ofOtherUser]);
    expect((await request(h.url, packKey.key, 'GET', `/api/v1/tool-call-records/${ofOtherPack}`)).status).toBe(404);
    expect((await request(h.url, userKey.key, 'GET', `/api/v1/tool-call-records/${ofPack}`)).status).toBe(404);
    // The organization's test environment sees none of its production records, archived or not.
    expect(ids(await all(s.org.test_key))).toEqual([]);
    expect((await request(h.url, s.org.test_key, 'GET', `/api/v1/tool-call-records/${ofPack}`)).status).toBe(404);
  });
});

describe("the organization's audit_retention_days governs its tool-call records", () => {
  it('a shorter retention archives that organization\'s records only', async () => {
    const short = await scenario(h, { connect: false });
    const other = await scenario(h, { connect: false });
    const now = Date.now();
    const shortOld = await recordAt(short, 40, now);
    const shortRecent = await recordAt(short, 1, now);
    const otherOld = await recordAt(other, 40, now);
    await h.accessKeys.updateOrganization(short.org.organization_id, ['--audit-retention-days', '30']);
    // mcp-runtime learns it from access-keys-and-audit's internal route, as the worker's sweep does.
    expect(await retention().organizations()).toContainEqual({ organization_id: short.org.organization_id, retention_days: 30 });

    await sweep(now);
    expect(await db.toolCallRecordArchive.count(where(shortOld))).toBe(1);
    expect(await db.toolCallRecord.count(where(shortOld))).toBe(0);
    expect(await db.toolCallRecord.count(where(otherOld))).toBe(1);
    expect(await db.toolCallRecordArchive.count(where(otherOld))).toBe(0);
    expect(ids(await list(short, ''))).toEqual([shortRecent]);
    expect(ids(await list(short, since(now, 60)))).toEqual([shortRecent, shortOld]);
    expect(ids(await list(other, ''))).toEqual([otherOld]);
  });

  it('the retention client refuses to guess before access-keys-and-audit has answered once, then keeps its last answer', async () => {
    const unreachable = new OrganizationRetentionClient({ baseUrl: 'http://127.0.0.1:9', serviceToken: TEST_SERVICE_TOKEN, timeoutMs: 1000 });
    await expect(unreachable.organizations()).rejects.toThrow(/own retention is unknown/);
    let up = true;
    const client = new OrganizationRetentionClient({
      baseUrl: h.accessKeys.url, serviceToken: TEST_SERVICE_TOKEN, cacheTtlMs: 0,
      fetch: (input, init) => (up ? fetch(input, init) : Promise.reject(new Error('connection refused'))),
    });
    const answer = await client.organizations();
    up = false;
    expect(await client.organizations()).toEqual(answer);
    const wrongToken = new OrganizationRetentionClient({ baseUrl: h.accessKeys.url, serviceToken: 'not-the-service-token-0000', cacheTtlMs: 0 });
    await expect(wrongToken.organizations()).rejects.toThrow(/401/);
  });
});

describe('archived records are kept until their registered user is deleted', () => {
  it('DELETE of the registered user deletes their archived records too', async () => {
    const s = await scenario(h, { connect: false });
    const now = Date.now();
    const old = await recordAt(s, 100, now);
    const recent = await recordAt(s, 1, now);
    await sweep(now);
    expect(await db.toolCallRecordArchive.count(where(old))).toBe(1);
    await api(h, s.org.master_key, 'DELETE', `/api/v1/registered-users/${s.userId}/`);
    await waitFor(async () => (await db.toolCallRecordArchive.count({ where: { registeredUserId: s.userId } })) === 0 && (await db.toolCallRecord.count(where(recent))) === 0);
    expect(ids(await list(s, since(now, 365)))).toEqual([]);
  });

  it('with TOOL_CALL_ARCHIVE_RETENTION_DAYS, archived records past it are deleted and the rest kept', async () => {
    const s = await scenario(h, { connect: false });
    const now = Date.now();
    const ancient = await recordAt(s, 400, now);
    const old = await recordAt(s, 100, now);
    await sweep(now);
    const done = await sweepExpiredRecords(db, 90, new Date(now), { archiveRetentionDays: 365 });
    expect(done.deletedArchivedRows).toBeGreaterThanOrEqual(1);
    expect(await db.toolCallRecordArchive.count(where(ancient))).toBe(0);
    expect(await db.toolCallRecordArchive.count(where(old))).toBe(1);
  });
});
