import { randomBytes } from 'node:crypto';
import { KeyVerifier, SessionVerifier, httpKeyLoader, httpSessionLoader } from '@patchbay/auth';
import type { RunSyncOptions, SyncOutcome } from '@patchbay/marketing-platforms';
import { EVENTBRITE_FAKE_TOKENS, HUBSPOT_FAKE_TOKENS, startFakeEventbrite, startFakeHubspot, startFakeZoom, type FakeHubspot } from '@patchbay/provider-fakes';
import { OutboxRelay, QUEUE_NAMES, QueueSet, createConsumer, type UnifiedDataSyncJob } from '@patchbay/queues';
import { SecretBox } from '@patchbay/secrets';
import { createLogger, createRedis, createRedisSubscriber, type RedisClient } from '@patchbay/service-kit';
import { TEST_DATABASE_URL, TEST_REDIS_URL, TEST_SERVICE_TOKEN, startAccessKeysService, waitFor, type RunningAccessKeys, type TestOrganization } from '@patchbay/testing';
import type { Queue, Worker } from 'bullmq';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../src/app';
import { createPrisma, type Db } from '../src/db';
import { AccountActivity } from '../src/domain/account-activity';
import { accountTokenCache } from '../src/domain/account-tokens';
import type { AppServices } from '../src/services';
import type { LinkedAccount } from '../src/generated/prisma/client';
import { requestFullPass } from '../src/sync/full-pass';
import { SyncScheduler, syncJob } from '../src/sync/scheduler';
import { processSyncJob, type SyncJobResult, type SyncWorkerDeps } from '../src/sync/sync-runner';

export const QUEUE_PREFIX = process.env.QUEUE_PREFIX ?? 'bull';

type Eventbrite = Awaited<ReturnType<typeof startFakeEventbrite>>;
type Zoom = Awaited<ReturnType<typeof startFakeZoom>>;

export interface Harness {
  app: Express;
  db: Db;
  redis: RedisClient;
  services: AppServices;
  accessKeys: RunningAccessKeys;
  hubspot: FakeHubspot;
  eventbrite: Eventbrite;
  zoom: Zoom;
  queue: Queue;
  /** What each processed sync job ended with, in order. */
  results: Array<{ linkedAccountId: string; result: SyncJobResult }>;
  /** The dependencies the in-process sync worker runs with (tests run processSyncJob with variants). */
  workerDeps: SyncWorkerDeps;
  newOrganization(): Promise<TestOrganization>;
  auditEvents(key: string, query?: string): Promise<Array<Record<string, unknown>>>;
  /** Starts (or restarts) the in-process sync worker; `runSync` replaces the platform walk. */
  startWorker(options?: { runSync?: (opts: RunSyncOptions) => Promise<SyncOutcome> }): void;
  stopWorker(): Promise<void>;
  /** Waits for a sync job of the account to end with one of `results`. */
  waitForSync(linkedAccountId: string, results?: SyncJobResult[], timeoutMs?: number): Promise<SyncJobResult>;
  /**
   * A second API replica on the same PostgreSQL and Redis, with caches of its own (access keys and
   * account tokens) subscribed to their invalidations, as another pod would be.
   */
  startReplica(): Promise<{ app: Express; close(): Promise<void> }>;
  close(): Promise<void>;
}

/**
 * The real unified-data app in-process, keys verified by the real access-keys-and-audit service (a
 * child process), the real PostgreSQL, Redis and BullMQ, a sync worker consuming the real queue, and
 * the HubSpot and Eventbrite fakes as the platforms.
 */
export async function startHarness(): Promise<Harness> {
  const accessKeys = await startAccessKeysService();
  const hubspot = await startFakeHubspot(undefined, { recordRequests: true });
  const eventbrite = await startFakeEventbrite();
  const zoom = await startFakeZoom();
  const db = createPrisma(TEST_DATABASE_URL, 6);
  const redis: RedisClient = createRedis(TEST_REDIS_URL);
  const subscriber = createRedisSubscriber(TEST_REDIS_URL);
  const queueConnection = createRedis(TEST_REDIS_URL, { forQueue: true });
  const logger = createLogger('test', 'silent');
  const verifier = new KeyVerifier({ loader: httpKeyLoader({ baseUrl: accessKeys.url, serviceToken: TEST_SERVICE_TOKEN }) });
  await verifier.subscribe(subscriber);
  // Members' console sessions, verified through the real access-keys-and-audit like keys.
  const sessionVerifier = new SessionVerifier({ loader: httpSessionLoader({ baseUrl: accessKeys.url, serviceToken: TEST_SERVICE_TOKEN }), publicBaseUrl: 'http://patchbay.test' });
  await sessionVerifier.subscribe(createRedisSubscriber(TEST_REDIS_URL));
  const accountTokens = accountTokenCache(db);
  await accountTokens.subscribe(subscriber);
  const queues = new QueueSet({ connection: queueConnection, logger, prefix: QUEUE_PREFIX });
  const queue = queues.get(QUEUE_NAMES.unifiedDataSync) as Queue;
  await queue.obliterate({ force: true });
  const relay = new OutboxRelay({ executor: db, queues: (name) => queues.get(name), publisher: redis, logger, pollIntervalMs: 100 });
  relay.start();
  const scheduler = new SyncScheduler(queue);
  const config = {
    PATCHBAY_PUBLIC_URL: 'http://patchbay.test',
    PATCHBAY_SERVICE_TOKEN: TEST_SERVICE_TOKEN,
    LINK_TOKEN_TTL_SECONDS: 1800,
    PUBLIC_TOKEN_TTL_SECONDS: 600,
    MKTG_SYNC_FREQUENCY_SECONDS: 3600,
    PATCHBAY_REGION: 'US' as const,
    PATCHBAY_MKTG_HUBSPOT_BASE_URL: hubspot.baseUrl,
    PATCHBAY_MKTG_ZOOM_BASE_URL: zoom.baseUrl,
    PATCHBAY_MKTG_ZOOM_TOKEN_URL: zoom.tokenUrl,
    PATCHBAY_MKTG_EVENTBRITE_BASE_URL: eventbrite.baseUrl,
    // The fakes' OAuth apps: HubSpot and Zoom offer "Sign in with"; Eventbrite's is left unconfigured (API token only).
    PATCHBAY_MKTG_HUBSPOT_CLIENT_ID: hubspot.oauth.app.clientId,
    PATCHBAY_MKTG_HUBSPOT_CLIENT_SECRET: hubspot.oauth.app.clientSecret,
    PATCHBAY_MKTG_HUBSPOT_AUTHORIZE_URL: hubspot.authorizeUrl,
    PATCHBAY_MKTG_HUBSPOT_TOKEN_URL: hubspot.oauthTokenUrl,
    PATCHBAY_MKTG_HUBSPOT_SCOPES: 'crm.objects.marketing_events.read crm.objects.contacts.read',
    PATCHBAY_MKTG_ZOOM_CLIENT_ID: zoom.oauth.app.clientId,
    PATCHBAY_MKTG_ZOOM_CLIENT_SECRET: zoom.oauth.app.clientSecret,
    PATCHBAY_MKTG_ZOOM_AUTHORIZE_URL: zoom.authorizeUrl,
    PATCHBAY_MKTG_ZOOM_SCOPES: '',
    PATCHBAY_MKTG_EVENTBRITE_AUTHORIZE_URL: eventbrite.authorizeUrl,
    PATCHBAY_MKTG_EVENTBRITE_TOKEN_URL: eventbrite.oauthTokenUrl,
  };
  const box = new SecretBox({ test: randomBytes(32) }, 'test');
  const services: AppServices = { db, redis, box, config, relay, scheduler, logger, accountTokens, activity: new AccountActivity({ db, scheduler, logger }) };
  const app = createApp({ services, logger, verifier, sessionVerifier });
  const results: Harness['results'] = [];
  const workerDeps: SyncWorkerDeps = {
    db,
    redis,
    box,
    config,
    scheduler,
    logger,
    lockPrefix: QUEUE_PREFIX,
    leaseTtlMs: 5_000,
    transientRetryMs: 200,
    tuning: { baseBackoffMs: 5, maxBackoffMs: 20, maxInlineWaitMs: 50 },
  };
  let worker: Worker | undefined;
  let workerConnection: RedisClient | undefined;
  const harness: Harness = {
    app,
    db,
    redis,
    services,
    accessKeys,
    hubspot,
    eventbrite,
    zoom,
    queue,
    results,
    workerDeps,
    newOrganization: () => accessKeys.createOrganization(),
    async auditEvents(key, query = '') {
      const res = await fetch(`${accessKeys.url}/api/v1/audit-log/?page_size=100${query}`, { headers: { authorization: `Bearer ${key}` } });
      return ((await res.json()) as { results: Array<Record<string, unknown>> }).results;
    },
    startWorker(options = {}) {
      workerConnection = createRedis(TEST_REDIS_URL, { forQueue: true });
      const deps = { ...workerDeps, ...(options.runSync ? { runSync: options.runSync } : {}) };
      worker = createConsumer({
        queue: QUEUE_NAMES.unifiedDataSync,
        connection: workerConnection,
        logger,
        prefix: QUEUE_PREFIX,
        concurrency: 4,
        handler: async (job) => {
          const result = await processSyncJob(deps, job);
          results.push({ linkedAccountId: job.linked_account_id, result });
          void relay.kick();
        },
      });
    },
    async stopWorker() {
      await worker?.close();
      workerConnection?.disconnect();
      worker = undefined;
    },
    async waitForSync(linkedAccountId, wanted = ['done'], timeoutMs = 90_000) {
      let found: SyncJobResult | undefined;
      await waitFor(
        () => {
          found = results.find((r) => r.linkedAccountId === linkedAccountId && wanted.includes(r.result))?.result;
          return found !== undefined;
        },
        timeoutMs,
        `sync of ${linkedAccountId} ending ${wanted.join('|')}`,
      );
      return found as SyncJobResult;
    },
    async startReplica() {
      const replicaSubscriber = createRedisSubscriber(TEST_REDIS_URL);
      const replicaVerifier = new KeyVerifier({ loader: httpKeyLoader({ baseUrl: accessKeys.url, serviceToken: TEST_SERVICE_TOKEN }) });
      await replicaVerifier.subscribe(replicaSubscriber);
      const replicaTokens = accountTokenCache(db);
      await replicaTokens.subscribe(replicaSubscriber);
      return {
        app: createApp({ services: { ...services, accountTokens: replicaTokens }, logger, verifier: replicaVerifier }),
        close: async () => {
          await replicaVerifier.close();
          await replicaTokens.close();
        },
      };
    },
    async close() {
      await harness.stopWorker();
      await queue.obliterate({ force: true }).catch(() => undefined);
      await relay.stop();
      await queues.close();
      queueConnection.disconnect();
      await verifier.close();
      await sessionVerifier.close();
      await accountTokens.close();
      redis.disconnect();
      await db.$disconnect();
      await hubspot.close();
      await eventbrite.close();
      await zoom.close();
      await accessKeys.stop();
    },
  };
  return harness;
}

/**
 * Runs one sync job in-process. A manual full one is sent as a resync sends it: counted first as a
 * request for a full pass (the database, not the job, says whether a run is full). A `schedule` job is
 * the one that resumes an open run (or an incremental sync).
 */
export async function runSyncJob(deps: SyncWorkerDeps, account: LinkedAccount, mode: UnifiedDataSyncJob['mode'] = 'full', trigger: UnifiedDataSyncJob['trigger'] = 'manual'): Promise<SyncJobResult> {
  if (mode === 'full' && trigger === 'manual') await requestFullPass(deps.db, account.id);
  return processSyncJob(deps, syncJob(account, mode, trigger));
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
export const withAccount = (key: string, accountToken: string) => ({ Authorization: `Bearer ${key}`, 'X-Account-Token': accountToken });
export { EVENTBRITE_FAKE_TOKENS, HUBSPOT_FAKE_TOKENS, request };

/** Links the HubSpot fake's starting portal through the server-side route. */
export async function linkHubspot(h: Harness, key: string, originId = `origin-${randomBytes(4).toString('hex')}`, token: string = HUBSPOT_FAKE_TOKENS.valid) {
  const res = await request(h.app)
    .post('/api/mktg/v1/linked-accounts')
    .set(bearer(key))
    .send({ platform: 'hubspot', credentials: { access_token: token }, end_user_origin_id: originId, end_user_organization_name: 'Acme' });
  if (res.status !== 201) throw new Error(`link failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; account_token: string; status: string; platform: string };
}
