import { AuthenticationError } from '@patchbay/errors';
import Redis from 'ioredis';
import { hashAccessKey } from './keys';
import type { KeyPrincipal } from './principal';
import { KeyVerifier, publishKeyInvalidation } from './verifier';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function principal(overrides: Partial<KeyPrincipal> = {}): KeyPrincipal {
  return {
    keyId: 'k1',
    organizationId: 'o1',
    environment: 'production',
    scopes: ['runtime:all', 'management:all'],
    toolPackIds: null,
    registeredUserIds: null,
    expiresAt: null,
    isMaster: false,
    serviceAccount: null,
    organization: { id: 'o1', plan: 'free', monthlyCredits: 100, environmentMatching: false, mcpRateLimitPerMinute: 30, callbackOrigins: [] },
    ...overrides,
  };
}

async function until(condition: () => boolean, timeoutMs = 1000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('KeyVerifier', () => {
  it('serves a verified key from the cache without asking again', async () => {
    let calls = 0;
    const verifier = new KeyVerifier({ loader: async () => { calls += 1; return principal(); } });
    await verifier.verify('pb_live_a');
    await verifier.verify('pb_live_a');
    expect(calls).toBe(1);
  });

  it('asks once for concurrent first uses of the same key', async () => {
    let calls = 0;
    const verifier = new KeyVerifier({ loader: async () => { calls += 1; await new Promise((r) => setTimeout(r, 20)); return principal(); } });
    await Promise.all([1, 2, 3, 4].map(() => verifier.verify('pb_live_a')));
    expect(calls).toBe(1);
  });

  it('rejects an unknown key with a 401', async () => {
    const verifier = new KeyVerifier({ loader: async () => null });
    await expect(verifier.verify('pb_live_nope')).rejects.toThrow(AuthenticationError);
  });

  it('stops accepting a cached key the moment it expires', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const verifier = new KeyVerifier({ loader: async () => principal({ expiresAt: '2026-01-01T00:00:10Z' }), now: () => now });
    await expect(verifier.verify('pb_live_a')).resolves.toBeDefined();
    now += 10_000;
    await expect(verifier.verify('pb_live_a')).rejects.toThrow(AuthenticationError);
  });

  it('drops a revoked key in every subscribed process as soon as the invalidation is published', async () => {
    const active = new Set([hashAccessKey('pb_live_a')]);
    const loader = async (hash: string) => (active.has(hash) ? principal() : null);
    const subscribers = [new Redis(redisUrl), new Redis(redisUrl)];
    const verifiers = [new KeyVerifier({ loader }), new KeyVerifier({ loader })];
    await Promise.all(verifiers.map((v, i) => v.subscribe(subscribers[i]!)));
    const publisher = new Redis(redisUrl);
    try {
      for (const v of verifiers) await expect(v.verify('pb_live_a')).resolves.toBeDefined();
      active.clear();
      await publishKeyInvalidation(publisher, { keyHash: hashAccessKey('pb_live_a') });
      await until(() => verifiers.every((v) => v.size === 0));
      for (const v of verifiers) await expect(v.verify('pb_live_a')).rejects.toThrow(AuthenticationError);
    } finally {
      await Promise.all(verifiers.map((v) => v.close()));
      publisher.disconnect();
    }
  });

  it('drops every key of an organization when its settings change', async () => {
    const verifier = new KeyVerifier({ loader: async (hash) => principal({ keyId: hash.slice(0, 6) }) });
    await verifier.verify('pb_live_a');
    await verifier.verify('pb_live_b');
    verifier.invalidate({ organizationId: 'o1' });
    expect(verifier.size).toBe(0);
  });
});

describe('KeyVerifier while the invalidation channel is down', () => {
  it('asks the source of truth on every use instead of trusting its cache', async () => {
    let calls = 0;
    const verifier = new KeyVerifier({ loader: async () => { calls += 1; return principal(); } });
    const subscriber = new Redis(redisUrl);
    await verifier.subscribe(subscriber);
    await verifier.verify('pb_live_a');
    await verifier.verify('pb_live_a');
    expect(calls).toBe(1);
    subscriber.disconnect();
    await until(() => subscriber.status !== 'ready');
    await verifier.verify('pb_live_a');
    await verifier.verify('pb_live_a');
    expect(calls).toBe(3);
    await verifier.close();
  });
});
