import { telemetry } from './telemetry';
import { KeyVerifier } from '@patchbay/auth';
import { migrateOnStart } from '@patchbay/db';
import { CHANNEL_PUBLISHER_OPTIONS, OutboxRelay } from '@patchbay/queues';
import { createLogger, createRedis, createRedisSubscriber, redisUrls, runService, startHttpService } from '@patchbay/service-kit';
import { outboundPolicyFromEnv } from '@patchbay/outbound';
import { secretBoxFromEnv } from '@patchbay/secrets';
import { createApp } from './app';
import { DB_SCHEMA, MIGRATIONS_DIR, SERVICE_NAME, loadConfig } from './config';
import { createPrisma } from './db';
import { loadPrincipalByHash } from './domain/access-keys';
import { startAuditConsumer } from './domain/audit-consumer';
import { httpRestrictionIdChecker } from './domain/restriction-ids';
import { SESSION_INVALIDATION_CHANNEL, loadSessionByHash, type SessionPrincipal } from './domain/members/session-principal';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(SERVICE_NAME, config.LOG_LEVEL);
  if (config.PATCHBAY_MIGRATE_ON_START) {
    await migrateOnStart({ databaseUrl: config.DATABASE_URL, schema: DB_SCHEMA, migrationsDir: MIGRATIONS_DIR, logger: { info: (m) => logger.info(m) } });
  }
  const db = createPrisma(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
  // Publishes cache invalidations: fails at once while Redis is down (the outbox keeps them), reconnects quickly.
  const urls = redisUrls(config);
  const redis = createRedis(urls.caches, { name: `${SERVICE_NAME}:commands`, ...CHANNEL_PUBLISHER_OPTIONS });
  const relay = new OutboxRelay({ executor: db, queues: {}, publisher: redis, logger });
  relay.start();
  const subscriber = createRedisSubscriber(urls.caches, { name: `${SERVICE_NAME}:key-invalidation` });
  const verifier = new KeyVerifier({ loader: (hash) => loadPrincipalByHash(db, hash) });
  await verifier.subscribe(subscriber);
  // Console sessions: their own cache and channel; disabling a member or ending a session publishes there.
  const sessionSubscriber = createRedisSubscriber(urls.caches, { name: `${SERVICE_NAME}:session-invalidation` });
  const sessionVerifier = new KeyVerifier<SessionPrincipal>({ loader: (hash) => loadSessionByHash(db, hash), channel: SESSION_INVALIDATION_CHANNEL });
  await sessionVerifier.subscribe(sessionSubscriber);
  // Audit events other services send over the queue.
  const queueConnection = createRedis(urls.queues, { forQueue: true, name: `${SERVICE_NAME}:audit-consumer` });
  const auditConsumer = startAuditConsumer({ db, connection: queueConnection, logger, prefix: config.QUEUE_PREFIX, retention: { retentionDays: config.AUDIT_RETENTION_DAYS, archiveRetentionDays: config.AUDIT_ARCHIVE_RETENTION_DAYS ?? null } });
  const restrictionIds = config.CONNECTOR_REGISTRY_URL ? httpRestrictionIdChecker({ baseUrl: config.CONNECTOR_REGISTRY_URL, serviceToken: config.PATCHBAY_SERVICE_TOKEN }) : undefined;
  if (!restrictionIds) logger.warn('CONNECTOR_REGISTRY_URL is not set: the tool pack and registered user ids of new keys are checked for form only');
  const { app } = createApp({ db, redis, relay, logger, serviceToken: config.PATCHBAY_SERVICE_TOKEN, publicBaseUrl: config.PATCHBAY_PUBLIC_URL,
    verifier,
    restrictionIds,
    sessionVerifier,
    secrets: config.PATCHBAY_ENCRYPTION_KEYS ? secretBoxFromEnv(process.env) : undefined,
    outboundPolicy: outboundPolicyFromEnv(process.env),
    sessionSettings: { idleTimeoutSeconds: config.PATCHBAY_SESSION_IDLE_TIMEOUT_SECONDS, absoluteTimeoutSeconds: config.PATCHBAY_SESSION_ABSOLUTE_TIMEOUT_SECONDS },
    signInThrottle: {
      maxFailuresPerAccount: config.PATCHBAY_SIGN_IN_MAX_FAILURES_PER_ACCOUNT,
      maxFailuresPerAddress: config.PATCHBAY_SIGN_IN_MAX_FAILURES_PER_ADDRESS,
      failureWindowSeconds: config.PATCHBAY_SIGN_IN_FAILURE_WINDOW_SECONDS,
      lockoutSeconds: config.PATCHBAY_SIGN_IN_LOCKOUT_SECONDS,
    },
  });
  await startHttpService({
    name: SERVICE_NAME,
    app,
    port: config.PORT,
    logger,
    // Hooks run in reverse: telemetry flushes last.
    onShutdown: [
      async () => telemetry.shutdown(),
      async () => db.$disconnect(),
      async () => { queueConnection.disconnect(); },
      async () => auditConsumer.close(),
      async () => { redis.disconnect(); },
      async () => relay.stop(),
      async () => verifier.close(),
      async () => sessionVerifier.close(),
    ],
  });
}

runService(SERVICE_NAME, main);
