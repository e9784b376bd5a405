import { createHash, randomUUID } from 'node:crypto';
import { LeasedSpendControl, RedisSpendControl, type SpendSubject } from '@patchbay/gateway-spend';
import { RouteHealth } from '@patchbay/model-routing';
import { createRedis, type RedisClient } from '@patchbay/service-kit';
import { TEST_DATABASE_URL, TEST_REDIS_URL, hashSlot } from '@patchbay/testing';
import { SubmitSlots } from '../src/batches/submit-slots';
import { createPrisma, type Db } from '../src/db';
import { usageRecordsLedger } from '../src/spend/usage-ledger';

/**
 * Redis Cluster runs a script only when all its keys live in one hash slot. The gateway's scripts
 * (budgets and limits, leases, route health, batch submit slots) are run here for real, on the
 * shared Redis, and the keys of every EVAL/EVALSHA they sent are checked to share one slot.
 */
let redis: RedisClient;
let db: Db;
const prefix = `patchbay:test:slots:${randomUUID()}:`;

beforeAll(() => {
  redis = createRedis(TEST_REDIS_URL);
  db = createPrisma(TEST_DATABASE_URL, 2);
});
afterAll(async () => {
  redis.disconnect();
  await db.$disconnect();
});

/** The keys of every script sent while `run` ran (EVALSHA and its EVAL fallback: `script, numkeys, ...keys, ...args`). */
async function scriptKeys(run: () => Promise<void>): Promise<string[][]> {
  const evalsha = jest.spyOn(redis, 'evalsha');
  const evalCall = jest.spyOn(redis, 'eval');
  try {
    await run();
    return [...evalsha.mock.calls, ...evalCall.mock.calls].map((args) => {
      const count = Number(args[1]);
      return args.slice(2, 2 + count).map(String);
    });
  } finally {
    evalsha.mockRestore();
    evalCall.mockRestore();
  }
}

function expectOneSlotEach(calls: string[][]): void {
  expect(calls.length).toBeGreaterThan(0);
  for (const keys of calls) expect({ keys, slots: [...new Set(keys.map(hashSlot))].length }).toEqual({ keys, slots: 1 });
}

const subjectOf = (): SpendSubject => ({
  organizationId: randomUUID(),
  environment: 'production',
  plan: 'paid',
  paymentMethodOnFile: true,
  creditMicros: 100_000_000,
  project: { id: randomUUID(), budgetMicros: 50_000_000 },
  customer: { id: 'acme', budgetMicros: 10_000_000, rateLimitRpm: 1000 },
  key: { hash: createHash('sha256').update(randomUUID()).digest('hex'), limitMicros: 5_000_000, limitReset: 'daily', byok: false },
});

test('budgets, key limits and rate limits: admit, settle, release and key usage keep each script in one slot, rebuild included', async () => {
  const spend = new RedisSpendControl(redis, { ledger: usageRecordsLedger(db), keyPrefix: prefix, settleDelaysMs: [] });
  try {
    const calls = await scriptKeys(async () => {
      const subject = subjectOf();
      // A new organization is not ready: its counters are rebuilt (BEGIN and APPLY scripts) first.
      const first = await spend.admit({ subject, reserveMicros: 1_000, countsAsModelRequest: true });
      const second = await spend.admit({ subject, reserveMicros: 1_000, countsAsModelRequest: true });
      if (!first.ok || !second.ok) throw new Error('refused');
      await spend.settle(first.reservation, 700);
      await spend.release(second.reservation);
      await spend.flushSettles();
      await spend.keyUsage(subject.organizationId, subject.key.hash);
    });
    expectOneSlotEach(calls);
  } finally {
    spend.close();
  }
});

test('leased spend: grants and their reports keep each script in one slot', async () => {
  const spend = new LeasedSpendControl(redis, { ledger: usageRecordsLedger(db), keyPrefix: prefix, settleDelaysMs: [] });
  try {
    const calls = await scriptKeys(async () => {
      const subject = subjectOf();
      for (let i = 0; i < 3; i++) {
        const admission = await spend.admit({ subject, reserveMicros: 1_000, countsAsModelRequest: true });
        if (!admission.ok) throw new Error('refused');
        await spend.settle(admission.reservation, 500);
      }
      await spend.flushSettles();
    });
    expectOneSlotEach(calls);
  } finally {
    spend.close();
  }
});

test('route health and batch submit slots keep each script in one slot', async () => {
  const health = new RouteHealth(redis, { keyPrefix: prefix, successFlushMs: 0 });
  const slots = new SubmitSlots(redis, { cap: 2, keyPrefix: prefix });
  const calls = await scriptKeys(async () => {
    const routes = [
      { model: 'gpt-4o', vendor: 'openai' },
      { model: 'gpt-4o', vendor: 'azure' },
      { model: 'claude', vendor: 'anthropic' },
    ];
    await health.snapshot(routes);
    await health.record(routes[0]!, { ok: false, countsAgainstRoute: true, latencyMs: 20 });
    await health.record(routes[1]!, { ok: true, countsAgainstRoute: true, latencyMs: 10 });
    await health.flush();
    const give = await slots.take(randomUUID());
    await give?.();
  });
  expectOneSlotEach(calls);
});
