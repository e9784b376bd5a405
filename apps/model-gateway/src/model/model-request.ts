import { randomUUID } from 'node:crypto';
import {
  WireError,
  type CanonicalRequest,
  type CanonicalResponse,
  type ChatSurface,
  type GatewayFields,
  type NormalizedUsage,
  type StreamTimeouts,
  type Surface,
  type VendorHttp,
} from '@patchbay/model-wire';
import { checkTags, namedPolicyId, resolveAttribution } from '@patchbay/model-routing';
import type { GatewayUsageRecordJob } from '@patchbay/queues';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { costMicros, type Catalog, type CatalogRoute } from '../catalog/catalog';
import { GatewayError } from '../http/errors';
import { modelMatches, type Caller } from '../keys/callers';
import { tagId, type GatewayCaches } from '../keys/principals';
import type { Reservation, SpendControl, SpendRecordFields, SpendSubject } from '../spend/spend-control';
import type { UsageRecorder } from '../usage/usage-records';
import type { RoutingDeps } from '../routing/routing';
import { routeFor, scopeHeaders, type Route } from '../routing/vendor-route';
import type { VendorCredential } from '../vendors/platform-vendors';
import type { GuardrailOptions } from '../guardrails/guardrails';
import type { ServerTools } from './server-tools';
import type { RateLimitHeaders } from './rate-limit-headers';

/** What every model endpoint runs on, built once at boot. */
export interface ModelDeps {
  catalog: Catalog;
  platformVendors: Map<string, VendorCredential>;
  caches: GatewayCaches;
  spend: SpendControl;
  recorder: UsageRecorder;
  /** Operator base URLs (trusted, may be local). */
  vendorHttp: VendorHttp;
  /** BYOK base URLs the organization supplied: through the outbound guard. */
  guardedHttp: VendorHttp;
  timeouts: StreamTimeouts;
  /** Routing policies, resolution and failover (issue 10). */
  routing: RoutingDeps;
  /** Guardrail options (issue 10 §3): the settings themselves come with the organization's cached data. */
  guardrails: GuardrailOptions;
  /** X-RateLimit-* on answers decided before admission (absent: only admitted answers carry them). */
  rateLimitHeaders?: RateLimitHeaders;
  /** Tools the gateway runs inside a request (web search); registered in runtime.ts (see server-tools.ts). */
  serverTools?: ServerTools;
  /** Conversation state the gateway keeps (stored responses, src/responses); absent: nothing is stored. */
  turns?: TurnKeeper;
}

/**
 * Keeps a surface's turns between requests (issue 27 §3, stored responses): `prepare` runs before the
 * body is parsed and resolves what refers to earlier turns (previous_response_id, item references)
 * into a self-contained body; the pipeline hands it the answer once the client has it.
 */
export interface TurnKeeper {
  prepare(surface: ChatSurface, caller: Caller, headers: IncomingHttpHeaders, body: unknown): Promise<PreparedTurn | null>;
}

export interface PreparedTurn {
  /** The body to parse (earlier turns resolved into it). */
  body: unknown;
  /** Fields to set on the rendered response object (store, previous_response_id). */
  echo: Record<string, unknown>;
  /** The answer as the client received it; null when this turn is not kept. */
  keep: ((answer: { response: CanonicalResponse; costUsd: number }) => Promise<void>) | null;
}

export interface RequestScope {
  projectId: string | null;
  customerId: string | null;
  tags: Array<{ key: string; value: string }>;
}

/**
 * Who the request belongs to: the attribution rules and tag check of @patchbay/model-routing, plus
 * what only the organization's data can say: a named customer must exist (invalid_customer) and be
 * active (403 customer_inactive), a named project must exist (project_mismatch).
 */
export function resolveScope(req: Pick<IncomingMessage, 'headers'>, caller: Caller, gateway: GatewayFields): RequestScope {
  const { key, org } = caller;
  const input = {
    fields: gateway,
    headers: scopeHeaders(req),
    caller: { keyCustomerId: key.customerId, keyProjectId: key.projectId, isTagDefined: (k: string, v: string) => org.tags.has(tagId(k, v)) },
  };
  namedPolicyId(input);
  const { customerId, projectId } = resolveAttribution(input);
  if (customerId !== null && customerId !== key.customerId) {
    const customer = org.customers.get(customerId);
    if (!customer) throw WireError.invalid('invalid_customer', `No customer ${customerId} exists in this organization; create it with POST /v1/customers.`, 'customer');
    if (!customer.active) throw new GatewayError(403, 'permission_error', `Customer ${customerId} is inactive.`, 'customer_inactive');
  }
  if (projectId !== null && projectId !== key.projectId && !org.projects.has(projectId)) {
    throw WireError.invalid('project_mismatch', `No project ${projectId} exists in this organization.`, 'project_id');
  }
  checkTags(input);
  return { projectId, customerId, tags: gateway.tags };
}

/**
 * The catalog model and the vendor route a request runs on: the key's allowlist (403 model_not_allowed),
 * the organization's blocklist (403 blocked_by_policy), the vendor pin, then the first route with
 * credentials (the organization's own key first, then the platform's).
 */
export function resolveRoute(deps: ModelDeps, caller: Caller, gateway: GatewayFields, kind: 'chat' | 'embedding'): Route {
  if (gateway.model?.startsWith('@alias/')) {
    // The only caller left is count_tokens, which counts for one concrete model: no routing there.
    throw WireError.invalid('alias_not_supported', `${gateway.model}: @alias/ models route requests on /v1/responses and the chat surfaces; count_tokens counts for one model, so name it as provider/model.`, 'model');
  }
  const model = deps.catalog.resolve(gateway.model);
  if (model.type !== kind) {
    throw WireError.invalid('unsupported_endpoint_for_model', `${model.id} is ${model.type === 'embedding' ? 'an embedding model: call POST /v1/embeddings' : 'a chat model: it does not serve embeddings'}.`, 'model');
  }
  const { key, org } = caller;
  if (key.allowedModels !== null && !modelMatches(key.allowedModels, model.id)) {
    throw new GatewayError(403, 'permission_error', `This key may not call ${model.id}; its allowed_models do not include it.`, 'model_not_allowed');
  }
  if (modelMatches(org.blocklist, model.id)) {
    throw new GatewayError(403, 'blocked_by_policy', `${model.id} is blocked by the organization's policy.`, 'blocked_by_policy');
  }
  const pins = gateway.vendors ?? (gateway.vendor ? [gateway.vendor] : null);
  const candidates = pins ? pins.map((v) => model.routes.find((r) => r.vendor === v)).filter((r): r is CatalogRoute => r !== undefined) : model.routes;
  const tier = gateway.service_tier ?? 'standard';
  for (const route of candidates) {
    if (!org.vendorKeys.has(route.vendor) && !deps.platformVendors.has(route.vendor)) continue;
    const price = route.pricing[tier] ?? (tier === 'auto' || tier === 'default' ? route.pricing.standard : undefined);
    if (!price) throw WireError.invalid('unsupported_params', `service_tier "${tier}" is not offered for ${model.id} on ${route.vendor}; tiers: ${Object.keys(route.pricing).join(', ')}.`, 'service_tier');
    return routeFor(deps, caller, model, route, tier)!;
  }
  if (pins) throw WireError.invalid('vendor_unavailable', `No pinned vendor (${pins.join(', ')}) can serve ${model.id}; it runs on ${model.routes.map((r) => r.vendor).join(', ')}.`, 'vendor');
  throw WireError.invalid('model_unavailable', `No vendor serving ${model.id} is configured on this gateway (and the organization has no key of its own for one).`, 'model');
}

export function spendSubject(caller: Caller, scope: RequestScope, byok: boolean): SpendSubject {
  const { key, org } = caller;
  const gateway = org.settings.gateway;
  const customer = scope.customerId ? org.customers.get(scope.customerId) : undefined;
  const project = scope.projectId ? org.projects.get(scope.projectId) : undefined;
  return {
    organizationId: key.organizationId,
    environment: key.environment,
    plan: org.settings.plan,
    paymentMethodOnFile: gateway?.paymentMethodOnFile ?? true,
    creditMicros: gateway?.creditMicros ?? 0,
    key: { hash: key.hash, limitMicros: key.limitMicros, limitReset: key.limitReset, byok },
    project: project ? { id: project.id, budgetMicros: project.budgetMicros } : null,
    customer: customer ? { id: customer.id, budgetMicros: customer.budgetMicros, rateLimitRpm: key.customerId === customer.id ? key.rateLimitRpm : null } : null,
  };
}

/** Admits the request before any vendor call, or throws the 402/429 in the surface's envelope. */
export async function admit(spend: SpendControl, subject: SpendSubject, reserve: number, countsAsModelRequest = true): Promise<{ reservation: Reservation; headers: Record<string, string> }> {
  let admission;
  try {
    admission = await spend.admit({ subject, reserveMicros: reserve, countsAsModelRequest });
  } catch {
    // Never let a request through unmetered: Redis (or the records a rebuild needs) did not answer.
    throw new GatewayError(503, 'service_unavailable', 'Budgets and limits cannot be checked right now; retry shortly.', 'service_unavailable', { 'Retry-After': '1' });
  }
  if (admission.ok) return { reservation: admission.reservation, headers: admission.headers };
  const headers = { ...admission.headers, ...(admission.retryAfterSeconds !== undefined ? { 'Retry-After': String(admission.retryAfterSeconds) } : {}) };
  throw new GatewayError(admission.status, admission.type as GatewayError['type'], admission.message, admission.code, headers);
}

/**
 * One reservation held for several calls (a fusion run, src/fusion): admitted once for the worst case
 * of them all, so the run is admitted whole or not at all, and no call admits its own. Each call's
 * usage record carries the reservation's spend fields and its own cost; the run settles their sum once
 * when the last call is done, which gives back what was not used (a dropped or failed call's share).
 */
export class SharedReservation {
  /** What the calls recorded so far cost, micro-USD. */
  spentMicros = 0;
  private counted = false;

  constructor(
    readonly reservation: Reservation,
    /** The admission's headers (X-Key-Limit-*), for each call's answer. */
    readonly headers: Record<string, string>,
  ) {}

  /**
   * The spend fields of one call's record. The admission counted the run once (the free plan's daily
   * requests, a customer's rpm window), so only the first record says so: a rebuild after Redis lost its
   * data counts the run once too, and sums the records' costs to what the run settled.
   */
  recordFields(costMicros: number): SpendRecordFields {
    this.spentMicros += costMicros;
    const record = this.counted ? { ...this.reservation.record, countedModelRequest: false, countedInRateLimit: false } : this.reservation.record;
    this.counted = true;
    return record;
  }

  /** Settles the run at what its calls cost (release when nothing was spent). */
  settle(spend: SpendControl): Promise<void> {
    return this.spentMicros > 0 ? spend.settle(this.reservation, this.spentMicros) : spend.release(this.reservation);
  }
}

/** What the spend counters need on the record to rebuild without counting it twice (packages/gateway-spend). */
function spendRecordFields(record: SpendRecordFields | undefined): Pick<GatewayUsageRecordJob, 'spend_epoch' | 'counted_at' | 'counted_model_request' | 'counted_in_rate_limit' | 'spend_grant'> {
  return {
    spend_epoch: record?.epoch ?? null,
    counted_at: record?.countedAtMs !== undefined ? new Date(record.countedAtMs).toISOString() : null,
    counted_model_request: record?.countedModelRequest ?? false,
    counted_in_rate_limit: record?.countedInRateLimit ?? false,
    spend_grant: record?.grant ?? null,
  };
}

const ZERO_USAGE: NormalizedUsage = { inputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, cacheWrite1hInputTokens: 0, outputTokens: 0, reasoningTokens: 0 };

/** Everything one request's usage record needs, filled in as the request runs. */
export class RequestLedger {
  readonly id = randomUUID();
  readonly startedAt = Date.now();
  readonly startedHr = process.hrtime.bigint();
  route: Route | null = null;
  scope: RequestScope | null = null;
  reservation: Reservation | null = null;
  /** Set instead of `reservation` when the request runs under a reservation held for several calls (fusion). */
  shared: SharedReservation | null = null;
  firstTokenMs: number | null = null;
  /** Time spent waiting on the vendor (ms), subtracted from the total to give the gateway's own overhead. */
  vendorMs = 0;
  private done = false;

  constructor(
    private readonly deps: ModelDeps,
    readonly caller: Caller,
    readonly surface: Surface | 'anthropic-count-tokens',
    readonly stream: boolean,
  ) {}

  elapsedMs(): number {
    return Number(process.hrtime.bigint() - this.startedHr) / 1e6;
  }

  /** The gateway's own time so far (total minus vendor time), for the X-Gateway-Overhead-Ms header. */
  overheadMs(): string {
    return Math.max(0, this.elapsedMs() - this.vendorMs).toFixed(3);
  }

  cost(usage: NormalizedUsage | null): number {
    // Server tools (web searches) are priced per use on top of the tokens.
    return usage && this.route ? costMicros(this.route.price, usage) + (usage.serverToolUse?.costMicros ?? 0) : 0;
  }

  /** Settles (or releases) the reservation with the real cost and records the request once. */
  finish(outcome: GatewayUsageRecordJob['outcome'], status: number, usage: NormalizedUsage | null, errorCode: string | null = null, requestedModel: string | null = null): void {
    if (this.done) return;
    this.done = true;
    const cost = this.cost(usage);
    const spend = this.deps.spend;
    if (this.reservation) {
      const settled = usage ? spend.settle(this.reservation, cost, this.id) : spend.release(this.reservation);
      settled.catch(() => undefined);
    }
    // Under a shared reservation the holder settles once for all its calls (SharedReservation).
    const spendFields = this.shared ? this.shared.recordFields(cost) : this.reservation?.record;
    const u = usage ?? ZERO_USAGE;
    const key = this.caller.key;
    this.deps.recorder.record({
      event_id: this.id,
      organization_id: key.organizationId,
      environment: key.environment,
      key_hash: key.hash,
      project_id: this.scope?.projectId ?? key.projectId,
      customer_id: this.scope?.customerId ?? key.customerId,
      surface: this.surface,
      model: this.route?.model.id ?? requestedModel ?? 'unknown',
      vendor: this.route?.route.vendor ?? null,
      outcome,
      error_code: errorCode,
      status,
      stream: this.stream,
      byok: this.route?.byok ?? false,
      input_tokens: u.inputTokens,
      cached_input_tokens: u.cachedInputTokens,
      cache_write_tokens: u.cacheWriteInputTokens,
      output_tokens: u.outputTokens,
      reasoning_tokens: u.reasoningTokens,
      usage_estimated: u.estimated === true,
      cost_micros: cost,
      web_search_requests: u.serverToolUse?.webSearchRequests ?? 0,
      tags: this.scope?.tags ?? [],
      latency_ms: Math.round(this.elapsedMs()),
      ttft_ms: this.firstTokenMs === null ? null : Math.round(this.firstTokenMs),
      ...spendRecordFields(spendFields),
      occurred_at: new Date(this.startedAt).toISOString(),
    });
  }
}

export type { CanonicalRequest };
