import { AuthenticationError } from '@patchbay/errors';
import { addMessageToOutbox, subscribeChannel, type CloseChannelSubscription, type OutboxWriter } from '@patchbay/queues';
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

/** Reads one message off an invalidation channel; 'unreadable' for anything else (the cache is then dropped whole). */
export function parseKeyInvalidation(raw: string): KeyInvalidation | 'unreadable' {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return 'unreadable';
  }
  if (typeof data !== 'object' || data === null) return 'unreadable';
  const record = data as Record<string, unknown>;
  if (typeof record.keyHash === 'string') return { keyHash: record.keyHash };
  if (typeof record.keyId === 'string') return { keyId: record.keyId };
  if (typeof record.organizationId === 'string') return { organizationId: record.organizationId };
  return 'unreadable';
}

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
  /** Where a failed resubscription is reported. */
  logger?: { warn(fields: Record<string, unknown>, message: string): void };
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
 *
 * Once `subscribe` is called, the cache is trusted only while the subscription is confirmed: from
 * Redis's answer to SUBSCRIBE until the connection closes. In between (before the first answer, and
 * from a disconnect until the SUBSCRIBE sent after the reconnect is answered) every lookup asks the
 * loader and nothing is stored, since a message published then is lost; the cache is emptied at the
 * moment the subscription is confirmed again. A lookup that began before any invalidation or
 * confirmation does not store its answer. Generic over the principal so other key kinds (the model
 * gateway's keys, account tokens, organization data) reuse the same cache and channels.
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
  private readonly logger: KeyVerifierOptions<P>['logger'];
  private subscriber: Redis | null = null;
  private unsubscribe: CloseChannelSubscription | null = null;
  /** False from subscribe() until its SUBSCRIBE is answered, and from each disconnect until the next answer. */
  private live = true;
  /** Bumped by every invalidation, clear and change of `live`: a load that saw another value does not store. */
  private generation = 0;

  constructor(options: KeyVerifierOptions<P>) {
    this.loader = options.loader;
    this.ttlMs = options.ttlMs ?? 60_000;
    this.negativeTtlMs = options.negativeTtlMs ?? 2_000;
    this.maxEntries = options.maxEntries ?? 50_000;
    this.now = options.now ?? Date.now;
    this.channel = options.channel ?? KEY_INVALIDATION_CHANNEL;
    this.logger = options.logger;
  }

  /** Returns the principal of a raw key, or throws a 401. */
  async verify(rawKey: string): Promise<P> {
    const principal = await this.lookup(hashAccessKey(rawKey));
    if (!principal) throw new AuthenticationError(INVALID_KEY_MESSAGE);
    return principal;
  }

  /** Same as verify, but from a hash already computed. */
  async lookup(keyHash: string): Promise<P | null> {
    let entry: Entry<P> | undefined;
    if (this.live) {
      entry = this.cache.get(keyHash);
      if (!entry || entry.cachedUntil <= this.now()) entry = await this.load(keyHash);
    } else {
      // A revocation published now could be missed: ask the source of truth, alone (a load another
      // request began earlier may predate the revocation), and keep nothing.
      entry = this.toEntry(await this.loader(keyHash), this.now());
    }
    if (!entry.principal) return null;
    if (entry.expiresAtMs !== null && entry.expiresAtMs <= this.now()) return null;
    return entry.principal;
  }

  /** Whether cached entries are served: always without a subscription, else only while it is confirmed. */
  get trusted(): boolean {
    return this.live;
  }

  private toEntry(principal: P | null, loadedAt: number): Entry<P> {
    return {
      principal,
      expiresAtMs: principal?.expiresAt ? Date.parse(principal.expiresAt) : null,
      cachedUntil: loadedAt + (principal ? this.ttlMs : this.negativeTtlMs),
    };
  }

  private load(keyHash: string): Promise<Entry<P>> {
    const pending = this.inflight.get(keyHash);
    if (pending) return pending;
    const started = this.now();
    const generation = this.generation;
    const promise = this.loader(keyHash)
      .then((principal) => {
        const entry = this.toEntry(principal, started);
        // An invalidation (or a lost and regained subscription) while loading wins: the answer may predate it.
        if (this.inflight.get(keyHash) === promise && this.generation === generation && this.live) this.store(keyHash, entry);
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
    this.generation += 1;
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
    this.generation += 1;
    this.cache.clear();
    this.inflight.clear();
  }

  get size(): number {
    return this.cache.size;
  }

  /**
   * Listens for invalidations on a dedicated Redis connection (a subscribed connection can do nothing
   * else). Verifiers of different channels may share one connection. Resolves once Redis has answered
   * the SUBSCRIBE; from then on the cache is served only while the subscription is confirmed.
   */
  async subscribe(subscriber: Redis): Promise<void> {
    this.subscriber = subscriber;
    this.setLive(false);
    this.unsubscribe = await subscribeChannel(
      subscriber,
      this.channel,
      parseKeyInvalidation,
      (message) => {
        if (message === 'unreadable') this.clear();
        else this.invalidate(message);
      },
      {
        // Whatever was published while unsubscribed is lost: start from an empty cache, from now on.
        onLive: () => this.setLive(true),
        onDown: () => this.setLive(false),
        logger: this.logger,
        label: 'key invalidation',
      },
    );
  }

  private setLive(live: boolean): void {
    this.live = live;
    this.clear();
  }

  async close(): Promise<void> {
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = null;
    if (unsubscribe) await unsubscribe();
    if (this.subscriber) {
      this.subscriber.disconnect();
      this.subscriber = null;
    }
  }
}

/** Publishes an invalidation now; rejects when Redis does. A change that commits should use addKeyInvalidationToOutbox instead. */
export async function publishKeyInvalidation(redis: Redis, message: KeyInvalidation, channel = KEY_INVALIDATION_CHANNEL): Promise<void> {
  await redis.publish(channel, JSON.stringify(message));
}

/**
 * Records an invalidation in the service's outbox, in the transaction of the change that causes it:
 * the service's OutboxRelay (given a `publisher`) publishes it after the commit, and, if Redis does
 * not answer, keeps it and publishes it as soon as Redis does. Kick the relay after the commit.
 */
export async function addKeyInvalidationToOutbox(tx: OutboxWriter, message: KeyInvalidation, channel = KEY_INVALIDATION_CHANNEL): Promise<void> {
  await addMessageToOutbox(tx, { channel, payload: message });
}
