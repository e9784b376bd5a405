import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, type FieldError, ValidationError } from './app-error';
import type { ErrorCode } from './codes';
import { isDependencyUnavailable, isRecordGone, isUniqueViolation, isUnstorableText } from './dependency';
import { toErrorEnvelope } from './envelope';

/** Seconds a client is asked to wait when a dependency is down: long enough for a reconnect, short enough not to matter. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 2;

/** What the middleware needs of a logger: enough to record unexpected errors without leaking them to the client. */
export interface ErrorLogger {
  error(object: Record<string, unknown>, message: string): void;
}

export interface ErrorMiddlewareOptions {
  logger?: ErrorLogger;
  /** Called for every error rendered, so tracing can mark server errors on the active span. */
  onError?: (error: AppError, cause: unknown) => void;
}

/**
 * Turns anything thrown in a request into the JSON error envelope:
 * AppError as itself, tsoa's ValidateError and malformed JSON as 400 with field errors,
 * oversized bodies as 413, and everything else as a 500 that says nothing of the cause.
 */
export function errorMiddleware(options: ErrorMiddlewareOptions = {}): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const appError = normalizeError(err);
    if (appError.isServerError) {
      // The request id from the response's own header: the line names it even when no request context runs.
      const requestId = res.getHeader('x-request-id');
      options.logger?.error({ ...(typeof requestId === 'string' ? { request_id: requestId } : {}), err: describeForLog(err), path: req.path, method: req.method }, 'request failed');
    }
    options.onError?.(appError, err);
    for (const [name, value] of Object.entries(appError.headers ?? {})) res.setHeader(name, value);
    // Every 503 tells the client when to come back, whoever threw it.
    if (appError.status === 503 && !res.hasHeader('retry-after')) res.setHeader('Retry-After', String(DEPENDENCY_RETRY_AFTER_SECONDS));
    res.status(appError.status).json(toErrorEnvelope(appError));
  };
}

/** Unknown routes are JSON 404s, not express's HTML page. */
export function notFoundHandler(): RequestHandler {
  return (req, res) => {
    res.status(404).json({ detail: `No route matches ${req.method} ${req.path}.`, code: 'not_found' });
  };
}

export function normalizeError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isTsoaValidateError(err)) return new ValidationError(tsoaFieldErrors(err.fields));
  if (isBodyParserError(err)) {
    switch (err.type) {
      case 'entity.parse.failed':
        return new ValidationError([{ field: 'body', message: 'Malformed JSON: the request body could not be parsed.' }], 'Malformed JSON: the request body could not be parsed.');
      case 'entity.too.large':
        return new AppError('payload_too_large', 'The request body is too large.');
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return new AppError('unsupported_media_type', 'The request body encoding is not supported; send UTF-8 JSON.');
      default:
        return new AppError('invalid_request', 'The request body could not be read.');
    }
  }
  // Other client errors of express and its parsers (a path parameter that is not valid percent-encoding) say what is wrong.
  if (isExposedClientError(err)) return new AppError(CLIENT_ERROR_CODES[err.status] ?? 'invalid_request', `The request could not be read: ${err.message}`);
  // A dependency that is down is not a bug: the client may retry, and is told when.
  if (isDependencyUnavailable(err)) {
    return new AppError('service_unavailable', 'A service this request needs (database, cache or queue) is unavailable right now; retry after the time in Retry-After.', {
      headers: { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) },
      cause: err,
    });
  }
  if (isRecordGone(err)) return new AppError('not_found', 'Not found: the resource was deleted, possibly by another request at the same moment.', { cause: err });
  // The last line of defence behind the request checks of service-kit: text PostgreSQL cannot store is the client's.
  if (isUnstorableText(err)) return new AppError('invalid_request', 'The request contains text that cannot be stored (a NUL byte or an invalid character); remove it and retry.', { cause: err });
  // Routes check uniqueness themselves and say which field; one that meets the constraint unchecked (two
  // concurrent requests, a path not foreseen) still gets the client's 409, never a 500.
  if (isUniqueViolation(err)) {
    return new AppError('conflict', 'The request conflicts with an existing record: a value that must be unique is already taken, possibly by a concurrent request. Fetch the current state and retry with another value.', { cause: err });
  }
  return new AppError('internal_error', 'An unexpected error occurred. It has been logged; retry later or contact support with the X-Request-Id.', { cause: err });
}

const CLIENT_ERROR_CODES: Record<number, ErrorCode> = { 404: 'not_found', 405: 'method_not_allowed', 413: 'payload_too_large', 415: 'unsupported_media_type' };

/** An http-errors 4xx (express, body-parser, raw-body): its message is written for the client (`expose`). */
function isExposedClientError(err: unknown): err is { status: number; message: string } {
  if (!(err instanceof Error)) return false;
  const { status, expose } = err as { status?: unknown; expose?: unknown };
  return expose === true && typeof status === 'number' && status >= 400 && status < 500;
}

interface TsoaValidateErrorLike {
  name: string;
  status: number;
  fields: Record<string, { message: string; value?: unknown }>;
}

function isTsoaValidateError(err: unknown): err is TsoaValidateErrorLike {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'ValidateError' && typeof (err as { fields?: unknown }).fields === 'object';
}

interface BodyParserErrorLike {
  type: string;
  status: number;
}

function isBodyParserError(err: unknown): err is BodyParserErrorLike {
  return typeof err === 'object' && err !== null && typeof (err as { type?: unknown }).type === 'string' && typeof (err as { status?: unknown }).status === 'number';
}

/**
 * tsoa names fields like `body.expires_in`, `requestBody.name` or `page`; the client sent `body.x`/`query.x`,
 * so we normalize tsoa's internal parameter names into where the value came from.
 */
function tsoaFieldErrors(fields: TsoaValidateErrorLike['fields']): FieldError[] {
  return Object.entries(fields).map(([name, { message }]) => ({
    field: name.replace(/^requestBody\b/, 'body').replace(/^body\.body\./, 'body.'),
    message: humanizeTsoaMessage(message),
  }));
}

function humanizeTsoaMessage(message: string): string {
  const extra = /"([^"]+)" is an excess property and therefore is not allowed/.exec(message);
  if (extra) return `unknown field "${extra[1]}" is not allowed`;
  return message;
}

function describeForLog(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { type: err.name, message: err.message, stack: err.stack };
  return { type: typeof err };
}
