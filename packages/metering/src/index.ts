export { billingCycle, billingCycleBounds, isBillingCycle } from './billing-cycle';
export { rateLimitHeaders } from './headers';
export { Meter, RATE_WINDOW_MS } from './meter';
export type { CycleUsage, MeterDecision, MeterOptions, MeterRefusal, MeterRequest, Plan } from './meter';
