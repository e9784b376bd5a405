import { randomUUID } from 'node:crypto';
import { Meter } from '@patchbay/metering';
import { createRedis, type RedisClient } from '@patchbay/service-kit';
import { TEST_DATABASE_URL, TEST_REDIS_URL, hashSlot } from '@patchbay/testing';
import { createPrisma, type Db } from '../src/db';
import { toolCallLedger } from '../src/domain/usage';

/**
 * Redis Cluster runs a script only when all its keys live in one hash slot. The meter's scripts
 * (credits and the per-user rate limit, and the rebuild of an organization's counts) are run here
 * for real, on the shared Redis, and the keys of every EVAL/EVALSHA sent are checked to share one slot.
 */
let redis: RedisClient;
let db: Db;

beforeAll(() => {
  redis = createRedis(TEST_REDIS_URL);
  db = createPrisma(TEST_DATABASE_URL, 2);
});
afterAll(async () => {
  redis.disconnect();
  await db.$disconnect();
});

test('the meter keeps each script of an organization in one slot: check for several users, usage, and the rebuild of a new organization', async () => {
  const meter = new Meter(redis, { ledger: toolCallLedger(db), keyPrefix: `patchbay:test:slots:${randomUUID()}:`, settleDelaysMs: [] });
  const evalsha = jest.spyOn(redis, 'evalsha');
  const evalCall = jest.spyOn(redis, 'eval');
  try {
    const organizationId = randomUUID();
    for (const registeredUserId of ['ada', 'grace', 'linus']) {
      await meter.check({ organizationId, registeredUserId, plan: 'paid', monthlyCredits: 100, rateLimitPerMinute: 10 });
    }
    await meter.usage(organizationId);
    const calls = [...evalsha.mock.calls, ...evalCall.mock.calls].map((args) => args.slice(2, 2 + Number(args[1])).map(String));
    // BEGIN and APPLY (the rebuild), then CHECK three times and USAGE.
    expect(calls.length).toBeGreaterThanOrEqual(6);
    for (const keys of calls) expect({ keys, slots: new Set(keys.map(hashSlot)).size }).toEqual({ keys, slots: 1 });
  } finally {
    evalsha.mockRestore();
    evalCall.mockRestore();
    meter.close();
  }
});
