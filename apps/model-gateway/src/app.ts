import { beginRequest, createServiceApp, finishServiceApp, healthHandler, type HealthCheck, type Logger } from '@patchbay/service-kit';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express } from 'express';
import { catalogRouter } from './catalog/catalog-routes';
import { SERVICE_NAME } from './config';
import type { Db } from './db';
import { GatewayError, managementErrorHandler, sendModelError } from './http/errors';
import type { ManagementDeps } from './management/management-routes';
import { organizationBatchesRouter } from './batches/organization-batches';
import { managementRouter } from './management/management-routes';
import { modelEndpoints } from './model/model-routes';
import { routingPolicyRouter, type RoutingPolicyDeps } from './routing/routing-policy-routes';
import type { ModelDeps } from './model/model-request';
import { gatewayDocument } from './openapi';
import { guardrailRouter, type GuardrailDeps } from './management/guardrail-routes';
import { batchEndpoints, type BatchEndpointDeps } from './batches/batch-routes';
import { storedResponseEndpoints, type StoredResponseDeps } from './responses/stored-response-routes';
import { mediaEndpoints } from './media/media-routes';
import { fusionRoute } from './fusion/fusion-route';

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
  /** GET and DELETE of stored responses (issue 27 §3). */
  storedResponses?: StoredResponseDeps;
  maxBodyBytes: number;
}

/** The gateway's request listener: the model, file and batch endpoints without express, every other route in the express app. */
export function createRequestListener(deps: AppDeps): { app: Express; listener: RequestListener } {
  const app = createApp(deps);
  const model = modelEndpoints(deps.model, { maxBodyBytes: deps.maxBodyBytes, logger: deps.logger, bodyRoutes: [fusionRoute] });
  const batches = batchEndpoints(deps.batches);
  const storedResponses = deps.storedResponses ? storedResponseEndpoints(deps.storedResponses) : () => false;
  const media = mediaEndpoints(deps.model, { maxJsonBytes: deps.maxBodyBytes, logger: deps.logger });
  // File uploads have their own limit (GATEWAY_BATCH_FILE_MAX_BYTES), which may be the larger one.
  const uploadLimit = Math.max(deps.maxBodyBytes, deps.batches.limits.fileMaxBytes + MULTIPART_ALLOWANCE_BYTES);
  return {
    app,
    listener: (req, res) => {
      if (refuseDeclaredOversize(req, res, FILE_UPLOAD_PATHS.has(pathOf(req.url)) ? uploadLimit : deps.maxBodyBytes, deps.logger)) return;
      if (!media(req, res) && !model(req, res) && !batches(req, res) && !storedResponses(req, res)) app(req, res);
    },
  };
}

/** More than the multipart framing batch-routes allows around a file, so its own file_too_large answers there. */
const MULTIPART_ALLOWANCE_BYTES = 1024 * 1024;
const FILE_UPLOAD_PATHS = new Set(['/v1/files', '/v1/openai/files']);

function pathOf(url: string | undefined): string {
  const path = url ?? '/';
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
}

/**
 * The body limit the edge router puts on every /v1 request, applied by the gateway itself, for an
 * installation whose Ingress routes /v1 straight to the gateway pods (the Helm chart's
 * ingress.modelGatewayDirect): a body whose Content-Length is over `maxBodyBytes` is refused (413, the
 * model endpoints' envelope, X-Request-Id) before any of it is read, and the connection is closed after the
 * answer so the rest is never read either; without this a route that refuses after reading, or discards
 * what it did not read, would take in the whole declared body first. Bodies of unknown length are
 * counted by the routes that read them. (Request ids and trace context every route sets already: service-kit's
 * beginRequest, and the http instrumentation continuing the client's traceparent when tracing is on.)
 */
function refuseDeclaredOversize(req: IncomingMessage, res: ServerResponse, maxBodyBytes: number, logger: Logger): boolean {
  const declared = req.headers['content-length'];
  if (declared === undefined || !(Number(declared) > maxBodyBytes)) return false;
  beginRequest(logger, req, res);
  const surface = req.url?.startsWith('/v1/anthropic/') ? 'anthropic-messages' : 'openai-chat';
  const error = new GatewayError(413, 'invalid_request_error', `The request body is over ${maxBodyBytes} bytes; send media as URLs instead of inline base64.`, 'payload_too_large');
  sendModelError(res, surface, error, { connection: 'close' });
  return true;
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
  app.use(organizationBatchesRouter({ db: deps.management.db, auth: deps.management.auth }));
  app.use(routingPolicyRouter(deps.routingPolicies));
  app.use(guardrailRouter(deps.guardrails));
  app.use(managementErrorHandler(deps.logger));
  finishServiceApp(app, deps.logger);
  return app;
}
