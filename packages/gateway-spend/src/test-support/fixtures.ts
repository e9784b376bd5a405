import { createHash, randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { SpendSubject } from '../types';

export const USD = 1_000_000;

/** A paid organization's production key with no limits, credit 100 USD, unless overridden. */
export function subjectOf(overrides: Partial<Omit<SpendSubject, 'key'>> & { key?: Partial<SpendSubject['key']> } = {}): SpendSubject {
  const { key, ...rest } = overrides;
  return {
    organizationId: randomUUID(),
    environment: 'production',
    plan: 'paid',
    paymentMethodOnFile: true,
    creditMicros: 100 * USD,
    project: null,
    customer: null,
    ...rest,
    key: { hash: newKeyHash(), limitMicros: null, limitReset: null, byok: false, ...key },
  };
}

export function newKeyHash(): string {
  return createHash('sha256').update(randomUUID()).digest('hex');
}

/** Deletes every key under a prefix (the test's own), never anything else. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}
