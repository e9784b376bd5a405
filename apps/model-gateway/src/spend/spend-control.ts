/**
 * The seam with packages/gateway-spend (issue 9 §6, built in parallel): the gateway calls these
 * methods exactly as the contract gives them. Money is integer micro-USD inside; USD at the edges.
 * Until the package lands, `AdmitAllSpendControl` stands in behind the same interface.
 */
export interface SpendSubject {
  organizationId: string;
  environment: 'production' | 'test';
  plan: 'free' | 'paid';
  paymentMethodOnFile: boolean;
  creditMicros: bigint | number;
  key: { hash: string; limitMicros: number | null; limitReset: 'daily' | 'weekly' | 'monthly' | null; byok: boolean };
  project: { id: string; budgetMicros: number | null } | null;
  customer: { id: string; budgetMicros: number | null; rateLimitRpm: number | null } | null;
}

export interface Reservation {
  reserveMicros: number;
  subject: SpendSubject;
  [extra: string]: unknown;
}

export interface AdmitRequest {
  subject: SpendSubject;
  reserveMicros: number;
  countsAsModelRequest: boolean;
  now?: number;
}

export type Admission =
  | { ok: true; reservation: Reservation; headers: Record<string, string> }
  | {
      ok: false;
      status: 402 | 429;
      code: 'budget_exceeded' | 'payment_failed' | 'api_key_limit_exceeded' | 'free_tier_daily_limit' | null;
      type: string;
      message: string;
      retryAfterSeconds?: number;
      headers: Record<string, string>;
    };

/** Micro-USD spent by a key: in its limit window, today, this week, this month; and the BYOK parts. */
export interface KeyUsage {
  usage: number;
  usage_daily: number;
  usage_weekly: number;
  usage_monthly: number;
  byok_usage: number;
  byok_usage_daily: number;
  byok_usage_weekly: number;
  byok_usage_monthly: number;
}

export interface SpendControl {
  admit(req: AdmitRequest): Promise<Admission>;
  settle(reservation: Reservation, actualMicros: number, recordId: string): Promise<void>;
  release(reservation: Reservation): Promise<void>;
  keyUsage(keyHash: string, now?: number): Promise<KeyUsage>;
}
