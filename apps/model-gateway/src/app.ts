import { createServiceApp, finishServiceApp, healthHandler, pingRedis, type Logger } from '@patchbay/service-kit';
import type { Express } from 'express';
import type Redis from 'ioredis';
import { catalogRouter } from './catalog/catalog-routes';
import { SERVICE_NAME } from './config';
import type { Db } from './db';
import { managementErrorHandler } from './http/errors';
import type { ManagementDeps } from './management/management-routes';
import { managementRouter } from './management/management-routes';
import { modelRouter } from './model/model-routes';
import { routingPolicyRouter, type RoutingPolicyDeps } from './routing/routing-policy-routes';
import type { ModelDeps } from './model/model-request';
import { gatewayDocument } from './openapi';
import { guardrailRouter, type GuardrailDeps } from './guardrails/guardrail-routes';

export interface AppDeps {
  logger: Logger;
  db: Db;
  redis: Redis;
  model: ModelDeps;
  management: ManagementDeps;
  routingPolicies: RoutingPolicyDeps;
  guardrails: GuardrailDeps;
  maxBodyBytes: number;
}

export function createApp(deps: AppDeps): Express {
  // No global body parser: model routes read bodies after authenticating, with their own limit.
  const app = createServiceApp({ logger: deps.logger, jsonLimit: false });
  app.get('/healthz', healthHandler(SERVICE_NAME, [
    { name: 'postgres', check: async () => { await deps.db.$queryRaw`SELECT 1`; } },
    { name: 'redis', check: () => pingRedis(deps.redis) },
  ]));
  app.get('/openapi.json', (_req, res) => {
    res.json(gatewayDocument);
  });
  // First: the hot path meets no other route on its way.
  app.use(modelRouter(deps.model, deps.maxBodyBytes));
  app.use(catalogRouter(deps.model.catalog, deps.model.platformVendors, deps.management.auth));
  app.use(managementRouter(deps.management));
  app.use(routingPolicyRouter(deps.routingPolicies));
  app.use(guardrailRouter(deps.guardrails));
  app.use(managementErrorHandler(deps.logger));
  finishServiceApp(app, deps.logger);
  return app;
}
