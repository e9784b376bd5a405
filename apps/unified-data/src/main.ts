import { telemetry } from './telemetry';
import { KeyVerifier, SessionVerifier, httpKeyLoader, httpSessionLoader } from '@patchbay/auth';
import { createRedisSubscriber, redisUrls, runService, startHttpService } from '@patchbay/service-kit';
import { createApp } from './app';
import { boot } from './boot';
import { SERVICE_NAME } from './config';
import { createPrisma } from './db';
import { AccountActivity } from './domain/account-activity';
import { accountTokenCache } from './domain/account-tokens';
import type { AppServices } from './services';

async function main(): Promise<void> {
  const rt = await boot('api');
  const subscriber = createRedisSubscriber(redisUrls(rt.config).caches, { name: `${SERVICE_NAME}:key-invalidation` });
  const verifier = new KeyVerifier({ loader: httpKeyLoader({ baseUrl: rt.config.ACCESS_KEYS_URL, serviceToken: rt.config.PATCHBAY_SERVICE_TOKEN }) });
  await verifier.subscribe(subscriber);
  // Same subscribed connection, its own channel.
  const accountTokens = accountTokenCache(rt.db);
  await accountTokens.subscribe(subscriber);
  // Members' console sessions: each route names the permission a member needs.
  const sessionVerifier = new SessionVerifier({ loader: httpSessionLoader({ baseUrl: rt.config.ACCESS_KEYS_URL, serviceToken: rt.config.PATCHBAY_SERVICE_TOKEN }), publicBaseUrl: rt.config.PATCHBAY_PUBLIC_URL, logger: rt.logger });
  await sessionVerifier.subscribe(createRedisSubscriber(redisUrls(rt.config).caches, { name: `${SERVICE_NAME}:session-invalidation` }));
  const readDb = rt.config.DATABASE_READ_URL ? createPrisma(rt.config.DATABASE_READ_URL, rt.config.DATABASE_POOL_SIZE) : rt.db;
  const services: AppServices = { db: rt.db, readDb, redis: rt.redis, box: rt.box, config: rt.config, relay: rt.relay, scheduler: rt.scheduler, logger: rt.logger, accountTokens, activity: new AccountActivity({ db: rt.db, scheduler: rt.scheduler, logger: rt.logger }) };
  const app = createApp({ services, logger: rt.logger, verifier, sessionVerifier });
  await startHttpService({
    name: SERVICE_NAME,
    app,
    port: rt.config.PORT,
    logger: rt.logger,
    // Hooks run in reverse: telemetry flushes last.
    onShutdown: [async () => telemetry.shutdown(), async () => rt.close(), async () => (readDb === rt.db ? undefined : readDb.$disconnect()), async () => verifier.close(), async () => sessionVerifier.close()],
  });
}

runService(SERVICE_NAME, main);
