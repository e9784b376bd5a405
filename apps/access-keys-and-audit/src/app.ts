import { KeyVerifier, VERIFIER_LOCAL, publishKeyInvalidation } from '@patchbay/auth';
import { createServiceApp, finishServiceApp, healthHandler, pingRedis, type Logger } from '@patchbay/service-kit';
import type { Express } from 'express';
import type Redis from 'ioredis';
import { SERVICE_NAME } from './config';
import type { Db } from './db';
import { AccessKeyService, loadPrincipalByHash } from './domain/access-keys';
import { RegisterRoutes } from './generated/routes';
import openApiDocument from './generated/swagger.json';
import { internalRouter } from './internal/verify-route';
import type { AppServices } from './services';
import type { RestrictionIdChecker } from './domain/restriction-ids';

export interface AppDeps {
  db: Db;
  /** Connection for commands and publishing. */
  redis: Redis;
  logger: Logger;
  serviceToken: string;
  publicBaseUrl?: string;
  /** Verifier of incoming keys; built from the database when not given. */
  verifier?: KeyVerifier;
  /** Checks that a new key's restriction ids exist (connector-registry). */
  restrictionIds?: RestrictionIdChecker;
}

/** How long a committed change waits for its cache invalidation to be published before answering anyway. */
const PUBLISH_DEADLINE_MS = 1_000;

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

export function createApp(deps: AppDeps): { app: Express; services: AppServices; verifier: KeyVerifier } {
  const app = createServiceApp({ logger: deps.logger });
  const verifier = deps.verifier ?? new KeyVerifier({ loader: (hash) => loadPrincipalByHash(deps.db, hash) });
  const accessKeys = new AccessKeyService(deps.db, {
    keyChanged: async (oldKeyHash) => {
      // This process first, then every other service over pub/sub.
      verifier.invalidate({ keyHash: oldKeyHash });
      try {
        await withDeadline(publishKeyInvalidation(deps.redis, { keyHash: oldKeyHash }), PUBLISH_DEADLINE_MS);
      } catch (err) {
        // The change has committed: the answer must say so. A verifier whose subscription is down asks
        // the database on every request until it is back, and every cached entry expires within its TTL.
        deps.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'key invalidation not published (Redis unavailable); caches expire within their TTL');
      }
    },
  }, undefined, deps.restrictionIds);
  const services: AppServices = { db: deps.db, accessKeys, publicBaseUrl: deps.publicBaseUrl };
  app.locals.services = services;
  app.locals[VERIFIER_LOCAL] = verifier;

  app.get(
    '/healthz',
    healthHandler(SERVICE_NAME, [
      { name: 'postgres', check: async () => { await deps.db.$queryRaw`SELECT 1`; } },
      { name: 'redis', check: () => pingRedis(deps.redis) },
    ]),
  );
  app.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });
  app.use('/internal/v1', internalRouter(deps.db, deps.serviceToken));
  RegisterRoutes(app);
  finishServiceApp(app, deps.logger);
  return { app, services, verifier };
}
