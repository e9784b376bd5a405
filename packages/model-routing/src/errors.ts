import { WireError, type ErrorType } from '@patchbay/model-wire';

/**
 * Every code routing refuses a request with, and its status. The 400s are the spec's table ("400
 * invalid request"); `model_not_allowed` (403, allowed_models), `blocked_by_policy` (403, the
 * organization's blocklist) and `routing_policy_not_found` (404) complete the set. Errors are
 * model-wire's WireError, so every surface renders them with `renderError` like any other refusal.
 */
export const ROUTING_ERRORS = {
  model_required: 400,
  invalid_model_format: 400,
  ambiguous_base_model: 400,
  model_unavailable: 400,
  unsupported_endpoint_for_model: 400,
  alias_not_supported: 400,
  alias_routing_policy_conflict: 400,
  routing_policy_mismatch: 400,
  routing_policy_requires_customer: 400,
  routing_policy_requires_project: 400,
  self_hosted_unsupported_strategy: 400,
  invalid_priority_order: 400,
  priority_order_model_conflict: 400,
  priority_order_routing_policy_conflict: 400,
  vendor_unavailable: 400,
  capability_unavailable: 400,
  vendor_restrictions_unavailable: 400,
  zdr_vendor_unavailable: 400,
  unsupported_params: 400,
  project_mismatch: 400,
  customer_mismatch: 400,
  customer_project_conflict: 400,
  invalid_customer: 400,
  invalid_routing_policy_id: 400,
  unknown_tags: 400,
  model_not_allowed: 403,
  blocked_by_policy: 403,
  routing_policy_not_found: 404,
} as const;

export type RoutingErrorCode = keyof typeof ROUTING_ERRORS;

const TYPES: Partial<Record<RoutingErrorCode, ErrorType>> = {
  model_not_allowed: 'permission_error',
  blocked_by_policy: 'blocked_by_policy',
  routing_policy_not_found: 'not_found_error',
};

/** A refusal with the spec's code and status. `type` overrides the code's usual type (a blocklist hit under a policy is a permission_error). */
export function routingError(code: RoutingErrorCode, message: string, param: string | null = null, type?: ErrorType): WireError {
  return new WireError(ROUTING_ERRORS[code], code, message, { param, type: type ?? TYPES[code] ?? 'invalid_request_error' });
}

/** The routing code of an error, when it is one of routing's refusals. */
export function routingCode(error: unknown): RoutingErrorCode | null {
  return error instanceof WireError && error.code !== null && error.code in ROUTING_ERRORS ? (error.code as RoutingErrorCode) : null;
}
