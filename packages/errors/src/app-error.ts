import { ERROR_STATUS, type ErrorCode, SPEC_MESSAGES } from './codes';

/** One problem with one field of a request, as rendered in a validation error. */
export interface FieldError {
  /** Where the problem is: `body.expires_in`, `query.page`, `header.authorization`. */
  field: string;
  message: string;
}

/**
 * An error the caller can act on. Controllers throw these; the error middleware renders
 * `{detail, code}` (plus `errors` for field errors) with the status of the code.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly fieldErrors: FieldError[] | undefined;
  /** Extra JSON members of the body, for errors whose body says more (a 409 naming what depends on a resource). */
  readonly extra: Record<string, unknown> | undefined;
  /** Response headers the error carries (Retry-After, Allow). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    detail: string,
    options: { fieldErrors?: FieldError[]; extra?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.fieldErrors = options.fieldErrors;
    this.extra = options.extra;
    this.headers = options.headers;
  }

  /** Whether this is the server's fault (recorded as a span error) or the client's. */
  get isServerError(): boolean {
    return this.status >= 500;
  }
}

export class ValidationError extends AppError {
  constructor(fieldErrors: FieldError[], detail = describeFieldErrors(fieldErrors)) {
    super('validation_error', detail, { fieldErrors });
    this.name = 'ValidationError';
  }

  static forField(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }]);
  }
}

export class InvalidRequestError extends AppError {
  constructor(detail: string, extra?: Record<string, unknown>) {
    super('invalid_request', detail, { extra });
    this.name = 'InvalidRequestError';
  }
}

export class AuthenticationError extends AppError {
  constructor(detail = 'Authentication credentials were not provided or are invalid. Send the header "Authorization: Bearer <API_KEY>".') {
    super('authentication_failed', detail, { headers: { 'WWW-Authenticate': 'Bearer' } });
    this.name = 'AuthenticationError';
  }
}

export class PermissionDeniedError extends AppError {
  constructor(detail: string) {
    super('permission_denied', detail);
    this.name = 'PermissionDeniedError';
  }
}

export class KeyScopeViolationError extends AppError {
  constructor() {
    super('key_scope_violation', SPEC_MESSAGES.keyScopeViolation);
    this.name = 'KeyScopeViolationError';
  }
}

export class NotFoundError extends AppError {
  constructor(detail = 'Not found.') {
    super('not_found', detail);
    this.name = 'NotFoundError';
  }
}

/** 404 for a resource outside the key's restrictions; identical for missing resources by design (spec, Authentication 6). */
export class NotInScopeError extends AppError {
  constructor() {
    super('not_in_scope', SPEC_MESSAGES.notInScope);
    this.name = 'NotInScopeError';
  }
}

export class ConflictError extends AppError {
  constructor(detail: string, extra?: Record<string, unknown>) {
    super('conflict', detail, { extra });
    this.name = 'ConflictError';
  }
}

export class BillingLimitError extends AppError {
  constructor(detail: string, extra?: Record<string, unknown>) {
    super('billing_limit_reached', detail, { extra });
    this.name = 'BillingLimitError';
  }
}

export class RateLimitError extends AppError {
  constructor(detail: string, retryAfterSeconds: number, headers: Record<string, string> = {}) {
    super('rate_limited', detail, { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))), ...headers } });
    this.name = 'RateLimitError';
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(detail: string) {
    super('service_unavailable', detail);
    this.name = 'ServiceUnavailableError';
  }
}

function describeFieldErrors(fieldErrors: FieldError[]): string {
  if (fieldErrors.length === 0) return 'The request is invalid.';
  const parts = fieldErrors.map((e) => `${e.field}: ${e.message}`);
  return `The request is invalid. ${parts.join('; ')}`;
}
