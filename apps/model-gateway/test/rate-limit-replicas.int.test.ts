import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { call, createKey, createOrg, startGatewayProcess, startHarness, type Harness } from './harness';

/**
 * X-RateLimit-Remaining across replicas (issue 27 §6, spec Limits): an answer decided before
 * admission (here a 400 for an unknown model) on one gateway process reports what the admissions on
 * another gateway process left, read from the shared counters in Redis, not what the refusing process
 * happened to see itself. Two gateway processes (dist/main.js) on the same database and Redis.
 */
let h: Harness;
let a: string;
let b: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  h = await startHarness();
  const started = await Promise.all([startGatewayProcess(h), startGatewayProcess(h)]);
  for (const s of started) children.push(s.child);
  [a, b] = started.map((s) => s.url) as [string, string];
}, 90_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await h?.close();
});

const chat = (base: string, key: string, model = 'openai/gpt-4o') => call(base, key, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] });
const rateLimit = (res: { headers: Headers }) => [res.headers.get('x-ratelimit-limit'), res.headers.get('x-ratelimit-remaining'), res.headers.get('x-ratelimit-reset')];

describe('X-RateLimit-Remaining is the same on every replica', () => {
  test('free plan: a refusal on process B after three requests on process A reports 12 of 15, as A did', async () => {
    const org = await createOrg(h, { plan: 'free' });
    const key = (await createKey(h, org)).key;
    let last: Awaited<ReturnType<typeof chat>> | null = null;
    for (let i = 0; i < 3; i++) {
      last = await chat(a, key);
      expect(last.status).toBe(200);
    }
    expect(rateLimit(last!)).toEqual(['15', '12', String((Math.floor(Date.now() / 86_400_000) + 1) * 86_400)]);
    const refused = await chat(b, key, 'nobody/no-such-model');
    expect(refused.status).toBe(400);
    expect(rateLimit(refused)).toEqual(rateLimit(last!));
    // The refusal counted nothing: the next admitted request, on B, takes the 13th.
    expect(rateLimit(await chat(b, key))[1]).toBe('11');
    expect(rateLimit(await chat(a, key, 'nobody/no-such-model'))[1]).toBe('11');
  });

  test("a customer key's rate_limit_rpm: B's refusal reports what A's admissions left in the minute", async () => {
    const org = await createOrg(h);
    const customer = randomUUID();
    expect((await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/customers', { id: customer })).status).toBe(201);
    const key = (await call(h.edgeUrl, org.mgmtKey, 'POST', `/v1/customers/${customer}/api-keys`, { rate_limit_rpm: 50 })).body.key as string;
    // Fixed 60 s windows: when the minute turns between the requests, the scenario runs again in the next one.
    for (let attempt = 0; ; attempt++) {
      const first = await chat(a, key);
      const second = await chat(a, key);
      const refused = await chat(b, key, 'nobody/no-such-model');
      expect([first.status, second.status, refused.status]).toEqual([200, 200, 400]);
      if (rateLimit(first)[2] !== rateLimit(refused)[2] && attempt < 2) continue;
      expect(rateLimit(refused)).toEqual(rateLimit(second));
      expect(Number(rateLimit(refused)[1])).toBeLessThan(50);
      break;
    }
  });
});
