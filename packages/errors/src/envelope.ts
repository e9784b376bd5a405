import type { FieldError } from './app-error';
import { AppError } from './app-error';

/** The error body of the tool-connector and management APIs. */
export interface ErrorEnvelope {
  detail: string;
  code: string;
  errors?: FieldError[];
  [extra: string]: unknown;
}

export function toErrorEnvelope(error: AppError): ErrorEnvelope {
  const body: ErrorEnvelope = { ...(error.extra ?? {}), detail: error.message, code: error.code };
  if (error.fieldErrors && error.fieldErrors.length > 0) body.errors = error.fieldErrors;
  return body;
}

/** Error types of the model endpoints' envelope (model gateway spec, Error envelope). */
export type ModelErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'invalid_api_key'
  | 'permission_error'
  | 'blocked_by_policy'
  | 'blocked_by_pi_protection'
  | 'not_found_error'
  | 'budget_exceeded'
  | 'payment_failed'
  | 'rate_limit_error'
  | 'provider_error'
  | 'internal_error'
  | 'service_unavailable';

/** The error body of the model endpoints: `{"error": {type, message, code, param, source, provider}}`. */
export interface ModelErrorEnvelope {
  error: {
    type: ModelErrorType;
    message: string;
    code?: string | null;
    param?: string | null;
    source?: string | null;
    provider?: string | null;
  };
}

const MODEL_TYPE_BY_STATUS: Record<number, ModelErrorType> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'budget_exceeded',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  503: 'service_unavailable',
};

export function toModelErrorEnvelope(error: AppError): ModelErrorEnvelope {
  const type = MODEL_TYPE_BY_STATUS[error.status] ?? (error.status >= 500 ? 'internal_error' : 'invalid_request_error');
  return { error: { type, message: error.message, code: error.code, param: error.fieldErrors?.[0]?.field ?? null } };
}
