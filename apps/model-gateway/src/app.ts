import { createServiceApp, finishServiceApp, healthHandler, type HealthCheck, type Logger } from '@patchbay/service-kit';
import type { RequestListener } from 'node:http';
import type { Express } from 'express';
import { catalogRouter } from './catalog/catalog-routes';
import { SERVICE_NAME } from './config';
import type { Db } from './db';
import { managementErrorHandler } from './http/errors';
import type { ManagementDeps } from './management/management-routes';
import { managementRouter } from './management/management-routes';
import { modelEndpoints } from './model/model-routes';
import { routingPolicyRouter, type RoutingPolicyDeps } from './routing/routing-policy-routes';
import type { ModelDeps } from './model/model-request';
import { gatewayDocument } from './openapi';
import { guardrailRouter, type GuardrailDeps } from './guardrails/guardrail-routes';
import { batchEndpoints, type BatchEndpointDeps } from './batches/batch-routes';

export interface AppDeps {
  logger: Logger;
  db: Db;
  /** PostgreSQL and Redis, for /healthz (the worker process answers with the same checks). */
  healthChecks: HealthCheck[];
  model: ModelDeps;
  management: ManagementDeps;
  routingPolicies: RoutingPolicyDeps;
  guardrails: GuardrailDeps;
  batches: BatchEndpointDeps;
  maxBodyBytes: number;
}

/** The gateway's request listener: the model, file and batch endpoints without express, every other route in the express app. */
export function createRequestListener(deps: AppDeps): { app: Express; listener: RequestListener } {
  const app = createApp(deps);
  const model = modelEndpoints(deps.model, { maxBodyBytes: deps.maxBodyBytes, logger: deps.logger });
  const batches = batchEndpoints(deps.batches);
  return {
    app,
    listener: (req, res) => {
      if (!model(req, res) && !batches(req, res)) app(req, res);
    },
  };
}

/** Everything but the model endpoints: health, OpenAPI, catalog, management, routing policies, guardrails. */
export function createApp(deps: AppDeps): Express {
  // No global body parser: model routes read bodies after authenticating, with their own limit.
  // requestIdInEveryLine false: no promise hooks in the process that answers model requests (service-kit).
  const app = createServiceApp({ logger: deps.logger, jsonLimit: false, requestIdInEveryLine: false });
  app.get('/healthz', healthHandler(SERVICE_NAME, deps.healthChecks));
  app.get('/openapi.json', (_req, res) => {
    res.json(gatewayDocument);
  });
  app.use(catalogRouter(deps.model.catalog, deps.model.platformVendors, deps.management.auth));
  app.use(managementRouter(deps.management));
  app.use(routingPolicyRouter(deps.routingPolicies));
  app.use(guardrailRouter(deps.guardrails));
  app.use(managementErrorHandler(deps.logger));
  finishServiceApp(app, deps.logger);
  return app;
}
