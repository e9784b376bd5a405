import type { Refusal } from './types';

/**
 * The body of a refusal in the gateway's error envelope. Budgets and rate limits refuse before the
 * body is read, so the body carries only type, message and (except the customer rate limit) code.
 * Send it with `refusal.status` and `refusal.headers` (Retry-After included on 429s).
 */
export function refusalBody(refusal: Refusal): { error: { type: string; message: string; code?: string } } {
  return { error: { type: refusal.type, message: refusal.message, ...(refusal.code === null ? {} : { code: refusal.code }) } };
}

/**
 * The refusals the spend control can answer, for documentation and the app's error catalogue:
 * status, type and code of each.
 */
export const SPEND_REFUSALS = [
  { limit: 'organization_credit', status: 402, type: 'budget_exceeded', code: 'budget_exceeded' },
  { limit: 'organization_credit', status: 402, type: 'payment_failed', code: 'payment_failed' },
  { limit: 'project_budget', status: 402, type: 'budget_exceeded', code: 'budget_exceeded' },
  { limit: 'key_limit', status: 402, type: 'budget_exceeded', code: 'api_key_limit_exceeded' },
  { limit: 'customer_budget', status: 402, type: 'budget_exceeded', code: 'budget_exceeded' },
  { limit: 'free_tier', status: 429, type: 'rate_limit_error', code: 'free_tier_daily_limit' },
  { limit: 'customer_rate_limit', status: 429, type: 'rate_limit_error', code: null },
] as const;
