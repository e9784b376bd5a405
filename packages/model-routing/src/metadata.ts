import type { AttemptRecord } from './failover';
import type { Route, RouteDecision } from './resolve';

/** Human-readable reason for the first-match-wins step that chose the routes. */
const REASONS: Record<RouteDecision['via'], string> = {
  model: 'the request named a model',
  priority_order: 'the request sent priority_order',
  alias: 'the request named a routing policy alias',
  routing_policy_id: 'the request named a routing policy',
  key_binding: "the API key's bound routing policy",
  customer_default: "the customer's default routing policy",
  project_default: "the project's default routing policy",
  organization_default: "the organization's default routing policy",
};

export interface RoutingTimings {
  /** Resolution (policy lookup, filters, strategy), in ms with µs precision. */
  routingDecisionMs: number;
  /** Vendor time of every attempt together. */
  llmCallMs: number;
  totalMs: number;
}

/**
 * The `routing` object of a response when the request set `include_routing_metadata` (facts §1:
 * policy_id, policy_name, strategy, routing_reason, model_requested, model_used, cost_usd, latency),
 * plus how the route was chosen: the resolution step, the candidates in order, the routes skipped
 * because their circuit breaker was open, and every attempt with its outcome and cost.
 */
export function routingMetadata(decision: RouteDecision, outcome: { route: Route | null; attempts: AttemptRecord[]; skipped: Route[]; costUsd: number | null }, timings: RoutingTimings): Record<string, unknown> {
  const failed = outcome.attempts.filter((a) => a.outcome !== 'ok').length;
  return {
    policy_id: decision.policy?.id ?? null,
    policy_name: decision.policy?.name ?? null,
    strategy: decision.strategy,
    resolved_by: decision.via,
    routing_reason: failed > 0 && outcome.route ? `${REASONS[decision.via]}; ${failed} route${failed === 1 ? '' : 's'} failed before ${outcome.route.model} on ${outcome.route.vendor} answered` : REASONS[decision.via],
    intelligent_routing_used: false,
    model_requested: decision.modelRequested,
    model_used: outcome.route?.model ?? null,
    vendor_used: outcome.route?.vendor ?? null,
    service_tier: outcome.route?.serviceTier ?? decision.serviceTier,
    selected_tier: outcome.route ? decision.routes.findIndex((r) => r.model === outcome.route!.model && r.vendor === outcome.route!.vendor) + 1 : null,
    total_tiers: decision.routes.length,
    candidates: decision.routes.map((r) => ({ model: r.model, vendor: r.vendor, service_tier: r.serviceTier })),
    skipped_unhealthy: outcome.skipped.map((r) => ({ model: r.model, vendor: r.vendor })),
    attempts: outcome.attempts.map((a) => ({ model: a.model, vendor: a.vendor, service_tier: a.serviceTier, outcome: a.outcome, latency_ms: Math.round(a.latencyMs), cost_usd: a.costMicros / 1e6 })),
    cost_usd: outcome.costUsd,
    latency: {
      policy_lookup_ms: round3(timings.routingDecisionMs),
      routing_decision_ms: round3(timings.routingDecisionMs),
      llm_call_ms: Math.round(timings.llmCallMs),
      total_ms: Math.round(timings.totalMs),
    },
  };
}

function round3(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
