/**
 * The closed set of error identifiers of the tool-connector and management APIs,
 * each with its one HTTP status. Add a code here before throwing it anywhere.
 */
export const ERROR_STATUS = {
  validation_error: 400,
  invalid_request: 400,
  authentication_failed: 401,
  billing_limit_reached: 402,
  permission_denied: 403,
  key_scope_violation: 403,
  not_found: 404,
  not_in_scope: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  bad_gateway: 502,
  service_unavailable: 503,
  gateway_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Messages the spec gives word for word. */
export const SPEC_MESSAGES = {
  notInScope: 'Resource not in API key scope.',
  keyScopeViolation: 'Access key may only act on itself or on keys within its scope.',
} as const;
