import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { CountersUnavailableError, RebuildableCounters, counterScript, type CounterRebuild, type RebuildContext } from './rebuildable-counters';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `patchbay:test:counters:${randomUUID()}:`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A spend limit as the model gateway would keep one: a per-key counter of micro-dollars per UTC
 * day, a plain integer key. Refuses when the spend would pass the limit, else adds it.
 * KEYS[1] the day's spend; ARGV[1] cost, ARGV[2] limit. Returns {allowed 0|1, spent}.
 */
const SPEND = counterScript(`
local spent = tonumber(redis.call('GET', KEYS[1])) or 0
local cost = tonumber(ARGV[1])
if spent + cost > tonumber(ARGV[2]) then return {0, spent} end
spent = redis.call('INCRBY', KEYS[1], cost)
redis.call('PEXPIRE', KEYS[1], 172800000)
return {1, spent}
`);

/** The gateway's durable usage records: one row per request with its cost and the epoch it was counted in. */
interface UsageRow {
  key: string;
  day: string;
  cost: number;
  epoch: string | null;
}

let redis: Redis;
const rows: UsageRow[] = [];
let rebuilds: RebuildContext[] = [];
let failRebuilds = false;
const opened: RebuildableCounters[] = [];

function spendCounters(settleDelaysMs: number[] = []): RebuildableCounters {
  const counters = new RebuildableCounters(redis, {
    keyPrefix: prefix,
    scopeTtlMs: 3 * 24 * 3600 * 1000,
    settleDelaysMs,
    rebuild: async (context): Promise<CounterRebuild> => {
      rebuilds.push(context);
      if (failRebuilds) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      const key = context.scope.slice('key:'.length);
      const byDay = new Map<string, number>();
      for (const row of rows) if (row.key === key && row.epoch !== context.epoch) byDay.set(row.day, (byDay.get(row.day) ?? 0) + row.cost);
      return { counters: [...byDay].map(([day, value]) => ({ name: `spend:${day}`, value, ttlMs: 172_800_000 })) };
    },
  });
  opened.push(counters);
  return counters;
}

async function spend(counters: RebuildableCounters, key: string, cost: number, limit: number): Promise<{ allowed: boolean; spent: number; epoch: string }> {
  const { epoch, reply } = await counters.run<[number, number]>(SPEND, `key:${key}`, ['spend:2025-06-10'], [cost, limit]);
  if (reply[0] === 1) rows.push({ key, day: '2025-06-10', cost, epoch });
  return { allowed: reply[0] === 1, spent: reply[1], epoch };
}

async function loseScope(key: string): Promise<void> {
  const keys = await redis.keys(`${prefix}{key:${key}}*`);
  if (keys.length > 0) await redis.del(...keys);
}

beforeAll(() => {
  redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
});

beforeEach(() => {
  rebuilds = [];
  failRebuilds = false;
});

afterAll(async () => {
  for (const counters of opened) counters.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('RebuildableCounters', () => {
  it("a scope's first use starts its epoch from the records, and the script sees its own KEYS and ARGV", async () => {
    const counters = spendCounters();
    const key = randomUUID();
    rows.push({ key, day: '2025-06-10', cost: 700, epoch: null });
    expect(await spend(counters, key, 200, 1_000)).toMatchObject({ allowed: true, spent: 900 });
    expect(await spend(counters, key, 200, 1_000)).toMatchObject({ allowed: false, spent: 900 });
    expect(rebuilds).toHaveLength(1);
  });

  it('after Redis lost a scope, the spend limit holds: rebuilt from every other epoch, nothing of the current one twice', async () => {
    const counters = spendCounters();
    const key = randomUUID();
    const first = await spend(counters, key, 400, 1_000);
    await spend(counters, key, 400, 1_000);
    await loseScope(key);
    const after = await spend(counters, key, 150, 1_000);
    expect(after).toMatchObject({ allowed: true, spent: 950 });
    expect(after.epoch).not.toBe(first.epoch);
    // Reconciling again (the records of the new epoch are durable now) adds nothing.
    await counters.reconcile(`key:${key}`);
    await counters.reconcile(`key:${key}`);
    expect(await spend(counters, key, 100, 1_000)).toMatchObject({ allowed: false, spent: 950 });
  });

  it('a late record of the lost epoch is added by the settle delays, once', async () => {
    const counters = spendCounters([30, 60]);
    const key = randomUUID();
    const counted = await spend(counters, key, 300, 10_000);
    const late = rows.pop()!; // its record had not committed when Redis lost the scope
    expect(late.epoch).toBe(counted.epoch);
    await loseScope(key);
    expect(await spend(counters, key, 100, 10_000)).toMatchObject({ spent: 100 });
    rows.push(late);
    // The settle delays (30 and 60 ms) have run by then, with room for a busy machine's late timers.
    await sleep(600);
    expect(await spend(counters, key, 1, 10_000)).toMatchObject({ spent: 401 });
  });

  it('while the records cannot be read, nothing is counted and the caller gets CountersUnavailableError', async () => {
    const counters = spendCounters();
    const key = randomUUID();
    failRebuilds = true;
    await expect(spend(counters, key, 100, 1_000)).rejects.toBeInstanceOf(CountersUnavailableError);
    expect(await redis.exists(counters.keyOf(`key:${key}`, 'spend:2025-06-10'))).toBe(0);
    failRebuilds = false;
    expect(await spend(counters, key, 100, 1_000)).toMatchObject({ allowed: true, spent: 100 });
  });

  it('a counter value from the records must be a whole number, and a scope or prefix must not hold a hash-tag brace', async () => {
    const counters = new RebuildableCounters(redis, { keyPrefix: prefix, scopeTtlMs: 60_000, rebuild: async () => ({ counters: [{ name: 'x', value: 1.5 }] }) });
    opened.push(counters);
    await expect(counters.run(SPEND, `key:${randomUUID()}`, ['x'], [1, 10])).rejects.toThrow(RangeError);
    expect(() => counters.keyOf('a{b}', 'x')).toThrow(RangeError);
    expect(() => new RebuildableCounters(redis, { keyPrefix: 'a{', scopeTtlMs: 60_000, rebuild: async () => ({}) })).toThrow(RangeError);
  });
});
