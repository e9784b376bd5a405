import { randomUUID } from 'node:crypto';
import { DirectProducer, QUEUE_NAMES, QueueSet, type GatewayUsageRecordJob } from '@patchbay/queues';
import { createLogger, createRedis } from '@patchbay/service-kit';
import { TEST_DATABASE_URL } from '@patchbay/testing';
import { createDatabase, createPrisma, type Db } from '../src/db';
import { UsageRecorder } from '../src/usage/usage-records';
import { call, createKey, createOrg, eventually, startHarness, type Harness, type TestOrg } from './harness';

let h: Harness;
let org: TestOrg;
let db: Db;

beforeAll(async () => {
  h = await startHarness();
  org = await createOrg(h);
  db = createPrisma(TEST_DATABASE_URL, 2);
  await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/tags', { key: 'feature', value: 'search' });
}, 60_000);

afterAll(async () => {
  await db?.$disconnect();
  await h?.close();
});

const records = (keyHash: string) => db.usageRecord.findMany({ where: { keyHash }, orderBy: { createdAt: 'asc' } });

describe('every request is recorded', () => {
  test('finished, cut and failed requests, streamed or not, with tokens, cost at the route, vendor, key, project, tags, latency and time to first token', async () => {
    const project = await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/projects', { name: 'Search' });
    const key = await createKey(h, org, { project_id: project.body.id });
    h.openai.script({ text: 'ok', usage: { inputTokens: 1000, outputTokens: 100, cachedInputTokens: 400 } });
    expect((await call(h.edgeUrl, key.key, 'POST', '/v1/responses', { model: 'openai/gpt-4o', input: 'hi', tags: [{ key: 'feature', value: 'search' }] })).status).toBe(200);
    h.anthropic.script({ text: 'one two three four five six seven', fault: { kind: 'stream_cut', afterTokens: 3 } });
    const cut = await fetch(`${h.edgeUrl}/v1/messages`, { method: 'POST', headers: { 'x-api-key': key.key, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'anthropic/claude-haiku-4-5', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'count' }] }) });
    expect(await cut.text()).toContain('event: error');
    h.openai.script({ fault: { kind: 'server_error' } });
    expect((await call(h.edgeUrl, key.key, 'POST', '/v1/chat/completions', { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'x' }] })).status).toBe(500);

    await eventually(async () => expect(await records(key.hash)).toHaveLength(3), 5000);
    const [finished, cutRecord, failed] = await records(key.hash);
    // (1000 − 400) × 2.50 + 400 × 1.25 + 100 × 10.00 = 1500 + 500 + 1000 micro-USD
    expect(finished).toMatchObject({ outcome: 'finished', model: 'openai/gpt-4o', vendor: 'openai', surface: 'native-responses', inputTokens: 1000, cachedInputTokens: 400, outputTokens: 100, costMicros: 3000n, projectId: project.body.id, tags: [{ key: 'feature', value: 'search' }], stream: false, byok: false });
    expect(finished!.latencyMs).toBeGreaterThanOrEqual(0);
    expect(cutRecord).toMatchObject({ outcome: 'cut', model: 'anthropic/claude-haiku-4-5', stream: true, usageEstimated: true });
    expect(cutRecord!.outputTokens).toBeGreaterThan(0);
    expect(Number(cutRecord!.costMicros)).toBeGreaterThan(0);
    expect(cutRecord!.ttftMs).not.toBeNull();
    expect(failed).toMatchObject({ outcome: 'failed', status: 500, costMicros: 0n });

    // The key's usage fields follow the records.
    const read = await call(h.edgeUrl, org.mgmtKey, 'GET', `/v1/keys/${key.hash}`);
    const expected = (3000 + Number(cutRecord!.costMicros)) / 1e6;
    expect(read.body.data.usage_daily).toBeCloseTo(expected, 9);
    expect(read.body.data.usage_monthly).toBeCloseTo(expected, 9);
    expect(read.body.data.byok_usage_daily).toBe(0);
  });
});

describe('usage read API', () => {
  test('daily totals by key, model, project, customer and tag', async () => {
    const other = await createOrg(h);
    await call(h.edgeUrl, other.mgmtKey, 'POST', '/v1/tags', { key: 'env', value: 'ci' });
    const customer = randomUUID();
    await call(h.edgeUrl, other.mgmtKey, 'POST', '/v1/customers', { id: customer });
    const key = await createKey(h, other);
    const customerKey = await call(h.edgeUrl, other.mgmtKey, 'POST', `/v1/customers/${customer}/api-keys`, {});
    for (const k of [key.key, key.key, customerKey.body.key]) {
      h.openai.script({ text: 'x', usage: { inputTokens: 100, outputTokens: 10 } });
      expect((await call(h.edgeUrl, k, 'POST', '/v1/responses', { model: 'openai/gpt-4o-mini', input: 'hi', tags: [{ key: 'env', value: 'ci' }] })).status).toBe(200);
    }
    const today = new Date().toISOString().slice(0, 10);
    await eventually(async () => {
      const byModel = await call(h.edgeUrl, other.mgmtKey, 'GET', `/v1/usage?start_date=${today}&end_date=${today}&group_by=model`);
      expect(byModel.body.data).toEqual([expect.objectContaining({ date: today, model: 'openai/gpt-4o-mini', requests: 3, input_tokens: 300, output_tokens: 30 })]);
    }, 5000);
    // 100 × 0.15 + 10 × 0.60 = 21 micro-USD a request
    const byModel = await call(h.edgeUrl, other.mgmtKey, 'GET', `/v1/usage?start_date=${today}&end_date=${today}&group_by=model`);
    expect(byModel.body.data[0].cost_usd).toBeCloseTo(0.000063, 9);
    const byKey = await call(h.edgeUrl, other.mgmtKey, 'GET', `/v1/usage?group_by=key`);
    expect(byKey.body.data.map((r: { key: string; requests: number }) => [r.key, r.requests]).sort()).toEqual([[key.hash, 2], [customerKey.body.hash, 1]].sort());
    const byCustomer = await call(h.edgeUrl, other.mgmtKey, 'GET', `/v1/usage?group_by=customer`);
    expect(byCustomer.body.data.find((r: { customer: string | null }) => r.customer === customer).requests).toBe(1);
    const byTag = await call(h.edgeUrl, other.mgmtKey, 'GET', `/v1/usage?group_by=tag`);
    expect(byTag.body.data).toEqual([expect.objectContaining({ tag: 'env=ci', requests: 3 })]);
    const byProject = await call(h.edgeUrl, other.mgmtKey, 'GET', `/v1/usage?group_by=project`);
    expect(byProject.body.data).toEqual([expect.objectContaining({ project: null, requests: 3 })]);
    // Another organization's usage never shows.
    const mine = await call(h.edgeUrl, org.mgmtKey, 'GET', `/v1/usage?group_by=key`);
    expect(JSON.stringify(mine.body)).not.toContain(key.hash);
  });
});

describe('records travel without loss', () => {
  test('while Redis is unreachable a record goes to the outbox and is stored once relayed', async () => {
    const down = createRedis('redis://127.0.0.1:1', { name: 'down', maxRetriesPerRequest: null, enableOfflineQueue: false, lazyConnect: true });
    const logger = createLogger('test', 'silent');
    const queues = new QueueSet({ connection: down, logger, prefix: process.env.QUEUE_PREFIX ?? 'bull' });
    const recorder = new UsageRecorder(new DirectProducer({ queues: (name) => queues.get(name), outbox: db, relay: { kick: () => undefined }, logger, enqueueTimeoutMs: 200 }));
    const id = randomUUID();
    const job: GatewayUsageRecordJob = {
      event_id: id, organization_id: org.organizationId, environment: 'production', key_hash: 'f'.repeat(64), project_id: null, customer_id: null, surface: 'openai-chat', model: 'openai/gpt-4o', vendor: 'openai',
      outcome: 'finished', error_code: null, status: 200, stream: false, byok: false, input_tokens: 1, cached_input_tokens: 0, cache_write_tokens: 0, output_tokens: 1, reasoning_tokens: 0, usage_estimated: false,
      cost_micros: 13, tags: [], latency_ms: 1, ttft_ms: null, spend_epoch: null, counted_at: null, counted_model_request: false, counted_in_rate_limit: false, occurred_at: new Date().toISOString(),
    };
    recorder.record(job);
    await recorder.flush();
    // The batch it travels in is one outbox row, holding the record.
    const rows = await db.eventOutbox.findMany({ where: { queue: QUEUE_NAMES.gatewayUsageRecords } });
    expect(rows.filter((row) => (row.payload as { records?: Array<{ event_id: string }> }).records?.some((r) => r.event_id === id))).toHaveLength(1);
    // The harness gateway's own relay delivers it; its consumer stores it once.
    await eventually(async () => expect(await db.usageRecord.count({ where: { id } })).toBe(1), 8000);
    await queues.close();
    down.disconnect();
  });
});

describe('the database handle', () => {
  test('close() ends the pool under Prisma even when only the pool ran queries (the usage INSERT), so no connection is left open', async () => {
    const database = createDatabase(TEST_DATABASE_URL, 1);
    expect(await database.sql.query('SELECT 1 AS one', [])).toMatchObject({ rows: [{ one: 1 }] });
    await database.close();
    await expect(database.sql.query('SELECT 1 AS one', [])).rejects.toThrow(/after calling end/);
  });
});
