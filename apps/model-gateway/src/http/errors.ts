import { normalizeError } from '@patchbay/errors';
import { requestIdOf } from '@patchbay/service-kit';
import { VendorError, WireError, renderError, type ErrorType, type GatewayErrorLike, type Surface } from '@patchbay/model-wire';
import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import { sendJson } from './json-body';

/** A rejection on a model endpoint, rendered in the surface's envelope by model-wire. */
export class GatewayError extends Error implements GatewayErrorLike {
  readonly source = 'gateway' as const;
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    message: string,
    readonly code: string | null = null,
    readonly headers?: Record<string, string>,
    readonly param: string | null = null,
    /** Fields added to the rendered error body (the guardrails metadata of a guardrail block). */
    readonly bodyExtra?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/**
 * A management API error: `{detail: "..."}`, or `{detail: {code, message}}` where a caller branches on
 * a code (payment_method_required, org_api_key_limit_reached, invalid_date, project_id_immutable).
 */
export class ManagementError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null = null,
  ) {
    super(message);
  }

  get body(): { detail: string | { code: string; message: string } } {
    return this.code ? { detail: { code: this.code, message: this.message } } : { detail: this.message };
  }
}

const BODY_ERRORS: Record<string, [number, string, string]> = {
  'entity.parse.failed': [400, 'invalid_request_body', 'The body is not valid JSON.'],
  'entity.too.large': [413, 'payload_too_large', 'The request body is too large; send media as URLs instead of inline base64.'],
  'encoding.unsupported': [400, 'malformed_request_body', 'The body encoding is not supported (corrupt or unknown Content-Encoding); send UTF-8 JSON, optionally gzip.'],
  'charset.unsupported': [400, 'malformed_request_body', 'The body charset is not supported; send UTF-8 JSON.'],
  'encoding.corrupt': [400, 'malformed_request_body', 'The request body could not be decompressed (corrupt gzip, deflate or br); send it again, or uncompressed.'],
  'request.aborted': [400, 'malformed_request_body', 'The request body ended early.'],
};

/** Anything thrown on a model endpoint, as model-wire's error shape. */
export function toGatewayErrorLike(err: unknown): GatewayErrorLike {
  if (err instanceof WireError || err instanceof VendorError || err instanceof GatewayError) return err;
  const bodyError = typeof err === 'object' && err !== null ? BODY_ERRORS[(err as { type?: string }).type ?? ''] : undefined;
  if (bodyError) return new GatewayError(bodyError[0], 'invalid_request_error', bodyError[2], bodyError[1]);
  if (typeof err === 'object' && err !== null && (err as { status?: number }).status === 400 && (err as { type?: string }).type) {
    return new GatewayError(400, 'invalid_request_error', 'The request body could not be read (malformed or corrupt gzip).', 'malformed_request_body');
  }
  const app = normalizeError(err);
  if (app.status === 503) return new GatewayError(503, 'service_unavailable', app.message, 'service_unavailable');
  // A client's error the shared mapping recognised (a unique value taken by a concurrent request, a record
  // deleted meanwhile, text that cannot be stored): its status and message in the model envelope, never a 500.
  if (app.status < 500) return new GatewayError(app.status, clientErrorType(app.status), app.message, app.code);
  return new GatewayError(500, 'internal_error', 'An unexpected error occurred in the gateway. Retry later or contact support with the X-Request-Id.', 'internal_error');
}

function clientErrorType(status: number): ErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  return 'invalid_request_error';
}

/** A model endpoint's error in the surface's envelope (plain node response: the hot path runs without express). */
export function sendModelError(res: ServerResponse, surface: Surface, err: unknown, extraHeaders: Record<string, string> = {}): void {
  const rendered = renderError(surface, toGatewayErrorLike(err));
  const extra = err instanceof GatewayError ? err.bodyExtra : undefined;
  sendJson(res, rendered.status, { ...extraHeaders, ...rendered.headers }, extra && typeof rendered.body === 'object' && rendered.body !== null ? { ...rendered.body, ...extra } : rendered.body);
}

/** Error middleware of the management routes. */
export function managementErrorHandler(logger: { error(o: object, m: string): void }): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    if (err instanceof ManagementError) {
      res.status(err.status).json(err.body);
      return;
    }
    if (err instanceof GatewayError) {
      res.status(err.status).json(err.code ? { detail: { code: err.code, message: err.message } } : { detail: err.message });
      return;
    }
    const app = normalizeError(err);
    if (app.isServerError) logger.error({ request_id: requestIdOf(res), err: err instanceof Error ? { type: err.name, message: err.message } : { type: typeof err }, path: req.path }, 'management request failed');
    res.status(app.status).json({ detail: app.status === 400 && app.fieldErrors?.length ? app.fieldErrors.map((f) => `${f.field}: ${f.message}`).join('; ') : app.message });
  };
}
