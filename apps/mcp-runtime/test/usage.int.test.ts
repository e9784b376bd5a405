import { randomUUID } from 'node:crypto';
import { createRedis } from '@patchbay/service-kit';
import { TEST_DATABASE_URL, TEST_REDIS_URL, waitFor } from '@patchbay/testing';
import { createDatabase } from '../src/db';
import { storeToolCallRecord } from '../src/domain/tool-call-records';
import { request, rpc, scenario, startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 90_000);
afterAll(async () => {
  await h.close();
});

type Scenario = Awaited<ReturnType<typeof scenario>>;

const call = (s: Scenario, key = s.org.master_key) =>
  rpc(s.mcpUrl, key, { id: 1, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__get_issue', arguments: { input: { owner: 'octo-org', repo: 'hello', issue_number: 1 } } } });

const usage = async (s: Scenario, query = '') => request(h.url, s.org.master_key, 'GET', `/api/v1/usage/${query}`);

describe('GET /api/v1/usage/', () => {
  it('counts one credit per tools/call, production and test keys together; tools/list and search are free', async () => {
    const s = await scenario(h, { plan: 'free', credits: 50 });
    const testSide = await scenario(h, { org: s.org, environment: 'test' });
    await rpc(s.mcpUrl, s.org.master_key, { id: 1, jsonrpc: '2.0', method: 'tools/list' });
    await request(h.url, s.org.master_key, 'POST', s.mcpUrl.replace(h.url, '').replace(/\/mcp$/, '/search'), { intent: 'find an issue' });
    await call(s);
    await call(s);
    await call(testSide, s.org.test_key);
    const res = await usage(s);
    expect(res.status).toBe(200);
    const cycle = new Date().toISOString().slice(0, 7);
    expect(res.body).toEqual({
      cycle,
      period_start: `${cycle}-01T00:00:00.000Z`,
      period_end: expect.stringMatching(/^\d{4}-\d{2}-01T00:00:00\.000Z$/),
      plan: 'free',
      monthly_credits: 50,
      credits_used: 3,
      credits_remaining: 47,
      overage_credits: 0,
      billing_limit_reached: false,
      rate_limit_per_minute: 30,
    });
  });

  it('shows a free plan at its limit, the state in which tools/call answers 402', async () => {
    const s = await scenario(h, { plan: 'free', credits: 2 });
    await call(s);
    await call(s);
    expect((await call(s)).status).toBe(402);
    expect((await usage(s)).body).toMatchObject({ credits_used: 2, credits_remaining: 0, billing_limit_reached: true });
  });

  it('shows a paid plan\'s overage, which the records mark call by call for month-end billing', async () => {
    const s = await scenario(h, { plan: 'paid', credits: 1 });
    await call(s);
    await call(s);
    await call(s);
    expect((await usage(s)).body).toMatchObject({ plan: 'paid', credits_used: 3, credits_remaining: 0, overage_credits: 2, billing_limit_reached: false });
    let overage: boolean[] = [];
    await waitFor(async () => {
      overage = (await request(h.url, s.org.master_key, 'GET', `/api/v1/tool-call-records/?registered_user_id=${s.userId}`)).body.results.map((r: { overage: boolean }) => r.overage);
      return overage.length === 3;
    });
    expect(overage.sort()).toEqual([false, true, true]);
  });

  it('answers for a past cycle, and refuses a malformed one naming the parameter', async () => {
    const s = await scenario(h, { connect: false });
    expect((await usage(s, '?cycle=2026-01')).body).toMatchObject({ cycle: '2026-01', credits_used: 0, period_start: '2026-01-01T00:00:00.000Z', period_end: '2026-02-01T00:00:00.000Z' });
    const bad = await usage(s, '?cycle=2026-13');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('query.cycle');
  });

  it('needs management:all', async () => {
    const s = await scenario(h, { connect: false });
    const agent = await h.accessKeys.createKey(s.org.master_key, { name: 'agent', scopes: ['runtime:all'] });
    expect((await request(h.url, agent.key, 'GET', '/api/v1/usage/')).status).toBe(403);
  });
});

describe('GET /api/v1/usage/daily', () => {
  const daily = async (s: Scenario, query = '', key = s.org.master_key) => request(h.url, key, 'GET', `/api/v1/usage/daily${query}`);

  it('counts tool calls, failures and credits per UTC day of the cycle, summed by the service, with both environments\' credits beside', async () => {
    const s = await scenario(h, { plan: 'paid', credits: 100 });
    const testSide = await scenario(h, { org: s.org, environment: 'test' });
    await call(s);
    await rpc(s.mcpUrl, s.org.master_key, { id: 2, jsonrpc: '2.0', method: 'tools/call', params: { name: 'github__get_issue', arguments: { input: { owner: 'octo-org' } } } });
    await call(testSide, s.org.test_key);
    // A call recorded on the first day of the cycle (stored as the record worker would).
    const cycle = new Date().toISOString().slice(0, 7);
    const database = createDatabase(TEST_DATABASE_URL, 1);
    try {
      await storeToolCallRecord(database, {
        event_id: randomUUID(), organization_id: s.org.organization_id, environment: 'production', tool_pack_id: s.packId, registered_user_id: s.userId,
        access_key_id: s.org.master_key_id, tool_name: 'github__list_issues', connector_slug: 'github', status: 'blocked', duration_ms: 3, credits: 1,
        billing_cycle: cycle, overage: false, detections: [], error_code: 'security_rule_blocked', occurred_at: `${cycle}-01T00:00:00.000Z`,
      }, 90);
    } finally {
      await database.close();
    }
    const today = new Date().toISOString().slice(0, 10);
    let body: any;
    await waitFor(async () => {
      body = (await daily(s)).body;
      return body.totals?.credits_all_environments === 4;
    });
    expect(body).toMatchObject({ time_zone: 'UTC', environment: 'production', cycle, start: `${cycle}-01` });
    expect(body.days[0].date).toBe(`${cycle}-01`);
    expect(body.days.at(-1).date.slice(0, 7)).toBe(cycle);
    expect(body.totals).toEqual({ tool_calls: 3, failures: 2, blocked: 1, credits: 3, credits_all_environments: 4 });
    const todays = body.days.filter((d: { date: string }) => d.date === today);
    const firstDay = body.days[0];
    if (today === `${cycle}-01`) {
      expect(todays).toEqual([{ date: today, tool_calls: 3, failures: 2, blocked: 1, credits: 3, credits_all_environments: 4 }]);
    } else {
      expect(todays).toEqual([{ date: today, tool_calls: 2, failures: 1, blocked: 0, credits: 2, credits_all_environments: 3 }]);
      expect(firstDay).toEqual({ date: `${cycle}-01`, tool_calls: 1, failures: 1, blocked: 1, credits: 1, credits_all_environments: 1 });
    }
    // The test environment sees its own calls, and the same credits for the allotment.
    const fromTest = (await daily(s, '', s.org.test_key)).body;
    expect(fromTest).toMatchObject({ environment: 'test', totals: { tool_calls: 1, failures: 0, credits: 1, credits_all_environments: 4 } });
  });

  it('takes a range of days (inclusive), every day present with zeros, and refuses bad ranges naming the parameter', async () => {
    const s = await scenario(h, { connect: false });
    const res = await daily(s, '?start=2026-02-27&end=2026-03-02');
    expect(res.status).toBe(200);
    expect(res.body.cycle).toBeNull();
    expect(res.body.days.map((d: { date: string }) => d.date)).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
    expect(res.body.totals).toEqual({ tool_calls: 0, failures: 0, blocked: 0, credits: 0, credits_all_environments: 0 });
    for (const [query, field] of [
      ['?start=2026-02-30&end=2026-03-02', 'query.start'],
      ['?start=2026-03-02', 'query.end'],
      ['?start=2026-03-02&end=2026-03-01', 'query.end'],
      ['?start=2026-01-01&end=2026-06-01', 'query.end'],
      ['?cycle=2026-1', 'query.cycle'],
      ['?cycle=2026-01&start=2026-01-01&end=2026-01-02', 'query.cycle'],
    ] as const) {
      const bad = await daily(s, query);
      expect([query, bad.status, bad.body.errors?.[0]?.field]).toEqual([query, 400, field]);
    }
  });

  it('needs management:all from a key and view_billing from a session; a key restricted to a user counts only theirs', async () => {
    const s = await scenario(h);
    const other = await scenario(h, { org: s.org });
    await call(s);
    await call(other);
    const agent = await h.accessKeys.createKey(s.org.master_key, { name: 'agent', scopes: ['runtime:all'] });
    expect((await daily(s, '', agent.key)).status).toBe(403);
    const narrow = await h.accessKeys.createKey(s.org.master_key, { name: 'one user', scopes: ['management:all'], registered_user_ids: [s.userId] });
    await waitFor(async () => (await daily(s)).body.totals.tool_calls === 2);
    expect((await daily(s, '', narrow.key)).body.totals).toMatchObject({ tool_calls: 1, credits_all_environments: 1 });
  });
});

describe('the count survives Redis losing its data', () => {
  it("usage and the free plan's limit are rebuilt from the tool-call records before anything counts again", async () => {
    const s = await scenario(h, { plan: 'free', credits: 3 });
    await call(s);
    await call(s);
    await waitFor(async () => (await request(h.url, s.org.master_key, 'GET', `/api/v1/tool-call-records/?registered_user_id=${s.userId}`)).body.results.length === 2);
    // The harness's meter keys; deleting them is what a Redis restart without persistence does.
    const redis = createRedis(TEST_REDIS_URL);
    try {
      const keys = await redis.keys(`test-metering-${process.pid}:{org:${s.org.organization_id}}:*`);
      expect(keys.length).toBeGreaterThan(0);
      await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
    expect((await usage(s)).body.credits_used).toBe(2);
    // The next call counts on from the rebuilt value, and the one after meets the limit.
    expect((await call(s)).status).toBe(200);
    expect((await usage(s)).body).toMatchObject({ credits_used: 3, billing_limit_reached: true });
    expect((await call(s)).status).toBe(402);
  });
});
