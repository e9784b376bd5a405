export { refusalBody, SPEND_REFUSALS } from './errors';
export { formatUsd, microsToUsd, usdToMicros } from './headers';
export { periodsAt } from './periods';
export { sqlSpendLedger } from './sql-ledger';
export type { SqlQuery } from './sql-ledger';
export type { PeriodBounds, Periods } from './periods';
export { FREE_PLAN_DAILY_REQUESTS, keyUsageFields, RedisSpendControl, usageInWindow } from './redis-spend-control';
export type { RedisSpendControlOptions } from './redis-spend-control';
export { LeasedSpendControl } from './leases';
export type { LeasedSpendControlOptions } from './leases';
export type {
  AdmitRequest,
  Admission,
  BudgetOwner,
  Environment,
  GrantRecorded,
  KeyUsage,
  LimitReset,
  Micros,
  PeriodWindow,
  RateLimitCounts,
  RecordedSpend,
  Refusal,
  RefusalCode,
  Reservation,
  SpendControl,
  SpendLedger,
  SpendRecordFields,
  SpendSubject,
} from './types';
