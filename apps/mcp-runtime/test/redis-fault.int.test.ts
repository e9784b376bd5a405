import { TEST_DATABASE_URL, waitFor } from '@patchbay/testing';
import { PrivateRedis } from '@patchbay/testing-redis';
import { createPrisma, type Db } from '../src/db';
import { request, scenario, startHarness, type Harness, type Scenario } from './harness';

/**
 * Redis loses its data in the middle of a load (a redis-server of this test's own, without persistence,
 * shut down and started again empty): afterwards credits, the rate-limit window, audit events and
 * tool-call records are exact, and no answer during the outage was a 500.
 */
interface Answer {
  status: number;
  code: string | undefined;
  retryAfter: string | null;
}

async function toolCall(s: Scenario): Promise<Answer> {
  const res = await fetch(s.mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.org.master_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 1, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__get_issue', arguments: { input: { owner: 'octo-org', repo: 'hello', issue_number: 1 } } } }),
  });
  const body = (await res.json()) as { code?: string };
  return { status: res.status, code: body.code, retryAfter: res.headers.get('retry-after') };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let redis: PrivateRedis;
let h: Harness;
let db: Db;

beforeAll(async () => {
  // On TCP: the services the harness starts as child processes take a redis:// URL.
  redis = new PrivateRedis({ port: 0 });
  await redis.start();
  h = await startHarness({ REDIS_URL: redis.url });
  db = createPrisma(TEST_DATABASE_URL, 2);
}, 120_000);
afterAll(async () => {
  await db?.$disconnect();
  await h?.close();
  await redis?.close();
});

async function auditEventsOf(s: Scenario): Promise<Array<{ resource_id: string }>> {
  const res = await fetch(`${h.accessKeys.url}/api/v1/audit-log/?event_type=security_rule.created&page_size=100`, { headers: { authorization: `Bearer ${s.org.master_key}` } });
  return ((await res.json()) as { results: Array<{ resource_id: string }> }).results;
}

async function recordsOf(s: Scenario): Promise<number> {
  return db.toolCallRecord.count({ where: { organizationId: s.org.organization_id, registeredUserId: s.userId } });
}

describe('Redis restarted without its data in the middle of a load', () => {
  it('credits stay exact (a free plan stops at its allotment), records are all stored, security-rule audit events all arrive once, and the outage answers 503 with Retry-After', async () => {
    const ALLOTMENT = 60;
    const s = await scenario(h, { plan: 'free', credits: ALLOTMENT });
    await h.accessKeys.updateOrganization(s.org.organization_id, ['--mcp-rate-limit', '100000']);
    const answers: Answer[] = [];
    const rulesCreated: number[] = [];
    let phase: 'before' | 'outage' | 'after' = 'before';
    let refusedAfter = 0;
    let stop = false;

    const worker = async () => {
      while (!stop) {
        const answer = await toolCall(s).catch(() => ({ status: 0, code: 'network', retryAfter: null }));
        answers.push(answer);
        if (phase === 'after' && answer.status === 402) refusedAfter += 1;
        if (phase === 'outage') await sleep(20);
      }
    };
    const createRule = async (n: number) => {
      const res = await request(h.url, s.org.master_key, 'POST', '/api/v1/security-rules/', { name: `fault rule ${n}`, detector: 'EMAIL_ADDRESS', direction: 'inbound', action: 'redact', enabled: false });
      rulesCreated.push(res.status);
    };
    // Concurrency 2, as in the issue's measurement.
    const load = [worker(), worker()];

    await waitFor(() => answers.filter((a) => a.status === 200).length >= 20, 30_000);
    await createRule(1);
    await createRule(2);
    // Events already handed to Redis are its to keep: this test is about the ones written while it is
    // down. On a loaded machine the two above may still wait in the queue, and the shutdown would
    // drop them with the rest of Redis's data (run Redis with appendonly in production: infra/README.md).
    await waitFor(async () => (await auditEventsOf(s)).length >= 2, 60_000);
    phase = 'outage';
    await redis.stop();
    await createRule(3);
    await createRule(4);
    await sleep(3_000);
    await redis.start();
    phase = 'after';
    await createRule(5);
    await waitFor(() => refusedAfter >= 5, 60_000);
    stop = true;
    await Promise.all(load);

    const byStatus = new Map<number, number>();
    for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
    // Visible in the test output: how the load went.
    console.log('fault test answers by status', Object.fromEntries(byStatus));

    // No 500, no dropped connection: only allowed, refused by the plan, or the dependency is down.
    expect([...byStatus.keys()].every((status) => [200, 402, 503].includes(status))).toBe(true);
    const unavailable = answers.filter((a) => a.status === 503);
    expect(unavailable.length).toBeGreaterThan(0);
    expect(unavailable.every((a) => a.code === 'service_unavailable' && Number(a.retryAfter) > 0)).toBe(true);

    // Money: exactly the allotment was charged, across the loss; the limit was not reset.
    expect(byStatus.get(200)).toBe(ALLOTMENT);
    await waitFor(async () => (await recordsOf(s)) >= ALLOTMENT, 20_000);
    await sleep(300);
    expect(await recordsOf(s)).toBe(ALLOTMENT);
    const usage = await request(h.url, s.org.master_key, 'GET', '/api/v1/usage/');
    expect(usage.body).toMatchObject({ credits_used: ALLOTMENT, credits_remaining: 0, billing_limit_reached: true });

    // Audit events written while Redis was down were kept (outbox) and delivered once.
    expect(rulesCreated).toEqual([201, 201, 201, 201, 201]);
    let created: Array<{ resource_id: string }> = [];
    await waitFor(async () => {
      created = await auditEventsOf(s);
      return created.length >= 5;
      // The outbox relay backs off up to 30 s while Redis is down; on a loaded machine delivery can take longer than that.
    }, 90_000);
    await sleep(500);
    created = await auditEventsOf(s);
    expect(created).toHaveLength(5);
    expect(new Set(created.map((e) => e.resource_id)).size).toBe(5);
  }, 240_000);

  it('the per-user rate-limit window is rebuilt from the records: calls made before the loss still count', async () => {
    const LIMIT = 8;
    const s = await scenario(h, { plan: 'paid', credits: 1000 });
    await h.accessKeys.updateOrganization(s.org.organization_id, ['--mcp-rate-limit', String(LIMIT)]);
    for (let i = 0; i < 5; i++) expect((await toolCall(s)).status).toBe(200);
    await waitFor(async () => (await recordsOf(s)) === 5, 10_000);

    await redis.restart();

    const after: number[] = [];
    for (let i = 0; i < 6; i++) {
      let answer = await toolCall(s);
      // The runtime's connection may still be reconnecting: a 503 is retried, as a client would.
      for (let tries = 0; answer.status === 503 && tries < 50; tries++) {
        await sleep(100);
        answer = await toolCall(s);
      }
      after.push(answer.status);
    }
    // 5 before + 3 after = the limit of 8 in the rolling minute; then 429.
    expect(after).toEqual([200, 200, 200, 429, 429, 429]);
    await waitFor(async () => (await recordsOf(s)) === LIMIT, 10_000);
  }, 120_000);
});
