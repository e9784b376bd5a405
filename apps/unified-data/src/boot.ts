import { migrateOnStart } from '@patchbay/db';
import { CHANNEL_PUBLISHER_OPTIONS, OutboxRelay, QUEUE_NAMES, QueueSet } from '@patchbay/queues';
import { secretBoxFromEnv, type SecretBox } from '@patchbay/secrets';
import { createLogger, createRedis, redisUrls, type Logger } from '@patchbay/service-kit';
import type { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import { DB_SCHEMA, MIGRATIONS_DIR, SERVICE_NAME, loadConfig, type Config } from './config';
import { createPrisma, type Db } from './db';
import { SyncScheduler } from './sync/scheduler';

/** What the API process and the sync worker both start with. */
export interface Runtime {
  config: Config;
  logger: Logger;
  box: SecretBox;
  db: Db;
  redis: Redis | Cluster;
  queues: QueueSet;
  relay: OutboxRelay;
  scheduler: SyncScheduler;
  /** Closes what boot opened, in reverse order. */
  close(): Promise<void>;
}

export async function boot(role: 'api' | 'worker'): Promise<Runtime> {
  const config = loadConfig();
  const logger = createLogger(role === 'api' ? SERVICE_NAME : `${SERVICE_NAME}-worker`, config.LOG_LEVEL);
  const box = secretBoxFromEnv(process.env);
  if (config.PATCHBAY_MIGRATE_ON_START) {
    await migrateOnStart({ databaseUrl: config.DATABASE_URL, schema: DB_SCHEMA, migrationsDir: MIGRATIONS_DIR, logger: { info: (m) => logger.info(m) } });
  }
  const db = createPrisma(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
  const urls = redisUrls(config);
  // Sync leases, the platforms' request gates and caches.
  const redis = createRedis(urls.caches, { name: `${SERVICE_NAME}:${role}:commands` });
  const producer = createRedis(urls.queues, { forQueue: true, name: `${SERVICE_NAME}:${role}:producer` });
  const queues = new QueueSet({ connection: producer, logger, prefix: config.QUEUE_PREFIX });
  // Publishes the account-token invalidations of the outbox: fails at once while Redis is down, reconnects quickly.
  const invalidationPublisher = createRedis(urls.caches, { name: `${SERVICE_NAME}:${role}:invalidations`, ...CHANNEL_PUBLISHER_OPTIONS });
  const relay = new OutboxRelay({ executor: db, queues: (name) => queues.get(name), publisher: invalidationPublisher, logger });
  relay.start();
  const scheduler = new SyncScheduler(queues.get(QUEUE_NAMES.unifiedDataSync) as Queue);
  return {
    config,
    logger,
    box,
    db,
    redis,
    queues,
    relay,
    scheduler,
    async close() {
      await relay.stop();
      await queues.close();
      producer.disconnect();
      invalidationPublisher.disconnect();
      redis.disconnect();
      await db.$disconnect();
    },
  };
}
