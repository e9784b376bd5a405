import { randomUUID } from 'node:crypto';
import { call, createKey, createOrg, eventually, startHarness, type Harness } from './harness';

/** Budgets and limits, checked before any vendor call (issue 9 §6), through the real spend control. */
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const body = (max = 100) => ({ model: 'openai/gpt-4o', max_tokens: max, messages: [{ role: 'user', content: 'hi' }] });
const chat = (key: string, max = 100) => call(h.edgeUrl, key, 'POST', '/v1/chat/completions', body(max));

describe('402s', () => {
  test('budget_exceeded when the organization credit is spent; no vendor call is made', async () => {
    const org = await createOrg(h, { creditUsd: 0.001 });
    const key = (await createKey(h, org)).key;
    h.openai.script({ text: 'x', usage: { inputTokens: 1000, outputTokens: 100 } });
    expect((await chat(key, 100)).status).toBe(200); // spends 0.0035 of 0.001: the credit is now spent
    const before = h.openai.requests.length;
    const res = await chat(key, 1000);
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ type: 'budget_exceeded', code: 'budget_exceeded' });
    expect(h.openai.requests.length).toBe(before);
  });

  test('payment_failed when a paid organization has no payment method and no credit', async () => {
    const org = await createOrg(h, { plan: 'paid' });
    const key = (await createKey(h, org)).key;
    await h.accessKeys.cli(['org', 'update', org.organizationId, '--payment-method', 'false', '--gateway-credit-usd', '0']);
    await eventually(async () => {
      const res = await chat(key);
      expect(res.status).toBe(402);
      expect(res.body.error.code).toBe('payment_failed');
    });
  });

  test('api_key_limit_exceeded once the window spend reaches the limit; changing the limit never resets usage', async () => {
    const org = await createOrg(h);
    // 0.0035 USD a request: 1000 input × 2.50 + 100 output × 10.00 per million
    const created = await createKey(h, org, { limit: 0.005, limit_reset: 'daily' });
    h.openai.script({ text: 'x', usage: { inputTokens: 1000, outputTokens: 100 } });
    const first = await call(h.edgeUrl, created.key, 'POST', '/v1/chat/completions', body(100));
    expect(first.status).toBe(200);
    expect(first.headers.get('x-key-limit-usd')).toBeTruthy();
    h.openai.script({ text: 'x', usage: { inputTokens: 1000, outputTokens: 100 } });
    expect((await chat(created.key, 100)).status).toBe(200); // 0.0035 spent < 0.005: admitted
    const third = await chat(created.key, 100);
    expect(third.status).toBe(402);
    expect(third.body.error).toMatchObject({ type: 'budget_exceeded', code: 'api_key_limit_exceeded' });
    const read = await call(h.edgeUrl, org.mgmtKey, 'GET', `/v1/keys/${created.hash}`);
    expect(read.body.data.usage).toBeCloseTo(0.007, 9);
    expect(read.body.data.limit_remaining).toBe(0);
    await call(h.edgeUrl, org.mgmtKey, 'PATCH', `/v1/keys/${created.hash}`, { limit: 1 });
    const after = await call(h.edgeUrl, org.mgmtKey, 'GET', `/v1/keys/${created.hash}`);
    expect(after.body.data.usage).toBeCloseTo(0.007, 9);
    expect((await chat(created.key, 100)).status).toBe(200);
  });

  test('project budget and customer budget', async () => {
    const org = await createOrg(h);
    const project = await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/projects', { name: 'tiny', budget: 0 });
    const projectKey = (await createKey(h, org, { project_id: project.body.id })).key;
    const res = await chat(projectKey);
    expect(res.status).toBe(402);
    expect(res.body.error.type).toBe('budget_exceeded');
    const customer = randomUUID();
    await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/customers', { id: customer, budget: 0 });
    const customerKey = (await call(h.edgeUrl, org.mgmtKey, 'POST', `/v1/customers/${customer}/api-keys`, {})).body.key;
    const refused = await chat(customerKey);
    expect(refused.status).toBe(402);
    // Customer keys get no organization or project budget headers.
    expect(refused.headers.get('x-credit-balance-usd')).toBeNull();
  });
});

describe('budget spend on projects and customers', () => {
  test('a project and a customer show what their requests drew on the budget, in the list and by id', async () => {
    const org = await createOrg(h);
    const project = await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/projects', { name: 'storefront', budget: 1 });
    expect(project.status).toBe(201);
    expect(project.body).toMatchObject({ budget: 1, spent: 0 });
    const projectKey = (await createKey(h, org, { project_id: project.body.id })).key;
    const customer = randomUUID();
    expect((await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/customers', { id: customer, budget: 2 })).body).toMatchObject({ budget: 2, spent: 0 });
    const customerKey = (await call(h.edgeUrl, org.mgmtKey, 'POST', `/v1/customers/${customer}/api-keys`, {})).body.key;
    // 0.0035 USD a request: 1000 input × 2.50 + 100 output × 10.00 per million.
    h.openai.script({ text: 'x', usage: { inputTokens: 1000, outputTokens: 100 } });
    expect((await chat(projectKey, 100)).status).toBe(200);
    h.openai.script({ text: 'x', usage: { inputTokens: 1000, outputTokens: 100 } });
    expect((await chat(customerKey, 100)).status).toBe(200);
    h.openai.script({ text: 'x', usage: { inputTokens: 1000, outputTokens: 100 } });
    expect((await chat(customerKey, 100)).status).toBe(200);
    // Settled, and any grant of the replica retired (within a second): the budget holds the real cost.
    await eventually(async () => {
      expect((await call(h.edgeUrl, org.mgmtKey, 'GET', `/v1/projects/${project.body.id}`)).body.spent).toBeCloseTo(0.0035, 9);
      expect((await call(h.edgeUrl, org.mgmtKey, 'GET', `/v1/customers/${customer}`)).body.spent).toBeCloseTo(0.007, 9);
    });
    const projects = await call(h.edgeUrl, org.mgmtKey, 'GET', '/v1/projects');
    expect(projects.body.data).toEqual([expect.objectContaining({ id: project.body.id, spent: expect.closeTo(0.0035, 9) })]);
    const customers = await call(h.edgeUrl, org.mgmtKey, 'GET', '/v1/customers');
    expect(customers.body.data).toEqual([expect.objectContaining({ id: customer, spent: expect.closeTo(0.007, 9) })]);
    // Changing the budget keeps what was spent.
    expect((await call(h.edgeUrl, org.mgmtKey, 'PATCH', `/v1/projects/${project.body.id}`, { budget: 5 })).body).toMatchObject({ budget: 5, spent: expect.closeTo(0.0035, 9) });
  });
});

describe('429s', () => {
  test('free_tier_daily_limit after 15 model requests per UTC day, with Retry-After to the day end; GETs do not count', async () => {
    const org = await createOrg(h, { plan: 'free' });
    const key = (await createKey(h, org)).key;
    for (let i = 0; i < 15; i++) {
      const ok = await chat(key, 10);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-ratelimit-limit')).toBe('15');
    }
    expect((await call(h.edgeUrl, key, 'GET', '/v1/models')).status).toBe(200);
    const refused = await chat(key, 10);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'rate_limit_error', code: 'free_tier_daily_limit' });
    const now = new Date();
    const toMidnight = (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000;
    expect(Math.abs(Number(refused.headers.get('retry-after')) - toMidnight)).toBeLessThan(5);
  });

  test('customer keys with rate_limit_rpm: 429 with Retry-After, type rate_limit_error and no code', async () => {
    const org = await createOrg(h, { plan: 'paid' });
    const customer = randomUUID();
    await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/customers', { id: customer });
    const key = (await call(h.edgeUrl, org.mgmtKey, 'POST', `/v1/customers/${customer}/api-keys`, { rate_limit_rpm: 2 })).body.key;
    // Fixed 60 s windows: the two admits and the refusal may straddle a window edge, so allow one more try.
    let refused: Awaited<ReturnType<typeof chat>> | null = null;
    for (let i = 0; i < 4 && !refused; i++) {
      const res = await chat(key, 10);
      if (res.status === 429) refused = res;
      else expect(res.status).toBe(200);
    }
    expect(refused).not.toBeNull();
    expect(refused!.body.error.type).toBe('rate_limit_error');
    expect(refused!.body.error.code ?? null).toBeNull();
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused!.headers.get('x-ratelimit-limit')).toBe('2');
  });

  test('X-RateLimit-* headers are 0 on a paid organization key without limits', async () => {
    const org = await createOrg(h, { plan: 'paid' });
    const key = (await createKey(h, org)).key;
    const res = await chat(key, 10);
    expect(res.status).toBe(200);
    expect([res.headers.get('x-ratelimit-limit'), res.headers.get('x-ratelimit-remaining'), res.headers.get('x-ratelimit-reset')]).toEqual(['0', '0', '0']);
  });
});

describe('exact under concurrency', () => {
  test('N parallel requests against a small key limit overspend by no more than what is in flight, across two replicas', async () => {
    const org = await createOrg(h);
    // Each request reserves 10 input (estimate) + 100 output at 2.50 / 10.00 and costs 0.0035 USD (1000 in, 100 out).
    const created = await createKey(h, org, { limit: 0.01 });
    const replica = await h.startReplica();
    h.openai.script({ text: 'x', usage: { inputTokens: 1000, outputTokens: 100 }, times: Infinity });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => call(i % 2 ? replica : h.gatewayUrl, created.key, 'POST', '/v1/chat/completions', body(100))));
    h.openai.reset();
    const admitted = results.filter((r) => r.status === 200).length;
    expect(results.every((r) => r.status === 200 || (r.status === 402 && r.body.error.code === 'api_key_limit_exceeded'))).toBe(true);
    // The reserve of one request (about 0.001 USD) is under its cost, so in-flight admits can pass the
    // limit by at most one request's worth each before settlement catches up; never beyond N × cost.
    expect(admitted).toBeGreaterThanOrEqual(1);
    expect(admitted).toBeLessThan(12);
    const read = await call(h.edgeUrl, org.mgmtKey, 'GET', `/v1/keys/${created.hash}`);
    expect(read.body.data.usage).toBeCloseTo(admitted * 0.0035, 9);
  });
});
