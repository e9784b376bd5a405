import { randomBytes } from 'node:crypto';
import { KeyVerifier, SessionVerifier, httpKeyLoader, httpSessionLoader } from '@patchbay/auth';
import { OutboxRelay, QueueSet } from '@patchbay/queues';
import { SecretBox } from '@patchbay/secrets';
import { createLogger, createRedis, createRedisSubscriber, type RedisClient } from '@patchbay/service-kit';
import { TEST_DATABASE_URL, TEST_REDIS_URL, TEST_SERVICE_TOKEN, startAccessKeysService, waitFor, type RunningAccessKeys, type TestOrganization } from '@patchbay/testing';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../src/app';
import { createPrisma, type Db } from '../src/db';
import { internalRouters, pageRouters } from '../src/routers';
import type { AppServices } from '../src/services';

export interface Harness {
  app: Express;
  db: Db;
  services: AppServices;
  accessKeys: RunningAccessKeys;
  newOrganization(options?: Parameters<RunningAccessKeys['createOrganization']>[0]): Promise<TestOrganization>;
  /** Audit events of the key's environment as access-keys-and-audit recorded them (they travel over the real queue). */
  auditEvents(key: string, query?: string): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

/** The public URL the app believes it serves (links, and the Origin a console session's writes must carry). */
export const PUBLIC_URL = 'http://patchbay.test';

export interface HarnessOptions {
  config?: Partial<AppServices['config']>;
  baseUrlOverrides?: Record<string, string>;
}

/**
 * The real connector-registry app in-process, verifying keys against the real access-keys-and-audit
 * service (a child process), with the real PostgreSQL, Redis and audit queue.
 */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const accessKeys = await startAccessKeysService();
  const db = createPrisma(TEST_DATABASE_URL, 4);
  const redis: RedisClient = createRedis(TEST_REDIS_URL);
  const subscriber = createRedisSubscriber(TEST_REDIS_URL);
  const queueConnection = createRedis(TEST_REDIS_URL, { forQueue: true });
  const logger = createLogger('test', 'silent');
  const verifier = new KeyVerifier({ loader: httpKeyLoader({ baseUrl: accessKeys.url, serviceToken: TEST_SERVICE_TOKEN }) });
  await verifier.subscribe(subscriber);
  // Members' console sessions, verified through the real access-keys-and-audit like keys.
  const sessionVerifier = new SessionVerifier({ loader: httpSessionLoader({ baseUrl: accessKeys.url, serviceToken: TEST_SERVICE_TOKEN }), publicBaseUrl: PUBLIC_URL });
  await sessionVerifier.subscribe(createRedisSubscriber(TEST_REDIS_URL));
  // The prefix the access-keys child process (which inherits this environment) consumes audit events under.
  const queues = new QueueSet({ connection: queueConnection, logger, prefix: process.env.QUEUE_PREFIX });
  const relay = new OutboxRelay({ executor: db, queues: (name) => queues.get(name), logger, pollIntervalMs: 100 });
  relay.start();
  const services: AppServices = {
    db,
    redis,
    box: new SecretBox({ test: randomBytes(32) }, 'test'),
    config: {
      PATCHBAY_PUBLIC_URL: PUBLIC_URL,
      PATCHBAY_ALLOW_PRIVATE_NETWORK: true,
      LINK_TOKEN_TTL_SECONDS: 3600,
      MCP_HANDSHAKE_TIMEOUT_MS: 5000,
      PATCHBAY_SERVICE_TOKEN: TEST_SERVICE_TOKEN,
      ...options.config,
    },
    relay,
    baseUrlOverrides: options.baseUrlOverrides ?? {},
    logger,
  };
  const app = createApp({ services, logger, verifier, sessionVerifier, internalRouters: internalRouters(services), pageRouters: pageRouters(services) });
  return {
    app,
    db,
    services,
    accessKeys,
    newOrganization: (o) => accessKeys.createOrganization(o),
    async auditEvents(key, query = '') {
      const res = await fetch(`${accessKeys.url}/api/v1/audit-log/?page_size=100${query}`, { headers: { authorization: `Bearer ${key}` } });
      return ((await res.json()) as { results: Array<Record<string, unknown>> }).results;
    },
    async close() {
      await relay.stop();
      await queues.close();
      queueConnection.disconnect();
      await verifier.close();
      await sessionVerifier.close();
      redis.disconnect();
      await db.$disconnect();
      await accessKeys.stop();
    },
  };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** Waits until access-keys-and-audit has stored an audit event matching the predicate, and returns it. */
export async function expectAuditEvent(h: Harness, key: string, predicate: (e: Record<string, unknown>) => boolean, query = ''): Promise<Record<string, unknown>> {
  let found: Record<string, unknown> | undefined;
  await waitFor(async () => {
    found = (await h.auditEvents(key, query)).find(predicate);
    return found !== undefined;
  }, 15_000, 'audit event');
  return found as Record<string, unknown>;
}

export { request };
