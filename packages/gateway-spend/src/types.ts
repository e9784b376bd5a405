/** Money inside the gateway is integer micro-USD (1e-6 USD); USD numbers only at the edges. */
export type Micros = number;

export type Environment = 'production' | 'test';
export type LimitReset = 'daily' | 'weekly' | 'monthly';

/** Everything the spend control needs to know about who makes a request; the app caches it with the key. */
export interface SpendSubject {
  organizationId: string;
  environment: Environment;
  plan: 'free' | 'paid';
  paymentMethodOnFile: boolean;
  /** The organization's gateway credit: everything granted, of which the non-BYOK spend is drawn. */
  creditMicros: bigint | number;
  key: {
    /** SHA-256 of the raw key, 64 hex characters. */
    hash: string;
    limitMicros: number | null;
    /** The window the limit applies to; null with a limit means all time. */
    limitReset: LimitReset | null;
    /** The request runs on the organization's own vendor key: counts as byok usage, draws no credit. */
    byok: boolean;
  };
  project: { id: string; budgetMicros: number | null } | null;
  /** Customer keys only. */
  customer: { id: string; budgetMicros: number | null; rateLimitRpm: number | null } | null;
}

export interface AdmitRequest {
  subject: SpendSubject;
  /** The worst case: input tokens plus max output at the route's price. */
  reserveMicros: number;
  /** Model requests (not GET, not management calls) count toward the free plan's cap and customer rpm. */
  countsAsModelRequest: boolean;
  /** Milliseconds since 1970, for tests; production leaves it out. */
  now?: number;
}

/**
 * An admitted request's hold on the counters. Plain data: it can be kept with the request, logged
 * or passed between processes. Its `record` fields go on the request's usage record.
 */
export interface Reservation {
  id: string;
  organizationId: string;
  environment: Environment;
  keyHash: string;
  projectId: string | null;
  customerId: string | null;
  byok: boolean;
  reservedMicros: Micros;
  /** When it was counted (the periods it counts in), ms. */
  atMs: number;
  /** After this moment an admit of the organization releases it, as its replica must have died. */
  leaseUntilMs: number;
  /** What the usage record of this request must carry for the counters to be rebuilt from it. */
  record: SpendRecordFields;
  /** The reservation as Redis holds it ('' when admitted against a grant). */
  member: string;
  /** The grant it was admitted against in process (leased admission), or absent: see LeasedSpendControl. */
  grantId?: string;
}

/** A project or a customer whose budget spend is read; its counter is per environment, as admissions count it. */
export interface BudgetOwner {
  kind: 'project' | 'customer';
  id: string;
  environment: Environment;
}

/** What an admission decides about a reservation; the rest comes from its subject (see reservationOf). */
export type ReservationTerms = Pick<Reservation, 'atMs' | 'leaseUntilMs' | 'record' | 'member' | 'grantId'>;

/** A reservation of `reservedMicros` for the subject, on the terms its admission (per request or against a grant) set. */
export function reservationOf(id: string, subject: SpendSubject, reservedMicros: Micros, terms: ReservationTerms): Reservation {
  const reservation: Reservation = {
    id,
    organizationId: subject.organizationId,
    environment: subject.environment,
    keyHash: subject.key.hash,
    projectId: subject.project?.id ?? null,
    customerId: subject.customer?.id ?? null,
    byok: subject.key.byok,
    reservedMicros,
    atMs: terms.atMs,
    leaseUntilMs: terms.leaseUntilMs,
    record: terms.record,
    member: terms.member,
  };
  if (terms.grantId !== undefined) reservation.grantId = terms.grantId;
  return reservation;
}

/**
 * Fields of the usage record each admitted request leaves (exactly one record per admission, with
 * the settled cost, 0 when released), which the SpendLedger sums after Redis lost its data.
 */
export interface SpendRecordFields {
  /** The counters' epoch when the request was counted: `spend_epoch`. */
  epoch: string;
  /** The time the request is counted at (its day, week, month and minute): `counted_at`. */
  countedAtMs: number;
  /** Counted toward the free plan's daily cap. */
  countedModelRequest: boolean;
  /** Counted in the organization's customer rate-limit window. */
  countedInRateLimit: boolean;
  /** The grant it was admitted against (`spend_grant`), or null: a lapsed grant is reconciled from its records. */
  grant: string | null;
}

export type RefusalCode = 'budget_exceeded' | 'payment_failed' | 'api_key_limit_exceeded' | 'free_tier_daily_limit';

export interface Refusal {
  ok: false;
  status: 402 | 429;
  /** null for the customer rate limit, which has no code. */
  code: RefusalCode | null;
  type: 'budget_exceeded' | 'payment_failed' | 'rate_limit_error';
  message: string;
  /** Which limit refused. */
  limit: 'free_tier' | 'customer_rate_limit' | 'organization_credit' | 'project_budget' | 'key_limit' | 'customer_budget';
  retryAfterSeconds?: number;
  headers: Record<string, string>;
}

export type Admission = { ok: true; reservation: Reservation; headers: Record<string, string> } | Refusal;

/** A key's spend in micro-USD, reservations in flight included. */
export interface KeyUsage {
  total: Micros;
  daily: Micros;
  weekly: Micros;
  monthly: Micros;
  byok: { total: Micros; daily: Micros; weekly: Micros; monthly: Micros };
}

/** What X-RateLimit-Remaining is computed from (the admit script's counts). */
export interface RateLimitCounts {
  /** The organization's model requests this UTC day (the free plan's daily cap). */
  requestsToday: number;
  /** Requests of customer keys with rate_limit_rpm in the current fixed minute. */
  rateWindowCount: number;
}

export interface SpendControl {
  /** One Redis round trip. */
  admit(req: AdmitRequest): Promise<Admission>;
  /** The real cost: moves every counter from the reservation to it. Idempotent. */
  settle(reservation: Reservation, actualMicros: number, recordId?: string): Promise<void>;
  /** Nothing was spent (failed attempt). */
  release(reservation: Reservation): Promise<void>;
  /** Settles and releases still gathered for one call, sent now; resolves when they are in Redis (shutdown). */
  flushSettles?(): Promise<void>;
  keyUsage(organizationId: string, keyHash: string, now?: number): Promise<KeyUsage>;
  /**
   * The organization's counts behind X-RateLimit-Remaining, as the admit script reads them (one Redis
   * round trip, nothing counted): for answers decided before admission, so every replica reports the
   * same remaining requests.
   */
  rateLimitCounts?(organizationId: string, now?: number): Promise<RateLimitCounts>;
  /**
   * What projects and customers have drawn on their budgets, all time, in micros, in the order asked:
   * the counters the admissions check (settled spend, plus reservations in flight and grants not yet
   * retired, within a second of settlement). One Redis round trip, nothing counted.
   */
  budgetSpend(organizationId: string, budgets: readonly BudgetOwner[]): Promise<Micros[]>;
  /** After usage records commit: records of an epoch Redis has lost since are added to the rebuilt counters. */
  noteRecorded(organizationId: string, epochs: Iterable<string | null | undefined>): Promise<void>;
}

export interface PeriodWindow {
  startMs: number;
  endMs: number;
}

/**
 * What the usage records of one organization hold, leaving out the records stamped with one epoch
 * (and records without an epoch count). A record counts in a window when `startMs <= counted_at < endMs`.
 */
export interface RecordedSpend {
  /** Sum of cost of the records that ran on platform credentials (byok false), all time, both environments. */
  organizationCreditMicros: Micros;
  /** All-time cost per project (all records, BYOK included). */
  projects: Array<{ environment: Environment; projectId: string; micros: Micros }>;
  /** All-time cost per customer (all records, BYOK included). */
  customers: Array<{ environment: Environment; customerId: string; micros: Micros }>;
  /** Per key: all-time, and in the day, week and month windows; each with its BYOK part. */
  keys: Array<{
    keyHash: string;
    total: Micros;
    byokTotal: Micros;
    day: Micros;
    byokDay: Micros;
    week: Micros;
    byokWeek: Micros;
    month: Micros;
    byokMonth: Micros;
  }>;
  /** Records with countedModelRequest in the day window. */
  modelRequestsInDay: number;
  /** Records with countedInRateLimit in the minute window. */
  rateLimitedRequestsInMinute: number;
}

/** What the usage records of one grant add up to. */
export interface GrantRecorded {
  grantId: string;
  costMicros: Micros;
  /** Records with countedModelRequest. */
  modelRequests: number;
}

/** The durable side of the counters: the app implements it over its usage records. */
export interface SpendLedger {
  /**
   * The records stamped with these grants (`spend_grant`), summed per grant; grants without a record
   * are left out. Without it a grant whose replica died stays debited in full (never less exact).
   */
  grants?(query: { organizationId: string; grantIds: string[] }): Promise<GrantRecorded[]>;
  recorded(query: {
    organizationId: string;
    excludeEpoch: string;
    day: PeriodWindow;
    week: PeriodWindow;
    month: PeriodWindow;
    minute: PeriodWindow;
  }): Promise<RecordedSpend>;
}
