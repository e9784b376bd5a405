import { KeyVerifier, SESSION_VERIFIER_LOCAL, VERIFIER_LOCAL, requireServiceToken, type SessionVerifier } from '@patchbay/auth';
import { createServiceApp, finishServiceApp, healthHandler, pingRedis, redactSecretPath, type Logger } from '@patchbay/service-kit';
import { Router, type Express } from 'express';
import { SERVICE_NAME } from './config';
import { RegisterRoutes } from './generated/routes';
import openApiDocument from './generated/swagger.json';
import type { AppServices } from './services';

export interface AppDeps {
  services: AppServices;
  logger: Logger;
  /** Verifies incoming keys (through access-keys-and-audit in production). */
  verifier: KeyVerifier;
  /** Verifies members' console sessions (through access-keys-and-audit); without it only keys are taken. */
  sessionVerifier?: SessionVerifier;
  /**
   * Extra routers mounted by features: `internal` under /internal/v1 (service token), `pages` at the
   * root for browser pages (the magic link). Each feature adds its own in `routers.ts`.
   */
  internalRouters?: Router[];
  pageRouters?: Router[];
}

export function createApp(deps: AppDeps): Express {
  const app = createServiceApp({ logger: deps.logger, redactPath: redactSecretPath });
  app.locals.services = deps.services;
  app.locals[VERIFIER_LOCAL] = deps.verifier;
  if (deps.sessionVerifier) app.locals[SESSION_VERIFIER_LOCAL] = deps.sessionVerifier;
  const { db, redis } = deps.services;
  app.get(
    '/healthz',
    healthHandler(SERVICE_NAME, [
      { name: 'postgres', check: async () => { await db.$queryRaw`SELECT 1`; } },
      { name: 'redis', check: () => pingRedis(redis) },
    ]),
  );
  app.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });
  const internal = Router();
  internal.use(requireServiceToken(deps.services.config.PATCHBAY_SERVICE_TOKEN));
  for (const router of deps.internalRouters ?? []) internal.use(router);
  app.use('/internal/v1', internal);
  for (const router of deps.pageRouters ?? []) app.use(router);
  RegisterRoutes(app);
  finishServiceApp(app, deps.logger);
  return app;
}
