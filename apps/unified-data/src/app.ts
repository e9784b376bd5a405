import { KeyVerifier, SESSION_VERIFIER_LOCAL, VERIFIER_LOCAL, type SessionVerifier } from '@patchbay/auth';
import { createServiceApp, finishServiceApp, healthHandler, pingRedis, redactSecretPath, type Logger } from '@patchbay/service-kit';
import type { Express } from 'express';
import { SERVICE_NAME } from './config';
import { RegisterRoutes } from './generated/routes';
import openApiDocument from './generated/swagger.json';
import { linkPageRouter } from './pages/link-page';
import type { AppServices } from './services';

export interface AppDeps {
  services: AppServices;
  logger: Logger;
  /** Verifies incoming keys (through access-keys-and-audit in production). */
  verifier: KeyVerifier;
  /** Verifies members' console sessions (through access-keys-and-audit); without it only keys are taken. */
  sessionVerifier?: SessionVerifier;
}

/** Link-token, public-token and account-token paths carry secrets: logs show them redacted. */
function redactPath(path: string): string {
  return redactSecretPath(path).replace(/(\/api\/mktg\/v1\/(?:link|account-token))\/(?!regenerate)[^/?]+/, '$1/[redacted]');
}

export function createApp(deps: AppDeps): Express {
  const app = createServiceApp({ logger: deps.logger, redactPath });
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
  app.use(linkPageRouter(deps.services));
  RegisterRoutes(app);
  finishServiceApp(app, deps.logger);
  return app;
}
