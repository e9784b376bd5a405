import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { refusalBody } from './errors';
import { formatUsd } from './headers';
import { periodsAt } from './periods';
import { keyUsageFields, RedisSpendControl, usageInWindow } from './redis-spend-control';
import { deleteKeys, subjectOf, USD } from './test-support/fixtures';
import { MemoryLedger } from './test-support/memory-ledger';
import type { Admission, Refusal, Reservation, SpendSubject } from './types';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `patchbay:test:gateway-spend:${randomUUID()}:`;

let redis: Redis;
let ledger: MemoryLedger;
let spend: RedisSpendControl;
const opened: RedisSpendControl[] = [];

function control(connection: Redis = redis, options: { clock?: () => number; leaseMs?: number; settleBatchMs?: number } = {}): RedisSpendControl {
  const c = new RedisSpendControl(connection, { ledger, keyPrefix: prefix, settleDelaysMs: [], ...options });
  opened.push(c);
  return c;
}

beforeAll(() => {
  redis = new Redis(redisUrl);
});

beforeEach(() => {
  ledger = new MemoryLedger();
  spend = control();
});

afterEach(() => {
  for (const c of opened.splice(0)) c.close();
});

afterAll(async () => {
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

function admitted(admission: Admission): Reservation {
  if (!admission.ok) throw new Error(`expected an admission, got ${admission.status} ${admission.code}: ${admission.message}`);
  return admission.reservation;
}

function refused(admission: Admission): Refusal {
  if (admission.ok) throw new Error('expected a refusal, the request was admitted');
  return admission;
}

/** One whole request: admit, then settle with its real cost and write its usage record. */
async function request(subject: SpendSubject, reserveMicros: number, costMicros: number, now?: number): Promise<Admission> {
  const admission = await spend.admit({ subject, reserveMicros, countsAsModelRequest: true, now });
  if (admission.ok) {
    await spend.settle(admission.reservation, costMicros, randomUUID());
    ledger.add(ledger.recordOf(admission.reservation, costMicros));
  }
  return admission;
}

const noon = Date.parse('2026-11-25T12:00:00Z'); // a Wednesday

describe('gathered settles', () => {
  it('a settle still gathered for its batch reaches Redis before the next admit of the organization, so the next request is judged on what the last one cost', async () => {
    // A batch window far longer than the test: only the admit can send the settle.
    const slow = control(redis, { settleBatchMs: 60_000 });
    const subject = subjectOf({ creditMicros: 1 * USD });
    const first = admitted(await slow.admit({ subject, reserveMicros: 100_000, countsAsModelRequest: true }));
    // The request cost far more than it reserved; the client sends its next one as soon as it has the answer.
    const settled = slow.settle(first, 1 * USD);
    const next = refused(await slow.admit({ subject, reserveMicros: 100_000, countsAsModelRequest: true }));
    expect(next).toMatchObject({ status: 402, limit: 'organization_credit' });
    await settled;
  });

  it('a gathered settle rides on the organization\'s next admit, which applies it before judging the request', async () => {
    const slow = control(redis, { settleBatchMs: 60_000 });
    const subject = subjectOf({ creditMicros: 1 * USD });
    const first = admitted(await slow.admit({ subject, reserveMicros: 600_000, countsAsModelRequest: true }));
    const settled = slow.settle(first, 100_000);
    // 0.10 spent and 0.60 reserved now: 0.30 left. Without the settle it would be 1.20 drawn, nothing left.
    admitted(await slow.admit({ subject, reserveMicros: 600_000, countsAsModelRequest: true }));
    const after = await slow.admit({ subject, reserveMicros: 0, countsAsModelRequest: true });
    expect(after.headers['X-Credit-Balance-USD']).toBe('0.30');
    // Resolved by the admit's answer, long before its batch window.
    await settled;
  });

  it('a settle that cost more than its reservation is not gathered: another replica\'s next admit sees it', async () => {
    const replicaA = control(redis, { settleBatchMs: 60_000 });
    const replicaB = control(redis, { settleBatchMs: 60_000 });
    const subject = subjectOf({ creditMicros: 1 * USD });
    const within = admitted(await replicaA.admit({ subject, reserveMicros: 100_000, countsAsModelRequest: true }));
    const over = admitted(await replicaA.admit({ subject, reserveMicros: 100_000, countsAsModelRequest: true }));
    // Within its reservation: it may wait, and B meanwhile counts the full 0.10 reserved.
    const waiting = replicaA.settle(within, 50_000);
    // Resolves without any admit on A: it went to Redis at once.
    await replicaA.settle(over, 1 * USD);
    const next = refused(await replicaB.admit({ subject, reserveMicros: 1, countsAsModelRequest: true }));
    expect(next).toMatchObject({ status: 402, limit: 'organization_credit' });
    await waiting;
  });

  it('settles and releases of one organization within the window are applied together, each as if alone', async () => {
    const batched = control(redis, { settleBatchMs: 5 });
    const subject = subjectOf({ creditMicros: 1 * USD });
    const reservations: Reservation[] = [];
    for (let i = 0; i < 5; i++) reservations.push(admitted(await batched.admit({ subject, reserveMicros: 150_000, countsAsModelRequest: true })));
    const costs = [100_000, 200_000, 300_000, 150_000];
    await Promise.all(reservations.map((r, i) => (i < costs.length ? batched.settle(r, costs[i]!) : batched.release(r))));
    // 0.75 spent, the fifth released: 0.25 left of 1.00.
    const after = await batched.admit({ subject, reserveMicros: 0, countsAsModelRequest: true });
    expect(after.headers['X-Credit-Balance-USD']).toBe('0.25');
  });
});

describe('organization credit', () => {
  it('returns 402 budget_exceeded once the credit is spent, and admits again when settled spend leaves some', async () => {
    const subject = subjectOf({ creditMicros: 1 * USD });
    const first = admitted(await spend.admit({ subject, reserveMicros: 600_000, countsAsModelRequest: true }));
    const second = admitted(await spend.admit({ subject, reserveMicros: 600_000, countsAsModelRequest: true }));
    const third = refused(await spend.admit({ subject, reserveMicros: 600_000, countsAsModelRequest: true }));
    expect(third).toMatchObject({ status: 402, code: 'budget_exceeded', type: 'budget_exceeded', limit: 'organization_credit' });
    expect(third.headers['X-Credit-Balance-USD']).toBe('0.00');
    expect(refusalBody(third)).toEqual({ error: { type: 'budget_exceeded', code: 'budget_exceeded', message: third.message } });

    await spend.settle(first, 200_000);
    await spend.settle(second, 200_000);
    const fourth = await spend.admit({ subject, reserveMicros: 0, countsAsModelRequest: true });
    expect(fourth.ok).toBe(true);
    expect(fourth.headers['X-Credit-Balance-USD']).toBe('0.60');
    expect(fourth.headers['X-Budget-Limit-USD']).toBe('1.00');
  });

  it('returns 402 payment_failed when a paid organization has no payment method and no credit', async () => {
    const refusal = refused(await spend.admit({ subject: subjectOf({ creditMicros: 0, paymentMethodOnFile: false }), reserveMicros: 1, countsAsModelRequest: true }));
    expect(refusal).toMatchObject({ status: 402, code: 'payment_failed', type: 'payment_failed' });
    // With a payment method on file the same empty credit is budget_exceeded.
    const withCard = refused(await spend.admit({ subject: subjectOf({ creditMicros: 0n }), reserveMicros: 1, countsAsModelRequest: true }));
    expect(withCard).toMatchObject({ status: 402, code: 'budget_exceeded', type: 'budget_exceeded' });
  });

  it('BYOK requests draw no credit and count in the byok usage fields', async () => {
    const subject = subjectOf({ creditMicros: 0, key: { byok: true } });
    expect((await request(subject, 5_000, 3_000, noon)).ok).toBe(true);
    const usage = await spend.keyUsage(subject.organizationId, subject.key.hash, noon);
    expect(usage).toEqual({ total: 3_000, daily: 3_000, weekly: 3_000, monthly: 3_000, byok: { total: 3_000, daily: 3_000, weekly: 3_000, monthly: 3_000 } });
    // A platform-credential request of the same key still meets the empty credit.
    expect(refused(await spend.admit({ subject: { ...subject, key: { ...subject.key, byok: false } }, reserveMicros: 1, countsAsModelRequest: true })).code).toBe('budget_exceeded');
  });

  it('sends a warning header when the balance is within 10% of the credit', async () => {
    const subject = subjectOf({ creditMicros: 10 * USD });
    const calm = await request(subject, 8 * USD, 8 * USD);
    expect(calm.headers['X-Budget-Warning']).toBeUndefined();
    const near = await spend.admit({ subject, reserveMicros: 1 * USD + 500_000, countsAsModelRequest: true });
    expect(near.headers['X-Budget-Warning']).toBe('95% used, 0.50 USD left of 10.00 USD');
  });
});

describe('project budget', () => {
  it('returns 402 budget_exceeded naming the project once its budget is spent, with the project headers', async () => {
    const subject = subjectOf({ project: { id: 'proj_1', budgetMicros: 2 * USD } });
    const ok = await request(subject, 1 * USD, 1_950_000);
    expect(ok.headers).toMatchObject({ 'X-Project-Budget-Limit-USD': '2.00', 'X-Project-Budget-Remaining-USD': '1.00' });
    const near = await spend.admit({ subject, reserveMicros: 0, countsAsModelRequest: true });
    expect(near.headers).toMatchObject({ 'X-Project-Budget-Remaining-USD': '0.05', 'X-Project-Budget-Warning': '97% used, 0.05 USD left of 2.00 USD' });
    await request(subject, 100_000, 60_000);
    const refusal = refused(await spend.admit({ subject, reserveMicros: 1, countsAsModelRequest: true }));
    expect(refusal).toMatchObject({ status: 402, code: 'budget_exceeded', type: 'budget_exceeded', limit: 'project_budget' });
    expect(refusal.message).toContain("project 'proj_1'");
    // Another project of the same organization is not affected.
    expect((await spend.admit({ subject: { ...subject, project: { id: 'proj_2', budgetMicros: 2 * USD } }, reserveMicros: 1, countsAsModelRequest: true })).ok).toBe(true);
  });
});

describe('budget spend', () => {
  it('reads what projects and customers drew on their budgets: settled spend plus reservations in flight, per environment', async () => {
    const subject = subjectOf({ project: { id: 'proj_read', budgetMicros: 5 * USD }, customer: { id: 'cust|read', budgetMicros: 5 * USD, rateLimitRpm: null } });
    const owners = [
      { kind: 'project' as const, id: 'proj_read', environment: 'production' as const },
      { kind: 'customer' as const, id: 'cust|read', environment: 'production' as const },
      { kind: 'project' as const, id: 'proj_read', environment: 'test' as const },
      { kind: 'project' as const, id: 'proj_never', environment: 'production' as const },
    ];
    expect(await spend.budgetSpend(subject.organizationId, owners)).toEqual([0, 0, 0, 0]);
    await request(subject, 1 * USD, 400_000);
    expect(await spend.budgetSpend(subject.organizationId, owners)).toEqual([400_000, 400_000, 0, 0]);
    // A request in flight has reserved its worst case: the budget counts it until it settles.
    const inFlight = await spend.admit({ subject, reserveMicros: 1 * USD, countsAsModelRequest: true });
    expect(await spend.budgetSpend(subject.organizationId, owners.slice(0, 1))).toEqual([1_400_000]);
    if (!inFlight.ok) throw new Error('not admitted');
    await spend.settle(inFlight.reservation, 250_000);
    await spend.flushSettles();
    expect(await spend.budgetSpend(subject.organizationId, owners.slice(0, 2))).toEqual([650_000, 650_000]);
    expect(await spend.budgetSpend(subject.organizationId, [])).toEqual([]);
  });
});

describe('key limit', () => {
  it('returns 402 api_key_limit_exceeded once the window spend reaches the limit, and resets at UTC midnight (daily)', async () => {
    const subject = subjectOf({ key: { limitMicros: 1 * USD, limitReset: 'daily' } });
    const ok = await request(subject, 700_000, 700_000, noon);
    expect(ok.headers).toMatchObject({ 'X-Key-Limit-USD': '1.00', 'X-Key-Limit-Remaining-USD': '0.30' });
    await request(subject, 700_000, 300_000, noon);
    const refusal = refused(await spend.admit({ subject, reserveMicros: 1, countsAsModelRequest: true, now: Date.parse('2026-11-25T23:59:59.999Z') }));
    expect(refusal).toMatchObject({ status: 402, code: 'api_key_limit_exceeded', type: 'budget_exceeded', limit: 'key_limit' });
    expect(refusal.headers['X-Key-Limit-Remaining-USD']).toBe('0.00');
    expect(refusal.headers['X-Key-Limit-Warning']).toBe('100% used, 0.00 USD left of 1.00 USD');
    expect((await spend.admit({ subject, reserveMicros: 1, countsAsModelRequest: true, now: Date.parse('2026-11-26T00:00:00Z') })).ok).toBe(true);
  });

  it('weekly windows reset on Monday at 00:00 UTC and monthly ones on the 1st', async () => {
    const weekly = subjectOf({ key: { limitMicros: 1 * USD, limitReset: 'weekly' } });
    await request(weekly, 1 * USD, 1 * USD, Date.parse('2026-11-23T00:00:00Z')); // Monday
    expect(refused(await spend.admit({ subject: weekly, reserveMicros: 1, countsAsModelRequest: true, now: Date.parse('2026-11-29T23:59:59Z') })).code).toBe('api_key_limit_exceeded');
    expect((await spend.admit({ subject: weekly, reserveMicros: 1, countsAsModelRequest: true, now: Date.parse('2026-11-30T00:00:00Z') })).ok).toBe(true);

    const monthly = subjectOf({ key: { limitMicros: 1 * USD, limitReset: 'monthly' } });
    await request(monthly, 1 * USD, 1 * USD, Date.parse('2026-02-01T00:00:00Z'));
    expect(refused(await spend.admit({ subject: monthly, reserveMicros: 1, countsAsModelRequest: true, now: Date.parse('2026-02-28T23:59:59Z') })).code).toBe('api_key_limit_exceeded');
    expect((await spend.admit({ subject: monthly, reserveMicros: 1, countsAsModelRequest: true, now: Date.parse('2026-03-01T00:00:00Z') })).ok).toBe(true);
  });

  it('a limit without limit_reset applies to all-time spend', async () => {
    const subject = subjectOf({ key: { limitMicros: 1 * USD, limitReset: null } });
    await request(subject, 1 * USD, 1 * USD, Date.parse('2026-01-01T00:00:00Z'));
    expect(refused(await spend.admit({ subject, reserveMicros: 1, countsAsModelRequest: true, now: Date.parse('2026-06-01T00:00:00Z') })).code).toBe('api_key_limit_exceeded');
  });

  it('changing the limit never resets usage', async () => {
    const subject = subjectOf({ key: { limitMicros: 1 * USD, limitReset: 'monthly' } });
    await request(subject, 1 * USD, 1 * USD, noon);
    expect(refused(await spend.admit({ subject, reserveMicros: 1, countsAsModelRequest: true, now: noon })).code).toBe('api_key_limit_exceeded');
    const raised: SpendSubject = { ...subject, key: { ...subject.key, limitMicros: 3 * USD } };
    const ok = await request(raised, 500_000, 500_000, noon);
    expect(ok.headers['X-Key-Limit-Remaining-USD']).toBe('1.50');
    const usage = await spend.keyUsage(subject.organizationId, subject.key.hash, noon);
    expect(usageInWindow(usage, 'monthly')).toEqual({ usage: 1_500_000, byokUsage: 0 });
  });

  it('keeps usage_daily, usage_weekly and usage_monthly whatever the window, with their byok parts', async () => {
    const subject = subjectOf({ key: { limitMicros: 100 * USD, limitReset: 'daily' } });
    const byok: SpendSubject = { ...subject, key: { ...subject.key, byok: true } };
    await request(subject, 10, 10, Date.parse('2026-11-02T10:00:00Z')); // previous month
    await request(subject, 20, 20, Date.parse('2026-11-23T10:00:00Z')); // Monday
    await request(byok, 40, 40, Date.parse('2026-11-24T10:00:00Z'));
    await request(subject, 80, 80, noon);
    await request(byok, 160, 160, noon);
    const usage = await spend.keyUsage(subject.organizationId, subject.key.hash, noon);
    expect(usage).toEqual({ total: 310, daily: 240, weekly: 300, monthly: 310, byok: { total: 200, daily: 160, weekly: 200, monthly: 200 } });
    expect(usageInWindow(usage, 'daily')).toEqual({ usage: 240, byokUsage: 160 });
    expect(keyUsageFields(usage, 'weekly')).toEqual({ usage: 300, usage_daily: 240, usage_weekly: 300, usage_monthly: 310, byok_usage: 200, byok_usage_daily: 160, byok_usage_weekly: 200, byok_usage_monthly: 200 });
    const december = await spend.keyUsage(subject.organizationId, subject.key.hash, Date.parse('2026-12-01T00:00:00Z'));
    expect(december).toMatchObject({ total: 310, daily: 0, weekly: 0, monthly: 0 });
  });
});

describe('customer budget and customer keys', () => {
  it('returns 402 budget_exceeded once the customer budget is spent, and sends no organization or project headers', async () => {
    const subject = subjectOf({ project: { id: 'p', budgetMicros: 50 * USD }, customer: { id: 'acme|corp', budgetMicros: 1 * USD, rateLimitRpm: null } });
    const ok = await request(subject, 1 * USD, 1 * USD);
    expect(Object.keys(ok.headers).filter((h) => /Credit|Budget|Project/.test(h))).toEqual([]);
    const refusal = refused(await spend.admit({ subject, reserveMicros: 1, countsAsModelRequest: true }));
    expect(refusal).toMatchObject({ status: 402, code: 'budget_exceeded', type: 'budget_exceeded', limit: 'customer_budget' });
    // The same customer id in the test environment is another customer.
    expect((await spend.admit({ subject: { ...subject, environment: 'test' }, reserveMicros: 1, countsAsModelRequest: true })).ok).toBe(true);
  });
});

describe('free plan', () => {
  it('allows 15 model requests per organization per UTC day, then 429 free_tier_daily_limit with Retry-After to the end of the day', async () => {
    const org = subjectOf({ plan: 'free' });
    const otherKey = { ...org, key: { ...org.key, hash: subjectOf().key.hash } };
    const at = Date.parse('2026-11-25T23:00:00.500Z');
    for (let i = 0; i < 15; i += 1) {
      const a = await request(i % 2 === 0 ? org : otherKey, 100, 100, at);
      expect(a.ok).toBe(true);
      expect(a.headers).toMatchObject({ 'X-RateLimit-Limit': '15', 'X-RateLimit-Remaining': String(14 - i), 'X-RateLimit-Reset': String(Date.parse('2026-11-26T00:00:00Z') / 1000) });
    }
    // Requests that are not model requests (GET, management) do not count and are not refused.
    expect((await spend.admit({ subject: org, reserveMicros: 0, countsAsModelRequest: false, now: at })).ok).toBe(true);
    const refusal = refused(await spend.admit({ subject: otherKey, reserveMicros: 100, countsAsModelRequest: true, now: at }));
    expect(refusal).toMatchObject({ status: 429, code: 'free_tier_daily_limit', type: 'rate_limit_error', retryAfterSeconds: 3600 });
    expect(refusal.headers).toMatchObject({ 'Retry-After': '3600', 'X-RateLimit-Remaining': '0' });
    expect((await spend.admit({ subject: org, reserveMicros: 100, countsAsModelRequest: true, now: Date.parse('2026-11-26T00:00:00Z') })).ok).toBe(true);
  });

  it('paid organizations have no daily cap and X-RateLimit headers are 0', async () => {
    const org = subjectOf();
    let last: Admission | null = null;
    for (let i = 0; i < 20; i += 1) last = await spend.admit({ subject: org, reserveMicros: 1, countsAsModelRequest: true, now: noon });
    expect(last?.ok).toBe(true);
    expect(last?.headers).toMatchObject({ 'X-RateLimit-Limit': '0', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '0' });
  });
});

describe('customer rate limit', () => {
  it('customer keys share one organization-wide counter per fixed 60 s window, each compared with its own limit; 429 without a code', async () => {
    const org = subjectOf();
    const slow = { ...org, customer: { id: 'slow', budgetMicros: null, rateLimitRpm: 2 } };
    const fast = { ...org, key: { ...org.key, hash: subjectOf().key.hash }, customer: { id: 'fast', budgetMicros: null, rateLimitRpm: 4 } };
    const unlimited = { ...org, key: { ...org.key, hash: subjectOf().key.hash }, customer: { id: 'free-roam', budgetMicros: null, rateLimitRpm: null } };
    const at = Date.parse('2026-11-25T12:00:15Z');
    const first = admitted(await spend.admit({ subject: slow, reserveMicros: 1, countsAsModelRequest: true, now: at }));
    expect(first.record.countedInRateLimit).toBe(true);
    expect((await spend.admit({ subject: slow, reserveMicros: 1, countsAsModelRequest: true, now: at })).headers).toMatchObject({ 'X-RateLimit-Limit': '2', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(Date.parse('2026-11-25T12:01:00Z') / 1000) });
    // Keys without a limit add nothing to the counter.
    for (let i = 0; i < 5; i += 1) expect((await spend.admit({ subject: unlimited, reserveMicros: 1, countsAsModelRequest: true, now: at })).ok).toBe(true);
    const refusal = refused(await spend.admit({ subject: slow, reserveMicros: 1, countsAsModelRequest: true, now: at }));
    expect(refusal).toMatchObject({ status: 429, code: null, type: 'rate_limit_error', limit: 'customer_rate_limit', retryAfterSeconds: 45 });
    expect(refusal.headers['Retry-After']).toBe('45');
    expect(refusalBody(refusal)).toEqual({ error: { type: 'rate_limit_error', message: refusal.message } });
    // The counter holds 2: the key with limit 4 may make two more in this window.
    expect((await spend.admit({ subject: fast, reserveMicros: 1, countsAsModelRequest: true, now: at })).ok).toBe(true);
    expect((await spend.admit({ subject: fast, reserveMicros: 1, countsAsModelRequest: true, now: at })).headers['X-RateLimit-Remaining']).toBe('0');
    expect(refused(await spend.admit({ subject: fast, reserveMicros: 1, countsAsModelRequest: true, now: at })).status).toBe(429);
    // The next fixed window starts empty.
    expect((await spend.admit({ subject: slow, reserveMicros: 1, countsAsModelRequest: true, now: Date.parse('2026-11-25T12:01:00Z') })).ok).toBe(true);
  });
});

describe('reserve, settle, release', () => {
  it('release gives the whole reservation back; settling twice counts once', async () => {
    const subject = subjectOf({ key: { limitMicros: 1 * USD, limitReset: 'daily' } });
    const held = admitted(await spend.admit({ subject, reserveMicros: 1 * USD, countsAsModelRequest: true, now: noon }));
    expect(refused(await spend.admit({ subject, reserveMicros: 1, countsAsModelRequest: true, now: noon })).code).toBe('api_key_limit_exceeded');
    await spend.release(held);
    expect((await spend.keyUsage(subject.organizationId, subject.key.hash, noon)).daily).toBe(0);
    const used = admitted(await spend.admit({ subject, reserveMicros: 500_000, countsAsModelRequest: true, now: noon }));
    await spend.settle(used, 120_000);
    await spend.settle(used, 120_000);
    await spend.release(used);
    expect((await spend.keyUsage(subject.organizationId, subject.key.hash, noon)).daily).toBe(120_000);
  });

  it('a reservation whose lease ran out (its replica died) is released by a later admit, and a late settle still counts its cost', async () => {
    let clock = noon;
    const leased = control(redis, { clock: () => clock, leaseMs: 60_000 });
    const subject = subjectOf({ key: { limitMicros: 1 * USD, limitReset: 'daily' } });
    const lost = admitted(await leased.admit({ subject, reserveMicros: 1 * USD, countsAsModelRequest: true }));
    expect(refused(await leased.admit({ subject, reserveMicros: 1, countsAsModelRequest: true })).code).toBe('api_key_limit_exceeded');
    clock = noon + 60_001;
    const after = admitted(await leased.admit({ subject, reserveMicros: 100, countsAsModelRequest: true }));
    expect(after.reservedMicros).toBe(100);
    await leased.settle(after, 100);
    await leased.settle(lost, 300_000);
    expect((await leased.keyUsage(subject.organizationId, subject.key.hash)).daily).toBe(300_100);
    // Settling it again, later still, counts nothing more.
    clock = noon + 5 * 60_000;
    await leased.settle(lost, 300_000);
    await leased.release(lost);
    expect((await leased.keyUsage(subject.organizationId, subject.key.hash)).daily).toBe(300_100);
  });

  it('a reservation settled in time and settled again after its lease ran out counts once', async () => {
    let clock = noon;
    const leased = control(redis, { clock: () => clock, leaseMs: 60_000 });
    const subject = subjectOf({ key: { limitMicros: 1 * USD, limitReset: 'daily' } });
    const used = admitted(await leased.admit({ subject, reserveMicros: 500_000, countsAsModelRequest: true }));
    await leased.settle(used, 120_000);
    clock = noon + 60_001;
    // An admit after the lease's end sweeps the in-flight set: the settled reservation is not in it.
    await leased.settle(admitted(await leased.admit({ subject, reserveMicros: 0, countsAsModelRequest: true })), 0);
    await leased.settle(used, 120_000);
    await leased.release(used);
    expect((await leased.keyUsage(subject.organizationId, subject.key.hash)).daily).toBe(120_000);
  });

  it('a request admitted with nothing reserved still counts its real cost when settled', async () => {
    const subject = subjectOf();
    const free = admitted(await spend.admit({ subject, reserveMicros: 0, countsAsModelRequest: true, now: noon }));
    await spend.settle(free, 500);
    expect((await spend.keyUsage(subject.organizationId, subject.key.hash, noon)).daily).toBe(500);
  });

  it('rejects malformed amounts with a RangeError', async () => {
    await expect(spend.admit({ subject: subjectOf(), reserveMicros: 1.5, countsAsModelRequest: true })).rejects.toThrow(RangeError);
    await expect(spend.admit({ subject: subjectOf({ key: { hash: 'nothex' } }), reserveMicros: 1, countsAsModelRequest: true })).rejects.toThrow('64 lowercase hex');
  });
});

describe('concurrency', () => {
  it('50 parallel admits from two replicas against a small key limit admit exactly what fits', async () => {
    const second = new Redis(redisUrl);
    try {
      const replicas = [spend, control(second)];
      const subject = subjectOf({ key: { limitMicros: 1_000, limitReset: 'daily' } });
      const admissions = await Promise.all(Array.from({ length: 50 }, (_, i) => replicas[i % 2]!.admit({ subject, reserveMicros: 100, countsAsModelRequest: true, now: noon })));
      const ok = admissions.filter((a) => a.ok);
      expect(ok).toHaveLength(10);
      expect(admissions.filter((a) => !a.ok && a.code === 'api_key_limit_exceeded')).toHaveLength(40);
      // Half fail at the vendor and are released, half cost less than reserved.
      await Promise.all(ok.map((a, i) => (i % 2 === 0 ? spend.release(admitted(a)) : spend.settle(admitted(a), 70))));
      expect((await spend.keyUsage(subject.organizationId, subject.key.hash, noon)).daily).toBe(5 * 70);
    } finally {
      second.disconnect();
    }
  });

  it('spend after settlement never exceeds the limit by more than what was in flight, and equals the recorded cost', async () => {
    const second = new Redis(redisUrl);
    try {
      const replicas = [spend, control(second)];
      const limit = 20_000;
      const reserve = 1_000;
      const subject = subjectOf({ key: { limitMicros: limit, limitReset: 'monthly' } });
      let recorded = 0;
      let inFlight = 0;
      let maxInFlightAtRefusal = 0;
      const worker = async (w: number) => {
        for (;;) {
          const admission = await replicas[w % 2]!.admit({ subject, reserveMicros: reserve, countsAsModelRequest: true });
          if (!admission.ok) {
            maxInFlightAtRefusal = Math.max(maxInFlightAtRefusal, inFlight);
            return;
          }
          inFlight += reserve;
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
          const cost = Math.random() < 0.2 ? 0 : 300 + Math.floor(Math.random() * 701);
          if (cost === 0) await replicas[(w + 1) % 2]!.release(admission.reservation);
          else await replicas[(w + 1) % 2]!.settle(admission.reservation, cost);
          inFlight -= reserve;
          recorded += cost;
        }
      };
      await Promise.all(Array.from({ length: 50 }, (_, w) => worker(w)));
      const usage = await spend.keyUsage(subject.organizationId, subject.key.hash);
      expect(usage.monthly).toBe(recorded);
      // Admission stops once settled + reserved reaches the limit: at most one reservation over it.
      expect(recorded).toBeLessThanOrEqual(limit + reserve);
      // Nothing is left reserved: the next request is admitted exactly when the settled spend is under the limit.
      const next = await spend.admit({ subject, reserveMicros: reserve, countsAsModelRequest: true });
      expect(next.ok).toBe(recorded < limit);
    } finally {
      second.disconnect();
    }
  });

  it('a period\'s counters expire its grace after the period ends (2 days, 8 days, 32 days): set when the admit makes the hash, kept by later admits', async () => {
    const subject = subjectOf({ key: { limitMicros: 10 * USD, limitReset: 'weekly' } });
    const pttl = (name: string) => redis.pttl(`${prefix}{org:${subject.organizationId}}:${name}`);
    const expected = (endMs: number, graceDays: number) => endMs + graceDays * 86_400_000 - Date.now();
    const expectTtl = async (name: string, endMs: number, graceDays: number) => {
      const left = await pttl(name);
      expect(Math.abs(left - expected(endMs, graceDays))).toBeLessThan(5_000);
    };
    // A request counted with nothing reserved makes the day's hash alone (its request count).
    admitted(await spend.admit({ subject, reserveMicros: 0, countsAsModelRequest: true }));
    const periods = periodsAt(Date.now());
    await expectTtl(`d:${periods.day.label}`, periods.day.endMs, 2);
    expect(await pttl(`w:${periods.week.label}`)).toBe(-2);
    // A reservation makes the week's and month's hashes; later admits keep every TTL where it is.
    for (let i = 0; i < 3; i += 1) await request(subject, 5, 3);
    await expectTtl(`d:${periods.day.label}`, periods.day.endMs, 2);
    await expectTtl(`w:${periods.week.label}`, periods.week.endMs, 8);
    await expectTtl(`m:${periods.month.label}`, periods.month.endMs, 32);
    // The window's spend is what the refusals and headers read: settled 3 x 3, and 5 in flight.
    const inFlight = admitted(await spend.admit({ subject, reserveMicros: 5, countsAsModelRequest: true }));
    expect((await spend.keyUsage(subject.organizationId, subject.key.hash)).weekly).toBe(14);
    await spend.release(inFlight);
  });

  it('the key limit headers of an admission count the spend of the key\'s window, its reservation included, not its all-time spend', async () => {
    const subject = subjectOf({ key: { limitMicros: 1 * USD, limitReset: 'daily' } });
    const today = Date.now();
    await request(subject, 400_000, 400_000, today - 86_400_000);
    const admission = await spend.admit({ subject, reserveMicros: 100_000, countsAsModelRequest: true, now: today });
    expect(admission.ok).toBe(true);
    expect(admission.headers['X-Key-Limit-Remaining-USD']).toBe(formatUsd(900_000));
    expect((await spend.keyUsage(subject.organizationId, subject.key.hash, today)).total).toBe(500_000);
  });

  it('one EVALSHA per admit', async () => {
    const monitor = await redis.monitor();
    const commands: string[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      // Commands the scripts run inside Redis show with source 'lua'; count what clients sent.
      if (source !== 'lua' && args.some((a) => String(a).includes(prefix))) commands.push(String(args[0]).toLowerCase());
    });
    try {
      const subject = subjectOf({ project: { id: 'p', budgetMicros: 10 * USD }, key: { limitMicros: 10 * USD, limitReset: 'daily' } });
      await spend.admit({ subject, reserveMicros: 1, countsAsModelRequest: true }); // first: builds the scope
      await new Promise((resolve) => setTimeout(resolve, 50)); // MONITOR reports a little late
      commands.length = 0;
      for (let i = 0; i < 20; i += 1) await spend.admit({ subject, reserveMicros: 1, countsAsModelRequest: true });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(commands).toEqual(Array.from({ length: 20 }, () => 'evalsha'));
    } finally {
      monitor.disconnect();
    }
  });
});
