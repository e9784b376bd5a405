import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { LeasedSpendControl } from './leases';
import { RedisSpendControl } from './redis-spend-control';
import { deleteKeys, subjectOf } from './test-support/fixtures';
import { MemoryLedger } from './test-support/memory-ledger';
import type { SpendSubject } from './types';

/**
 * rateLimitCounts: the counts behind X-RateLimit-Remaining, read from the counters the admit script
 * writes, so a replica that admitted nothing for an organization reports what another replica's
 * admissions counted.
 */
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `patchbay:test:gateway-spend:rate-limit-counts:${randomUUID()}:`;
let redis: Redis;
const closing: Array<{ close(): void }> = [];

beforeAll(() => {
  redis = new Redis(redisUrl);
});

afterAll(async () => {
  for (const c of closing) c.close();
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

function replica(kind: 'per-request' | 'leased'): RedisSpendControl | LeasedSpendControl {
  const options = { ledger: new MemoryLedger(), keyPrefix: prefix, settleDelaysMs: [] };
  const control = kind === 'leased' ? new LeasedSpendControl(redis, { ...options, learningMs: 0 }) : new RedisSpendControl(redis, options);
  closing.push(control);
  return control;
}

async function admitOn(control: RedisSpendControl | LeasedSpendControl, subject: SpendSubject, now?: number): Promise<Record<string, string>> {
  const admission = await control.admit({ subject, reserveMicros: 10, countsAsModelRequest: true, now });
  if (!admission.ok) throw new Error(`refused: ${admission.code}`);
  await control.settle(admission.reservation, 5, randomUUID());
  return admission.headers;
}

describe.each(['per-request', 'leased'] as const)('rateLimitCounts (%s admission)', (kind) => {
  test("a free-plan organization's requests today, as the last admission on another replica reported them", async () => {
    const subject = subjectOf({ plan: 'free' });
    const a = replica(kind);
    const b = replica(kind);
    expect(await b.rateLimitCounts(subject.organizationId)).toEqual({ requestsToday: 0, rateWindowCount: 0 });
    await admitOn(a, subject);
    const headers = await admitOn(a, subject);
    const counts = await b.rateLimitCounts(subject.organizationId);
    expect(counts.requestsToday).toBe(2);
    expect(Number(headers['X-RateLimit-Limit']) - counts.requestsToday).toBe(Number(headers['X-RateLimit-Remaining']));
  });

  test("a customer key's requests in the current minute", async () => {
    const subject = subjectOf({ customer: { id: randomUUID(), budgetMicros: null, rateLimitRpm: 5 } });
    // One clock for both, so the fixed minute cannot turn between the admission and the read.
    const now = Date.now();
    const headers = await admitOn(replica(kind), subject, now);
    expect(headers['X-RateLimit-Remaining']).toBe('4');
    expect((await replica(kind).rateLimitCounts(subject.organizationId, now)).rateWindowCount).toBe(1);
  });
});
