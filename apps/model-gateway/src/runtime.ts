import { KeyVerifier, SessionVerifier, httpManagementKeyLoader, httpOrganizationLoader, httpSessionLoader } from '@patchbay/auth';
import { migrateOnStart } from '@patchbay/db';
import { createVendorHttp } from '@patchbay/model-wire';
import { createGuardedRequest, type OutboundPolicy } from '@patchbay/outbound';
import { CHANNEL_PUBLISHER_OPTIONS, DirectProducer, OutboxRelay, QueueSet } from '@patchbay/queues';
import { secretBoxFromEnv, type SecretBox } from '@patchbay/secrets';
import { createRedis, createRedisSubscriber, pingRedis, redisUrls, type HealthCheck, type Logger } from '@patchbay/service-kit';
import type { RequestListener } from 'node:http';
import type { Express } from 'express';
import { createRequestListener } from './app';
import { loadCatalog, type Catalog } from './catalog/catalog';
import { DB_SCHEMA, MIGRATIONS_DIR, SERVICE_NAME, type Config } from './config';
import { createDatabase } from './db';
import { Invalidator, dbKeyLoader, organizationDataLoader, type GatewayCaches } from './keys/principals';
import { RouteHealth } from '@patchbay/model-routing';
import { routingCatalog, type RoutingDeps } from './routing/routing';
import { LeasedSpendControl, RedisSpendControl } from '@patchbay/gateway-spend';
import { usageRecordsLedger } from './spend/usage-ledger';
import type { SpendControl } from './spend/spend-control';
import { UsageRecorder, noteStored, startUsageConsumer, storeUsageRecords } from './usage/usage-records';
import { platformVendorsFromEnv } from './vendors/platform-vendors';
import type { Scorer } from '@patchbay/prompt-injection';
import { startBatchWorkers, type BatchRunnerDeps, type BatchWorkerOptions } from './batches/batch-runner';
import { SubmitSlots } from './batches/submit-slots';
import type { ModelDeps } from './model/model-request';
import { WebSearch, searchConfigFromEnv } from '@patchbay/web-search';
import { webSearchTools } from './web-search/web-search-tools';
import { RateLimitHeaders } from './model/rate-limit-headers';
import { ResponseStore } from './responses/response-store';
import { StoredTurns } from './responses/stored-turns';

export interface RuntimeOptions {
  /** Environment for vendor credentials and secrets (default process.env). */
  env?: NodeJS.ProcessEnv;
  catalog?: Catalog;
  secrets?: SecretBox;
  spend?: SpendControl;
  /** Redis key prefix of the spend counters (tests isolate theirs). */
  spendKeyPrefix?: string;
  /** The prompt-injection detector (default the package's); tests pass a failing one for fail open/closed. */
  piScorer?: Scorer;
}

export interface Runtime {
  /** Serve this: the model endpoints (outside express), then the express app. */
  listener: RequestListener;
  /** The express app alone (every route but the model endpoints). */
  app: Express;
  recorder: UsageRecorder;
  caches: GatewayCaches;
  /** What the batch workers run on (the model pipeline's dependencies). */
  batchRunner: BatchRunnerDeps;
  /**
   * Starts batch workers on their own Redis connection (stopped by close()); the worker process
   * calls it, tests start and kill several. Options default to the config's.
   */
  startBatchWorkers(options?: Partial<BatchWorkerOptions>): { close(force?: boolean): Promise<void> };
  /** PostgreSQL and Redis reachable: /healthz of the app and of the worker process. */
  healthChecks: HealthCheck[];
  /**
   * Sweeps the response store now (it runs every five minutes): expired turns, and the turns of
   * organizations that no longer exist. Returns how many turns each part deleted.
   */
  sweepStoredResponses(): Promise<{ expired: number; deletedOrganizations: number }>;
  /** Stops the workers, then closes every connection (the HTTP server is the caller's). */
  close(): Promise<void>;
}

/** Everything the gateway runs on, wired once: main.ts serves it, tests serve the same on a random port. */
export async function createRuntime(config: Config, logger: Logger, options: RuntimeOptions = {}): Promise<Runtime> {
  const env = options.env ?? process.env;
  if (config.PATCHBAY_MIGRATE_ON_START) {
    await migrateOnStart({ databaseUrl: config.DATABASE_URL, schema: DB_SCHEMA, migrationsDir: MIGRATIONS_DIR, logger: { info: (m) => logger.info(m) } });
  }
  const catalog = options.catalog ?? loadCatalog(config.PATCHBAY_MODEL_CATALOG_FILE);
  const platformVendors = platformVendorsFromEnv(catalog, env);
  logger.info({ vendors: [...platformVendors.keys()] }, 'vendors configured');
  const secrets = options.secrets ?? secretBoxFromEnv(env);
  const database = createDatabase(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
  const { prisma: db, sql } = database;
  const readDatabase = config.DATABASE_READ_URL ? createDatabase(config.DATABASE_READ_URL, config.DATABASE_POOL_SIZE) : null;
  // No auto-pipelining: requests rarely issue their Redis calls in the same tick, so ioredis's
  // per-tick pipeline (a Pipeline object and a setImmediate per call) cost more CPU than the socket
  // writes it saved; settles are gathered into one call by gateway-spend itself.
  const urls = redisUrls(config);
  // Every command of the request path is a counter: spend, rate limits, route health, batch submit slots.
  const redis = createRedis(urls.counters, { name: `${SERVICE_NAME}:commands` });
  const subscriber = createRedisSubscriber(urls.caches, { name: `${SERVICE_NAME}:key-invalidation` });
  const producerConnection = createRedis(urls.queues, { name: `${SERVICE_NAME}:producer`, maxRetriesPerRequest: null, enableOfflineQueue: false });
  const workerConnection = createRedis(urls.queues, { forQueue: true, name: `${SERVICE_NAME}:usage-workers` });
  // Publishes the cache invalidations of the outbox: fails at once while Redis is down, reconnects quickly.
  const invalidationPublisher = createRedis(urls.caches, { name: `${SERVICE_NAME}:invalidations`, ...CHANNEL_PUBLISHER_OPTIONS });

  const internal = { baseUrl: config.ACCESS_KEYS_URL, serviceToken: config.PATCHBAY_SERVICE_TOKEN };
  const ttlMs = config.GATEWAY_KEY_CACHE_TTL_MS;
  const loadOrganizationSettings = httpOrganizationLoader(internal);
  const caches: GatewayCaches = {
    keys: new KeyVerifier({ loader: dbKeyLoader(db), ttlMs }),
    organizations: new KeyVerifier({ loader: organizationDataLoader(db, loadOrganizationSettings, secrets), ttlMs }),
  };
  const management = new KeyVerifier({ loader: httpManagementKeyLoader(internal), ttlMs });
  // One subscribed connection serves the three caches.
  await caches.keys.subscribe(subscriber);
  await caches.organizations.subscribe(subscriber);
  await management.subscribe(subscriber);
  // Members' console sessions: each management route names the permission a member needs.
  const sessions = new SessionVerifier({ loader: httpSessionLoader(internal), publicBaseUrl: config.PATCHBAY_PUBLIC_URL, logger });
  await sessions.subscribe(createRedisSubscriber(urls.caches, { name: `${SERVICE_NAME}:session-invalidation` }));

  const queues = new QueueSet({ connection: producerConnection, logger, prefix: config.QUEUE_PREFIX });
  const relay = new OutboxRelay({ executor: db, queues: (name) => queues.get(name), publisher: invalidationPublisher, logger });
  relay.start();
  const invalidate = new Invalidator(db, relay, caches);
  const producer = new DirectProducer({ queues: (name) => queues.get(name), outbox: db, relay, logger });
  // Budgets, limits and rate limits in Redis, rebuilt from the usage records when Redis loses them.
  const spendOptions = { ledger: usageRecordsLedger(db), logger, ...(options.spendKeyPrefix ? { keyPrefix: options.spendKeyPrefix } : {}) };
  const spend =
    options.spend ??
    (config.GATEWAY_SPEND_LEASES ? new LeasedSpendControl(redis, { ...spendOptions, grantWindowMs: config.GATEWAY_SPEND_GRANT_MS }) : new RedisSpendControl(redis, spendOptions));
  const recorder = new UsageRecorder(
    producer,
    config.GATEWAY_USAGE_FLUSH_MS,
    config.GATEWAY_USAGE_DIRECT
      ? {
          store: (records) => storeUsageRecords(sql, records),
          onStored: (records) => noteStored(spend, records),
          timeoutMs: config.GATEWAY_USAGE_DIRECT_TIMEOUT_MS,
          onFallback: (err, records) => logger.warn({ err: { message: (err as Error).message }, records }, 'usage records go through the queue: PostgreSQL did not store them'),
        }
      : null,
  );
  const consumer = config.GATEWAY_USAGE_WORKERS
    ? startUsageConsumer({ sql, db, connection: workerConnection, logger, prefix: config.QUEUE_PREFIX, concurrency: config.GATEWAY_USAGE_CONCURRENCY, onStored: (records) => noteStored(spend, records) })
    : null;

  const health = new RouteHealth(redis, {
    keyPrefix: config.GATEWAY_ROUTE_HEALTH_PREFIX,
    threshold: config.GATEWAY_BREAKER_FAILURES,
    windowMs: config.GATEWAY_BREAKER_WINDOW_MS,
    cooldownMs: config.GATEWAY_BREAKER_COOLDOWN_MS,
    successFlushMs: config.GATEWAY_ROUTE_HEALTH_SUCCESS_FLUSH_MS,
    onError: (err) => logger.warn({ err: { message: (err as Error).message } }, 'route health unavailable: routing goes on with every route closed'),
  });
  const routing: RoutingDeps = { catalog: routingCatalog(catalog), health };
  const outboundPolicy: OutboundPolicy = { allowPrivateNetwork: config.PATCHBAY_ALLOW_PRIVATE_NETWORK };
  const vendorHttp = createVendorHttp();
  // Stored responses (issue 27 §3): sealed turns in PostgreSQL, swept every five minutes: expired ones, and
  // those of organizations that no longer exist (access-keys-and-audit answers 404 for them), whichever way
  // the organization went and even if it went while no gateway ran.
  const responseStore = new ResponseStore(sql, secrets, { maxPerOrganization: config.GATEWAY_RESPONSE_STORE_MAX_PER_ORG });
  const sweepStoredResponses = async () => ({
    expired: await responseStore.sweep(),
    deletedOrganizations: await responseStore.sweepDeletedOrganizations(async (organizationId) => (await loadOrganizationSettings(organizationId)) !== null),
  });
  const responseSweep = setInterval(() => {
    sweepStoredResponses().catch((err: unknown) => logger.warn({ err: { message: (err as Error).message } }, 'stored responses were not swept'));
  }, 5 * 60_000);
  responseSweep.unref();
  const model: ModelDeps = {
    catalog,
    platformVendors,
    caches,
    spend,
    recorder,
    vendorHttp,
    guardedHttp: createGuardedRequest(outboundPolicy, { requireHttps: !outboundPolicy.allowPrivateNetwork }),
    timeouts: { firstTokenMs: config.GATEWAY_FIRST_TOKEN_TIMEOUT_MS, betweenTokensMs: config.GATEWAY_BETWEEN_TOKENS_TIMEOUT_MS, totalMs: config.GATEWAY_TOTAL_TIMEOUT_MS },
    routing,
    guardrails: { streamHoldBack: config.GATEWAY_DLP_STREAM_HOLDBACK_CHARS, ...(options.piScorer ? { scorer: options.piScorer } : {}) },
    // X-RateLimit-Remaining on refusals before admission: read from the counters every replica's admissions write.
    rateLimitHeaders: new RateLimitHeaders(spend.rateLimitCounts ? (organizationId) => spend.rateLimitCounts!(organizationId) : null),
    turns: new StoredTurns(responseStore, catalog, logger),
    // Web search (issue 27 §1): engines from PATCHBAY_SEARCH_<ENGINE>_*, operator-set URLs (no guard, as vendor base URLs).
    serverTools: webSearchTools({ search: new WebSearch(searchConfigFromEnv(env), vendorHttp), catalog, ...(options.piScorer ? { piScorer: options.piScorer } : {}) }),
  };
  const batchLimits = { fileMaxBytes: config.GATEWAY_BATCH_FILE_MAX_BYTES, maxLines: config.GATEWAY_BATCH_MAX_LINES, maxOpenBatches: config.GATEWAY_BATCH_MAX_OPEN };
  const healthChecks: HealthCheck[] = [
    { name: 'postgres', check: async () => { await db.$queryRaw`SELECT 1`; } },
    { name: 'redis', check: () => pingRedis(redis) },
  ];
  const { app, listener } = createRequestListener({
    logger,
    db,
    healthChecks,
    maxBodyBytes: config.GATEWAY_MAX_BODY_BYTES,
    model,
    storedResponses: { store: responseStore, model, logger },
    batches: { db, caches, limits: batchLimits, slots: new SubmitSlots(redis, { cap: config.GATEWAY_BATCH_SUBMIT_CONCURRENCY, keyPrefix: config.GATEWAY_BATCH_KEY_PREFIX }), relay, producer, logger },
    management: { db, readDb: readDatabase?.prisma ?? db, auth: { management, caches, sessions }, invalidate, spend, secrets, catalog, outboundPolicy },
    routingPolicies: { db, auth: { management, caches, sessions }, invalidate, catalog: routing.catalog, health, platformVendors },
    guardrails: { db, auth: { management, caches, sessions }, invalidate },
  });

  const batchRunner: BatchRunnerDeps = { db, model, producer, logger };
  const batchWorkers: Array<{ close(force?: boolean): Promise<void> }> = [];
  const startWorkers = (overrides: Partial<BatchWorkerOptions> = {}) => {
    const connection = overrides.connection ?? createRedis(urls.queues, { forQueue: true, name: `${SERVICE_NAME}:batch-workers` });
    const workers = startBatchWorkers(batchRunner, {
      connection,
      prefix: config.QUEUE_PREFIX,
      concurrency: config.GATEWAY_BATCH_CONCURRENCY,
      lockDurationMs: config.GATEWAY_BATCH_LOCK_MS,
      stalledIntervalMs: config.GATEWAY_BATCH_LOCK_MS,
      ...overrides,
    });
    const handle = {
      async close(force = false) {
        batchWorkers.splice(batchWorkers.indexOf(handle), 1);
        await workers.close(force);
        if (!overrides.connection && typeof connection === 'object' && 'disconnect' in connection) (connection as { disconnect(): void }).disconnect();
      },
    };
    batchWorkers.push(handle);
    return handle;
  };
  if (config.GATEWAY_BATCH_WORKERS) startWorkers();

  return {
    listener,
    app,
    recorder,
    caches,
    batchRunner,
    startBatchWorkers: startWorkers,
    healthChecks,
    sweepStoredResponses,
    async close() {
      clearInterval(responseSweep);
      for (const workers of [...batchWorkers]) await workers.close();
      await recorder.flush();
      await spend.flushSettles?.();
      await health.flush();
      await consumer?.close();
      await relay.stop();
      await queues.close();
      await caches.keys.close();
      await caches.organizations.close();
      await management.close();
      await sessions.close();
      await vendorHttp.close();
      await database.close();
      await readDatabase?.close();
      for (const connection of [redis, producerConnection, workerConnection, subscriber, invalidationPublisher]) connection.disconnect();
    },
  };
}
