export { ConfigError, booleanFromEnv, commonEnv, loadEnv, runService } from './env';
export { REDACTED_PATHS, accessLineLogger, createLogger, redactSecretPath, requestContextStorage } from './logger';
export type { Logger, RequestContext } from './logger';
export { beginRequest, createServiceApp, finishServiceApp, handleClientError, healthHandler, requestContext, requestIdOf, startHttpService } from './http';
export type { PathRedactor } from './http';
export type { HealthCheck, RunningService, ServiceAppOptions } from './http';
export { createRedis, pingRedis } from './redis';
export { UUID_PATTERN, isUuid } from './ids';
export { MAX_JSON_DEPTH, assertRequestText, findTextProblem, jsonDeeperThan, requestTextCheck, textProblem, verifyJsonDepth } from './request-text';
