import { randomUUID } from 'node:crypto';
import { applyMigrations, ensureDatabase } from '@patchbay/db';
import type { GatewayUsageRecordJob } from '@patchbay/queues';
import { TEST_DATABASE_URL } from '@patchbay/testing';
import { DB_SCHEMA, MIGRATIONS_DIR } from '../src/config';
import { createDatabase } from '../src/db';
import { storeUsageRecords } from '../src/usage/usage-records';
import { call, createKey, createOrg, startHarness, type Harness, type TestOrg } from './harness';

/**
 * What this proves, and what it does not: the "replica" is a second database on the same server,
 * migrated like the primary but never replicated, so the two hold different usage records on purpose.
 * A figure that only the replica's records add up to can come back only from an endpoint that reads
 * DATABASE_READ_URL; a key that only the primary has, only from one that reads DATABASE_URL. Streaming
 * replication and its lag are PostgreSQL's; this pins which endpoint reads which database.
 */
const REPLICA_URL = (() => {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `${url.pathname}_read_replica`;
  return url.toString();
})();

let h: Harness;
let org: TestOrg;
const primary = createDatabase(TEST_DATABASE_URL, 2);
const replica = createDatabase(REPLICA_URL, 2);
beforeAll(async () => {
  await ensureDatabase(REPLICA_URL);
  await applyMigrations({ databaseUrl: REPLICA_URL, schema: DB_SCHEMA, migrationsDir: MIGRATIONS_DIR });
  h = await startHarness({ DATABASE_READ_URL: REPLICA_URL });
  org = await createOrg(h);
}, 180_000);
afterAll(async () => {
  await primary.close();
  await replica.close();
  await h?.close();
});

function usage(model: string, inputTokens: number): GatewayUsageRecordJob {
  return {
    event_id: randomUUID(), organization_id: org.organizationId, environment: 'production', key_hash: 'e'.repeat(64), project_id: null, customer_id: null, surface: 'openai-chat', model, vendor: 'openai',
    outcome: 'finished', error_code: null, status: 200, stream: false, byok: false, input_tokens: inputTokens, cached_input_tokens: 0, cache_write_tokens: 0, output_tokens: 1, reasoning_tokens: 0, usage_estimated: false,
    cost_micros: 10, tags: [], latency_ms: 1, ttft_ms: null, spend_epoch: null, counted_at: null, counted_model_request: false, counted_in_rate_limit: false, occurred_at: new Date().toISOString(),
  };
}

describe('DATABASE_READ_URL: usage reads the replica, keys the primary', () => {
  test('GET /v1/usage and /v1/usage/daily add up the replica\'s records; a key just created reads back from the primary', async () => {
    await storeUsageRecords(primary.sql, [usage('openai/gpt-4o', 1000)]);
    await storeUsageRecords(replica.sql, [usage('openai/gpt-4o-mini', 7), usage('openai/gpt-4o-mini', 7)]);
    const today = new Date().toISOString().slice(0, 10);

    const byModel = await call(h.edgeUrl, org.mgmtKey, 'GET', `/v1/usage?start_date=${today}&end_date=${today}&group_by=model`);
    expect(byModel.status).toBe(200);
    expect(byModel.body.data).toEqual([expect.objectContaining({ date: today, model: 'openai/gpt-4o-mini', requests: 2, input_tokens: 14 })]);

    const daily = await call(h.edgeUrl, org.mgmtKey, 'GET', `/v1/usage/daily?from=${today}&to=${today}&group_by=model`);
    expect(daily.status).toBe(200);
    expect(daily.body.totals).toMatchObject({ requests: 2, input_tokens: 14 });

    // Read-your-writes where the API promises it: the replica never sees this key, and it reads back at once.
    const key = await createKey(h, org, { name: 'just made' });
    const read = await call(h.edgeUrl, org.mgmtKey, 'GET', `/v1/keys/${key.hash}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ hash: key.hash, name: 'just made' });
  });
});
