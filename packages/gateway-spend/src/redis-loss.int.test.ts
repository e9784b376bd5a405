import { randomUUID } from 'node:crypto';
import { PrivateRedis } from '@patchbay/testing-redis';
import Redis from 'ioredis';
import { ADMIT_SCRIPT } from './lua';
import { periodsAt } from './periods';
import { RedisSpendControl } from './redis-spend-control';
import { newKeyHash, subjectOf, USD } from './test-support/fixtures';
import { MemoryLedger, type UsageRecord } from './test-support/memory-ledger';
import type { Admission, Reservation, SpendSubject } from './types';

/**
 * Redis loses every counter in the middle of a load (FLUSHALL on a private redis-server the test
 * starts, so no other test or helper is touched), twice; the counters must come back exact from the
 * usage records, without counting any request twice. Redis forgetting its scripts (SCRIPT FLUSH) is
 * tested here too: on the shared server it would make other packages' one-EVALSHA tests, running at
 * the same time, see an EVAL.
 */
const server = new PrivateRedis();
const prefix = 'patchbay:test:gateway-spend:';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(() => server.start());
afterAll(() => server.close());

/** Waits, when needed, so the load does not straddle a minute (or day) boundary of the UTC clock. */
async function awayFromBoundaries(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await sleep(60_000 - intoMinute + 100);
}

it('counters are rebuilt exact from the usage records after Redis loses its data mid-load, twice, without double counting', async () => {
  await awayFromBoundaries();
  const ledger = new MemoryLedger();
  const connections = [new Redis({ path: server.socket }), new Redis({ path: server.socket })];
  const admin = new Redis({ path: server.socket });
  const replicas = connections.map((redis) => new RedisSpendControl(redis, { ledger, keyPrefix: prefix, settleDelaysMs: [50, 200] }));
  try {
    const org = subjectOf({ creditMicros: 1_000 * USD, project: { id: 'proj', budgetMicros: 1_000 * USD } });
    const subjects: SpendSubject[] = [
      org,
      { ...org, key: { ...org.key, hash: newKeyHash(), limitMicros: 1_000 * USD, limitReset: 'daily', byok: true } },
      { ...org, key: { ...org.key, hash: newKeyHash() }, project: null, customer: { id: 'acme', budgetMicros: 1_000 * USD, rateLimitRpm: 1_000_000 } },
    ];
    let stop = false;
    let admitted = 0;
    const errors: string[] = [];
    const worker = async (w: number) => {
      while (!stop) {
        const replica = replicas[w % 2]!;
        const subject = subjects[w % subjects.length]!;
        try {
          const admission = await replica.admit({ subject, reserveMicros: 5_000, countsAsModelRequest: true });
          if (!admission.ok) throw new Error(`refused: ${admission.message}`);
          admitted += 1;
          await sleep(Math.random() * 10);
          const cost = w % 5 === 0 ? 0 : 1_000 + Math.floor(Math.random() * 4_000);
          if (cost === 0) await replicas[(w + 1) % 2]!.release(admission.reservation);
          else await replicas[(w + 1) % 2]!.settle(admission.reservation, cost);
          // The record commits a little later, as through the queue, then the consumer notes it.
          const record = ledger.recordOf(admission.reservation, cost);
          setTimeout(() => {
            ledger.add(record);
            void replica.noteRecorded(record.organizationId, [record.epoch]);
          }, Math.random() * 20);
        } catch (err) {
          errors.push(err instanceof Error ? err.message : String(err));
        }
      }
    };
    const load = Promise.all(Array.from({ length: 12 }, (_, w) => worker(w)));
    // Each epoch gets some admissions before Redis loses its data again (counted, not timed: on a busy
    // machine 400 ms could pass with none, and an epoch without records would not be seen at all).
    const admissionsThen = async (count: number) => {
      const target = admitted + count;
      const deadline = Date.now() + 20_000;
      while (admitted < target && Date.now() < deadline) await sleep(20);
    };
    await admissionsThen(20);
    await admin.flushall();
    await admissionsThen(20);
    await admin.flushall();
    await admissionsThen(20);
    stop = true;
    await load;
    await sleep(300); // the last records commit and the settle delays run

    expect(errors).toEqual([]);
    expect(admitted).toBeGreaterThan(50);
    expect(ledger.records).toHaveLength(admitted);
    const epochs = new Set(ledger.records.map((r) => r.epoch));
    expect(epochs.size).toBe(3);
    await replicas[0]!.noteRecorded(org.organizationId, epochs);

    const sum = (rows: UsageRecord[]) => rows.reduce((total, r) => total + r.costMicros, 0);
    for (const subject of subjects) {
      const rows = ledger.records.filter((r) => r.keyHash === subject.key.hash);
      const usage = await replicas[1]!.keyUsage(org.organizationId, subject.key.hash);
      expect(usage.total).toBe(sum(rows));
      expect(usage.daily).toBe(sum(rows));
      expect(usage.monthly).toBe(sum(rows));
      expect(usage.byok.daily).toBe(sum(rows.filter((r) => r.byok)));
    }
    const t = `${prefix}{org:${org.organizationId}}:t`;
    expect(Number(await admin.hget(t, 'o'))).toBe(sum(ledger.records.filter((r) => !r.byok)));
    expect(Number(await admin.hget(t, 'p:production:proj'))).toBe(sum(ledger.records.filter((r) => r.projectId === 'proj')));
    expect(Number(await admin.hget(t, 'c:production:acme'))).toBe(sum(ledger.records.filter((r) => r.customerId === 'acme')));
    const periods = periodsAt(ledger.records[0]!.countedAtMs);
    expect(Number(await admin.hget(`${prefix}{org:${org.organizationId}}:d:${periods.day.label}`, 'n'))).toBe(ledger.records.length);
    expect(Number(await admin.get(`${prefix}{org:${org.organizationId}}:r:${periods.minute.label}`))).toBe(ledger.records.filter((r) => r.countedInRateLimit).length);
    // Nothing is left in flight: every reservation of the live epoch was settled or released.
    expect(await admin.zcard(`${prefix}{org:${org.organizationId}}:f`)).toBe(0);
  } finally {
    for (const r of replicas) r.close();
    for (const c of [...connections, admin]) c.disconnect();
  }
}, 60_000);

it('leaves a rebuilt scope alone when its records are read again (idempotent reconcile)', async () => {
  const ledger = new MemoryLedger();
  const redis = new Redis({ path: server.socket });
  const spend = new RedisSpendControl(redis, { ledger, keyPrefix: `${prefix}${randomUUID()}:`, settleDelaysMs: [] });
  try {
    const subject = subjectOf({ key: { limitMicros: 10 * USD, limitReset: 'monthly' } });
    const a = await spend.admit({ subject, reserveMicros: 100, countsAsModelRequest: true });
    if (!a.ok) throw new Error('refused');
    await spend.settle(a.reservation, 70);
    ledger.add({ ...ledger.recordOf(a.reservation, 70), epoch: 'an-epoch-redis-lost' });
    await redis.flushall();
    for (let i = 0; i < 3; i += 1) await spend.noteRecorded(subject.organizationId, ['an-epoch-redis-lost']);
    expect((await spend.keyUsage(subject.organizationId, subject.key.hash)).monthly).toBe(70);
    await spend.noteRecorded(subject.organizationId, ['an-epoch-redis-lost']);
    expect((await spend.keyUsage(subject.organizationId, subject.key.hash)).monthly).toBe(70);
  } finally {
    spend.close();
    redis.disconnect();
  }
});

it('an admit waits for a settle sent on its own, even when Redis forgot the settle script and it is sent again', async () => {
  const redis = new Redis({ path: server.socket });
  const spend = new RedisSpendControl(redis, { ledger: new MemoryLedger(), keyPrefix: `${prefix}${randomUUID()}:`, settleDelaysMs: [], settleBatchMs: 60_000 });
  const admitted = (admission: Admission): Reservation => {
    if (!admission.ok) throw new Error(`refused: ${admission.message}`);
    return admission.reservation;
  };
  try {
    const subject = subjectOf({ creditMicros: 1 * USD });
    const first = admitted(await spend.admit({ subject, reserveMicros: 100_000, countsAsModelRequest: true }));
    // After a Redis restart EVALSHA answers NOSCRIPT and the script goes again with EVAL, a round trip
    // later; an admit script loaded again meanwhile (another replica's) would run before it.
    await redis.script('FLUSH');
    await redis.script('LOAD', ADMIT_SCRIPT.lua.source);
    const settled = spend.settle(first, 1 * USD);
    const next = await spend.admit({ subject, reserveMicros: 100_000, countsAsModelRequest: true });
    expect(next).toMatchObject({ ok: false, status: 402, limit: 'organization_credit' });
    await settled;
  } finally {
    spend.close();
    redis.disconnect();
  }
});
