import Redis from 'ioredis';
import { QUEUE_NAMES } from '@patchbay/queues';
import { TEST_DATABASE_URL, startLocalRedisCluster, waitFor, type LocalRedisCluster } from '@patchbay/testing';
import { createPrisma, type Db } from '../src/db';
import { request, scenario, startHarness, type Harness, type Scenario } from './harness';

/**
 * The whole tool-connector side (access-keys-and-audit, connector-registry, mcp-runtime) on a real
 * Redis Cluster of three masters and three replicas, given only the cluster form of REDIS_URL. A
 * master fails over to its replica in the middle of a load; credits, the rate-limit window and the
 * queued tool-call records must come out exact, and key revocations must still reach the runtime
 * over pub/sub.
 */
const FIRST_PORT = 17000;

interface Answer {
  status: number;
  code: string | undefined;
}

async function toolCall(s: Scenario, key = s.org.master_key): Promise<Answer> {
  const res = await fetch(s.mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 1, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__get_issue', arguments: { input: { owner: 'octo-org', repo: 'hello', issue_number: 1 } } } }),
  });
  const body = (await res.json()) as { code?: string };
  return { status: res.status, code: body.code };
}

/** How many connections named `name` hold a subscription on these nodes (CLIENT LIST: `name=… sub=N`). */
async function subscribedClients(name: string, ports: number[]): Promise<number> {
  let count = 0;
  for (const port of ports) {
    const node = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      const list = (await node.client('LIST')) as string;
      count += list.split('\n').filter((line) => line.includes(` name=${name} `) && / sub=[1-9]/.test(line)).length;
    } finally {
      node.disconnect();
    }
  }
  return count;
}

let cluster: LocalRedisCluster;
let h: Harness;
let db: Db;

beforeAll(async () => {
  cluster = await startLocalRedisCluster({ firstPort: FIRST_PORT });
  h = await startHarness({ REDIS_URL: cluster.url });
  db = createPrisma(TEST_DATABASE_URL, 2);
}, 120_000);
afterAll(async () => {
  // Each step runs whatever the one before did, so no redis-server or service outlives a failure.
  try {
    await db?.$disconnect();
  } finally {
    try {
      await h?.close();
    } finally {
      await cluster?.stop();
    }
  }
}, 60_000);

const meterKey = (s: Scenario) => `patchbay:metering:{org:${s.org.organization_id}}:credits`;
const recordsOf = (s: Scenario) => db.toolCallRecord.count({ where: { organizationId: s.org.organization_id, registeredUserId: s.userId } });

describe('Redis Cluster', () => {
  it('credits and queued tool-call records come out exact when the masters of the organization and of the record queue fail over mid-load', async () => {
    const ALLOTMENT = 40;
    const s = await scenario(h, { plan: 'free', credits: ALLOTMENT });
    await h.accessKeys.updateOrganization(s.org.organization_id, ['--mcp-rate-limit', '100000']);
    const answers: Answer[] = [];
    let stop = false;
    const worker = async () => {
      while (!stop) answers.push(await toolCall(s).catch(() => ({ status: 0, code: 'network' })));
    };
    const load = [worker(), worker(), worker()];
    let promoted: number;
    try {
      await waitFor(() => answers.filter((a) => a.status === 200).length >= 15, 60_000, '15 calls allowed');
      promoted = await cluster.failover(await cluster.masterOf(meterKey(s)));
      // The record batches' queue, wherever its hash tag put it (maybe the same shard, now on its old replica).
      await cluster.failover(await cluster.masterOf(`bull:{${QUEUE_NAMES.toolCallRecordBatches}}:x`));
      await waitFor(() => answers.filter((a) => a.status === 402).length >= 5, 60_000, 'the allotment used up');
    } finally {
      // Also when a step fails: calls left looping would keep jest from ever exiting.
      stop = true;
      await Promise.all(load);
    }

    const byStatus = new Map<number, number>();
    for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
    console.log('cluster failover answers by status', Object.fromEntries(byStatus), 'organization now on', promoted);
    expect([...byStatus.keys()].every((status) => [200, 402, 503].includes(status))).toBe(true);
    expect(byStatus.get(200)).toBe(ALLOTMENT);
    await waitFor(async () => (await recordsOf(s)) >= ALLOTMENT, 30_000, 'every record stored');
    expect(await recordsOf(s)).toBe(ALLOTMENT);
    const usage = await request(h.url, s.org.master_key, 'GET', '/api/v1/usage/');
    expect(usage.body).toMatchObject({ credits_used: ALLOTMENT, credits_remaining: 0, billing_limit_reached: true });
  }, 180_000);

  it('the per-user rate-limit window survives a failover: calls made before it still count', async () => {
    const LIMIT = 8;
    const s = await scenario(h, { plan: 'paid', credits: 1000 });
    await h.accessKeys.updateOrganization(s.org.organization_id, ['--mcp-rate-limit', String(LIMIT)]);
    for (let i = 0; i < 5; i++) expect((await toolCall(s)).status).toBe(200);
    await cluster.failover(await cluster.masterOf(meterKey(s)));
    const after: number[] = [];
    for (let i = 0; i < 4; i++) {
      let answer = await toolCall(s);
      // A 503 while the client learns the new topology is retried, as a client would.
      for (let tries = 0; answer.status === 503 && tries < 50; tries++) answer = await toolCall(s);
      after.push(answer.status);
    }
    expect(after).toEqual([200, 200, 200, 429]);
  }, 120_000);

  it('a revoked access key stops working at the runtime: the invalidation reaches it over pub/sub on the cluster', async () => {
    const s = await scenario(h, { plan: 'paid', credits: 1000 });
    const created = await fetch(`${h.accessKeys.url}/api/v1/access-keys/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.org.master_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'cluster pub/sub' }),
    });
    expect(created.status).toBe(201);
    const key = (await created.json()) as { id: string; key: string };
    // Verified once: the runtime now serves the key from its cache.
    expect((await toolCall(s, key.key)).status).toBe(200);
    const revoked = await fetch(`${h.accessKeys.url}/api/v1/access-keys/${key.id}/revoke/`, { method: 'POST', headers: { authorization: `Bearer ${s.org.master_key}` } });
    expect(revoked.status).toBe(204);
    // The cache would keep the key for its TTL without the message; the bound only guards a hang.
    await waitFor(async () => (await toolCall(s, key.key)).status === 401, 10_000, 'the revoked key refused');
  }, 60_000);

  // Last: it crashes a node for good. The teardown then closes queue workers whose node is dead
  // (createConsumer's close, which BullMQ alone would wait on forever).
  it('when the node the subscribers are on dies, they move to another node and revocations still arrive', async () => {
    const s = await scenario(h, { plan: 'paid', credits: 1000 });
    const createKey = async () => {
      const res = await fetch(`${h.accessKeys.url}/api/v1/access-keys/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.org.master_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'survives a node' }),
      });
      expect(res.status).toBe(201);
      return (await res.json()) as { id: string; key: string };
    };
    const key = await createKey();
    // Every subscriber connects to the first seed node first.
    // As a master too: its shard holds the audit-events and tool-call-records queues, so the workers'
    // blocking connections were on it (after the failovers above it may be a replica: take it back).
    const first = cluster.ports[0]!;
    const node = (await cluster.nodes()).find((n) => n.port === first);
    if (node?.role === 'replica' && node.masterPort !== null) await cluster.failover(node.masterPort);
    await cluster.kill(first);
    let answer = await toolCall(s, key.key);
    for (let tries = 0; answer.status === 503 && tries < 50; tries++) answer = await toolCall(s, key.key);
    expect(answer.status).toBe(200);
    // The runtime's key-invalidation subscriber is subscribed again, on a node still alive (without
    // it the verifier would only stop trusting its cache, which would refuse the key too).
    await waitFor(async () => (await subscribedClients('mcp-runtime:key-invalidation', cluster.ports.slice(1))) > 0, 20_000, 'the subscriber on another node');
    const revoked = await fetch(`${h.accessKeys.url}/api/v1/access-keys/${key.id}/revoke/`, { method: 'POST', headers: { authorization: `Bearer ${s.org.master_key}` } });
    expect(revoked.status).toBe(204);
    await waitFor(async () => (await toolCall(s, key.key)).status === 401, 10_000, 'the revoked key refused');
  }, 90_000);
});
