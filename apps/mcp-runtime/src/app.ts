import { KeyVerifier, VERIFIER_LOCAL } from '@patchbay/auth';
import { createServiceApp, finishServiceApp, healthHandler, pingRedis, type Logger } from '@patchbay/service-kit';
import type { Meter } from '@patchbay/metering';
import type { Express } from 'express';
import type Redis from 'ioredis';
import { SERVICE_NAME } from './config';
import type { ToolExecutor } from './domain/execute';
import type { RegistryClient } from './domain/registry-client';
import { mcpParseErrorHandler, mcpRouter } from './mcp/mcp-endpoint';
import { searchRouter } from './mcp/search-endpoint';
import { openApiDocument } from './openapi';

export interface AppDeps {
  logger: Logger;
  verifier: KeyVerifier;
  redis: Redis;
  registry: RegistryClient;
  executor: ToolExecutor;
  meter: Meter;
}

export function createApp(deps: AppDeps): Express {
  // Tool arguments can be large (a document to file); results are streamed back by the transport.
  const app = createServiceApp({ logger: deps.logger, jsonLimit: '4mb' });
  app.locals[VERIFIER_LOCAL] = deps.verifier;
  app.get('/healthz', healthHandler(SERVICE_NAME, [{ name: 'redis', check: () => pingRedis(deps.redis) }]));
  app.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });
  app.use(mcpParseErrorHandler);
  app.use(mcpRouter({ registry: deps.registry, executor: deps.executor, meter: deps.meter, logger: deps.logger }));
  app.use(searchRouter(deps.registry));
  finishServiceApp(app, deps.logger);
  return app;
}
