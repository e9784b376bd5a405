import { KeyVerifier, SessionVerifier, httpKeyLoader, httpSessionLoader } from '@patchbay/auth';
import { BUILTIN_CONNECTORS, baseUrlOverridesFromEnv } from '@patchbay/connector-catalog';
import { migrateOnStart } from '@patchbay/db';
import { Meter } from '@patchbay/metering';
import { createGuardedRequest } from '@patchbay/outbound';
import { DirectProducer, OutboxRelay, QueueSet } from '@patchbay/queues';
import { createRedis, createRedisSubscriber, redisUrls, type Logger } from '@patchbay/service-kit';
import type { Express } from 'express';
import { createApp } from './app';
import { DB_SCHEMA, MIGRATIONS_DIR, SERVICE_NAME, type Config } from './config';
import { createDatabase, createPrisma } from './db';
import { ToolExecutor } from './domain/execute';
import { recordRetention, startRecordWorkers } from './domain/record-consumers';
import { RegistryClient } from './domain/registry-client';
import { RuleSetCache, publishRulesChanged } from './domain/rule-set-cache';
import { SecurityRuleService } from './domain/security-rules';
import { ToolCallRecordService, ToolCallRecorder, storeToolCallRecords } from './domain/tool-call-records';
import { noteRecordsStored, toolCallLedger } from './domain/usage';
import { McpRelay } from './mcp/relay';
import { McpSessions } from './mcp/sessions';

export interface RuntimeOptions {
  /** Provider base URLs by connector slug (tests, self-hosted); default from PATCHBAY_<SLUG>_BASE_URL. */
  baseUrlOverrides?: Record<string, string>;
  /** Redis key prefix of the meter (tests isolate theirs). */
  meterKeyPrefix?: string;
}

export interface Runtime {
  app: Express;
  /** Stops the workers, then closes every connection (the HTTP server is the caller's). */
  close(): Promise<void>;
}

/**
 * Everything the runtime runs on, wired once: main.ts serves it, the integration tests serve the
 * same thing on a random port.
 */
export async function createRuntime(config: Config, logger: Logger, options: RuntimeOptions = {}): Promise<Runtime> {
  if (config.PATCHBAY_MIGRATE_ON_START) {
    await migrateOnStart({ databaseUrl: config.DATABASE_URL, schema: DB_SCHEMA, migrationsDir: MIGRATIONS_DIR, logger: { info: (m) => logger.info(m) } });
  }
  const database = createDatabase(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
  const { prisma: db, sql } = database;
  const readDb = config.DATABASE_READ_URL ? createPrisma(config.DATABASE_READ_URL, config.DATABASE_POOL_SIZE) : db;
  const urls = redisUrls(config);
  const redis = createRedis(urls.caches, { name: `${SERVICE_NAME}:commands` });
  const counters = urls.counters === urls.caches ? redis : createRedis(urls.counters, { name: `${SERVICE_NAME}:counters` });
  const keySubscriber = createRedisSubscriber(urls.caches, { name: `${SERVICE_NAME}:key-invalidation` });
  const rulesSubscriber = createRedisSubscriber(urls.caches, { name: `${SERVICE_NAME}:rules-invalidation` });
  const registrySubscriber = createRedisSubscriber(urls.caches, { name: `${SERVICE_NAME}:registry-changes` });
  const relaySubscriber = createRedisSubscriber(urls.caches, { name: `${SERVICE_NAME}:mcp-relay` });
  // Producer adds fail fast while Redis is down, so a record falls back to the outbox at once.
  const producerConnection = createRedis(urls.queues, { name: `${SERVICE_NAME}:producer`, maxRetriesPerRequest: null, enableOfflineQueue: false });
  const workerConnection = createRedis(urls.queues, { forQueue: true, name: `${SERVICE_NAME}:record-workers` });

  const verifier = new KeyVerifier({ loader: httpKeyLoader({ baseUrl: config.ACCESS_KEYS_URL, serviceToken: config.PATCHBAY_SERVICE_TOKEN }) });
  await verifier.subscribe(keySubscriber);
  // Members' console sessions: each route names the permission a member needs.
  const sessionVerifier = new SessionVerifier({ loader: httpSessionLoader({ baseUrl: config.ACCESS_KEYS_URL, serviceToken: config.PATCHBAY_SERVICE_TOKEN }), publicBaseUrl: config.PATCHBAY_PUBLIC_URL, logger });
  await sessionVerifier.subscribe(createRedisSubscriber(urls.caches, { name: `${SERVICE_NAME}:session-invalidation` }));
  const registry = new RegistryClient({
    baseUrl: config.CONNECTOR_REGISTRY_URL,
    serviceToken: config.PATCHBAY_SERVICE_TOKEN,
    cacheTtlMs: config.PACK_CACHE_TTL_MS,
    credentialTtlMs: config.CREDENTIAL_CACHE_TTL_MS,
    logger,
  });
  await registry.subscribe(registrySubscriber);
  const executor = new ToolExecutor({
    registry,
    http: createGuardedRequest({ allowPrivateNetwork: config.PATCHBAY_ALLOW_PRIVATE_NETWORK }, { requireHttps: !config.PATCHBAY_ALLOW_PRIVATE_NETWORK }),
    limits: { timeoutMs: config.TOOL_CALL_TIMEOUT_MS, maxRows: config.TOOL_MAX_ROWS, maxResponseBytes: config.TOOL_MAX_RESPONSE_BYTES },
    baseUrlOverrides: options.baseUrlOverrides ?? baseUrlOverridesFromEnv(BUILTIN_CONNECTORS.map((c) => c.slug)),
  });
  // Exact across Redis losing its data: the counts are rebuilt from the tool-call records (see @patchbay/metering).
  const meter = new Meter(counters, { ledger: toolCallLedger(db), logger, ...(options.meterKeyPrefix ? { keyPrefix: options.meterKeyPrefix } : {}) });
  const rules = new RuleSetCache(db, { ttlMs: config.SECURITY_RULES_CACHE_TTL_MS });
  await rules.subscribe(rulesSubscriber, logger);

  const sessions = new McpSessions(config.PATCHBAY_SERVICE_TOKEN, redis);
  const relay = new McpRelay(redis, logger);
  await relay.subscribe(relaySubscriber);

  const queues = new QueueSet({ connection: producerConnection, logger, prefix: config.QUEUE_PREFIX });
  const outboxRelay = new OutboxRelay({ executor: db, queues: (name) => queues.get(name), logger });
  outboxRelay.start();
  const recorder = new ToolCallRecorder(
    new DirectProducer({ queues: (name) => queues.get(name), outbox: db, relay: outboxRelay, logger }),
    config.TOOL_CALL_RECORD_STORE === 'direct'
      ? async (records) => {
          await storeToolCallRecords(database, records, config.TOOL_CALL_RETENTION_DAYS);
          noteRecordsStored(meter, records);
        }
      : undefined,
    logger,
  );
  const workers = config.TOOL_CALL_RECORD_WORKERS ? startRecordWorkers({ db, sql, connection: workerConnection, logger, prefix: config.QUEUE_PREFIX, ...recordRetention(config), concurrency: config.TOOL_CALL_RECORD_CONCURRENCY, onStored: (records) => noteRecordsStored(meter, records) }) : null;

  const securityRules = new SecurityRuleService({
    db,
    toolPackExists: (principal, toolPackId) => registry.toolPackExists(principal, toolPackId),
    rulesChanged: (organizationId, environment) => {
      rules.invalidate(organizationId, environment);
      publishRulesChanged(redis, organizationId, environment);
    },
  });
  const app = createApp({
    logger,
    verifier,
    sessionVerifier,
    redis,
    registry,
    executor,
    rules,
    recorder,
    sessions,
    relay,
    toolCallTimeoutMs: config.TOOL_CALL_TIMEOUT_MS,
    listTtlMs: config.PACK_CACHE_TTL_MS,
    services: { db, meter, securityRules, readDb, toolCallRecords: new ToolCallRecordService(db, readDb), relay: outboxRelay, publicBaseUrl: config.PATCHBAY_PUBLIC_URL },
  });

  return {
    app,
    async close() {
      // Waiting records first: storing them may still tell the meter about them.
      await recorder.close();
      meter.close();
      await workers?.close();
      await outboxRelay.stop();
      await relay.close();
      await queues.close();
      await executor.close();
      await rules.close();
      await registry.close();
      registrySubscriber.disconnect();
      await verifier.close();
      await sessionVerifier.close();
      await database.close();
      if (readDb !== db) await readDb.$disconnect();
      for (const connection of new Set([redis, counters, producerConnection, workerConnection])) connection.disconnect();
    },
  };
}
