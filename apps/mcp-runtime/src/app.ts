import { KeyVerifier, SESSION_VERIFIER_LOCAL, VERIFIER_LOCAL, type SessionVerifier } from '@patchbay/auth';
import { createServiceApp, finishServiceApp, healthHandler, pingRedis, type Logger } from '@patchbay/service-kit';
import type { Express } from 'express';
import type { Cluster, Redis } from 'ioredis';
import { SERVICE_NAME } from './config';
import type { ToolExecutor } from './domain/execute';
import type { RegistryClient } from './domain/registry-client';
import type { RuleSetCache } from './domain/rule-set-cache';
import type { ToolCallRecorder } from './domain/tool-call-records';
import { RegisterRoutes } from './generated/routes';
import generatedDocument from './generated/swagger.json';
import { mcpParseErrorHandler, mountMcpRoutes } from './mcp/mcp-endpoint';
import { searchRouter } from './mcp/search-endpoint';
import { mergeOpenApi } from './openapi';
import type { AppServices } from './services';
import type { McpRelay } from './mcp/relay';
import type { McpSessions } from './mcp/sessions';

export interface AppDeps {
  logger: Logger;
  verifier: KeyVerifier;
  /** Verifies members' console sessions (through access-keys-and-audit); without it only keys are taken. */
  sessionVerifier?: SessionVerifier;
  redis: Redis | Cluster;
  registry: RegistryClient;
  executor: ToolExecutor;
  rules: RuleSetCache;
  recorder: ToolCallRecorder;
  sessions: McpSessions;
  relay: McpRelay;
  toolCallTimeoutMs: number;
  listTtlMs: number;
  /** What the management controllers use (security rules, tool-call records, usage); holds the meter too. */
  services: AppServices;
}

export function createApp(deps: AppDeps): Express {
  // Tool arguments can be large (a document to file); results are streamed back by the transport.
  // requestIdInEveryLine false: no AsyncLocalStorage, so no promise hooks on every tool call (service-kit); the
  // lines of a request name its id themselves.
  const app = createServiceApp({ logger: deps.logger, jsonLimit: '4mb', requestIdInEveryLine: false });
  app.locals[VERIFIER_LOCAL] = deps.verifier;
  if (deps.sessionVerifier) app.locals[SESSION_VERIFIER_LOCAL] = deps.sessionVerifier;
  app.locals.services = deps.services;
  // First, so the call agents make on every step meets no other route on its way.
  mountMcpRoutes(app, {
    registry: deps.registry,
    executor: deps.executor,
    meter: deps.services.meter,
    rules: deps.rules,
    recorder: deps.recorder,
    sessions: deps.sessions,
    relay: deps.relay,
    logger: deps.logger,
    toolCallTimeoutMs: deps.toolCallTimeoutMs,
    listTtlMs: deps.listTtlMs,
  });
  const { db } = deps.services;
  app.get(
    '/healthz',
    healthHandler(SERVICE_NAME, [
      { name: 'postgres', check: async () => { await db.$queryRaw`SELECT 1`; } },
      { name: 'redis', check: () => pingRedis(deps.redis) },
    ]),
  );
  const openApiDocument = mergeOpenApi(generatedDocument);
  app.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });
  app.use(mcpParseErrorHandler);
  app.use(searchRouter(deps.registry));
  RegisterRoutes(app);
  finishServiceApp(app, deps.logger);
  return app;
}
