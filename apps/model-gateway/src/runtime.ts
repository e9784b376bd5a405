import { KeyVerifier, httpManagementKeyLoader, httpOrganizationLoader } from '@patchbay/auth';
import { migrateOnStart } from '@patchbay/db';
import { createVendorHttp } from '@patchbay/model-wire';
import { createGuardedRequest, type OutboundPolicy } from '@patchbay/outbound';
import { DirectProducer, OutboxRelay, QueueSet } from '@patchbay/queues';
import { secretBoxFromEnv, type SecretBox } from '@patchbay/secrets';
import { createRedis, type Logger } from '@patchbay/service-kit';
import type { Express } from 'express';
import { createApp } from './app';
import { loadCatalog, type Catalog } from './catalog/catalog';
import { DB_SCHEMA, MIGRATIONS_DIR, SERVICE_NAME, type Config } from './config';
import { createPrisma } from './db';
import { Invalidator, dbKeyLoader, organizationDataLoader, type GatewayCaches } from './keys/principals';
import { RouteHealth } from '@patchbay/model-routing';
import { routingCatalog, type RoutingDeps } from './routing/routing';
import { RedisSpendControl } from '@patchbay/gateway-spend';
import { usageRecordsLedger } from './spend/usage-ledger';
import type { SpendControl } from './spend/spend-control';
import { UsageRecorder, startUsageConsumer } from './usage/usage-records';
import { platformVendorsFromEnv } from './vendors/platform-vendors';
import type { Scorer } from '@patchbay/prompt-injection';

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
  app: Express;
  recorder: UsageRecorder;
  caches: GatewayCaches;
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
  const db = createPrisma(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
  // Auto-pipelining: the Lua calls of concurrent requests (admit, settle, route health) that fall in
  // the same tick go out in one socket write instead of one each.
  const redis = createRedis(config.REDIS_URL, { name: `${SERVICE_NAME}:commands`, enableAutoPipelining: true });
  const subscriber = createRedis(config.REDIS_URL, { name: `${SERVICE_NAME}:key-invalidation` });
  const producerConnection = createRedis(config.REDIS_URL, { name: `${SERVICE_NAME}:producer`, maxRetriesPerRequest: null, enableOfflineQueue: false });
  const workerConnection = createRedis(config.REDIS_URL, { forQueue: true, name: `${SERVICE_NAME}:usage-workers` });

  const internal = { baseUrl: config.ACCESS_KEYS_URL, serviceToken: config.PATCHBAY_SERVICE_TOKEN };
  const ttlMs = config.GATEWAY_KEY_CACHE_TTL_MS;
  const caches: GatewayCaches = {
    keys: new KeyVerifier({ loader: dbKeyLoader(db), ttlMs }),
    organizations: new KeyVerifier({ loader: organizationDataLoader(db, httpOrganizationLoader(internal), secrets), ttlMs }),
  };
  const management = new KeyVerifier({ loader: httpManagementKeyLoader(internal), ttlMs });
  // One subscribed connection serves the three caches.
  await caches.keys.subscribe(subscriber);
  await caches.organizations.subscribe(subscriber);
  await management.subscribe(subscriber);
  const invalidate = new Invalidator(redis, caches);

  const queues = new QueueSet({ connection: producerConnection, logger, prefix: config.QUEUE_PREFIX });
  const relay = new OutboxRelay({ executor: db, queues: (name) => queues.get(name), logger });
  relay.start();
  const recorder = new UsageRecorder(new DirectProducer({ queues: (name) => queues.get(name), outbox: db, relay, logger }));
  // Budgets, limits and rate limits in Redis, rebuilt from the usage records when Redis loses them.
  const spend = options.spend ?? new RedisSpendControl(redis, { ledger: usageRecordsLedger(db), logger, ...(options.spendKeyPrefix ? { keyPrefix: options.spendKeyPrefix } : {}) });
  const consumer = config.GATEWAY_USAGE_WORKERS
    ? startUsageConsumer({ db, connection: workerConnection, logger, prefix: config.QUEUE_PREFIX, concurrency: config.GATEWAY_USAGE_CONCURRENCY, onStored: (job) => void spend.noteRecorded(job.organization_id, [job.spend_epoch]).catch(() => undefined) })
    : null;

  const routing: RoutingDeps = {
    catalog: routingCatalog(catalog),
    health: new RouteHealth(redis, {
      keyPrefix: config.GATEWAY_ROUTE_HEALTH_PREFIX,
      threshold: config.GATEWAY_BREAKER_FAILURES,
      windowMs: config.GATEWAY_BREAKER_WINDOW_MS,
      cooldownMs: config.GATEWAY_BREAKER_COOLDOWN_MS,
      onError: (err) => logger.warn({ err: { message: (err as Error).message } }, 'route health unavailable: routing goes on with every route closed'),
    }),
  };
  const outboundPolicy: OutboundPolicy = { allowPrivateNetwork: config.PATCHBAY_ALLOW_PRIVATE_NETWORK };
  const vendorHttp = createVendorHttp();
  const app = createApp({
    logger,
    db,
    redis,
    maxBodyBytes: config.GATEWAY_MAX_BODY_BYTES,
    model: {
      catalog,
      platformVendors,
      caches,
      spend,
      recorder,
      vendorHttp,
      guardedHttp: createGuardedRequest(outboundPolicy, { requireHttps: !outboundPolicy.allowPrivateNetwork }),
      timeouts: { firstTokenMs: config.GATEWAY_FIRST_TOKEN_TIMEOUT_MS, betweenTokensMs: config.GATEWAY_BETWEEN_TOKENS_TIMEOUT_MS, totalMs: config.GATEWAY_TOTAL_TIMEOUT_MS },
      routing,
      guardrails: options.piScorer ? { scorer: options.piScorer } : {},
    },
    management: { db, auth: { management, caches }, invalidate, spend, secrets, catalog, outboundPolicy },
    routingPolicies: { db, auth: { management, caches }, invalidate, catalog: routing.catalog },
    guardrails: { db, auth: { management, caches }, invalidate },
  });

  return {
    app,
    recorder,
    caches,
    async close() {
      await recorder.flush();
      await consumer?.close();
      await relay.stop();
      await queues.close();
      await caches.keys.close();
      await caches.organizations.close();
      await management.close();
      await vendorHttp.close();
      await db.$disconnect();
      for (const connection of [redis, producerConnection, workerConnection, subscriber]) connection.disconnect();
    },
  };
}
