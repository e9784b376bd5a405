import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Cluster, Redis } from 'ioredis';
import { CLOSE_LAPSED_SCRIPT, GRANT_SCRIPT, REPORT_SCRIPT } from './lua';
import { periodsAt, type Periods } from './periods';
import { budgetField, RedisSpendControl, requireInteger, scopeOf, validateSubject, windowOf, type RedisSpendControlOptions } from './redis-spend-control';
import { reservationOf, type AdmitRequest, type BudgetOwner, type Admission, type KeyUsage, type RateLimitCounts, type Reservation, type SpendControl, type SpendLedger, type SpendSubject } from './types';

export interface LeasedSpendControlOptions extends RedisSpendControlOptions {
  /**
   * How long a grant admits requests (Redis time), ms. Default 1000: a lowered limit, a changed
   * budget, a disabled key or a period's end reaches every replica within it, since a replica asks
   * for a new grant (judged against the limits of that moment) at least that often.
   */
  grantWindowMs?: number;
  /** A grant is sized for this many windows of the lane's recent demand. Default 2. */
  demandWindows?: number;
  /**
   * Near a limit nothing is granted: while the headroom is below this many worst-case requests per
   * active replica, every request goes through the per-request script. Default 4.
   */
  nearRequests?: number;
  /** Reports of an organization's grants are gathered this long into one call. Default 5 ms. */
  reportBatchMs?: number;
  /**
   * One grant takes at most this share of the replica's part of the headroom (headroom divided by the
   * active replicas). Default 0.25: far from a limit demand sizes grants, near one they stay small, so
   * little headroom sits unused in other replicas' grants when a burst ends. (0, 1].
   */
  headroomShare?: number;
  /** After a refused grant a lane stays per request this long before it asks again. Default 250 ms. */
  retryGrantMs?: number;
  /** No grant this long after Redis began a new epoch (lost its data): default grantWindowMs. */
  learningMs?: number;
  /** This replica's name among the active ones that share the headroom. Default a random id. */
  replicaId?: string;
}

interface Snapshot {
  creditDrawn: number;
  projectSpent: number;
  customerSpent: number;
  keySpent: number;
  requestsToday: number;
}

interface Grant {
  id: string;
  scope: string;
  organizationId: string;
  epoch: string;
  keyHash: string;
  size: number;
  byok: boolean;
  /** Settled cost of the requests admitted against it. */
  used: number;
  /** Reservations in flight against it. */
  held: number;
  /** Model requests admitted against it. */
  count: number;
  seq: number;
  open: Map<string, number>;
  /** Redis time when it was granted, and this process's clock when it was asked for (before). */
  redisNow: number;
  sentAt: number;
  untilMs: number;
  /** performance.now() after which it admits nothing: never later than its Redis admission end. */
  deadline: number;
  retired: boolean;
  snapshot: Snapshot;
  periods: Periods;
  timer: NodeJS.Timeout | null;
}

interface Lane {
  fingerprint: string;
  grant: Grant | null;
  asking: Promise<Grant | null> | null;
  noGrantUntil: number;
  worst: number;
  /** Reserved micro-USD in the current and the previous window, for the demand a grant is sized by. */
  demand: number;
  lastDemand: number;
  demandSince: number;
  lastUse: number;
}

type GrantReply = [number, number, number, number, number, number, number, number, number, number, number];

const LANES_MAX = 10_000;

/**
 * Leased admission: the per-request spend control of RedisSpendControl with grants in front of it.
 * A replica asks Redis (one atomic script over every counter of a lane: credit, project, customer,
 * the key all time and in its windows) for a slice of headroom sized by its lane's recent demand and
 * by the headroom split among the active replicas, admits requests against it in process, and reports
 * what they cost in gathered, idempotent calls (grant id + sequence). Free-plan model requests and
 * customer keys with a requests-per-minute limit are counted per request, as are all requests near
 * a limit (no grant is given there). See the package README, "Leased admission".
 */
export class LeasedSpendControl implements SpendControl {
  /** The per-request admission, used whenever no grant serves a request. */
  readonly perRequest: RedisSpendControl;
  private readonly ledger: SpendLedger;
  private readonly windowMs: number;
  private readonly demandWindows: number;
  private readonly nearRequests: number;
  private readonly reportBatchMs: number;
  private readonly retryGrantMs: number;
  private readonly headroomShare: number;
  private readonly learningMs: number;
  private readonly replicaId: string;
  private readonly lanes = new Map<string, Lane>();
  private readonly grants = new Map<string, Grant>();
  /** Grants with a report to send, by scope; and the scope's reports being sent. */
  private readonly toReport = new Map<string, Set<Grant>>();
  private readonly reporting = new Map<string, Promise<void>>();
  private reportTimer: NodeJS.Timeout | null = null;
  private readonly reconciling = new Map<string, number>();
  private closed = false;

  constructor(
    private readonly redis: Redis | Cluster,
    options: LeasedSpendControlOptions,
  ) {
    this.perRequest = new RedisSpendControl(redis, options);
    this.ledger = options.ledger;
    this.windowMs = options.grantWindowMs ?? 1000;
    this.demandWindows = options.demandWindows ?? 2;
    this.nearRequests = options.nearRequests ?? 4;
    this.reportBatchMs = options.reportBatchMs ?? 5;
    this.retryGrantMs = options.retryGrantMs ?? 250;
    this.headroomShare = options.headroomShare ?? 0.25;
    if (!(this.headroomShare > 0 && this.headroomShare <= 1)) throw new RangeError(`headroomShare must be in (0, 1], got ${this.headroomShare}`);
    this.learningMs = options.learningMs ?? this.windowMs;
    this.replicaId = options.replicaId ?? randomUUID();
    requireInteger('grantWindowMs', this.windowMs, 200);
    requireInteger('nearRequests', this.nearRequests, 1);
    requireInteger('reportBatchMs', this.reportBatchMs, 0);
    requireInteger('learningMs', this.learningMs, 0);
  }

  async admit(req: AdmitRequest): Promise<Admission> {
    const { subject } = req;
    const rpm = subject.customer?.rateLimitRpm ?? null;
    // Small counts are judged per request: the free plan's 15 a day, a customer key's rpm. So is a
    // request at a given time (tests), since grants run on Redis's clock.
    const leasable = req.now === undefined && !this.closed && (!req.countsAsModelRequest || (subject.plan === 'paid' && rpm === null));
    if (!leasable) return this.admitPerRequest(req);
    validateSubject(subject);
    requireInteger('reserveMicros', req.reserveMicros, 0);
    const lane = this.laneOf(subject);
    const now = performance.now();
    this.noteDemand(lane, req.reserveMicros, now);
    let grant = this.usable(lane.grant, req.reserveMicros, now);
    if (!grant) {
      if (now < lane.noGrantUntil && !lane.asking) return this.admitPerRequest(req);
      lane.asking ??= this.ask(lane, subject, req.reserveMicros);
      try {
        await lane.asking;
      } catch {
        // Redis did not answer the grant: the per-request script says so with its own error (503).
      }
      grant = this.usable(lane.grant, req.reserveMicros, performance.now());
      if (!grant) return this.admitPerRequest(req);
    } else if (!lane.asking && (grant.deadline - now < this.windowMs / 4 || grant.used + grant.held + req.reserveMicros > grant.size * 0.75)) {
      // Ask for the next grant before this one runs out, so requests seldom wait for one.
      lane.asking = this.ask(lane, subject, req.reserveMicros);
      lane.asking.catch(() => undefined);
    }
    return this.admitLocally(grant, req);
  }

  private admitLocally(grant: Grant, req: AdmitRequest): Admission {
    const { subject } = req;
    const id = randomUUID();
    grant.held += req.reserveMicros;
    grant.open.set(id, req.reserveMicros);
    if (req.countsAsModelRequest) grant.count += 1;
    const countedAtMs = Math.min(grant.untilMs - 1, Math.floor(grant.redisNow + (performance.now() - grant.sentAt)));
    const reservation = reservationOf(id, subject, req.reserveMicros, {
      atMs: countedAtMs,
      leaseUntilMs: grant.untilMs + this.perRequest.leaseMs,
      record: { epoch: grant.epoch, countedAtMs, countedModelRequest: req.countsAsModelRequest, countedInRateLimit: false, grant: grant.id },
      member: '',
      grantId: grant.id,
    });
    // Budget headers from the counts at the grant, with this replica's own part exact: the grant's
    // unused rest is not counted, other replicas' spend since the grant is not yet seen.
    const mine = grant.used + grant.held - grant.size;
    const s = grant.snapshot;
    const headers = this.perRequest.headersOf(
      subject,
      grant.periods,
      {
        requestsToday: s.requestsToday + grant.count,
        rateWindowCount: 0,
        creditDrawn: grant.byok ? s.creditDrawn : s.creditDrawn + mine,
        projectSpent: s.projectSpent + mine,
        keySpent: s.keySpent + mine,
      },
      req.countsAsModelRequest,
    );
    return { ok: true, reservation, headers };
  }

  private usable(grant: Grant | null, reserve: number, now: number): Grant | null {
    if (!grant || grant.retired) return null;
    if (now >= grant.deadline) {
      this.retire(grant);
      return null;
    }
    return grant.used + grant.held + reserve <= grant.size ? grant : null;
  }

  private async admitPerRequest(req: AdmitRequest): Promise<Admission> {
    // Reports of the organization's grants go first: the per-request script then sees what they
    // returned and the model requests they counted (the free plan's cap reads them).
    const scope = scopeOf(req.subject.organizationId);
    if (this.toReport.has(scope)) void this.sendReports(scope);
    const sending = this.reporting.get(scope);
    if (sending) await sending.catch(() => undefined);
    const admission = await this.perRequest.admit(req);
    if (admission.ok) this.noteEpoch(scope, admission.reservation.record.epoch);
    return admission;
  }

  private laneOf(subject: SpendSubject): Lane {
    const pf = subject.project ? encodeURIComponent(subject.project.id) : '-';
    const cf = subject.customer ? encodeURIComponent(subject.customer.id) : '-';
    const key = `${subject.organizationId}|${subject.environment}|${subject.key.byok ? 1 : 0}|${subject.key.hash}|${pf}|${cf}`;
    // Every limit the grant was judged against: a change retires the grant at once on this replica.
    const fingerprint = [
      subject.plan, subject.paymentMethodOnFile ? 1 : 0, String(subject.creditMicros), subject.key.limitMicros ?? '', subject.key.limitReset ?? '',
      subject.project?.budgetMicros ?? '', subject.customer?.budgetMicros ?? '', subject.customer?.rateLimitRpm ?? '',
    ].join('|');
    let lane = this.lanes.get(key);
    const now = performance.now();
    if (!lane) {
      if (this.lanes.size >= LANES_MAX) this.dropIdleLanes(now);
      lane = { fingerprint, grant: null, asking: null, noGrantUntil: 0, worst: 0, demand: 0, lastDemand: 0, demandSince: now, lastUse: now };
      this.lanes.set(key, lane);
    } else if (lane.fingerprint !== fingerprint) {
      if (lane.grant) this.retire(lane.grant);
      lane.fingerprint = fingerprint;
      lane.noGrantUntil = 0;
    }
    lane.lastUse = now;
    return lane;
  }

  private dropIdleLanes(now: number): void {
    for (const [key, lane] of this.lanes) {
      if (now - lane.lastUse > 60_000 && !lane.asking && (!lane.grant || lane.grant.retired)) this.lanes.delete(key);
    }
  }

  private noteDemand(lane: Lane, reserve: number, now: number): void {
    if (now - lane.demandSince >= this.windowMs) {
      lane.lastDemand = now - lane.demandSince >= 2 * this.windowMs ? 0 : lane.demand;
      lane.demand = 0;
      lane.demandSince = now;
    }
    lane.demand += reserve;
    lane.worst = Math.max(reserve, lane.worst);
  }

  /** Asks Redis for a grant for the lane; resolves with it, or null when none was given. */
  private async ask(lane: Lane, subject: SpendSubject, reserve: number): Promise<Grant | null> {
    try {
      const worst = Math.max(reserve, lane.worst, 1);
      const want = Math.max(this.nearRequests * worst, Math.ceil(Math.max(lane.demand, lane.lastDemand) * this.demandWindows));
      // The periods are this replica's guess; the script gives nothing when Redis's time is in another day.
      const periods = periodsAt(Date.now());
      const id = randomUUID();
      const scope = scopeOf(subject.organizationId);
      const pf = subject.project ? budgetField('project', subject.environment, subject.project.id) : '-';
      const cf = subject.customer ? budgetField('customer', subject.environment, subject.customer.id) : '-';
      const args: Array<string | number> = [
        want, worst, subject.key.byok ? '1' : '0', subject.key.hash, subject.key.limitMicros ?? '', windowOf(subject.key.limitReset, subject.key.limitMicros),
        String(subject.creditMicros), pf, subject.project?.budgetMicros ?? '', cf, subject.customer?.budgetMicros ?? '', id, this.replicaId,
        this.windowMs, this.perRequest.leaseMs, periods.day.label, periods.week.label, periods.month.label,
        periods.day.endMs, periods.week.endMs, periods.month.endMs, this.nearRequests, this.learningMs, Math.max(5 * this.windowMs, 5_000), this.headroomShare,
      ];
      const sentAt = performance.now();
      const { epoch, reply } = await this.perRequest.counters.run<GrantReply>(GRANT_SCRIPT, scope, ['t', `d:${periods.day.label}`, `w:${periods.week.label}`, `m:${periods.month.label}`, 'g', 'gz', 'gx', 'gc', 'gr', 'gs'], args);
      const [code, size, redisNow, untilMs, creditDrawn, projectSpent, customerSpent, keySpent, requestsToday, , lapsed] = reply;
      this.noteEpoch(scope, epoch);
      if (lapsed > 0) void this.reconcileLapsed(subject.organizationId);
      if (code !== 0) {
        lane.noGrantUntil = performance.now() + this.retryGrantMs;
        return null;
      }
      const grant: Grant = {
        id, scope, organizationId: subject.organizationId, epoch, keyHash: subject.key.hash, size, byok: subject.key.byok, used: 0, held: 0, count: 0, seq: 0, open: new Map(),
        redisNow, sentAt, untilMs, deadline: sentAt + (untilMs - redisNow), retired: false,
        snapshot: { creditDrawn, projectSpent, customerSpent, keySpent, requestsToday }, periods: periodsAt(redisNow), timer: null,
      };
      this.grants.set(id, grant);
      grant.timer = setTimeout(() => this.retire(grant), Math.max(0, grant.deadline - performance.now()));
      grant.timer.unref();
      const previous = lane.grant;
      lane.grant = grant;
      lane.worst = 0;
      if (previous) this.retire(previous);
      if (this.closed) this.retire(grant);
      return grant;
    } finally {
      lane.asking = null;
    }
  }

  /** Admits nothing more against the grant and reports what it holds (closing it once nothing is in flight). */
  private retire(grant: Grant): void {
    if (grant.retired) return;
    grant.retired = true;
    if (grant.timer) clearTimeout(grant.timer);
    grant.timer = null;
    this.queueReport(grant);
  }

  /** A grant of an epoch Redis has lost is gone with it: its records carry its cost. */
  private noteEpoch(scope: string, epoch: string): void {
    for (const grant of this.grants.values()) {
      if (grant.scope === scope && grant.epoch !== epoch) {
        this.retire(grant);
      }
    }
  }

  private queueReport(grant: Grant): void {
    let set = this.toReport.get(grant.scope);
    if (!set) {
      set = new Set();
      this.toReport.set(grant.scope, set);
    }
    set.add(grant);
    if (!this.reportTimer) {
      // Never what keeps a process alive: shutdown sends the reports itself (flushSettles).
      this.reportTimer = setTimeout(() => this.sendAllReports(), this.reportBatchMs);
      this.reportTimer.unref();
    }
  }

  private sendAllReports(): void {
    if (this.reportTimer) clearTimeout(this.reportTimer);
    this.reportTimer = null;
    for (const scope of [...this.toReport.keys()]) void this.sendReports(scope);
  }

  /** Sends the scope's reports now, after the ones being sent; a failed report is sent again later. */
  private sendReports(scope: string): Promise<void> {
    const set = this.toReport.get(scope);
    if (!set) return this.reporting.get(scope) ?? Promise.resolve();
    this.toReport.delete(scope);
    const before = this.reporting.get(scope) ?? Promise.resolve();
    const sent = before.catch(() => undefined).then(async () => {
      const grants = [...set];
      const args: Array<string | number> = [];
      const finals: boolean[] = [];
      for (const g of grants) {
        g.seq += 1;
        const final = g.retired && g.held === 0;
        finals.push(final);
        // An open grant keeps at least its size debited: the replica may still admit up to it.
        args.push(g.id, g.seq, g.retired ? g.used + g.held : Math.max(g.size, g.used + g.held), g.count, final ? '1' : '0');
      }
      try {
        await this.perRequest.counters.run<number[]>(REPORT_SCRIPT, scope, ['t', 'g', 'gz', 'gx', 'gc'], args);
      } catch (err) {
        // Sent again with its next sequence: the numbers are absolute, a repeat counts once.
        setTimeout(() => grants.forEach((g) => this.queueReport(g)), 250).unref();
        throw err;
      }
      grants.forEach((g, i) => {
        if (finals[i]) this.grants.delete(g.id);
      });
    });
    this.reporting.set(scope, sent);
    void sent.then(
      () => {
        if (this.reporting.get(scope) === sent) this.reporting.delete(scope);
      },
      () => {
        if (this.reporting.get(scope) === sent) this.reporting.delete(scope);
      },
    );
    return sent;
  }

  async settle(reservation: Reservation, actualMicros: number, recordId?: string): Promise<void> {
    if (reservation.grantId === undefined) return this.perRequest.settle(reservation, actualMicros, recordId);
    requireInteger('actualMicros', actualMicros, 0);
    const grant = this.grants.get(reservation.grantId);
    const reserved = grant?.open.get(reservation.id);
    // Settled before (or its grant is gone with Redis's data): nothing to do, its record carries the cost.
    if (!grant || reserved === undefined) return;
    grant.open.delete(reservation.id);
    grant.held -= reserved;
    grant.used += actualMicros;
    if (grant.retired && grant.held === 0) this.queueReport(grant);
    // A request that cost more than it reserved: the grant's counters go up now, as a per-request
    // settle would, and later requests on the replica see it in the grant's room.
    else if (actualMicros > reserved && grant.used + grant.held > grant.size) this.queueReport(grant);
  }

  release(reservation: Reservation): Promise<void> {
    return this.settle(reservation, 0);
  }

  /** Retires every grant, reports them and sends the per-request settles (shutdown, tests). */
  async flushSettles(): Promise<void> {
    for (const grant of this.grants.values()) this.retire(grant);
    this.sendAllReports();
    await Promise.all([...this.reporting.values()].map((p) => p.catch(() => undefined)));
    if (this.toReport.size > 0) {
      this.sendAllReports();
      await Promise.all([...this.reporting.values()]);
    }
    await this.perRequest.flushSettles();
  }

  /**
   * The key's usage as the counters hold it. This replica's grants of the key are retired and
   * reported first (their unused rest returned), so a read here sees what its requests cost; other
   * replicas' grants count as reserved until they retire (within a window).
   */
  async keyUsage(organizationId: string, keyHash: string, now?: number): Promise<KeyUsage> {
    const scope = scopeOf(organizationId);
    let retired = false;
    for (const grant of this.grants.values()) {
      if (grant.scope === scope && grant.keyHash === keyHash && !grant.retired) {
        this.retire(grant);
        retired = true;
      }
    }
    if (retired || this.toReport.has(scope)) await this.sendReports(scope).catch(() => undefined);
    return this.perRequest.keyUsage(organizationId, keyHash, now);
  }

  /** Outstanding grants of any replica count as drawn until they retire (within a window), as reservations do. */
  budgetSpend(organizationId: string, budgets: readonly BudgetOwner[]): Promise<number[]> {
    return this.perRequest.budgetSpend(organizationId, budgets);
  }

  /** Free-plan requests and customer keys with an rpm are admitted per request: their counts are exact in Redis. */
  rateLimitCounts(organizationId: string, now?: number): Promise<RateLimitCounts> {
    return this.perRequest.rateLimitCounts(organizationId, now);
  }

  noteRecorded(organizationId: string, epochs: Iterable<string | null | undefined>): Promise<void> {
    return this.perRequest.noteRecorded(organizationId, epochs);
  }

  /**
   * Grants whose replica died lapse and stay debited in full; this closes them with what their usage
   * records add up to. Runs when a grant call sees lapsed grants, at most once per 10 s per organization.
   */
  reconcileLapsed(organizationId: string): Promise<number> {
    const scope = scopeOf(organizationId);
    const last = this.reconciling.get(scope);
    if (!this.ledger.grants || (last !== undefined && performance.now() - last < 10_000)) return Promise.resolve(0);
    this.reconciling.set(scope, performance.now());
    return this.closeLapsed(organizationId).catch(() => 0);
  }

  /** @internal Closes the organization's lapsed grants from their records now (tests call it). */
  async closeLapsed(organizationId: string): Promise<number> {
    const grantsOf = this.ledger.grants?.bind(this.ledger);
    if (!grantsOf) return 0;
    const scope = scopeOf(organizationId);
    const ids = await this.redis.zrange(this.perRequest.counters.keyOf(scope, 'gx'), 0, 99);
    if (ids.length === 0) return 0;
    const recorded = new Map((await grantsOf({ organizationId, grantIds: ids })).map((r) => [r.grantId, r]));
    const args: Array<string | number> = [];
    for (const id of ids) args.push(id, recorded.get(id)?.costMicros ?? 0, recorded.get(id)?.modelRequests ?? 0);
    const { reply } = await this.perRequest.counters.run<number>(CLOSE_LAPSED_SCRIPT, scope, ['t', 'g', 'gz', 'gx', 'gc'], args);
    return reply;
  }

  /** Retires the grants and reports them; stops the counters' timers. Await flushSettles() before closing Redis. */
  close(): void {
    this.closed = true;
    for (const grant of this.grants.values()) this.retire(grant);
    this.sendAllReports();
    this.perRequest.close();
  }
}
