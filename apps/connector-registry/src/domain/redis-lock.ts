import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/** Deletes the key only if it still holds our token: a lock that expired and was taken by someone else is left alone. */
const RELEASE_SCRIPT = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

/**
 * A lock across every replica sharing the Redis: `SET key token NX PX ttl`. The TTL frees the lock if
 * its holder dies; the holder's work must finish well within it. Returns the token to release with,
 * or null when someone else holds the lock.
 */
export async function acquireLock(redis: Redis | Cluster, key: string, ttlMs: number): Promise<string | null> {
  const token = randomBytes(16).toString('hex');
  const ok = await redis.set(key, token, 'PX', ttlMs, 'NX');
  return ok === 'OK' ? token : null;
}

export async function releaseLock(redis: Redis | Cluster, key: string, token: string): Promise<boolean> {
  const deleted = (await redis.eval(RELEASE_SCRIPT, 1, key, token)) as number;
  return deleted === 1;
}

/**
 * Waits until nobody holds the lock, polling with a growing pause (20 ms up to 250 ms). Returns false
 * if it is still held at the deadline.
 */
export async function waitForRelease(redis: Redis | Cluster, key: string, deadline: number, now: () => number = Date.now): Promise<boolean> {
  let pause = 20;
  while ((await redis.exists(key)) === 1) {
    if (now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(250, pause * 2);
  }
  return true;
}
