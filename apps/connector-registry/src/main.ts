import { telemetry } from './telemetry';
import { KeyVerifier, SessionVerifier, httpKeyLoader, httpSessionLoader } from '@patchbay/auth';
import { baseUrlOverridesFromEnv, BUILTIN_CONNECTORS } from '@patchbay/connector-catalog';
import { migrateOnStart } from '@patchbay/db';
import { OutboxRelay, QueueSet } from '@patchbay/queues';
import { secretBoxFromEnv } from '@patchbay/secrets';
import { createLogger, createRedis, createRedisSubscriber, redisUrls, runService, startHttpService } from '@patchbay/service-kit';
import { createApp } from './app';
import { DB_SCHEMA, MIGRATIONS_DIR, SERVICE_NAME, loadConfig } from './config';
import { createPrisma } from './db';
import { internalRouters, pageRouters } from './routers';
import type { AppServices } from './services';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL);
  const box = secretBoxFromEnv(process.env);
  if (config.PATCHBAY_MIGRATE_ON_START) {
    await migrateOnStart({ databaseUrl: config.DATABASE_URL, schema: DB_SCHEMA, migrationsDir: MIGRATIONS_DIR, logger: { info: (m) => logger.info(m) } });
  }
  const db = createPrisma(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
  const urls = redisUrls(config);
  const redis = createRedis(urls.caches, { name: `${SERVICE_NAME}:commands` });
  const subscriber = createRedisSubscriber(urls.caches, { name: `${SERVICE_NAME}:key-invalidation` });
  const verifier = new KeyVerifier({ loader: httpKeyLoader({ baseUrl: config.ACCESS_KEYS_URL, serviceToken: config.PATCHBAY_SERVICE_TOKEN }) });
  await verifier.subscribe(subscriber);
  // Members' console sessions: each route names the permission a member needs.
  const sessionVerifier = new SessionVerifier({ loader: httpSessionLoader({ baseUrl: config.ACCESS_KEYS_URL, serviceToken: config.PATCHBAY_SERVICE_TOKEN }), publicBaseUrl: config.PATCHBAY_PUBLIC_URL, logger });
  await sessionVerifier.subscribe(createRedisSubscriber(urls.caches, { name: `${SERVICE_NAME}:session-invalidation` }));
  const queues = new QueueSet({ connection: createRedis(urls.queues, { forQueue: true, name: `${SERVICE_NAME}:producer` }), logger, prefix: config.QUEUE_PREFIX });
  const relay = new OutboxRelay({ executor: db, queues: (name) => queues.get(name), logger });
  relay.start();
  const services: AppServices = {
    db,
    redis,
    box,
    config,
    relay,
    baseUrlOverrides: baseUrlOverridesFromEnv(BUILTIN_CONNECTORS.map((c) => c.slug)),
    oauthOverrides: config.PATCHBAY_OAUTH_OVERRIDES,
    logger,
  };
  const app = createApp({ services, logger, verifier, sessionVerifier, internalRouters: internalRouters(services), pageRouters: pageRouters(services) });
  await startHttpService({
    name: SERVICE_NAME,
    app,
    port: config.PORT,
    logger,
    // Hooks run in reverse: telemetry flushes last.
    onShutdown: [
      async () => telemetry.shutdown(),
      async () => db.$disconnect(),
      async () => queues.close(),
      async () => relay.stop(),
      async () => { redis.disconnect(); },
      async () => verifier.close(),
      async () => sessionVerifier.close(),
    ],
  });
}

runService(SERVICE_NAME, main);
