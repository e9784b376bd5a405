import { randomUUID } from 'node:crypto';
import { DirectProducer, QUEUE_NAMES, QueueSet, type ToolCallRecordJob } from '@patchbay/queues';
import { createLogger, createRedis } from '@patchbay/service-kit';
import { TEST_DATABASE_URL, TEST_REDIS_URL, waitFor } from '@patchbay/testing';
import { createDatabase, type Database, type Db } from '../src/db';
import { ToolCallRecorder, deleteRegisteredUserRecords, storeToolCallRecord, storeToolCallRecords, sweepExpiredRecords } from '../src/domain/tool-call-records';
import { api, request, rpc, scenario, startHarness, type Harness } from './harness';

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

const listIssues = (s: Scenario, key = s.org.master_key) =>
  rpc(s.mcpUrl, key, { id: 1, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__list_issues', arguments: { input: { owner: 'octo-org', repo: 'hello' } } } });

async function recordsOf(s: Scenario, query = '', key = s.org.master_key): Promise<{ status: number; body: any }> {
  return request(h.url, key, 'GET', `/api/v1/tool-call-records/?registered_user_id=${s.userId}${query}`);
}

async function waitForRecords(s: Scenario, count: number, query = ''): Promise<any[]> {
  let results: any[] = [];
  await waitFor(async () => {
    results = (await recordsOf(s, query)).body.results;
    return results.length >= count;
  });
  return results;
}

function job(overrides: Partial<ToolCallRecordJob> = {}): ToolCallRecordJob {
  return {
    event_id: randomUUID(),
    organization_id: randomUUID(),
    environment: 'production',
    tool_pack_id: randomUUID(),
    registered_user_id: randomUUID(),
    access_key_id: randomUUID(),
    tool_name: 'github__list_issues',
    connector_slug: 'github',
    status: 'success',
    duration_ms: 12,
    credits: 1,
    billing_cycle: new Date().toISOString().slice(0, 7),
    overage: false,
    detections: [],
    error_code: null,
    occurred_at: new Date().toISOString(),
    ...overrides,
  };
}

describe('every tools/call is recorded', () => {
  it('records tool, user, pack, key, status, duration and credit; tools/list is not a tool call', async () => {
    const s = await scenario(h);
    await rpc(s.mcpUrl, s.org.master_key, { id: 1, jsonrpc: '2.0', method: 'tools/list' });
    expect((await listIssues(s)).body.result.isError).toBeFalsy();
    const [record] = await waitForRecords(s, 1);
    expect(record).toEqual({
      id: expect.any(String),
      tool_name: 'github__list_issues',
      connector_slug: 'github',
      tool_pack_id: s.packId,
      registered_user_id: s.userId,
      access_key_id: s.org.master_key_id,
      status: 'success',
      error_code: null,
      duration_ms: expect.any(Number),
      credits: 1,
      billing_cycle: new Date().toISOString().slice(0, 7),
      overage: false,
      detections: [],
      occurred_at: expect.any(String),
    });
    const detail = (await request(h.url, s.org.master_key, 'GET', `/api/v1/tool-call-records/${record.id}/`)).body;
    // As the tool received them: the input schema's defaults filled in.
    expect(detail).toEqual({ ...record, arguments: { input: expect.objectContaining({ owner: 'octo-org', repo: 'hello' }) }, result: expect.objectContaining({ content: expect.any(Array) }) });
    expect(detail.result.isError).toBeFalsy();
  });

  it('the detail keeps arguments and result as scanning left them: a redacted email reads [REDACTED:EMAIL_ADDRESS] and the value is nowhere', async () => {
    const s = await scenario(h);
    const rule = await request(h.url, s.org.master_key, 'POST', '/api/v1/security-rules/', { name: 'No emails to tools', detector: 'EMAIL_ADDRESS', direction: 'inbound', action: 'redact' });
    expect(rule.status).toBe(201);
    await rpc(s.mcpUrl, s.org.master_key, { id: 1, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__list_issues', arguments: { input: { owner: 'octo-org', repo: 'hello', labels: 'ada@example.com' } } } });
    const [record] = await waitForRecords(s, 1);
    expect(record).not.toHaveProperty('arguments');
    expect(record.detections).toEqual([expect.objectContaining({ rule_id: rule.body.id, action: 'redact', direction: 'inbound', path: '$.input.labels' })]);
    const detail = (await request(h.url, s.org.master_key, 'GET', `/api/v1/tool-call-records/${record.id}/`)).body;
    expect(detail.arguments).toEqual({ input: expect.objectContaining({ owner: 'octo-org', repo: 'hello', labels: '[REDACTED:EMAIL_ADDRESS]' }) });
    expect(JSON.stringify(detail)).not.toContain('ada@example.com');
    expect(JSON.stringify(detail)).not.toContain('ghp_fake');
  });

  it('a payload too long for a record is kept as the beginning of its JSON, marked as cut', async () => {
    const { recordedPayload, RECORDED_PAYLOAD_MAX_CHARS } = await import('../src/domain/scanned-call');
    const small = { input: { q: 'x' } };
    expect(recordedPayload(small)).toBe(small);
    expect(recordedPayload(undefined)).toBeNull();
    const big = recordedPayload({ text: 'y'.repeat(RECORDED_PAYLOAD_MAX_CHARS) }) as { patchbay_truncated: boolean; original_chars: number; json_prefix: string };
    expect(big).toMatchObject({ patchbay_truncated: true, original_chars: RECORDED_PAYLOAD_MAX_CHARS + 11 });
    expect(big.json_prefix).toHaveLength(RECORDED_PAYLOAD_MAX_CHARS);
  });

  it('records failed calls with the reason, and never the credential', async () => {
    const s = await scenario(h);
    await rpc(s.mcpUrl, s.org.master_key, { id: 1, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__get_issue', arguments: { input: { owner: 'octo-org' } } } });
    await rpc(s.mcpUrl, s.org.master_key, { id: 2, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__delete_repo', arguments: {} } });
    const records = await waitForRecords(s, 2);
    expect(records.map((r) => [r.tool_name, r.status, r.error_code]).sort()).toEqual([
      ['github__delete_repo', 'error', 'unknown_tool'],
      ['github__get_issue', 'error', 'invalid_input'],
    ]);
    expect(JSON.stringify(records)).not.toContain('ghp_fake');
  });

  it('an unconnected user\'s call is recorded as credential_missing', async () => {
    const s = await scenario(h, { connect: false });
    await listIssues(s);
    const [record] = await waitForRecords(s, 1);
    expect(record).toMatchObject({ status: 'error', error_code: 'credential_missing', credits: 1 });
  });
});

describe('reading records', () => {
  it('filters by status and tool, and pages newest first with cursors', async () => {
    const s = await scenario(h);
    for (let i = 0; i < 3; i += 1) await listIssues(s);
    await rpc(s.mcpUrl, s.org.master_key, { id: 9, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__get_issue', arguments: {} } });
    const all = await waitForRecords(s, 4);
    expect(all.map((r) => r.occurred_at)).toEqual([...all.map((r) => r.occurred_at)].sort().reverse());
    expect((await recordsOf(s, '&status=error')).body.results.map((r: { tool_name: string }) => r.tool_name)).toEqual(['github__get_issue']);
    expect((await recordsOf(s, '&tool_name=github__list_issues')).body.results).toHaveLength(3);

    const first = (await recordsOf(s, '&page_size=2')).body;
    expect(first.results.map((r: { id: string }) => r.id)).toEqual(all.slice(0, 2).map((r) => r.id));
    expect(first.previous).toBeNull();
    const second = (await recordsOf(s, `&page_size=2&cursor=${first.next}`)).body;
    expect(second.results.map((r: { id: string }) => r.id)).toEqual(all.slice(2, 4).map((r) => r.id));
    expect(second.next).toBeNull();
    const back = (await recordsOf(s, `&page_size=2&cursor=${second.previous}`)).body;
    expect(back.results.map((r: { id: string }) => r.id)).toEqual(all.slice(0, 2).map((r) => r.id));
  });

  it('bad filters are 400s that name the parameter', async () => {
    const s = await scenario(h, { connect: false });
    for (const [query, field] of [
      ['&status=exploded', 'query.status'],
      ['&created_after=yesterday', 'query.created_after'],
      ['&cursor=not-a-cursor', 'query.cursor'],
      ['&page_size=1000', 'query.page_size'],
    ]) {
      const res = await recordsOf(s, query);
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    const badUser = await request(h.url, s.org.master_key, 'GET', '/api/v1/tool-call-records/?registered_user_id=42');
    expect(badUser.body.errors[0].field).toBe('query.registered_user_id');
  });

  it('a key restricted to one registered user sees only that user\'s records; the other environment sees none', async () => {
    const s = await scenario(h);
    const other = await scenario(h, { org: s.org });
    await listIssues(s);
    await listIssues(other);
    await waitForRecords(s, 1);
    await waitForRecords(other, 1);
    const narrow = await h.accessKeys.createKey(s.org.master_key, { name: 'reader', scopes: ['management:all'], registered_user_ids: [s.userId] });
    const seen = (await request(h.url, narrow.key, 'GET', '/api/v1/tool-call-records/')).body.results;
    expect(seen.map((r: { registered_user_id: string }) => r.registered_user_id)).toEqual([s.userId]);
    expect((await recordsOf(other, '', narrow.key)).body.results).toEqual([]);
    expect((await request(h.url, s.org.test_key, 'GET', '/api/v1/tool-call-records/')).body.results).toEqual([]);
    const otherOrg = await scenario(h);
    expect((await request(h.url, otherOrg.org.master_key, 'GET', `/api/v1/tool-call-records/?registered_user_id=${s.userId}`)).body.results).toEqual([]);
  });

  it('needs management:all', async () => {
    const s = await scenario(h, { connect: false });
    const agent = await h.accessKeys.createKey(s.org.master_key, { name: 'agent', scopes: ['runtime:all'] });
    expect((await request(h.url, agent.key, 'GET', '/api/v1/tool-call-records/')).status).toBe(403);
  });
});

describe('deleting a registered user deletes their tool-call records', () => {
  it('the registry\'s DELETE reaches the runtime over the queue', async () => {
    const s = await scenario(h);
    await listIssues(s);
    await waitForRecords(s, 1);
    await api(h, s.org.master_key, 'DELETE', `/api/v1/registered-users/${s.userId}/`);
    await waitFor(async () => (await recordsOf(s)).body.results.length === 0);
    expect(await db.toolCallRecord.count({ where: { registeredUserId: s.userId } })).toBe(0);
  });

  it('a record delivered after the deletion is not stored', async () => {
    const late = job();
    await deleteRegisteredUserRecords(db, { event_id: randomUUID(), organization_id: late.organization_id, environment: 'production', registered_user_id: late.registered_user_id, deleted_at: new Date().toISOString() });
    expect(await storeToolCallRecord(database, late, 90)).toBe('user_deleted');
    expect(await db.toolCallRecord.count({ where: { id: late.event_id } })).toBe(0);
  });

  it('a redelivered record is stored once', async () => {
    const once = job();
    expect(await storeToolCallRecord(database, once, 90)).toBe('stored');
    expect(await storeToolCallRecord(database, once, 90)).toBe('duplicate');
    expect(await db.toolCallRecord.count({ where: { id: once.event_id } })).toBe(1);
  });
});

describe('records are kept 90 days', () => {
  it('the sweep deletes records older than the retention window and keeps the rest', async () => {
    const organizationId = randomUUID();
    const now = Date.now();
    const old = job({ organization_id: organizationId, occurred_at: new Date(now - 89 * 86_400_000).toISOString() });
    const fresh = job({ organization_id: organizationId, occurred_at: new Date(now - 86_400_000).toISOString() });
    await storeToolCallRecord(database, old, 90, new Date(now));
    await storeToolCallRecord(database, fresh, 90, new Date(now));
    // Two days later the first is 91 days old.
    await sweepExpiredRecords(db, 90, new Date(now + 2 * 86_400_000));
    const left = await db.toolCallRecord.findMany({ where: { organizationId }, select: { id: true } });
    expect(left.map((r) => r.id)).toEqual([fresh.event_id]);
  });

  it('a record older than the window when it arrives is not stored', async () => {
    expect(await storeToolCallRecord(database, job({ occurred_at: new Date(Date.now() - 91 * 86_400_000).toISOString() }), 90)).toBe('expired');
  });
});

describe('the record pipeline loses nothing', () => {
  it('a malformed job is refused without retries', async () => {
    await expect(storeToolCallRecord(database, job({ organization_id: 'nope' }), 90)).rejects.toThrow(/organization_id must be a UUID/);
  });

  it('a batch put on the queue by another replica is stored by this one; a malformed record in it is dropped, the rest stored', async () => {
    const s = await scenario(h, { connect: false });
    const connection = createRedis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const queues = new QueueSet({ connection, prefix: process.env.QUEUE_PREFIX });
    try {
      const mine = { organization_id: s.org.organization_id, registered_user_id: s.userId, tool_pack_id: s.packId };
      const good = [job(mine), job({ ...mine, status: 'blocked', error_code: 'security_rule_blocked' })];
      const batch = { event_id: randomUUID(), records: [good[0]!, job({ ...mine, billing_cycle: 'last month' }), good[1]!] };
      await queues.get(QUEUE_NAMES.toolCallRecordBatches)!.add(QUEUE_NAMES.toolCallRecordBatches, batch, { jobId: batch.event_id });
      const records = await waitForRecords(s, 2);
      expect(records.map((r) => r.id).sort()).toEqual(good.map((g) => g.event_id).sort());
      // Nothing else arrives: the malformed record was dropped, not retried.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await recordsOf(s)).body.results).toHaveLength(2);
    } finally {
      await queues.close();
      connection.disconnect();
    }
  });

  it('a single-record job (from a runtime older than batches) is still stored', async () => {
    const s = await scenario(h, { connect: false });
    const connection = createRedis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    const queues = new QueueSet({ connection, prefix: process.env.QUEUE_PREFIX });
    try {
      const queued = job({ organization_id: s.org.organization_id, registered_user_id: s.userId, tool_pack_id: s.packId });
      await queues.get(QUEUE_NAMES.toolCallRecords)!.add(QUEUE_NAMES.toolCallRecords, queued, { jobId: queued.event_id });
      const [record] = await waitForRecords(s, 1);
      expect(record.id).toBe(queued.event_id);
    } finally {
      await queues.close();
      connection.disconnect();
    }
  });

  it('records are stored straight into PostgreSQL, so none waits in Redis where a Redis restart would lose it', async () => {
    const s = await scenario(h, { connect: false });
    const queued: unknown[] = [];
    const recorder = new ToolCallRecorder(
      { send: async (_queue, payload) => { queued.push(payload); return 'queued' as const; } },
      async (records) => { await storeToolCallRecords(database, records, 30); },
    );
    const mine = { organization_id: s.org.organization_id, registered_user_id: s.userId, tool_pack_id: s.packId };
    const sent = [job(mine), job(mine)];
    for (const record of sent) recorder.record(record);
    await recorder.close();
    expect(queued).toEqual([]);
    const stored = await db.toolCallRecord.findMany({ where: { id: { in: sent.map((r) => r.event_id) } } });
    expect(stored).toHaveLength(2);
  });

  it('when the database refuses a batch, it goes to the queue for the record workers instead', async () => {
    const s = await scenario(h, { connect: false });
    const queued: Array<{ records: ToolCallRecordJob[] }> = [];
    const recorder = new ToolCallRecorder(
      { send: async (_queue, payload) => { queued.push(payload as { records: ToolCallRecordJob[] }); return 'queued' as const; } },
      async () => { throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }); },
    );
    const mine = { organization_id: s.org.organization_id, registered_user_id: s.userId, tool_pack_id: s.packId };
    const sent = [job(mine), job(mine), job(mine)];
    for (const record of sent) recorder.record(record);
    await recorder.close();
    expect(queued.flatMap((p) => p.records.map((r) => r.event_id)).sort()).toEqual(sent.map((r) => r.event_id).sort());
  });

  it('while Redis is unreachable, a batch of records goes to the outbox and is stored once relayed', async () => {
    const s = await scenario(h, { connect: false });
    // A producer whose Redis is down (nothing listens on port 1), writing its fallback into the runtime's outbox table;
    // the harness runtime's own relay delivers the outbox rows once they are there.
    const dead = createRedis('redis://127.0.0.1:1', { maxRetriesPerRequest: null, enableOfflineQueue: false, retryStrategy: () => null });
    dead.on('error', () => undefined);
    const queues = new QueueSet({ connection: dead });
    const direct = new DirectProducer({ queues: (name) => queues.get(name), outbox: db, relay: { kick: () => undefined }, logger: createLogger('test', 'silent') });
    const outcomes: string[] = [];
    const recorder = new ToolCallRecorder({
      send: async (queue, payload, options) => {
        const outcome = await direct.send(queue, payload, options);
        outcomes.push(outcome);
        return outcome;
      },
    });
    try {
      const mine = { organization_id: s.org.organization_id, registered_user_id: s.userId, tool_pack_id: s.packId };
      const sent = [job(mine), job(mine), job(mine)];
      for (const record of sent) recorder.record(record);
      await recorder.close();
      expect(outcomes).toEqual(['outbox']);
      const records = await waitForRecords(s, 3);
      expect(records.map((r) => r.id).sort()).toEqual(sent.map((r) => r.event_id).sort());
    } finally {
      await queues.close().catch(() => undefined);
      dead.disconnect();
    }
  });
});
