import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { billingCycle } from './billing-cycle';
import { rateLimitHeaders } from './headers';
import { Meter, type MeterRequest } from './meter';
import { MemoryLedger } from './test-support/memory-ledger';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
// One prefix per run: concurrent runs on the same Redis never see each other's counters.
const prefix = `patchbay:test:metering:${randomUUID()}:`;
const T0 = Date.parse('2025-06-10T12:00:00.000Z');
const DAY_MS = 24 * 60 * 60 * 1000;

const connections: Redis[] = [];
function connect(): Redis {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  connections.push(redis);
  return redis;
}

let redis: Redis;
let meter: Meter;
const ledger = new MemoryLedger();
const meters: Meter[] = [];
function newMeter(client: Redis): Meter {
  const m = new Meter(client, { keyPrefix: prefix, ledger });
  meters.push(m);
  return m;
}

beforeAll(() => {
  redis = connect();
  meter = newMeter(redis);
});

afterAll(async () => {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  for (const m of meters) m.close();
  await Promise.all(connections.map((c) => c.quit()));
});

async function keysOf(organizationId: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}{org:${organizationId}}*`, 'COUNT', 1000);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found.sort();
}

function request(overrides: Partial<MeterRequest> = {}): MeterRequest {
  return {
    organizationId: randomUUID(),
    registeredUserId: randomUUID(),
    plan: 'paid',
    monthlyCredits: 1_000,
    rateLimitPerMinute: 30,
    now: T0,
    ...overrides,
  };
}

async function checkTimes(m: Meter, req: MeterRequest, times: number) {
  const decisions = [];
  for (let i = 0; i < times; i++) decisions.push(await m.check(req));
  return decisions;
}

describe('per-registered-user rate limit', () => {
  it('allows the per-minute limit of tools/call in the window and answers the next with rate_limited and Retry-After', async () => {
    const req = request({ rateLimitPerMinute: 30 });
    const allowed = await checkTimes(meter, req, 30);
    expect(allowed.every((d) => d.allowed)).toBe(true);
    expect(allowed.map((d) => d.rateLimit.remaining)).toEqual(Array.from({ length: 30 }, (_, i) => 29 - i));

    const limited = await meter.check(req);
    expect(limited).toMatchObject({
      allowed: false,
      reason: 'rate_limited',
      rateLimit: { limit: 30, remaining: 0, resetSeconds: 60, retryAfterSeconds: 60, resetAt: T0 / 1000 + 60 },
    });
    expect(rateLimitHeaders(limited)).toMatchObject({
      'Retry-After': '60',
      'RateLimit-Limit': '30',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '60',
      'X-RateLimit-Limit': '30',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(T0 / 1000 + 60),
    });
  });

  it('computes Retry-After from the oldest call still in the window', async () => {
    const req = request({ rateLimitPerMinute: 30 });
    for (let i = 0; i < 30; i++) expect((await meter.check({ ...req, now: T0 + i * 1000 })).allowed).toBe(true);
    // At T0 + 30 s the oldest call (T0) leaves at T0 + 60 s; the newest (T0 + 29 s) at T0 + 89 s.
    const limited = await meter.check({ ...req, now: T0 + 30_000 });
    expect(limited.reason).toBe('rate_limited');
    expect(limited.rateLimit.retryAfterSeconds).toBe(30);
    expect(limited.rateLimit.resetSeconds).toBe(59);
    // Part of a second still rounds up, so a client that waits Retry-After is never early.
    expect((await meter.check({ ...req, now: T0 + 30_500 })).rateLimit.retryAfterSeconds).toBe(30);
    expect((await meter.check({ ...req, now: T0 + 59_999 })).rateLimit.retryAfterSeconds).toBe(1);
  });

  it('is a rolling window: slots free one by one as calls age past 60 seconds, not all at once', async () => {
    const req = request({ rateLimitPerMinute: 30 });
    for (let i = 0; i < 30; i++) await meter.check({ ...req, now: T0 + i * 1000 });

    // A call exactly 60 seconds old has left the window: one slot, taken at once.
    const first = await meter.check({ ...req, now: T0 + 60_000 });
    expect(first).toMatchObject({ allowed: true, rateLimit: { remaining: 0 } });
    const refused = await meter.check({ ...req, now: T0 + 60_000 });
    expect(refused).toMatchObject({ allowed: false, reason: 'rate_limited', rateLimit: { retryAfterSeconds: 1 } });
    // A fixed one-minute bucket would now allow 30 again; the rolling window frees the next call only.
    expect((await meter.check({ ...req, now: T0 + 61_000 })).allowed).toBe(true);
    expect((await meter.check({ ...req, now: T0 + 61_000 })).allowed).toBe(false);
    expect((await meter.check({ ...req, now: T0 + 62_000 })).allowed).toBe(true);
    // Once every earlier call has aged out, the whole limit is back (minus the three made since T0 + 60 s).
    const later = await meter.check({ ...req, now: T0 + 90_000 });
    expect(later).toMatchObject({ allowed: true, rateLimit: { remaining: 30 - 4 } });
  });

  it('after the limit is lowered, Retry-After waits until enough calls have left the window', async () => {
    const req = request({ rateLimitPerMinute: 10 });
    for (let i = 0; i < 10; i++) await meter.check({ ...req, now: T0 + i * 1000 });
    // Now 10 calls are in the window and the limit is 7: the 4th oldest (T0 + 3 s) must leave first.
    const limited = await meter.check({ ...req, rateLimitPerMinute: 7, now: T0 + 20_000 });
    expect(limited).toMatchObject({ allowed: false, reason: 'rate_limited', rateLimit: { limit: 7, remaining: 0, retryAfterSeconds: 43 } });
    expect((await meter.check({ ...req, rateLimitPerMinute: 7, now: T0 + 62_999 })).allowed).toBe(false);
    expect((await meter.check({ ...req, rateLimitPerMinute: 7, now: T0 + 63_000 })).allowed).toBe(true);
  });

  it('is per registered user: another user of the same organization has its own window', async () => {
    const req = request({ rateLimitPerMinute: 2 });
    await checkTimes(meter, req, 2);
    expect((await meter.check(req)).reason).toBe('rate_limited');
    expect((await meter.check({ ...req, registeredUserId: randomUUID() })).allowed).toBe(true);
  });

  it('a rate-limited tools/call costs no credit', async () => {
    const req = request({ rateLimitPerMinute: 2 });
    await checkTimes(meter, req, 5);
    expect(await meter.usage(req.organizationId, '2025-06')).toEqual({ cycle: '2025-06', used: 2, overage: 0 });
  });

  it('rate limits a free-plan organization over its allotment first: rate_limited is checked before billing', async () => {
    const req = request({ plan: 'free', monthlyCredits: 1, rateLimitPerMinute: 1 });
    expect((await meter.check(req)).allowed).toBe(true);
    expect((await meter.check(req)).reason).toBe('rate_limited');
    expect((await meter.check({ ...req, now: T0 + 60_000 })).reason).toBe('billing_limit_reached');
  });

  it('rejects a rate limit below 1 and a missing registered user', async () => {
    await expect(meter.check(request({ rateLimitPerMinute: 0 }))).rejects.toThrow(RangeError);
    await expect(meter.check(request({ registeredUserId: '' }))).rejects.toThrow(RangeError);
    await expect(meter.check(request({ monthlyCredits: 1.5 }))).rejects.toThrow(RangeError);
  });
});

describe('credits', () => {
  it('every allowed tools/call costs one credit in the billing cycle, and the decision says how many are used', async () => {
    const req = request({ plan: 'free', monthlyCredits: 100 });
    const decisions = await checkTimes(meter, req, 3);
    expect(decisions.map((d) => d.credits)).toEqual([1, 2, 3].map((used) => ({ used, allotment: 100, overage: 0, cycle: '2025-06' })));
  });

  it('registered users of one organization draw on its one allotment', async () => {
    const req = request({ plan: 'free', monthlyCredits: 2 });
    expect((await meter.check(req)).allowed).toBe(true);
    expect((await meter.check({ ...req, registeredUserId: randomUUID() })).allowed).toBe(true);
    expect((await meter.check({ ...req, registeredUserId: randomUUID() })).reason).toBe('billing_limit_reached');
  });

  it('a free-plan organization over its monthly allotment gets billing_limit_reached until the next billing cycle', async () => {
    const endOfJanuary = Date.parse('2025-01-31T23:59:59.999Z');
    const req = request({ plan: 'free', monthlyCredits: 3, rateLimitPerMinute: 1_000, now: Date.parse('2025-01-05T08:00:00Z') });
    await checkTimes(meter, req, 3);

    const refused = await meter.check(req);
    expect(refused).toMatchObject({
      allowed: false,
      reason: 'billing_limit_reached',
      rateLimit: { retryAfterSeconds: null },
      credits: { used: 3, allotment: 3, overage: 0, cycle: '2025-01' },
    });
    expect(rateLimitHeaders(refused)).not.toHaveProperty('Retry-After');
    expect((await meter.check({ ...req, now: endOfJanuary })).reason).toBe('billing_limit_reached');

    // The next cycle starts at midnight UTC on the first: credits are available again.
    const february = await meter.check({ ...req, now: endOfJanuary + 1 });
    expect(february).toMatchObject({ allowed: true, reason: null, credits: { used: 1, cycle: '2025-02' } });
    expect(await meter.usage(req.organizationId, '2025-01')).toEqual({ cycle: '2025-01', used: 3, overage: 0 });
  });

  it('a call refused with billing_limit_reached does not enter the rate window', async () => {
    const req = request({ plan: 'free', monthlyCredits: 1, rateLimitPerMinute: 2 });
    expect((await meter.check(req)).allowed).toBe(true);
    const refused = await checkTimes(meter, req, 5);
    expect(refused.every((d) => d.reason === 'billing_limit_reached')).toBe(true);
    expect(refused.every((d) => d.rateLimit.remaining === 1)).toBe(true);
    // The admin raises the allotment: one slot of the window is still free, as if the refusals never happened.
    const raised = await meter.check({ ...req, monthlyCredits: 10 });
    expect(raised).toMatchObject({ allowed: true, rateLimit: { remaining: 0 }, credits: { used: 2 } });
  });

  it('a free-plan allotment of zero refuses every tools/call', async () => {
    const decision = await meter.check(request({ plan: 'free', monthlyCredits: 0 }));
    expect(decision).toMatchObject({ allowed: false, reason: 'billing_limit_reached', credits: { used: 0, allotment: 0 } });
  });

  it('a paid organization goes into overage, recorded for month-end billing', async () => {
    const req = request({ plan: 'paid', monthlyCredits: 2 });
    const decisions = await checkTimes(meter, req, 5);
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(decisions.map((d) => [d.credits.used, d.credits.overage])).toEqual([
      [1, 0],
      [2, 0],
      [3, 1],
      [4, 2],
      [5, 3],
    ]);
    expect(await meter.usage(req.organizationId, '2025-06')).toEqual({ cycle: '2025-06', used: 5, overage: 3 });
  });

  it('an organization that moves from free to paid in a cycle is allowed on, and only calls beyond the allotment are overage', async () => {
    const req = request({ plan: 'free', monthlyCredits: 2 });
    await checkTimes(meter, req, 3);
    const paid = await meter.check({ ...req, plan: 'paid' });
    expect(paid).toMatchObject({ allowed: true, credits: { used: 3, overage: 1 } });
  });
});

describe('exact under concurrency across replicas', () => {
  let replicas: Meter[];
  beforeAll(() => {
    // Separate connections, as separate mcp-runtime replicas would have.
    replicas = Array.from({ length: 4 }, () => newMeter(connect()));
  });

  async function burst(req: MeterRequest, calls: number) {
    return Promise.all(
      Array.from({ length: calls }, (_, i) => replicas[i % replicas.length]!.check({ ...req, registeredUserId: `user-${i % 10}` })),
    );
  }

  it('200 concurrent tools/call against a free allotment of 50: exactly 50 allowed, the counter exactly 50', async () => {
    const req = request({ plan: 'free', monthlyCredits: 50, rateLimitPerMinute: 1_000 });
    const decisions = await burst(req, 200);
    expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
    expect(decisions.filter((d) => d.reason === 'billing_limit_reached')).toHaveLength(150);
    expect(new Set(decisions.filter((d) => d.allowed).map((d) => d.credits.used))).toEqual(new Set(Array.from({ length: 50 }, (_, i) => i + 1)));
    expect(await meter.usage(req.organizationId, '2025-06')).toEqual({ cycle: '2025-06', used: 50, overage: 0 });
  });

  it('200 concurrent tools/call on a paid plan with allotment 50: all allowed, overage exactly 150', async () => {
    const req = request({ plan: 'paid', monthlyCredits: 50, rateLimitPerMinute: 1_000 });
    const decisions = await burst(req, 200);
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(await meter.usage(req.organizationId, '2025-06')).toEqual({ cycle: '2025-06', used: 200, overage: 150 });
  });

  it('100 concurrent tools/call by one registered user with a limit of 30: exactly 30 allowed and 30 credits', async () => {
    const req = request({ rateLimitPerMinute: 30 });
    const decisions = await Promise.all(Array.from({ length: 100 }, (_, i) => replicas[i % replicas.length]!.check(req)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(30);
    expect(decisions.filter((d) => d.reason === 'rate_limited')).toHaveLength(70);
    expect((await meter.usage(req.organizationId, '2025-06')).used).toBe(30);
  });
});

describe('clock and billing cycle', () => {
  it("uses the Redis server's clock when no time is given, so replicas with skewed clocks agree", async () => {
    const serverMs = async () => {
      const [s, us] = await redis.time();
      return Number(s) * 1000 + Math.floor(Number(us) / 1000);
    };
    const before = await serverMs();
    const decision = await meter.check(request({ now: undefined }));
    const after = await serverMs();
    expect([billingCycle(before), billingCycle(after)]).toContain(decision.credits.cycle);
    // The decision's Unix reset time is the server's time of the call plus the full window.
    expect(decision.rateLimit.resetAt).toBeGreaterThanOrEqual(Math.ceil((before + 60_000) / 1000));
    expect(decision.rateLimit.resetAt).toBeLessThanOrEqual(Math.ceil((after + 60_000) / 1000));
  });

  it('the script counts each call in the same cycle as billingCycle, at every month boundary', async () => {
    const times: number[] = [0, Date.parse('2000-02-29T12:00:00Z'), Date.parse('2100-02-28T23:59:59.999Z'), Date.parse('2100-03-01T00:00:00Z')];
    for (let year = 2023; year <= 2028; year++) {
      for (let month = 0; month < 12; month++) {
        const start = Date.UTC(year, month, 1);
        times.push(start - 1, start);
      }
    }
    const req = request({ rateLimitPerMinute: 1_000_000 });
    for (const now of times) {
      const decision = await meter.check({ ...req, now });
      expect(`${new Date(now).toISOString()} ${decision.credits.cycle}`).toBe(`${new Date(now).toISOString()} ${billingCycle(now)}`);
    }
  });
});

describe('keys', () => {

  it("every key of a call carries the organization's hash tag, so the script runs on Redis Cluster", async () => {
    const req = request();
    await meter.check(req);
    const keys = await keysOf(req.organizationId);
    expect(keys).toEqual([
      `${prefix}{org:${req.organizationId}}:credits`,
      `${prefix}{org:${req.organizationId}}:epoch`,
      `${prefix}{org:${req.organizationId}}:rate:${req.registeredUserId}`,
    ]);
    for (const key of keys) expect(/\{([^}]*)\}/.exec(key)?.[1]).toBe(`org:${req.organizationId}`);
  });

  it('nothing grows forever: the rate window expires after 61 seconds, the cycle counters after 40 days, the fence a day later', async () => {
    const req = request();
    await meter.check(req);
    const tag = `${prefix}{org:${req.organizationId}}`;
    const ratePttl = await redis.pttl(`${tag}:rate:${req.registeredUserId}`);
    expect(ratePttl).toBeGreaterThan(55_000);
    expect(ratePttl).toBeLessThanOrEqual(61_000);
    const creditsPttl = await redis.pttl(`${tag}:credits`);
    expect(creditsPttl).toBeGreaterThan(40 * DAY_MS - 60_000);
    expect(creditsPttl).toBeLessThanOrEqual(40 * DAY_MS);
    const fencePttl = await redis.pttl(`${tag}:epoch`);
    expect(fencePttl).toBeGreaterThan(41 * DAY_MS - 60_000);
    expect(fencePttl).toBeLessThanOrEqual(41 * DAY_MS);
  });

  it('the first call of a cycle drops counters older than the previous cycle', async () => {
    const organizationId = randomUUID();
    for (const month of ['01', '02', '03']) await meter.check(request({ organizationId, plan: 'paid', monthlyCredits: 0, now: Date.parse(`2025-${month}-10T00:00:00Z`) }));
    await meter.check(request({ organizationId, now: Date.parse('2025-04-02T00:00:00Z') }));
    const fields = await redis.hkeys(`${prefix}{org:${organizationId}}:credits`);
    expect(fields.sort()).toEqual(['2025-03:overage', '2025-03:used', '2025-04:used']);
  });

  it('rejects a key prefix with a brace, which would put every organization in one cluster slot', () => {
    expect(() => new Meter(redis, { keyPrefix: 'x{y}:', ledger })).toThrow(RangeError);
  });
});

describe('usage', () => {
  it('an organization reads its usage of the current cycle (by the server clock) and of a past cycle', async () => {
    const organizationId = randomUUID();
    await meter.check(request({ organizationId, now: undefined }));
    await meter.check(request({ organizationId, now: undefined }));
    const current = await meter.usage(organizationId);
    expect(current.used).toBe(2);
    expect(current.overage).toBe(0);
    expect(await meter.usage(organizationId, current.cycle)).toEqual(current);
    expect(await meter.usage(organizationId, '2001-01')).toEqual({ cycle: '2001-01', used: 0, overage: 0 });
  });

  it('rejects a cycle that is not YYYY-MM', async () => {
    await expect(meter.usage(randomUUID(), '2025-6')).rejects.toThrow(RangeError);
  });
});

describe('survives a restart', () => {
  it('the count survives a restart of the replica: a new Meter on a new connection continues it', async () => {
    const req = request({ plan: 'free', monthlyCredits: 3 });
    await checkTimes(meter, req, 2);
    const restarted = newMeter(connect());
    expect(await restarted.check(req)).toMatchObject({ allowed: true, credits: { used: 3 } });
    expect((await restarted.check(req)).reason).toBe('billing_limit_reached');
  });
});

/** What Redis losing its data does to one organization: every key of its scope is gone. */
async function loseOrganization(organizationId: string): Promise<void> {
  const keys = await keysOf(organizationId);
  if (keys.length > 0) await redis.del(...keys);
}

describe('Redis losing the counts', () => {
  it("a free plan's used-up allotment is still used up after Redis lost the count: rebuilt from the records before any call counts", async () => {
    const req = request({ plan: 'free', monthlyCredits: 20 });
    for (let i = 0; i < 20; i++) {
      const decision = await meter.check(req);
      ledger.add(ledger.recordOf(req.organizationId, req.registeredUserId, decision, T0));
    }
    expect((await meter.check(req)).reason).toBe('billing_limit_reached');
    await loseOrganization(req.organizationId);
    const after = await meter.check(req);
    expect(after).toMatchObject({ allowed: false, reason: 'billing_limit_reached', credits: { used: 20 } });
    expect(await meter.usage(req.organizationId, '2025-06')).toEqual({ cycle: '2025-06', used: 20, overage: 0 });
  });

  it('calls arriving together after the loss wait for one rebuild and none of them is counted twice or lost', async () => {
    const req = request({ plan: 'free', monthlyCredits: 100, rateLimitPerMinute: 1_000 });
    const before = await checkTimes(meter, req, 30);
    ledger.add(...before.map((d) => ledger.recordOf(req.organizationId, req.registeredUserId, d, T0)));
    await loseOrganization(req.organizationId);
    const reads = ledger.reads;
    const burst = await Promise.all(Array.from({ length: 100 }, (_, i) => meters[i % 2 === 0 ? 0 : meters.length - 1]!.check(req)));
    expect(burst.filter((d) => d.allowed)).toHaveLength(70);
    expect(burst.filter((d) => d.reason === 'billing_limit_reached')).toHaveLength(30);
    // One rebuild per meter instance at most, however many calls waited for it.
    expect(ledger.reads - reads).toBeLessThanOrEqual(2);
    expect(await meter.usage(req.organizationId, '2025-06')).toEqual({ cycle: '2025-06', used: 100, overage: 0 });
  });

  it('records of the lost epoch that arrive after the rebuild are added once, and records of the new epoch never', async () => {
    // The real clock: settling reads the records of the current cycle by the Redis server's time.
    const req = request({ plan: 'paid', monthlyCredits: 5, rateLimitPerMinute: 1_000, now: undefined });
    const lost = await checkTimes(meter, req, 12);
    // Only 4 of the 12 records are durable when Redis loses the count; 8 are still in a queue or outbox.
    const lostRecords = lost.map((d) => ledger.recordOf(req.organizationId, req.registeredUserId, d));
    ledger.add(...lostRecords.slice(0, 4));
    await loseOrganization(req.organizationId);

    const fresh = await checkTimes(meter, req, 3);
    expect(fresh.map((d) => d.credits.used)).toEqual([5, 6, 7]);
    expect(new Set(fresh.map((d) => d.epoch)).size).toBe(1);
    expect(fresh[0]!.epoch).not.toBe(lost[0]!.epoch);
    // The new epoch's records commit at once: they are counted live already and must not be added again.
    ledger.add(...fresh.map((d) => ledger.recordOf(req.organizationId, req.registeredUserId, d)));
    await meter.noteRecorded(req.organizationId, fresh.map((d) => d.epoch));
    expect(await meter.usage(req.organizationId)).toMatchObject({ used: 7, overage: 2 });

    // The late records of the lost epoch commit, in two goes; each is counted once.
    ledger.add(...lostRecords.slice(4, 9));
    await meter.noteRecorded(req.organizationId, lostRecords.slice(4, 9).map((r) => r.epoch));
    expect(await meter.usage(req.organizationId)).toMatchObject({ used: 12, overage: 6 });
    ledger.add(...lostRecords.slice(9));
    await meter.noteRecorded(req.organizationId, lostRecords.slice(9).map((r) => r.epoch));
    await meter.noteRecorded(req.organizationId, lostRecords.map((r) => r.epoch));
    expect(await meter.usage(req.organizationId)).toMatchObject({ used: 15, overage: 9 });
  });

  it("a registered user's full rate window is still full after the loss: the last minute's records refill it", async () => {
    const req = request({ plan: 'paid', rateLimitPerMinute: 10 });
    const calls = [];
    for (let i = 0; i < 10; i++) {
      const at = T0 - 50_000 + i * 1_000;
      const decision = await meter.check({ ...req, now: at });
      calls.push(ledger.recordOf(req.organizationId, req.registeredUserId, decision, at));
    }
    ledger.add(...calls);
    await loseOrganization(req.organizationId);
    const limited = await meter.check(req);
    expect(limited).toMatchObject({ allowed: false, reason: 'rate_limited', rateLimit: { retryAfterSeconds: 10 } });
    // Another registered user of the organization is not affected.
    expect((await meter.check({ ...req, registeredUserId: randomUUID() })).allowed).toBe(true);
  });

  it('counters written before the fence existed (an upgrade) are adopted, not added to the records', async () => {
    const req = request({ plan: 'paid', monthlyCredits: 1_000 });
    const decisions = await checkTimes(meter, req, 6);
    ledger.add(...decisions.slice(0, 4).map((d) => ledger.recordOf(req.organizationId, req.registeredUserId, { ...d, epoch: null as unknown as string }, T0)));
    // The previous version kept no fence: only the counters exist.
    await redis.del(`${prefix}{org:${req.organizationId}}:epoch`);
    expect(await meter.check(req)).toMatchObject({ allowed: true, credits: { used: 7 } });
    ledger.add(...decisions.slice(4).map((d) => ledger.recordOf(req.organizationId, req.registeredUserId, { ...d, epoch: null as unknown as string }, T0)));
    await meter.noteRecorded(req.organizationId, ['an-epoch-that-is-gone']);
    expect(await meter.usage(req.organizationId, '2025-06')).toEqual({ cycle: '2025-06', used: 7, overage: 0 });
  });
});

describe('one Redis round trip', () => {
  it('a check is one command from the client, EVALSHA, however the call is decided', async () => {
    const client = connect();
    const replica = newMeter(client);
    const req = request({ plan: 'free', monthlyCredits: 1, rateLimitPerMinute: 2 });
    await replica.check(request()); // the server may meet the script for the first time here (EVALSHA, then EVAL)
    await replica.usage(req.organizationId); // the organization's first use starts its epoch (a rebuild from the ledger)
    const address = /addr=(\S+)/.exec(await (client.call('CLIENT', 'INFO') as Promise<string>))?.[1];
    expect(address).toBeDefined();

    const monitor = await connect().monitor();
    const seen: string[][] = [];
    let done = false;
    const marker = `metering-test-${randomUUID()}`;
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== address) return;
      if (args[0]?.toLowerCase() === 'echo' && args[1] === marker) done = true;
      else if (!done) seen.push(args);
    });
    try {
      const allowed = await replica.check(req); // allowed
      const billing = await replica.check(req); // billing_limit_reached
      await replica.check({ ...req, monthlyCredits: 10 }); // allowed: the window is now full
      const limited = await replica.check(req); // rate_limited
      expect([allowed.allowed, billing.reason, limited.reason]).toEqual([true, 'billing_limit_reached', 'rate_limited']);
      await client.echo(marker);
      const deadline = Date.now() + 5_000;
      while (!done && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(done).toBe(true);
      expect(seen.map((args) => args[0]?.toLowerCase())).toEqual(['evalsha', 'evalsha', 'evalsha', 'evalsha']);
    } finally {
      monitor.disconnect();
    }
  });
});
