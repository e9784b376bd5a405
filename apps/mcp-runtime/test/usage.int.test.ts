import { createRedis } from '@patchbay/service-kit';
import { TEST_REDIS_URL, waitFor } from '@patchbay/testing';
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
