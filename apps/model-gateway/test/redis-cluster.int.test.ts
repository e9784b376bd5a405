import { createRedis } from '@patchbay/service-kit';
import { TEST_DATABASE_URL, startLocalRedisCluster, waitFor, type LocalRedisCluster } from '@patchbay/testing';
import { createPrisma, type Db } from '../src/db';
import { call, createKey, createOrg, startHarness, type Harness } from './harness';

/**
 * The gateway on a real Redis Cluster of three masters and three replicas, given only the cluster
 * form of REDIS_URL. The master holding the organization's budgets fails over to its replica in the
 * middle of a concurrent load; the key's spend limit must hold, and the counters (key usage, the
 * organization's credit drawn, the project's spend) must equal the usage records exactly, as on one Redis.
 */
const FIRST_PORT = 17010;

let cluster: LocalRedisCluster;
let h: Harness;
let db: Db;

beforeAll(async () => {
  cluster = await startLocalRedisCluster({ firstPort: FIRST_PORT });
  h = await startHarness({ REDIS_URL: cluster.url });
  db = createPrisma(TEST_DATABASE_URL, 2);
}, 120_000);
afterAll(async () => {
  await db?.$disconnect();
  await h?.close();
  await cluster?.stop();
});

const chat = (key: string) => call(h.edgeUrl, key, 'POST', '/v1/chat/completions', { model: 'openai/gpt-4o', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });

describe('Redis Cluster', () => {
  test('a key limit holds and spend stays exact across a failover of the organization’s master mid-load', async () => {
    const org = await createOrg(h, { creditUsd: 100 });
    const project = await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/projects', { name: 'cluster', budget: 50 });
    expect(project.status).toBe(201);
    // The fake vendor's default reply costs about 33 micro-USD: some 150 requests fit.
    const LIMIT_USD = 0.005;
    const key = await createKey(h, org, { project_id: project.body.id, limit: LIMIT_USD, limit_reset: 'daily' });
    const statuses: number[] = [];
    const codes = new Set<string>();
    let stop = false;
    const worker = async () => {
      while (!stop) {
        const res = await chat(key.key).catch(() => ({ status: 0, body: null }));
        statuses.push(res.status);
        if (res.status === 402) codes.add(res.body?.error?.code);
      }
    };
    const load = [worker(), worker(), worker()];
    await waitFor(() => statuses.filter((s) => s === 200).length >= 8, 60_000, '8 requests served');
    await cluster.failover(await cluster.masterOf(`patchbay:gateway-spend:{org:${org.organizationId}}:t`));
    await waitFor(() => statuses.filter((s) => s === 402).length >= 5, 60_000, 'the key limit reached');
    stop = true;
    await Promise.all(load);

    const served = statuses.filter((s) => s === 200).length;
    console.log('cluster failover statuses', Object.fromEntries([...new Set(statuses)].map((s) => [s, statuses.filter((x) => x === s).length])));
    expect(statuses.every((s) => [200, 402, 503].includes(s))).toBe(true);
    expect([...codes]).toEqual(['api_key_limit_exceeded']);
    // Every served request has its usage record; the counters equal the records' sum.
    // Refused requests are recorded too (status 402, no cost).
    const servedRecords = () => db.usageRecord.count({ where: { keyHash: key.hash, status: 200 } });
    await waitFor(async () => (await servedRecords()) >= served, 30_000, 'every usage record stored');
    expect(await servedRecords()).toBe(served);
    const rows = await db.usageRecord.findMany({ where: { keyHash: key.hash }, select: { costMicros: true } });
    const spentUsd = rows.reduce((sum, r) => sum + Number(r.costMicros), 0) / 1e6;
    expect(spentUsd).toBeLessThanOrEqual(LIMIT_USD);
    const read = await call(h.edgeUrl, org.mgmtKey, 'GET', `/v1/keys/${key.hash}`);
    expect(read.body.data.usage).toBeCloseTo(spentUsd, 9);
    // The organization's credit drawn and the project's spend, as the admit script reads them.
    const spentMicros = rows.reduce((sum, r) => sum + Number(r.costMicros), 0);
    const admin = createRedis(cluster.url);
    try {
      const totals = `patchbay:gateway-spend:{org:${org.organizationId}}:t`;
      await waitFor(async () => Number(await admin.hget(totals, 'o')) === spentMicros, 10_000, 'the last settles applied');
      expect(Number(await admin.hget(totals, 'o'))).toBe(spentMicros);
      expect(Number(await admin.hget(totals, `p:production:${project.body.id}`))).toBe(spentMicros);
    } finally {
      admin.disconnect();
    }
  }, 180_000);
});
