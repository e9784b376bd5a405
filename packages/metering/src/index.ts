export { billingCycle, billingCycleBounds, isBillingCycle, previousBillingCycle } from './billing-cycle';
export { rateLimitHeaders } from './headers';
export { luaScript, runLua } from './lua-script';
export type { LuaScript } from './lua-script';
export { Meter, RATE_WINDOW_MS } from './meter';
export type { CycleUsage, MeterDecision, MeterLedger, MeterOptions, MeterRefusal, MeterRequest, Plan, RecordedUsage } from './meter';
export { CountersUnavailableError, RebuildableCounters, counterScript } from './rebuildable-counters';
export type { CounterRebuild, CounterScript, CountersLogger, RebuildContext, RebuildableCountersOptions, RebuiltCounter, RebuiltEntry } from './rebuildable-counters';
