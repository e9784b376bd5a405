export { ERROR_STATUS, SPEC_MESSAGES } from './codes';
export type { ErrorCode } from './codes';
export {
  AppError,
  AuthenticationError,
  BillingLimitError,
  ConflictError,
  InvalidRequestError,
  KeyScopeViolationError,
  NotFoundError,
  NotInScopeError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
  ValidationError,
} from './app-error';
export type { FieldError } from './app-error';
export { toErrorEnvelope, toModelErrorEnvelope } from './envelope';
export type { ErrorEnvelope, ModelErrorEnvelope, ModelErrorType } from './envelope';
export { DEPENDENCY_RETRY_AFTER_SECONDS, errorMiddleware, normalizeError, notFoundHandler } from './middleware';
export { isDependencyUnavailable, isTransactionConflict, isUniqueViolation, isUnstorableText } from './dependency';
export type { ErrorLogger, ErrorMiddlewareOptions } from './middleware';
