import { AuthenticationError } from '@patchbay/errors';
import type Redis from 'ioredis';
import { hashAccessKey } from './keys';
import type { KeyPrincipal } from './principal';

/** What the cache needs of any principal: its key id, its organization and its expiry, for invalidation. */
export interface CacheablePrincipal {
  keyId: string;
  organizationId: string;
  /** ISO 8601, or null for a key that never expires. */
  expiresAt: string | null;
}

/** Looks a key up by its hash; null when no active key has that hash. */
export type KeyLoader<P extends CacheablePrincipal = KeyPrincipal> = (keyHash: string) => Promise<P | null>;

export const KEY_INVALIDATION_CHANNEL = 'patchbay:access-keys:invalidate';

/** What is published when a key or an organization changes: every service drops the matching cache entries. */
export type KeyInvalidation = { keyHash: string } | { keyId: string } | { organizationId: string };

export interface KeyVerifierOptions<P extends CacheablePrincipal = KeyPrincipal> {
  loader: KeyLoader<P>;
  /** How long a verified key is trusted without asking again. Pub/sub invalidation makes changes immediate; this bounds a missed message. */
  ttlMs?: number;
  /** How long an unknown key is remembered as unknown, to spare the database repeated lookups of a bad key. */
  negativeTtlMs?: number;
  maxEntries?: number;
  now?: () => number;
  /** The pub/sub channel of invalidations (default the access keys'); another kind of key can have its own. */
  channel?: string;
}

interface Entry<P> {
  principal: P | null;
  expiresAtMs: number | null;
  cachedUntil: number;
}

const INVALID_KEY_MESSAGE = 'The access key is invalid, revoked or expired.';

/**
 * Verifies bearer keys with an in-process cache. A revoked, regenerated or expired key stops working
 * at once: expiry is checked on every use, and revocation/regeneration arrive over Redis pub/sub.
 * If the subscription drops, the whole cache is cleared on reconnect, since messages may have been missed.
 * Generic over the principal so other key kinds (the model gateway's keys) reuse the same cache and channel.
 */
export class KeyVerifier<P extends CacheablePrincipal = KeyPrincipal> {
  private readonly cache = new Map<string, Entry<P>>();
  private readonly inflight = new Map<string, Promise<Entry<P>>>();
  private readonly loader: KeyLoader<P>;
  private readonly ttlMs: number;
  private readonly negativeTtlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly channel: string;
  private subscriber: Redis | null = null;

  constructor(options: KeyVerifierOptions<P>) {
    this.loader = options.loader;
    this.ttlMs = options.ttlMs ?? 60_000;
    this.negativeTtlMs = options.negativeTtlMs ?? 2_000;
    this.maxEntries = options.maxEntries ?? 50_000;
    this.now = options.now ?? Date.now;
    this.channel = options.channel ?? KEY_INVALIDATION_CHANNEL;
  }

  /** Returns the principal of a raw key, or throws a 401. */
  async verify(rawKey: string): Promise<P> {
    const principal = await this.lookup(hashAccessKey(rawKey));
    if (!principal) throw new AuthenticationError(INVALID_KEY_MESSAGE);
    return principal;
  }

  /** Same as verify, but from a hash already computed. */
  async lookup(keyHash: string): Promise<P | null> {
    const now = this.now();
    let entry = this.cache.get(keyHash);
    // While the invalidation channel is down we could miss a revocation: ask every time until it is back.
    const cacheTrusted = this.subscriber === null || this.subscriber.status === 'ready';
    if (!entry || entry.cachedUntil <= now || !cacheTrusted) entry = await this.load(keyHash);
    if (!entry.principal) return null;
    if (entry.expiresAtMs !== null && entry.expiresAtMs <= this.now()) return null;
    return entry.principal;
  }

  private load(keyHash: string): Promise<Entry<P>> {
    const pending = this.inflight.get(keyHash);
    if (pending) return pending;
    const started = this.now();
    const promise = this.loader(keyHash)
      .then((principal) => {
        const entry: Entry<P> = {
          principal,
          expiresAtMs: principal?.expiresAt ? Date.parse(principal.expiresAt) : null,
          cachedUntil: started + (principal ? this.ttlMs : this.negativeTtlMs),
        };
        // An invalidation that arrived while loading wins: only cache when nothing was dropped meanwhile.
        if (this.inflight.get(keyHash) === promise) this.store(keyHash, entry);
        return entry;
      })
      .finally(() => {
        if (this.inflight.get(keyHash) === promise) this.inflight.delete(keyHash);
      });
    this.inflight.set(keyHash, promise);
    return promise;
  }

  private store(keyHash: string, entry: Entry<P>): void {
    if (this.cache.size >= this.maxEntries) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(keyHash, entry);
  }

  /** Drops cached entries matching an invalidation message. */
  invalidate(message: KeyInvalidation): void {
    if ('keyHash' in message) {
      this.cache.delete(message.keyHash);
      this.inflight.delete(message.keyHash);
      return;
    }
    for (const [hash, entry] of this.cache) {
      const p = entry.principal;
      if (!p) continue;
      if (('keyId' in message && p.keyId === message.keyId) || ('organizationId' in message && p.organizationId === message.organizationId)) {
        this.cache.delete(hash);
      }
    }
    this.inflight.clear();
  }

  clear(): void {
    this.cache.clear();
    this.inflight.clear();
  }

  get size(): number {
    return this.cache.size;
  }

  /**
   * Listens for invalidations on a dedicated Redis connection (a subscribed connection can do nothing
   * else). Verifiers of different channels may share one connection.
   */
  async subscribe(subscriber: Redis): Promise<void> {
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, payload: string) => {
      if (channel !== this.channel) return;
      try {
        this.invalidate(JSON.parse(payload) as KeyInvalidation);
      } catch {
        this.clear();
      }
    });
    // Messages published while disconnected are lost: start from an empty cache after any reconnect.
    subscriber.on('ready', () => this.clear());
    await subscriber.subscribe(this.channel);
  }

  async close(): Promise<void> {
    if (this.subscriber) {
      this.subscriber.disconnect();
      this.subscriber = null;
    }
  }
}

export async function publishKeyInvalidation(redis: Redis, message: KeyInvalidation, channel = KEY_INVALIDATION_CHANNEL): Promise<void> {
  await redis.publish(channel, JSON.stringify(message));
}
