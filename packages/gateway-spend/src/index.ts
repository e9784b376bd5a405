export { refusalBody, SPEND_REFUSALS } from './errors';
export { formatUsd, microsToUsd, usdToMicros } from './headers';
export { periodsAt } from './periods';
export type { PeriodBounds, Periods } from './periods';
export { FREE_PLAN_DAILY_REQUESTS, RedisSpendControl, usageInWindow } from './redis-spend-control';
export type { RedisSpendControlOptions } from './redis-spend-control';
export type {
  AdmitRequest,
  Admission,
  Environment,
  KeyUsage,
  LimitReset,
  Micros,
  PeriodWindow,
  RecordedSpend,
  Refusal,
  RefusalCode,
  Reservation,
  SpendControl,
  SpendLedger,
  SpendRecordFields,
  SpendSubject,
} from './types';
