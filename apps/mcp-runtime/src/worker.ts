import { telemetry } from './telemetry';
import { migrateOnStart } from '@patchbay/db';
import { Meter } from '@patchbay/metering';
import { createLogger, createRedis, redisUrls, createServiceApp, finishServiceApp, healthHandler, pingRedis, runService, startHttpService } from '@patchbay/service-kit';
import { DB_SCHEMA, MIGRATIONS_DIR, SERVICE_NAME, loadConfig } from './config';
import { createDatabase } from './db';
import { recordRetention, startRecordWorkers } from './domain/record-consumers';
import { noteRecordsStored, toolCallLedger } from './domain/usage';

/**
 * The record workers alone, for deployments that keep them off the replicas answering agents
 * (TOOL_CALL_RECORD_WORKERS=false there): stores tool-call records, deletes those of deleted
 * registered users, sweeps past retention. Serves only /healthz on PORT.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(`${SERVICE_NAME}-worker`, config.LOG_LEVEL);
  if (config.PATCHBAY_MIGRATE_ON_START) {
    await migrateOnStart({ databaseUrl: config.DATABASE_URL, schema: DB_SCHEMA, migrationsDir: MIGRATIONS_DIR, logger: { info: (m) => logger.info(m) } });
  }
  const database = createDatabase(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
  const { prisma: db, sql } = database;
  const connection = createRedis(redisUrls(config).queues, { forQueue: true, name: `${SERVICE_NAME}:record-workers` });
  // The meter, only to settle counts Redis lost with the records that arrive late (see @patchbay/metering).
  const commands = createRedis(redisUrls(config).counters, { name: `${SERVICE_NAME}:worker-commands` });
  const meter = new Meter(commands, { ledger: toolCallLedger(db), logger });
  const workers = startRecordWorkers({
    db,
    sql,
    connection,
    logger,
    prefix: config.QUEUE_PREFIX,
    ...recordRetention(config),
    concurrency: config.TOOL_CALL_RECORD_CONCURRENCY,
    onStored: (records) => noteRecordsStored(meter, records),
  });
  const app = createServiceApp({ logger, requestIdInEveryLine: false });
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
    onShutdown: [async () => telemetry.shutdown(), async () => database.close(), async () => { connection.disconnect(); commands.disconnect(); }, async () => { meter.close(); }, async () => workers.close()],
  });
}

runService(`${SERVICE_NAME}-worker`, main);
