import { KeyVerifier } from '@patchbay/auth';
import { CHANNEL_PUBLISHER_OPTIONS, OutboxRelay } from '@patchbay/queues';
import { createLogger, createRedis, createRedisSubscriber, type RedisClient } from '@patchbay/service-kit';
import type { Express } from 'express';
import request from 'supertest';
import { createApp, type AppDeps } from '../src/app';
import { SESSION_INVALIDATION_CHANNEL, loadSessionByHash, type SessionPrincipal } from '../src/domain/members/session-principal';
import { createPrisma, type Db } from '../src/db';
import { loadPrincipalByHash } from '../src/domain/access-keys';
import { createOrganization, type CreatedOrganization } from '../src/domain/organizations';
import { TEST_DATABASE_URL, TEST_REDIS_URL, TEST_SERVICE_TOKEN } from './env';

/** Real time plus a shift tests set by hand, so expiry is tested without waiting. */
export class ManualClock {
  private offsetMs = 0;
  now = (): number => Date.now() + this.offsetMs;
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export interface Harness {
  app: Express;
  db: Db;
  redis: RedisClient;
  verifier: KeyVerifier;
  sessionVerifier: KeyVerifier<SessionPrincipal>;
  clock: ManualClock;
  close: () => Promise<void>;
}

/** The real service wired to the test database and Redis, with its verifier listening on pub/sub like in production. */
export async function startHarness(options: Pick<AppDeps, 'sessionSettings' | 'signInThrottle' | 'publicBaseUrl' | 'secrets' | 'outboundPolicy'> = {}): Promise<Harness> {
  const db = createPrisma(TEST_DATABASE_URL, 4);
  const redis = createRedis(TEST_REDIS_URL, CHANNEL_PUBLISHER_OPTIONS);
  const subscriber = createRedisSubscriber(TEST_REDIS_URL);
  const clock = new ManualClock();
  const verifier = new KeyVerifier({ loader: (hash) => loadPrincipalByHash(db, hash), now: clock.now });
  await verifier.subscribe(subscriber);
  const sessionVerifier = new KeyVerifier<SessionPrincipal>({ loader: (hash) => loadSessionByHash(db, hash), channel: SESSION_INVALIDATION_CHANNEL, now: clock.now });
  await sessionVerifier.subscribe(createRedisSubscriber(TEST_REDIS_URL));
  const logger = createLogger('test', 'silent');
  const relay = new OutboxRelay({ executor: db, queues: {}, publisher: redis, logger });
  relay.start();
  const { app } = createApp({ db, redis, relay, logger, serviceToken: TEST_SERVICE_TOKEN, verifier, sessionVerifier, now: clock.now, ...options });
  return {
    app,
    db,
    redis,
    verifier,
    sessionVerifier,
    clock,
    close: async () => {
      await relay.stop();
      await verifier.close();
      await sessionVerifier.close();
      redis.disconnect();
      await db.$disconnect();
    },
  };
}

let orgCounter = 0;
export async function newOrganization(db: Db, options: Partial<Parameters<typeof createOrganization>[1]> = {}): Promise<CreatedOrganization> {
  orgCounter += 1;
  return createOrganization(db, { name: `Test org ${process.pid}-${orgCounter}`, ...options });
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** Creates a key through the API and returns the response body (with the secret). */
export async function createKey(app: Express, callerKey: string, body: Record<string, unknown>): Promise<{ id: string; key: string } & Record<string, unknown>> {
  const res = await request(app).post('/api/v1/access-keys/').set(bearer(callerKey)).send(body);
  if (res.status !== 201) throw new Error(`createKey failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; key: string };
}

export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
