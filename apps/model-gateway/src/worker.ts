import { telemetry } from './telemetry';
import { migrateOnStart } from '@patchbay/db';
import { OutboxRelay, QueueSet } from '@patchbay/queues';
import { createLogger, createRedis, createServiceApp, finishServiceApp, healthHandler, pingRedis, runService, startHttpService } from '@patchbay/service-kit';
import { DB_SCHEMA, MIGRATIONS_DIR, SERVICE_NAME, loadConfig } from './config';
import { createPrisma } from './db';
import { startUsageConsumer } from './usage/usage-records';

/**
 * The usage-record consumer alone (and an outbox relay), for deployments that keep it off the
 * replicas answering model requests (GATEWAY_USAGE_WORKERS=false there). Serves only /healthz on PORT.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(`${SERVICE_NAME}-worker`, config.LOG_LEVEL);
  if (config.PATCHBAY_MIGRATE_ON_START) {
    await migrateOnStart({ databaseUrl: config.DATABASE_URL, schema: DB_SCHEMA, migrationsDir: MIGRATIONS_DIR, logger: { info: (m) => logger.info(m) } });
  }
  const db = createPrisma(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
  const connection = createRedis(config.REDIS_URL, { forQueue: true, name: `${SERVICE_NAME}:usage-workers` });
  const producer = createRedis(config.REDIS_URL, { name: `${SERVICE_NAME}:worker-producer`, maxRetriesPerRequest: null, enableOfflineQueue: false });
  const queues = new QueueSet({ connection: producer, logger, prefix: config.QUEUE_PREFIX });
  const relay = new OutboxRelay({ executor: db, queues: (name) => queues.get(name), logger });
  relay.start();
  const consumer = startUsageConsumer({ db, connection, logger, prefix: config.QUEUE_PREFIX, concurrency: config.GATEWAY_USAGE_CONCURRENCY });
  const app = createServiceApp({ logger });
  app.get(
    '/healthz',
    healthHandler(`${SERVICE_NAME}-worker`, [
      { name: 'postgres', check: async () => { await db.$queryRaw`SELECT 1`; } },
      { name: 'redis', check: () => pingRedis(connection) },
    ]),
  );
  finishServiceApp(app, logger);
  await startHttpService({
    name: `${SERVICE_NAME}-worker`,
    app,
    port: config.PORT,
    logger,
    onShutdown: [
      async () => telemetry.shutdown(),
      async () => db.$disconnect(),
      async () => {
        connection.disconnect();
        producer.disconnect();
      },
      async () => queues.close(),
      async () => relay.stop(),
      async () => consumer.close(),
    ],
  });
}

runService(`${SERVICE_NAME}-worker`, main);
