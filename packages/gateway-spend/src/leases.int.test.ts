import { randomUUID } from 'node:crypto';
import { PrivateRedis } from '@patchbay/testing-redis';
import Redis from 'ioredis';
import { LeasedSpendControl, type LeasedSpendControlOptions } from './leases';
import { REPORT_SCRIPT } from './lua';
import { periodsAt } from './periods';
import { deleteKeys, subjectOf, USD } from './test-support/fixtures';
import { MemoryLedger } from './test-support/memory-ledger';
import type { Admission, Reservation, SpendSubject } from './types';

/**
 * Leased admission (README, "Leased admission"): the invariants and failure cases of
 * shared/research/gateway-admission-facts.md §4, against the real Redis (a key prefix of the run's
 * own) and, for Redis losing its data or stopping, a private redis-server this file starts.
 */
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `patchbay:test:gateway-spend-leases:${randomUUID()}:`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let redis: Redis;
let ledger: MemoryLedger;
const opened: Array<{ control: LeasedSpendControl; connection: Redis }> = [];

/** One replica: its own connection and control. learningMs 0 unless a test is about learning mode. */
function replica(options: Partial<LeasedSpendControlOptions> = {}, url: string | { path: string } = redisUrl): LeasedSpendControl {
  const connection = typeof url === 'string' ? new Redis(url) : new Redis({ path: url.path, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
  const control = new LeasedSpendControl(connection, { ledger, keyPrefix: prefix, settleDelaysMs: [], learningMs: 0, ...options });
  opened.push({ control, connection });
  return control;
}

beforeAll(() => {
  redis = new Redis(redisUrl);
});

beforeEach(() => {
  ledger = new MemoryLedger();
});

afterEach(async () => {
  for (const { control, connection } of opened.splice(0)) {
    control.close();
    await control.flushSettles().catch(() => undefined);
    connection.disconnect();
  }
});

afterAll(async () => {
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

function admitted(admission: Admission): Reservation {
  if (!admission.ok) throw new Error(`expected an admission, got ${admission.status} ${admission.code}: ${admission.message}`);
  return admission.reservation;
}

const scopeKey = (subject: SpendSubject, name: string) => `${prefix}{org:${subject.organizationId}}:${name}`;

/** Admit, settle at `cost`, and write the usage record: one whole request. */
async function request(spend: LeasedSpendControl, subject: SpendSubject, reserve: number, cost: number): Promise<Admission> {
  const admission = await spend.admit({ subject, reserveMicros: reserve, countsAsModelRequest: true });
  if (admission.ok) {
    await spend.settle(admission.reservation, cost);
    ledger.add(ledger.recordOf(admission.reservation, cost));
  }
  return admission;
}

/** Waits, when needed, so a test does not straddle midnight UTC (grants end 100 ms before it). */
async function awayFromMidnight(): Promise<void> {
  const left = 86_400_000 - (Date.now() % 86_400_000);
  if (left < 5_000) await sleep(left + 200);
}

beforeEach(() => awayFromMidnight());

describe('grants', () => {
  it('requests far from every limit are admitted in process against a grant, and the counters end at what they cost', async () => {
    const spend = replica();
    const subject = subjectOf({ key: { limitMicros: 100 * USD, limitReset: 'daily' }, project: { id: 'p1', budgetMicros: 100 * USD } });
    const first = admitted(await request(spend, subject, 1_000, 400));
    expect(first.grantId).toBeDefined();
    const calls: string[] = [];
    const monitor = await redis.monitor();
    monitor.on('monitor', (_t: string, args: string[]) => {
      if (args.some((a) => a.includes(subject.organizationId))) calls.push(args[0]!);
    });
    for (let i = 0; i < 3; i += 1) expect(admitted(await request(spend, subject, 1_000, 400)).grantId).toBe(first.grantId);
    await sleep(50);
    monitor.disconnect();
    // No Redis call for the three requests admitted against the grant.
    expect(calls.filter((c) => /eval/i.test(c))).toEqual([]);
    await spend.flushSettles();
    const usage = await spend.keyUsage(subject.organizationId, subject.key.hash);
    expect(usage.daily).toBe(1_600);
    expect(Number(await redis.hget(scopeKey(subject, 't'), 'p:production:p1'))).toBe(1_600);
    expect(Number(await redis.hget(scopeKey(subject, 't'), 'o'))).toBe(1_600);
    expect(Number(await redis.hget(scopeKey(subject, `d:${periodsAt(Date.now()).day.label}`), 'n'))).toBe(4);
    expect(await redis.hlen(scopeKey(subject, 'g'))).toBe(0);
  });

  it('a burst from three replicas right at a key limit never spends past it, and admits close to what per-request admission does', async () => {
    const limit = 100 * 1_000;
    const run = async (leases: boolean) => {
      const subject = subjectOf({ key: { limitMicros: limit, limitReset: 'daily' } });
      const replicas = [replica(), replica(), replica()];
      const answers = await Promise.all(
        Array.from({ length: 300 }, async (_, i) => {
          const spend = replicas[i % 3]!;
          const admission = leases ? await spend.admit({ subject, reserveMicros: 1_000, countsAsModelRequest: true }) : await spend.perRequest.admit({ subject, reserveMicros: 1_000, countsAsModelRequest: true });
          if (admission.ok) {
            await sleep(Math.random() * 20);
            await spend.settle(admission.reservation, 1_000);
          }
          return admission.ok;
        }),
      );
      for (const spend of replicas) await spend.flushSettles();
      return { admitted: answers.filter(Boolean).length, usage: (await replicas[0]!.keyUsage(subject.organizationId, subject.key.hash)).daily };
    };
    const perRequest = await run(false);
    const leased = await run(true);
    expect(perRequest).toEqual({ admitted: 100, usage: limit });
    expect(leased.usage).toBeLessThanOrEqual(limit);
    expect(leased.usage).toBe(leased.admitted * 1_000);
    expect(leased.admitted).toBeGreaterThanOrEqual(90);
  });

  it('a grant never exceeds the headroom left after settled spend and every outstanding grant, across replicas', async () => {
    const subject = subjectOf({ creditMicros: 40_000 });
    // Each replica wants far more than is left: what it gets is capped by the headroom.
    const [a, b, c] = [1, 2, 3].map(() => replica({ nearRequests: 1, demandWindows: 1_000 }));
    const held: Reservation[] = [];
    for (const spend of [a!, b!, c!, a!, b!, c!]) {
      const admission = await spend.admit({ subject, reserveMicros: 1_000, countsAsModelRequest: true });
      if (admission.ok) held.push(admission.reservation);
    }
    const sizes = await redis.hgetall(scopeKey(subject, 'g'));
    const debited = Object.entries(sizes).filter(([f]) => f.endsWith(':d')).reduce((t, [, v]) => t + Number(v), 0);
    const perRequestHeld = held.filter((r) => r.grantId === undefined).length * 1_000;
    expect(debited + perRequestHeld).toBeLessThanOrEqual(40_000);
    expect(Number(await redis.hget(scopeKey(subject, 't'), 'o'))).toBe(debited + perRequestHeld);
  });

  it('near a limit no grant is given: each request is judged by the shared counters, and exactly the requests that fit are admitted', async () => {
    const subject = subjectOf({ key: { limitMicros: 10_000, limitReset: 'monthly' } });
    const per = replica();
    // Spend most of the limit per request: 3 requests' worst case is left, under 4 per active replica.
    for (let i = 0; i < 7; i += 1) admitted(await per.perRequest.admit({ subject, reserveMicros: 1_000, countsAsModelRequest: true }));
    const spend = replica();
    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push(await spend.admit({ subject, reserveMicros: 1_000, countsAsModelRequest: true }));
    expect(answers.map((a) => a.ok)).toEqual([true, true, true, false, false]);
    expect(answers.filter((a): a is Extract<Admission, { ok: true }> => a.ok).map((a) => a.reservation.grantId)).toEqual([undefined, undefined, undefined]);
    expect(await redis.hlen(scopeKey(subject, 'g'))).toBe(0);
  });

  it('a grant is judged on every counter the lane draws on: a project budget near its end refuses it and no counter moves', async () => {
    const subject = subjectOf({ creditMicros: 100 * USD, key: { limitMicros: 100 * USD, limitReset: 'daily' }, project: { id: 'tight', budgetMicros: 2_000 } });
    const spend = replica();
    const first = admitted(await spend.admit({ subject, reserveMicros: 1_000, countsAsModelRequest: true }));
    expect(first.grantId).toBeUndefined();
    // Only the request's own reservation is counted anywhere: no grant debited the credit or the key.
    expect(Number(await redis.hget(scopeKey(subject, 't'), 'o'))).toBe(1_000);
    expect(Number(await redis.hget(scopeKey(subject, 't'), `k:${subject.key.hash}`))).toBe(1_000);
    expect(Number(await redis.hget(scopeKey(subject, 't'), 'p:production:tight'))).toBe(1_000);
  });

  it('free-plan model requests and customer keys with an rpm limit are counted per request, never against a grant', async () => {
    const spend = replica();
    const free = subjectOf({ plan: 'free' });
    const freeAdmissions = [];
    for (let i = 0; i < 16; i += 1) freeAdmissions.push(await spend.admit({ subject: free, reserveMicros: 10, countsAsModelRequest: true }));
    expect(freeAdmissions.filter((a) => a.ok)).toHaveLength(15);
    expect(freeAdmissions.filter((a) => a.ok && a.reservation.grantId !== undefined)).toHaveLength(0);
    const customer = subjectOf({ customer: { id: 'c1', budgetMicros: null, rateLimitRpm: 2 } });
    const rpm = [];
    for (let i = 0; i < 3; i += 1) rpm.push(await spend.admit({ subject: customer, reserveMicros: 10, countsAsModelRequest: true }));
    expect(rpm.map((a) => a.ok)).toEqual([true, true, false]);
  });
});

describe('changes reach every replica within a second', () => {
  it('a lowered key limit retires the grant at once: nothing more is admitted than the new limit allows', async () => {
    const spend = replica();
    const subject = subjectOf({ key: { limitMicros: 100 * USD, limitReset: 'daily' } });
    admitted(await request(spend, subject, 1_000, 1_000));
    const lowered: SpendSubject = { ...subject, key: { ...subject.key, limitMicros: 2_500 } };
    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push((await request(spend, lowered, 1_000, 1_000)).ok);
    await spend.flushSettles();
    const usage = (await spend.keyUsage(subject.organizationId, subject.key.hash)).daily;
    expect(usage).toBeLessThanOrEqual(3_000); // at most one request's cost over, as per request
    expect(answers.filter(Boolean).length).toBe(2);
  });

  it('a grant admits for one window of Redis time at most; after it the replica asks again, judged on the limits of that moment', async () => {
    const spend = replica({ grantWindowMs: 300 });
    const subject = subjectOf();
    const first = admitted(await spend.admit({ subject, reserveMicros: 100, countsAsModelRequest: true }));
    await sleep(350);
    const later = admitted(await spend.admit({ subject, reserveMicros: 100, countsAsModelRequest: true }));
    expect(later.grantId).toBeDefined();
    expect(later.grantId).not.toBe(first.grantId);
  });

  it('a replica whose clock is in another day than Redis gets no grant, and a grant\'s times are Redis\'s', async () => {
    const spend = replica();
    const subject = subjectOf();
    const real = Date.now;
    const skewed = jest.spyOn(Date, 'now').mockImplementation(() => real() + 86_400_000);
    try {
      // The per-request path takes the replica's clock (its documented rule); the grant refuses.
      await spend.admit({ subject, reserveMicros: 100, countsAsModelRequest: false });
      expect(await redis.hlen(scopeKey(subject, 'g'))).toBe(0);
    } finally {
      skewed.mockRestore();
    }
    const minutes = jest.spyOn(Date, 'now').mockImplementation(() => real() + 10 * 60_000 * (real() % 86_400_000 < 80_000_000 ? 1 : -1));
    try {
      const other = subjectOf();
      const before = real();
      const r = admitted(await spend.admit({ subject: other, reserveMicros: 100, countsAsModelRequest: false }));
      expect(r.grantId).toBeDefined();
      // Counted at Redis's time (this machine's real clock), not the replica's skewed one.
      expect(r.record.countedAtMs).toBeGreaterThanOrEqual(before - 50);
      expect(r.record.countedAtMs).toBeLessThanOrEqual(real() + 100);
    } finally {
      minutes.mockRestore();
    }
  });
});

describe('reports', () => {
  it('a report retried after a timeout counts once (grant id and sequence)', async () => {
    const spend = replica();
    const subject = subjectOf({ key: { limitMicros: 100 * USD, limitReset: null } });
    const r = admitted(await spend.admit({ subject, reserveMicros: 1_000, countsAsModelRequest: true }));
    const grantId = r.grantId!;
    const size = Number(await redis.hget(scopeKey(subject, 'g'), `${grantId}:d`));
    const scope = `org:${subject.organizationId}`;
    const report = () => spend.perRequest.counters.run<number[]>(REPORT_SCRIPT, scope, ['t', 'g', 'gz', 'gx', 'gc'], [grantId, 1, 700, 1, '0']);
    expect((await report()).reply).toEqual([1]);
    expect((await report()).reply).toEqual([3]);
    expect((await spend.keyUsage(subject.organizationId, subject.key.hash)).total).toBe(700);
    expect(size).toBeGreaterThan(700);
    // An old sequence after a newer one changes nothing either.
    await spend.perRequest.counters.run(REPORT_SCRIPT, scope, ['t', 'g', 'gz', 'gx', 'gc'], [grantId, 2, 900, 1, '1']);
    await spend.perRequest.counters.run(REPORT_SCRIPT, scope, ['t', 'g', 'gz', 'gx', 'gc'], [grantId, 1, 300, 1, '0']);
    expect((await spend.keyUsage(subject.organizationId, subject.key.hash)).total).toBe(900);
  });

  it('a client that cancels mid-stream is settled at its partial cost, and the unused grant comes back', async () => {
    const spend = replica();
    const subject = subjectOf({ key: { limitMicros: 100 * USD, limitReset: 'daily' } });
    const r = admitted(await spend.admit({ subject, reserveMicros: 5_000, countsAsModelRequest: true }));
    await spend.settle(r, 1_234);
    await spend.settle(r, 1_234); // a second settle does nothing
    await spend.flushSettles();
    expect((await spend.keyUsage(subject.organizationId, subject.key.hash)).daily).toBe(1_234);
  });

  it('a request still in flight when its grant retires keeps its reservation debited until it settles', async () => {
    const spend = replica({ grantWindowMs: 200 });
    const subject = subjectOf({ key: { limitMicros: 100 * USD, limitReset: 'daily' } });
    const long = admitted(await spend.admit({ subject, reserveMicros: 5_000, countsAsModelRequest: true }));
    await sleep(300);
    await spend.flushSettles();
    expect((await spend.keyUsage(subject.organizationId, subject.key.hash)).daily).toBe(5_000);
    await spend.settle(long, 2_000);
    await spend.flushSettles();
    expect((await spend.keyUsage(subject.organizationId, subject.key.hash)).daily).toBe(2_000);
    expect(await redis.hlen(scopeKey(subject, 'g'))).toBe(0);
  });
});

describe('a replica that dies holding a grant', () => {
  it('its lapsed grant stays debited in full until reconciled from its usage records, then counts what they cost', async () => {
    const subject = subjectOf({ key: { limitMicros: 100 * USD, limitReset: 'daily' } });
    const dying = replica({ grantWindowMs: 200, leaseMs: 300 });
    const r1 = admitted(await request(dying, subject, 1_000, 600));
    admitted(await request(dying, subject, 1_000, 600));
    const size = Number(await redis.hget(scopeKey(subject, 'g'), `${r1.grantId!}:d`));
    // SIGKILL: the replica never reports (its timers and reports are gone with it).
    (dying as unknown as { queueReport: () => void }).queueReport = () => undefined;
    await sleep(600);
    // A replica whose ledger cannot read grants (so nothing reconciles yet) asks for a grant: the
    // script finds the dead replica's grant lapsed and keeps it debited in full.
    const survivor = replica({ ledger: { recorded: (q) => ledger.recorded(q) } });
    await survivor.admit({ subject, reserveMicros: 1, countsAsModelRequest: false });
    expect(await redis.zscore(scopeKey(subject, 'gx'), r1.grantId!)).not.toBeNull();
    const before = (await survivor.keyUsage(subject.organizationId, subject.key.hash)).daily;
    expect(before).toBeGreaterThanOrEqual(size + 1);
    await survivor.flushSettles();
    expect((await survivor.keyUsage(subject.organizationId, subject.key.hash)).daily).toBe(size + 1);
    // Reconciled from the two usage records it left.
    expect(await replica().closeLapsed(subject.organizationId)).toBe(1);
    const after = (await survivor.keyUsage(subject.organizationId, subject.key.hash)).daily;
    expect(after).toBe(1_200 + 1);
    expect(Number(await redis.hget(scopeKey(subject, `d:${periodsAt(Date.now()).day.label}`), 'n'))).toBe(2);
  });
});

describe('all keys of a grant in one Redis Cluster slot', () => {
  it('every key the scripts touch carries the organization\'s hash tag', async () => {
    const spend = replica();
    const subject = subjectOf({ key: { limitMicros: 100 * USD, limitReset: 'weekly' }, project: { id: 'p', budgetMicros: USD }, customer: { id: 'c', budgetMicros: USD, rateLimitRpm: null } });
    admitted(await request(spend, subject, 1_000, 500));
    await spend.flushSettles();
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*${subject.organizationId}*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    expect(keys.length).toBeGreaterThan(4);
    for (const key of keys) expect(key.startsWith(`${prefix}{org:${subject.organizationId}}:`)).toBe(true);
  });
});

describe('Redis losing its data or stopping (a private redis-server)', () => {
  const server = new PrivateRedis();

  beforeAll(() => server.start());
  afterAll(() => server.close());

  it('after Redis loses its data no grant is given for one grant lifetime (learning mode) while the counters rebuild', async () => {
    const admin = new Redis({ path: server.socket });
    try {
      const spend = replica({ learningMs: 400, grantWindowMs: 400, retryGrantMs: 50 }, { path: server.socket });
      const subject = subjectOf({ key: { limitMicros: 100 * USD, limitReset: 'daily' } });
      // A new scope is learning too: its first grant comes one lifetime after its epoch began.
      await request(spend, subject, 1_000, 1_000);
      await sleep(450);
      expect(admitted(await request(spend, subject, 1_000, 1_000)).grantId).toBeDefined();
      await spend.flushSettles();
      await admin.flushall();
      const during = admitted(await request(spend, subject, 1_000, 1_000));
      expect(during.grantId).toBeUndefined();
      await sleep(100);
      expect(admitted(await request(spend, subject, 1_000, 1_000)).grantId).toBeUndefined();
      await sleep(400);
      expect(admitted(await request(spend, subject, 1_000, 1_000)).grantId).toBeDefined();
      await spend.flushSettles();
      // The rebuilt counters hold every record: the three before the loss came back from the ledger.
      expect((await spend.keyUsage(subject.organizationId, subject.key.hash)).daily).toBe(ledger.records.reduce((t, r) => t + r.costMicros, 0));
    } finally {
      admin.disconnect();
    }
  });

  it('Redis unreachable once the grant has lapsed: the request is refused (503), never admitted unmetered', async () => {
    const spend = replica({ grantWindowMs: 300, learningMs: 0 }, { path: server.socket });
    const subject = subjectOf();
    admitted(await spend.admit({ subject, reserveMicros: 100, countsAsModelRequest: true }));
    await server.kill();
    try {
      // Within its window the grant (a reservation in Redis) still admits.
      admitted(await spend.admit({ subject, reserveMicros: 100, countsAsModelRequest: true }));
      await sleep(350);
      await expect(spend.admit({ subject, reserveMicros: 100, countsAsModelRequest: true })).rejects.toThrow();
    } finally {
      await server.start();
    }
  });
});
