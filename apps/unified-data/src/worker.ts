import { telemetry } from './telemetry';
import { QUEUE_NAMES, createConsumer } from '@patchbay/queues';
import { createRedis, redisUrls, createServiceApp, finishServiceApp, healthHandler, pingRedis, runService, startHttpService } from '@patchbay/service-kit';
import { boot } from './boot';
import { SERVICE_NAME } from './config';
import { processSyncJob } from './sync/sync-runner';

const WORKER_NAME = `${SERVICE_NAME}-worker`;

/**
 * The sync worker: takes sync jobs off BullMQ (any number of replicas; the per-account lease keeps one
 * sync per account at a time), and serves /healthz on PORT for the orchestrator.
 */
async function main(): Promise<void> {
  const rt = await boot('worker');
  const shutdown = new AbortController();
  const deps = { db: rt.db, redis: rt.redis, box: rt.box, config: rt.config, scheduler: rt.scheduler, logger: rt.logger, lockPrefix: rt.config.QUEUE_PREFIX, leaseTtlMs: rt.config.MKTG_SYNC_LEASE_TTL_MS, tuning: { concurrency: rt.config.MKTG_SYNC_FETCH_CONCURRENCY }, shutdown: shutdown.signal, pauseIdleMs: rt.config.MKTG_PAUSE_IDLE_DAYS * 86_400_000 };
  // Schedules live in Redis: recreate any that a Redis without persistence lost (upsert is idempotent).
  for (const account of await rt.db.linkedAccount.findMany()) await rt.scheduler.schedule(account);
  const worker = createConsumer({
    queue: QUEUE_NAMES.unifiedDataSync,
    connection: createRedis(redisUrls(rt.config).queues, { forQueue: true, name: `${WORKER_NAME}:consumer` }),
    logger: rt.logger,
    prefix: rt.config.QUEUE_PREFIX,
    concurrency: rt.config.MKTG_SYNC_CONCURRENCY,
    spanName: 'SyncWorker.process',
    handler: async (job) => {
      await processSyncJob(deps, job);
      void rt.relay.kick();
    },
  });
  const app = createServiceApp({ logger: rt.logger });
  app.get(
    '/healthz',
    healthHandler(WORKER_NAME, [
      { name: 'postgres', check: async () => { await rt.db.$queryRaw`SELECT 1`; } },
      { name: 'redis', check: () => pingRedis(rt.redis) },
    ]),
  );
  finishServiceApp(app, rt.logger);
  await startHttpService({
    name: WORKER_NAME,
    app,
    port: rt.config.PORT,
    logger: rt.logger,
    onShutdown: [
      async () => telemetry.shutdown(),
      async () => rt.close(),
      async () => {
        shutdown.abort(new Error('worker shutting down'));
        await worker.close();
      },
    ],
  });
}

runService(WORKER_NAME, main);
