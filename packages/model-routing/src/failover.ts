import { VendorError, type NormalizedUsage, type VendorErrorKind } from '@patchbay/model-wire';
import { costMicros } from './cost';
import type { RouteHealth, RouteHealthSnapshot } from './health';
import { FALLBACK_TIERS, STANDARD_TIER, type Route, type RouteDecision } from './resolve';

/**
 * Which vendor failures move on to the next route (spec, Failover 1 and 2), and which of them say
 * the route is unwell (they count toward its circuit breaker).
 *
 * | kind | fails over | counts against the route |
 * |---|---|---|
 * | rate_limit, overloaded, server, timeout, network | yes | yes |
 * | stream_cut, stall, malformed (before the first token reaches the client) | yes | yes |
 * | billing (the platform's account at the vendor), not_found (vendor 404) | yes | yes |
 * | content_filter (400 or refused 200): never to another vendor of the same model | yes | no |
 * | output_budget_exhausted, empty_response (the failing 200s, non-streaming) | yes | no |
 * | auth (vendor 401/403: a credential), context_length, invalid_request (the request itself) | no | auth only |
 *
 * The gateway's own refusals (400 to 404, budget 402) are not VendorErrors and never fail over.
 */
const FAILS_OVER: Record<VendorErrorKind, boolean> = {
  rate_limit: true,
  overloaded: true,
  server: true,
  timeout: true,
  network: true,
  stream_cut: true,
  stall: true,
  malformed: true,
  billing: true,
  not_found: true,
  content_filter: true,
  output_budget_exhausted: true,
  empty_response: true,
  auth: false,
  context_length: false,
  invalid_request: false,
};

const UNWELL: ReadonlySet<VendorErrorKind> = new Set<VendorErrorKind>(['rate_limit', 'overloaded', 'server', 'timeout', 'network', 'stream_cut', 'stall', 'malformed', 'billing', 'not_found', 'auth']);

export interface FailoverVerdict {
  failover: boolean;
  /** Counts toward the route's circuit breaker. */
  countsAgainstRoute: boolean;
  /** A refusal: the other vendors of the same model would refuse the same way. */
  excludeSameModel: boolean;
}

/** The verdict on one failed attempt. A failure after tokens reached the client never fails over. */
export function failoverVerdict(error: unknown): FailoverVerdict {
  if (!(error instanceof VendorError)) return { failover: false, countsAgainstRoute: false, excludeSameModel: false };
  return {
    failover: FAILS_OVER[error.kind] && !error.afterFirstToken,
    countsAgainstRoute: UNWELL.has(error.kind),
    excludeSameModel: error.kind === 'content_filter',
  };
}

/** A vendor 429 or 503 (Anthropic's 529 and Gemini's UNAVAILABLE are its forms): what service_tier_fallback retries at standard. */
function tierFallbackApplies(error: VendorError): boolean {
  return error.kind === 'rate_limit' || error.kind === 'overloaded';
}

export interface AttemptContext {
  /** 0 for the first attempt. */
  attempt: number;
  /** This attempt is the service_tier_fallback retry at standard. */
  tierRetry: boolean;
  /**
   * Pass as model-wire's `failEmpty`: true when a 200 with no usable answer (a content-filter
   * finish, all output spent on reasoning, nothing at all) should fail over: non-streaming
   * requests that have a route left. The last route's such 200 is returned as it is.
   */
  failEmpty: boolean;
}

/** One attempt as routing metadata and the bench report it. */
export interface AttemptRecord {
  model: string;
  vendor: string;
  serviceTier: string;
  /** `ok`, or the failure's code (`provider_overloaded`, `budget_exceeded`…). */
  outcome: string;
  latencyMs: number;
  /** What the attempt cost at its route's price (0 when it consumed nothing). */
  costMicros: number;
}

export interface FailedAttempt {
  route: Route;
  error: unknown;
  /** What the attempt consumed (a refused 200, a stream cut after tokens), null when nothing. */
  usage: NormalizedUsage | null;
  /** `usage` at the route's price; 0 when nothing was consumed: release the reservation, bill nothing. */
  costMicros: number;
}

export interface FailoverHooks {
  /** Admit the attempt at its route's price (SpendControl.admit). Throwing stops the chain with that error (a budget 402 never fails over). */
  beforeAttempt?(route: Route, context: AttemptContext): Promise<void> | void;
  /** A failed attempt: settle what it cost at its route, or release its reservation when it cost nothing. */
  attemptFailed?(failed: FailedAttempt): Promise<void> | void;
  /** Moving from one route to the next (the native stream writes its `fallback_restart` marker here once open). */
  onFailover?(from: Route, error: VendorError, to: Route): void;
}

export interface FailoverOptions {
  health?: RouteHealth | null;
  hooks?: FailoverHooks;
  /** Whether the client asked for a stream: the failing 200s fail over on non-streaming requests only. */
  stream: boolean;
  /** The client went away: no further attempts. */
  signal?: { readonly aborted: boolean };
  now?: () => number;
}

export type FailoverResult<T> =
  | { ok: true; value: T; route: Route; attempts: AttemptRecord[]; skipped: Route[]; settled: Promise<void> }
  | { ok: false; error: unknown; route: Route | null; attempts: AttemptRecord[]; skipped: Route[]; settled: Promise<void> };

/**
 * Routes in the order to try them, after the health snapshot: lowest_latency sorts by measured
 * latency (unmeasured routes after, in their cost order); routes whose breaker is open are skipped,
 * unless every route is open (then all are tried in order rather than failing without trying).
 */
export function orderByHealth(decision: RouteDecision, health: RouteHealthSnapshot[]): { routes: Route[]; skipped: Route[] } {
  let indexed = decision.routes.map((route, i) => ({ route, i, h: health[i] ?? { state: 'closed' as const, latencyMs: null } }));
  if (decision.strategy === 'lowest_latency') {
    indexed = [...indexed].sort((a, b) => (a.h.latencyMs ?? Number.POSITIVE_INFINITY) - (b.h.latencyMs ?? Number.POSITIVE_INFINITY) || a.i - b.i);
  }
  const usable = indexed.filter((x) => x.h.state !== 'open');
  if (usable.length === 0) return { routes: indexed.map((x) => x.route), skipped: [] };
  return { routes: usable.map((x) => x.route), skipped: indexed.filter((x) => x.h.state === 'open').map((x) => x.route) };
}

/**
 * What a failed attempt consumed, for billing. A failure before the vendor sent any token (a
 * first-token timeout, a malformed first frame) carries only model-wire's estimate of the input and
 * no output: the vendor gave nothing, so it bills nothing. A refused 200 (the vendor's own counts)
 * and a stream cut after tokens (output estimated from what arrived) are billed.
 */
export function billableUsage(error: unknown): NormalizedUsage | null {
  if (!(error instanceof VendorError) || !error.usage) return null;
  if (error.usage.estimated && error.usage.outputTokens === 0) return null;
  return error.usage;
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' ? code : 'internal_error';
}

/**
 * Runs a request over its routes (spec, Failover): each route is admitted, attempted and, when it
 * fails with a failure that fails over, the next route is tried. Streams: `attempt` resolves once
 * the first token has arrived (model-wire's streamVendor), so everything it throws happened before
 * any token reached the client; a failure after that is the caller's to render as a frame, never
 * failed over. service_tier_fallback: a flex, priority or ultrafast attempt that gets a vendor 429
 * or 503 is retried once, on the same route at standard, before moving on. When every route fails,
 * the last failure is the result. A successful attempt's cost is the caller's to settle (a stream's
 * usage arrives at its end); failed attempts go to `hooks.attemptFailed` with what they cost.
 */
export async function runWithFailover<T>(decision: RouteDecision, attempt: (route: Route, context: AttemptContext) => Promise<T>, options: FailoverOptions): Promise<FailoverResult<T>> {
  const now = options.now ?? Date.now;
  const hooks = options.hooks ?? {};
  const health = options.health ?? null;
  const recordings: Array<Promise<unknown>> = [];
  const settled = (): Promise<void> => Promise.all(recordings).then(() => undefined);

  let queue: Route[] = decision.routes;
  let skipped: Route[] = [];
  if (health && decision.routes.length > 1) {
    ({ routes: queue, skipped } = orderByHealth(decision, await health.snapshot(decision.routes)));
  }
  queue = [...queue];

  const attempts: AttemptRecord[] = [];
  const excludedModels = new Set<string>();
  let tierRetryUsed = false;
  let tierRetryNext = false;
  let lastError: unknown = null;
  let lastRoute: Route | null = null;

  for (let n = 0; queue.length > 0; n++) {
    const route = queue.shift()!;
    const tierRetry = tierRetryNext;
    tierRetryNext = false;
    const remaining = queue.some((r) => !excludedModels.has(r.model));
    const context: AttemptContext = { attempt: n, tierRetry, failEmpty: !options.stream && decision.failover && remaining };
    const started = now();
    try {
      await hooks.beforeAttempt?.(route, context);
    } catch (err) {
      attempts.push({ model: route.model, vendor: route.vendor, serviceTier: route.serviceTier, outcome: codeOf(err), latencyMs: 0, costMicros: 0 });
      return { ok: false, error: err, route, attempts, skipped, settled: settled() };
    }
    try {
      const value = await attempt(route, context);
      const latencyMs = now() - started;
      attempts.push({ model: route.model, vendor: route.vendor, serviceTier: route.serviceTier, outcome: 'ok', latencyMs, costMicros: 0 });
      if (health) recordings.push(health.record(route, { ok: true, countsAgainstRoute: false, latencyMs }));
      return { ok: true, value, route, attempts, skipped, settled: settled() };
    } catch (err) {
      const latencyMs = now() - started;
      const usage = billableUsage(err);
      const cost = costMicros(route.price, usage);
      attempts.push({ model: route.model, vendor: route.vendor, serviceTier: route.serviceTier, outcome: codeOf(err), latencyMs, costMicros: cost });
      await hooks.attemptFailed?.({ route, error: err, usage, costMicros: cost });
      const verdict = failoverVerdict(err);
      if (health && err instanceof VendorError) recordings.push(health.record(route, { ok: false, countsAgainstRoute: verdict.countsAgainstRoute, latencyMs: null }));
      lastError = err;
      lastRoute = route;
      if (!(err instanceof VendorError) || err.afterFirstToken || options.signal?.aborted) break;

      if (decision.serviceTierFallback && !tierRetryUsed && FALLBACK_TIERS.has(route.serviceTier) && tierFallbackApplies(err)) {
        tierRetryUsed = true;
        tierRetryNext = true;
        queue.unshift({ ...route, serviceTier: STANDARD_TIER, price: route.standardPrice });
        continue;
      }
      if (!decision.failover || !verdict.failover) break;
      if (verdict.excludeSameModel) {
        excludedModels.add(route.model);
        queue = queue.filter((r) => !excludedModels.has(r.model));
      }
      const next = queue[0];
      if (next) hooks.onFailover?.(route, err, next);
    }
  }
  return { ok: false, error: lastError, route: lastRoute, attempts, skipped, settled: settled() };
}
