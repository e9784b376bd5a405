import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { RouteHealth } from './health';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `patchbay:test:routing:${randomUUID()}:`;
const route = { model: 'openai/gpt-4o', vendor: 'openai' };
const other = { model: 'anthropic/claude-sonnet-4', vendor: 'anthropic' };

let redisA: Redis;
let redisB: Redis;
let clock = 1_000_000;
const now = () => clock;

/** Two replicas: separate connections, separate RouteHealth objects, the same Redis. */
function replicas(): [RouteHealth, RouteHealth] {
  const options = { keyPrefix: prefix, threshold: 3, windowMs: 10_000, cooldownMs: 5_000, probeMs: 2_000, now };
  return [new RouteHealth(redisA, options), new RouteHealth(redisB, options)];
}

const failure = { ok: false, countsAgainstRoute: true, latencyMs: null };

beforeAll(() => {
  redisA = new Redis(redisUrl);
  redisB = new Redis(redisUrl);
});

afterAll(async () => {
  const keys = await redisA.keys(`${prefix}*`);
  if (keys.length > 0) await redisA.del(...keys);
  redisA.disconnect();
  redisB.disconnect();
});

beforeEach(async () => {
  clock += 1_000_000;
  const [a] = replicas();
  await a.reset(route);
  await a.reset(other);
});

test('failures recorded on one replica open the breaker the other replica sees', async () => {
  const [a, b] = replicas();
  expect(await a.record(route, failure)).toBe(false);
  expect(await b.record(route, failure)).toBe(false);
  expect((await a.snapshot([route]))[0]!.state).toBe('closed');
  expect(await a.record(route, failure)).toBe(true);
  const [seenByB] = await b.snapshot([route, other]);
  expect(seenByB!.state).toBe('open');
  expect((await b.snapshot([other]))[0]!.state).toBe('closed');
});

test('successes between failures do not reset the count: a flapping route opens', async () => {
  const [a, b] = replicas();
  const success = { ok: true, countsAgainstRoute: false, latencyMs: 50 };
  await a.record(route, failure);
  await b.record(route, success);
  await a.record(route, failure);
  await b.record(route, success);
  expect(await a.record(route, failure)).toBe(true);
  expect((await b.snapshot([route]))[0]!.state).toBe('open');
});

test('failures that do not say the vendor is unwell never open it', async () => {
  const [a, b] = replicas();
  for (let i = 0; i < 5; i++) await (i % 2 ? a : b).record(route, { ok: false, countsAgainstRoute: false, latencyMs: null });
  expect((await a.snapshot([route]))[0]!.state).toBe('closed');
});

test('failures spread over more than the window do not open it', async () => {
  const [a] = replicas();
  await a.record(route, failure);
  await a.record(route, failure);
  clock += 10_001;
  await a.record(route, failure);
  expect((await a.snapshot([route]))[0]!.state).toBe('closed');
});

test('after the cooldown exactly one replica probes; its success closes the route for both', async () => {
  const [a, b] = replicas();
  for (let i = 0; i < 3; i++) await a.record(route, failure);
  clock += 5_001;
  const first = await a.snapshot([route]);
  const second = await b.snapshot([route]);
  expect([first[0]!.state, second[0]!.state]).toEqual(['probe', 'open']);
  await a.record(route, { ok: true, countsAgainstRoute: false, latencyMs: 120 });
  expect((await b.snapshot([route]))[0]!.state).toBe('closed');
});

test('peek (a dry run) reads open, probe and latency without claiming the probe a real request needs', async () => {
  const [a, b] = replicas();
  await a.record(other, { ok: true, countsAgainstRoute: false, latencyMs: 80 });
  for (let i = 0; i < 3; i++) await a.record(route, failure);
  expect(await b.peek([route, other])).toEqual([
    { state: 'open', latencyMs: null },
    { state: 'closed', latencyMs: 80 },
  ]);
  clock += 5_001;
  expect((await b.peek([route]))[0]!.state).toBe('probe');
  expect((await b.peek([route]))[0]!.state).toBe('probe');
  // The probe is still there for the first real request.
  expect((await a.snapshot([route]))[0]!.state).toBe('probe');
  expect((await b.snapshot([route]))[0]!.state).toBe('open');
});

test('a failed probe opens the route for another cooldown', async () => {
  const [a, b] = replicas();
  for (let i = 0; i < 3; i++) await b.record(route, failure);
  clock += 5_001;
  expect((await a.snapshot([route]))[0]!.state).toBe('probe');
  expect(await a.record(route, failure)).toBe(true);
  clock += 4_000;
  expect((await b.snapshot([route]))[0]!.state).toBe('open');
  clock += 1_002;
  expect((await b.snapshot([route]))[0]!.state).toBe('probe');
});

test('latency is an exponentially weighted moving average shared by the replicas', async () => {
  const [a, b] = replicas();
  await a.record(route, { ok: true, countsAgainstRoute: false, latencyMs: 100 });
  await b.record(route, { ok: true, countsAgainstRoute: false, latencyMs: 200 });
  const [h, unmeasured] = await a.snapshot([route, other]);
  expect(h!.latencyMs).toBeCloseTo(0.3 * 200 + 0.7 * 100, 3);
  expect(unmeasured!.latencyMs).toBeNull();
});

describe('successes gathered for successFlushMs (one write per route and flush)', () => {
  const gathering = () => new RouteHealth(redisA, { keyPrefix: prefix, threshold: 3, windowMs: 10_000, cooldownMs: 5_000, probeMs: 2_000, now, successFlushMs: 60_000 });
  const success = (latencyMs: number) => ({ ok: true, countsAgainstRoute: false, latencyMs });

  test('are written at the flush, and move the average exactly as the same successes one by one', async () => {
    const [, b] = replicas();
    const a = gathering();
    await b.record(route, success(0));
    for (const ms of [100, 100, 100]) expect(await a.record(route, success(ms))).toBe(false);
    expect((await b.snapshot([route]))[0]!.latencyMs).toBe(0);
    await a.flush();
    // One by one: 30, then 51, then 65.7.
    expect((await b.snapshot([route]))[0]!.latencyMs).toBeCloseTo(100 * (1 - 0.7 ** 3), 3);
  });

  test('go out before a failure of the same route, in order', async () => {
    const [, b] = replicas();
    const a = gathering();
    await a.record(route, success(80));
    await a.record(route, failure);
    const [h] = await b.snapshot([route]);
    expect(h).toEqual({ state: 'closed', latencyMs: 80 });
    await a.record(route, failure);
    expect(await a.record(route, failure)).toBe(true);
  });

  test('never close a route that opened meanwhile; a success on a route seen probing closes it at once', async () => {
    const [, b] = replicas();
    const a = gathering();
    await a.record(route, success(50));
    for (let i = 0; i < 3; i++) await b.record(route, failure);
    await a.flush();
    expect((await b.snapshot([route]))[0]!.state).toBe('open');
    clock += 5_001;
    expect((await a.snapshot([route]))[0]!.state).toBe('probe');
    await a.record(route, success(70));
    expect((await b.snapshot([route]))[0]!.state).toBe('closed');
  });
});

test('Redis unreachable: every route reads closed and recording does nothing', async () => {
  const broken = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  const errors: unknown[] = [];
  const health = new RouteHealth(broken, { keyPrefix: prefix, onError: (e) => errors.push(e) });
  expect(await health.snapshot([route])).toEqual([{ state: 'closed', latencyMs: null }]);
  expect(await health.record(route, failure)).toBe(false);
  expect(errors.length).toBe(2);
  broken.disconnect();
});
