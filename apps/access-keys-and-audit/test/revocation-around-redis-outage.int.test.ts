import { createServer, type Server } from 'node:http';
import { AuthenticationError } from '@patchbay/errors';
import { KEY_INVALIDATION_CHANNEL, KeyVerifier, httpKeyLoader } from '@patchbay/auth';
import { applyMigrations, ensureDatabase } from '@patchbay/db';
import { CHANNEL_PUBLISHER_OPTIONS, OutboxRelay } from '@patchbay/queues';
import { createLogger, createRedis, type RedisClient, createRedisSubscriber } from '@patchbay/service-kit';
import { PrivateRedis } from '@patchbay/testing-redis';
import type Redis from 'ioredis';
import request from 'supertest';
import { createApp } from '../src/app';
import { DB_SCHEMA, MIGRATIONS_DIR } from '../src/config';
import { createPrisma, type Db } from '../src/db';
import { loadPrincipalByHash } from '../src/domain/access-keys';
import { TEST_DATABASE_URL, TEST_SERVICE_TOKEN } from './env';
import { bearer, createKey, newOrganization } from './harness';
import { RedisHop, sleep } from './redis-outage';

/**
 * Issue 29 §3: a key revoked around a Redis outage must stop working on every replica that cached it
 * within a second of Redis being back. Runs on a redis-server of its own (stopped and started here)
 * and a database of its own (so no other test file's relay publishes this file's invalidations on
 * another Redis).
 */
const DATABASE_URL = (() => {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `${url.pathname}_revocation_outage`;
  return url.toString();
})();
/** The README's promise: revocation everywhere within a second (here: of Redis answering again). */
const WITHIN_MS = 1000;

/** On TCP (port 0: a free port below the ephemeral range, kept across restarts), as the RedisHops in front of it forward TCP. */
const redis = new PrivateRedis({ port: 0 });
let db: Db;
/** Between access-keys-and-audit's publisher and Redis: cut to make its publishes fail while subscribers stay connected. */
let publisherHop: RedisHop;
let publisher: RedisClient;
let relay: OutboxRelay;
let server: Server;
let app: ReturnType<typeof createApp>['app'];
const connections: Redis[] = [];
const verifiers: KeyVerifier[] = [];

function subscriberOn(url: string): Redis {
  const connection = createRedisSubscriber(url);
  connection.on('error', () => undefined);
  connections.push(connection);
  return connection;
}

/** Another service's replica (mcp-runtime, connector-registry): verifies over HTTP, caches, listens on pub/sub. */
async function serviceReplica(subscriberUrl = redis.url): Promise<KeyVerifier> {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const verifier = new KeyVerifier({ loader: httpKeyLoader({ baseUrl: `http://127.0.0.1:${port}`, serviceToken: TEST_SERVICE_TOKEN }) });
  await verifier.subscribe(subscriberOn(subscriberUrl));
  verifiers.push(verifier);
  return verifier;
}

/** Another access-keys-and-audit replica's verifier (reads the database). */
async function accessKeysReplica(): Promise<KeyVerifier> {
  const verifier = new KeyVerifier({ loader: (hash) => loadPrincipalByHash(db, hash) });
  await verifier.subscribe(subscriberOn(redis.url));
  verifiers.push(verifier);
  return verifier;
}

async function accepts(verifier: KeyVerifier, key: string): Promise<boolean> {
  try {
    await verifier.verify(key);
    return true;
  } catch (err) {
    if (err instanceof AuthenticationError) return false;
    throw err;
  }
}

/** Waits until no replica accepts the key; returns how long that took. Fails after `WITHIN_MS`. */
async function refusedEverywhere(replicas: KeyVerifier[], key: string): Promise<number> {
  const started = Date.now();
  for (;;) {
    const accepted = await Promise.all(replicas.map((r) => accepts(r, key)));
    if (!accepted.includes(true)) return Date.now() - started;
    if (Date.now() - started > WITHIN_MS) throw new Error(`replicas ${accepted.flatMap((a, i) => (a ? [i] : [])).join(', ')} still accept the revoked key ${WITHIN_MS} ms after Redis is back`);
    await sleep(10);
  }
}

async function waitUntil(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

async function pendingInvalidations(): Promise<number> {
  return db.eventOutbox.count({ where: { queue: `channel:${KEY_INVALIDATION_CHANNEL}` } });
}

async function cachedEverywhere(replicas: KeyVerifier[], key: string): Promise<void> {
  for (const replica of replicas) {
    expect(await accepts(replica, key)).toBe(true);
    expect(replica.size).toBeGreaterThan(0);
  }
}

beforeAll(async () => {
  await redis.start();
  await ensureDatabase(DATABASE_URL);
  await applyMigrations({ databaseUrl: DATABASE_URL, schema: DB_SCHEMA, migrationsDir: MIGRATIONS_DIR });
  db = createPrisma(DATABASE_URL, 4);
  publisherHop = await RedisHop.start(redis.port);
  // As main.ts wires it: the publisher fails fast while Redis is down and reconnects quickly.
  publisher = createRedis(publisherHop.url, { name: 'access-keys-and-audit:commands', ...CHANNEL_PUBLISHER_OPTIONS });
  publisher.on('error', () => undefined);
  const logger = createLogger('revocation-outage', 'silent');
  relay = new OutboxRelay({ executor: db, queues: {}, publisher, logger });
  relay.start();
  const ownVerifier = new KeyVerifier({ loader: (hash) => loadPrincipalByHash(db, hash) });
  await ownVerifier.subscribe(subscriberOn(redis.url));
  verifiers.push(ownVerifier);
  app = createApp({ db, redis: publisher, relay, logger, serviceToken: TEST_SERVICE_TOKEN, verifier: ownVerifier }).app;
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await relay?.stop();
  await Promise.all(verifiers.map((v) => v.close()));
  for (const c of connections) c.disconnect();
  publisher?.disconnect();
  await publisherHop?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await db?.$disconnect();
  await redis.close();
});

describe('a key revoked around a Redis outage', () => {
  it('a revoke whose publish fails while the replicas stay subscribed is refused on every replica within a second of Redis answering the publisher again', async () => {
    const replicas = [await serviceReplica(), await serviceReplica(), await accessKeysReplica()];
    const org = await newOrganization(db);
    const key = await createKey(app, org.master_key!, { name: 'revoked while the publisher has no Redis' });
    await cachedEverywhere(replicas, key.key);

    publisherHop.cut();
    try {
      await waitUntil(() => publisher.status !== 'ready', 'the publisher to lose Redis');
      await request(app).post(`/api/v1/access-keys/${key.id}/revoke/`).set(bearer(org.master_key!)).expect(204);
      // A few failed publishes: the invalidation is kept (beside the revocation that committed) and retried.
      await sleep(600);
    } finally {
      publisherHop.restore();
    }
    await refusedEverywhere(replicas, key.key);
    expect(await pendingInvalidations()).toBe(0);
    // Still refused once every replica trusts its cache again.
    for (const replica of replicas) {
      expect(replica.trusted).toBe(true);
      expect(await accepts(replica, key.key)).toBe(false);
    }
  });

  it('a revoke published while a replica is re-subscribing is refused there at once and within a second of the subscription being confirmed', async () => {
    const hop = await RedisHop.start(redis.port);
    try {
      const resubscribing = await serviceReplica(hop.url);
      const replicas = [resubscribing, await serviceReplica(), await accessKeysReplica()];
      const org = await newOrganization(db);
      const key = await createKey(app, org.master_key!, { name: 'revoked during a re-subscription' });
      await cachedEverywhere(replicas, key.key);

      // The replica's connection drops; it reconnects (ready), but its SUBSCRIBE has not taken effect yet.
      hop.holdSubscriptions();
      hop.dropConnections();
      await waitUntil(() => hop.holding && connections.some((c) => c.status === 'ready' && c.options.port !== redis.port), 'the replica to reconnect with its SUBSCRIBE held');
      // Used on the re-subscribing replica now: verified, and not kept (no invalidation can reach it yet).
      expect(await accepts(resubscribing, key.key)).toBe(true);

      await request(app).post(`/api/v1/access-keys/${key.id}/revoke/`).set(bearer(org.master_key!)).expect(204);
      // Published while the replica could not hear it: refused there all the same, at once.
      expect(await accepts(resubscribing, key.key)).toBe(false);

      hop.release();
      await refusedEverywhere(replicas, key.key);
      await waitUntil(() => resubscribing.trusted, 'the subscription to be confirmed');
      expect(await accepts(resubscribing, key.key)).toBe(false);
    } finally {
      await hop.close();
    }
  });

  it('a revoke while Redis is stopped is refused at once and on every replica within a second of Redis being back', async () => {
    const replicas = [await serviceReplica(), await serviceReplica(), await accessKeysReplica()];
    const org = await newOrganization(db);
    const key = await createKey(app, org.master_key!, { name: 'revoked while Redis is stopped' });
    await cachedEverywhere(replicas, key.key);

    await redis.kill();
    try {
      await waitUntil(() => publisher.status !== 'ready', 'the publisher to lose Redis');
      await request(app).post(`/api/v1/access-keys/${key.id}/revoke/`).set(bearer(org.master_key!)).expect(204);
      // No replica can hear an invalidation now, so none trusts its cache.
      for (const replica of replicas) expect(await accepts(replica, key.key)).toBe(false);
      // Redis did not take the invalidation: it is kept beside the revocation that committed.
      expect(await pendingInvalidations()).toBe(1);
      await sleep(1000);
    } finally {
      await redis.start();
    }
    await refusedEverywhere(replicas, key.key);
    await waitUntil(() => replicas.every((r) => r.trusted), 'every replica to subscribe again');
    for (const replica of replicas) expect(await accepts(replica, key.key)).toBe(false);
    // And the kept invalidation was published in the end (bookkeeping: no replica needs it any more).
    await waitUntil(() => publisher.status === 'ready', 'the publisher to reconnect');
    for (let i = 0; i < 250 && (await pendingInvalidations()) > 0; i += 1) await sleep(20);
    expect(await pendingInvalidations()).toBe(0);
  });
});
