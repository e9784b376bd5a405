import type { AnswerOptions, CanonicalRequest, CanonicalResponse, ChatSurface, VendorStream } from '@patchbay/model-wire';
import type { RouteDecision } from '@patchbay/model-routing';
import type { Caller } from '../keys/callers';
import type { Route } from '../routing/vendor-route';
import type { RequestScope } from './model-request';

/**
 * Tools the gateway runs itself inside a model request (issue 27 §1: `svc:web_search`). The pipeline
 * knows only this interface; the surface that implements it (src/web-search) is registered in
 * runtime.ts, so nothing under the pipeline imports it.
 */
export interface ServerTools {
  /**
   * Takes the gateway-hosted tools (and vendor server tools the gateway answers for) out of a raw
   * request body before the surface parses it, checking their parameters (400s with the spec's codes);
   * null when the request has none, so the request runs exactly as before.
   */
  prepare(surface: ChatSurface, body: unknown): PreparedServerTools | null;
}

export interface PreparedServerTools {
  /** The body without the server tools, for the surface's parser. */
  body: unknown;
  /**
   * Once the request is parsed and screened: adds what the model needs (the tool as a function, its
   * instructions) to `request` and decides, from the routes the request may run on, how the tools run.
   */
  start(context: { caller: Caller; scope: RequestScope; request: CanonicalRequest; decision: RouteDecision }): ServerToolRun;
}

export interface ServerToolRun {
  /** Budget to reserve on top of one model call: the tool calls and the extra model calls they cause, worst case. */
  reserveMicros(route: Route, inputTokens: number, maxOutputTokens: number): number;
  /**
   * Time (ms) this run has waited on vendors and tool backends (search engines) so far; what the
   * pipeline subtracts for the gateway's own time (X-Gateway-Overhead-Ms). On a stream, the calls after
   * the first token happen while the stream flows, after that header is sent.
   */
  readonly waitedMs: number;
  /** The model call with the tools run in between, in place of callVendor / streamVendor. */
  call(route: Route, request: CanonicalRequest, options: AnswerOptions & { stream: boolean }): Promise<CanonicalResponse | VendorStream>;
}
