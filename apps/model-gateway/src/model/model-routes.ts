import {
  Cancellation,
  VendorError,
  callVendor,
  checkInlineMedia,
  countTokensVendor,
  createStreamRenderer,
  embedVendor,
  estimateEmbeddingTokens,
  estimateInputTokens,
  newResponseId,
  OutputAccumulator,
  parseCountTokensRequest,
  parseSurfaceRequest,
  renderEmbeddings,
  renderError,
  renderResponse,
  requestedMaxOutputTokens,
  responsesTarget,
  streamVendor,
  type CancelSignal,
  type CanonicalResponse,
  type ChatSurface,
  type GatewayErrorLike,
  type NormalizedUsage,
  type Surface,
  type VendorStream,
  WireError,
} from '@patchbay/model-wire';
import { routingMetadata, runWithFailover } from '@patchbay/model-routing';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { beginRequest, type Logger } from '@patchbay/service-kit';
import { microsToUsd, reserveMicros } from '../catalog/catalog';
import { GatewayError, sendModelError, toGatewayErrorLike } from '../http/errors';
import { BodyReadError, discardRest, readJsonBody, sendJson } from '../http/json-body';
import { appRoute, decideRoutes } from '../routing/routing';
import { GuardrailBlock, guardCountTokensInput, guardEmbeddingsInput, guardRequest, GUARDRAILS_ALERT_HEADER, withGuardrailsMetadata } from '../guardrails/guardrails';
import { StreamDlpBlock } from '../guardrails/stream-dlp';
import { type Caller, authenticateModelCaller } from '../keys/callers';
import type { Route } from '../routing/vendor-route';
import { RequestLedger, admit, resolveRoute, resolveScope, spendSubject, type ModelDeps, type SharedReservation } from './model-request';

export const OVERHEAD_HEADER = 'X-Gateway-Overhead-Ms';

/** Every model surface, by path (the edge forwards `/v1/*` here unchanged). */
const CHAT_ROUTES: Array<[string, ChatSurface]> = [
  ['/v1/responses', 'native-responses'],
  ['/v1/openai/responses', 'openai-responses'],
  ['/v1/openai/chat/completions', 'openai-chat'],
  ['/v1/chat/completions', 'openai-chat'],
  ['/v1/openai/v1/chat/completions', 'openai-chat'],
  ['/v1/anthropic/v1/messages', 'anthropic-messages'],
  ['/v1/messages', 'anthropic-messages'],
];
const EMBEDDING_ROUTES = ['/v1/embeddings', '/v1/openai/embeddings'];
const COUNT_TOKENS_ROUTES = ['/v1/anthropic/v1/messages/count_tokens', '/v1/messages/count_tokens'];

/**
 * One model request as the pipeline sees it, with or without an HTTP client on the other end: the
 * HTTP endpoints answer on the connection, a batch line (src/batches) keeps the answer to store it.
 * Same routing, budgets, guardrails and usage records either way: there is one request path.
 */
export interface ModelExchange {
  /** The request's headers (scope: X-Svc-Customer, X-Project-Id, X-Svc-Routing-Policy-Id). */
  readonly headers: IncomingHttpHeaders;
  /** Aborts the vendor call when the client goes away (or a batch is cancelled). */
  readonly signal: CancelSignal;
  /** The client's connection, for streams; null where nobody holds one (a batch line never streams). */
  readonly res: ServerResponse | null;
  /** A reservation already admitted for this request among others (a fusion run's calls): used instead of admitting one. */
  readonly shared?: SharedReservation;
  json(status: number, headers: Record<string, string>, body: unknown): void;
  error(surface: Surface, err: unknown, headers: Record<string, string>): void;
}

function httpExchange(req: IncomingMessage, res: ServerResponse): ModelExchange {
  return {
    headers: req.headers,
    signal: abortOnClose(req, res),
    res,
    json: (status, headers, body) => sendJson(res, status, headers, body),
    error: (surface, err, headers) => sendModelError(res, surface, err, headers),
  };
}

/** Aborted when the client goes away before its answer is written: a Cancellation, not an AbortController (see model-wire). */
function abortOnClose(req: IncomingMessage, res: ServerResponse): Cancellation {
  const cancellation = new Cancellation();
  res.on('close', () => {
    if (!res.writableFinished) cancellation.abort();
  });
  req.on('aborted', () => cancellation.abort());
  return cancellation;
}

function failureStatus(err: GatewayErrorLike): number {
  return err.status;
}

async function handleChat(deps: ModelDeps, surface: ChatSurface, ex: ModelExchange, caller: Caller, body: unknown): Promise<void> {
  let ledger: RequestLedger | null = null;
  let headers: Record<string, string> = {};
  try {
    // Server tools (web search) come out of the body before the surface parses it (src/web-search).
    // Stored responses (src/responses): previous_response_id and item references resolved into the body first.
    const turn = deps.turns ? await deps.turns.prepare(surface, caller, ex.headers, body) : null;
    const turnBody = turn ? turn.body : body;
    const serverTools = deps.serverTools?.prepare(surface, turnBody) ?? null;
    const parsed = parseSurfaceRequest(surface, serverTools ? serverTools.body : turnBody);
    ledger = new RequestLedger(deps, caller, surface, parsed.gateway.stream);
    ledger.shared = ex.shared ?? null;
    if (parsed.gateway.stream && !ex.res) throw WireError.invalid('unsupported_params', 'A batch line cannot stream: drop "stream": true from its body.', 'stream');
    checkInlineMedia(parsed.request);
    const scope = resolveScope(ex, caller, parsed.gateway);
    ledger.scope = scope;
    // Guardrails (issue 10 §3), from the organization's cached data: 422 before any vendor call, or a redacted prompt.
    const guarded = guardRequest(caller.org.guardrails, scope.customerId, parsed.request, parsed.gateway.include_guardrails_metadata, deps.guardrails);
    parsed.request = guarded.request;
    const guardrailHeaders: Record<string, string> = guarded.alerted ? { [GUARDRAILS_ALERT_HEADER]: 'prompt_injection' } : {};
    const inputEstimate = estimateInputTokens(parsed.request);
    const requestedMax = requestedMaxOutputTokens(parsed.request);
    const decisionStart = ledger.elapsedMs();
    const decision = decideRoutes(deps, ex, caller, surface, parsed.gateway, parsed.request, { inputTokens: inputEstimate, outputTokens: requestedMax ?? 1024 });
    const routingDecisionMs = ledger.elapsedMs() - decisionStart;
    const toolRun = serverTools ? serverTools.start({ caller, scope, request: parsed.request, decision }) : null;

    const signal = ex.signal;
    const stream = parsed.gateway.stream;
    const responseId = newResponseId();
    const requestLedger = ledger;
    // Each attempt is admitted and recorded at its own route: its ledger settles what it cost, or releases.
    let attemptLedger: RequestLedger = ledger;
    let route: Route | null = null;
    let vendorStart = 0;
    let vendorMs = 0;
    const result = await runWithFailover(
      decision,
      async (routing, context) => {
        vendorStart = requestLedger.elapsedMs();
        const toolWaited = toolRun?.waitedMs ?? 0;
        try {
          if (toolRun) return await toolRun.call(route!, parsed.request, { signal, timeouts: deps.timeouts, http: route!.http, failEmpty: context.failEmpty, responseId, stream });
          if (!stream) return await callVendor(route!.target, parsed.request, { signal, timeouts: deps.timeouts, http: route!.http, failEmpty: context.failEmpty });
          return await streamVendor(route!.target, parsed.request, { signal, timeouts: deps.timeouts, http: route!.http, failEmpty: context.failEmpty, responseId });
        } finally {
          // With server tools, only the waits on vendors and engines count: the loop's own work is the gateway's.
          vendorMs += toolRun ? toolRun.waitedMs - toolWaited : requestLedger.elapsedMs() - vendorStart;
        }
      },
      {
        stream,
        signal,
        health: deps.routing.health,
        hooks: {
          beforeAttempt: async (routing, context) => {
            // OpenAI's routes take the responses surfaces as Responses, not Chat Completions (issue 27 §5).
            const decided = appRoute(deps, caller, routing);
            route = { ...decided, target: responsesTarget(surface, decided.target) };
            if (context.attempt > 0) {
              attemptLedger = new RequestLedger(deps, caller, surface, stream);
              attemptLedger.scope = scope;
              attemptLedger.shared = ex.shared ?? null;
            }
            attemptLedger.route = route;
            if (ex.shared) {
              // Admitted with the other calls of its run before any of them started (src/fusion).
              headers = { ...guardrailHeaders, ...ex.shared.headers };
              return;
            }
            const maxOutput = requestedMax ?? route.model.maxOutputTokens;
            // The organization's daily request count (free plan) counts the client's request once, not each attempt.
            const admitted = await admit(deps.spend, spendSubject(caller, scope, route.byok), reserveMicros(route.price, inputEstimate, maxOutput) + (toolRun?.reserveMicros(route, inputEstimate, maxOutput) ?? 0), context.attempt === 0);
            attemptLedger.reservation = admitted.reservation;
            headers = { ...guardrailHeaders, ...admitted.headers };
            deps.rateLimitHeaders?.note(caller.key.hash, admitted.headers);
          },
          attemptFailed: ({ error, usage }) => {
            const failure = toGatewayErrorLike(error);
            attemptLedger.finish('failed', failure.status, usage, failure.code ?? null);
          },
        },
      },
    );
    ledger = attemptLedger;
    ledger.vendorMs = vendorMs;
    requestLedger.vendorMs = vendorMs;
    if (!result.ok) throw result.error;
    const served = route!;
    const metadata = (costMicros: number) =>
      parsed.gateway.include_routing_metadata
        ? routingMetadata(decision, { route: result.route, attempts: result.attempts, skipped: result.skipped, costUsd: microsToUsd(costMicros) }, { routingDecisionMs, llmCallMs: vendorMs, totalMs: requestLedger.elapsedMs() })
        : undefined;
    const shownModel = surface === 'native-responses' || decision.via !== 'model' ? served.model.id : (parsed.gateway.model ?? served.model.id);
    const echo = { instructions: parsed.render.instructions ?? null, metadata: parsed.gateway.metadata };

    if (!stream) {
      const response = result.value as CanonicalResponse;
      response.warnings.unshift(...parsed.warnings);
      guarded.answer(response, ledger);
      const cost = ledger.cost(response.usage);
      const rendered = renderResponse(surface, { ...response, model: shownModel }, { costUsd: microsToUsd(cost), routing: metadata(cost) }, echo);
      if (turn) {
        Object.assign(rendered as object, turn.echo);
        // Kept before the client has the answer, so its next turn can refer to it at once.
        await turn.keep?.({ response: { ...response, model: shownModel }, costUsd: microsToUsd(cost) });
      }
      ex.json(200, { ...headers, [OVERHEAD_HEADER]: requestLedger.overheadMs() }, withGuardrailsMetadata(rendered, guarded.metadata));
      ledger.finish('finished', 200, response.usage);
      return;
    }

    const res = ex.res!;
    const vendorStream = result.value as VendorStream;
    ledger.firstTokenMs = requestLedger.elapsedMs();
    const renderer = createStreamRenderer(surface, {
      id: responseId,
      model: shownModel,
      vendor: served.target.vendor,
      created: Math.floor(Date.now() / 1000),
      warnings: [...parsed.warnings, ...vendorStream.warnings],
      render: parsed.render,
      metadata: parsed.gateway.metadata,
      estimatedInputTokens: inputEstimate,
      ...(turn ? { echo: turn.echo } : {}),
    });
    res.writeHead(200, { ...headers, [OVERHEAD_HEADER]: requestLedger.overheadMs(), 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    // The headers go out with the first frame, in one write.
    res.write(renderer.start());
    // The native stream says when the answer comes from a later route than the first one tried (facts §1).
    if (result.attempts.length > 1 && renderer.restart) res.write(renderer.restart({ model: served.model.id, vendor: served.target.vendor }));
    let usage = null;
    const kept = turn?.keep ? new OutputAccumulator() : null;
    try {
      // DLP screens the answer as it flows (held back a little), when the organization has rules.
      for await (const event of guarded.stream(vendorStream)) {
        if (event.type === 'finish') usage = event.usage;
        kept?.add(event);
        const frames = renderer.event(event);
        if (frames) res.write(frames);
      }
      const cost = ledger.cost(usage);
      if (kept && usage) await turn!.keep!({ response: streamedResponse(responseId, shownModel, served.target.vendor, kept, usage), costUsd: microsToUsd(cost) });
      res.end(renderer.finish({ costUsd: microsToUsd(cost), routing: metadata(cost) }));
      ledger.finish('finished', 200, usage);
    } catch (err) {
      if (err instanceof StreamDlpBlock) {
        // The surface's own error frame, never a clean finish; the vendor ran, so what it produced is billed.
        const block = new GuardrailBlock('blocked_by_policy', err.message, 'dlp_blocked', null);
        if (!res.writableEnded && !res.destroyed) res.end(renderer.error(block));
        ledger.finish('failed', 422, err.usage(inputEstimate), 'dlp_blocked');
        return;
      }
      const error = err instanceof VendorError ? err : new VendorError({ kind: 'server', message: 'The stream failed inside the gateway.', vendor: served.target.vendor });
      if (!res.writableEnded && !res.destroyed) res.end(renderer.error(error));
      ledger.finish('cut', 200, error.usage ?? usage, error.code ?? error.kind);
    }
  } catch (err) {
    const error = toGatewayErrorLike(err);
    const usage = err instanceof VendorError ? err.usage : null;
    ledger?.finish('failed', failureStatus(error), usage, error.code ?? null, requestedModelOf(body));
    if (ex.res?.headersSent) {
      ex.res.destroy();
      return;
    }
    ex.error(surface, error, await withRateLimit(deps, caller, { ...headers, ...(ledger ? { [OVERHEAD_HEADER]: ledger.overheadMs() } : {}) }));
  }
}

/** A finished stream's answer as one response, for the turn keeper. */
function streamedResponse(id: string, model: string, vendor: string, output: OutputAccumulator, usage: NormalizedUsage): CanonicalResponse {
  const toolCall = output.blocks.some((b) => b.type === 'tool_use');
  return { id, model, vendor, vendorModel: model, providerRequestId: null, created: Math.floor(Date.now() / 1000), output: output.blocks, finishReason: toolCall ? 'tool_use' : 'stop', stopSequence: null, refusal: null, usage, serviceTier: null, warnings: [] };
}

/** Refusals decided before admission carry the rate-limit headers too (spec, Limits). */
async function withRateLimit(deps: ModelDeps, caller: Caller | null, headers: Record<string, string>): Promise<Record<string, string>> {
  return deps.rateLimitHeaders ? deps.rateLimitHeaders.complete(caller, headers) : headers;
}

async function handleEmbeddings(deps: ModelDeps, ex: ModelExchange, caller: Caller, body: unknown): Promise<void> {
  const surface: Surface = 'openai-embeddings';
  let ledger: RequestLedger | null = null;
  let headers: Record<string, string> = {};
  try {
    const parsed = parseSurfaceRequest(surface, body);
    ledger = new RequestLedger(deps, caller, surface, false);
    ledger.scope = resolveScope(ex, caller, parsed.gateway);
    // DLP on the texts to embed (the organization's inbound rules): redacted, or 422 dlp_blocked.
    parsed.request = guardEmbeddingsInput(caller.org.guardrails, parsed.request);
    // Embeddings take one concrete model: aliases are refused and key bindings ignored (spec).
    const inputTokens = estimateEmbeddingTokens(parsed.request);
    const decision = decideRoutes(deps, ex, caller, surface, parsed.gateway, null, { inputTokens, outputTokens: 0 });
    const route = appRoute(deps, caller, decision.routes[0]!);
    ledger.route = route;
    const admitted = await admit(deps.spend, spendSubject(caller, ledger.scope, route.byok), reserveMicros(route.price, inputTokens, 0));
    ledger.reservation = admitted.reservation;
    headers = admitted.headers;
    deps.rateLimitHeaders?.note(caller.key.hash, admitted.headers);
    const vendorStart = ledger.elapsedMs();
    const result = await embedVendor(route.target, parsed.request, { signal: ex.signal, timeouts: deps.timeouts, http: route.http });
    ledger.vendorMs = ledger.elapsedMs() - vendorStart;
    const cost = ledger.cost(result.usage);
    const rendered = renderEmbeddings(result, parsed.request.encodingFormat, parsed.gateway.model ?? route.model.id, { costUsd: microsToUsd(cost) });
    ex.json(200, { ...headers, [OVERHEAD_HEADER]: ledger.overheadMs() }, rendered);
    ledger.finish('finished', 200, result.usage);
  } catch (err) {
    const error = toGatewayErrorLike(err);
    ledger?.finish('failed', error.status, err instanceof VendorError ? err.usage : null, error.code ?? null, requestedModelOf(body));
    ex.error(surface, error, await withRateLimit(deps, caller, { ...headers, ...(ledger ? { [OVERHEAD_HEADER]: ledger.overheadMs() } : {}) }));
  }
}

/** count_tokens costs nothing and is not a model request: no admission, no usage record. */
async function handleCountTokens(deps: ModelDeps, ex: ModelExchange, caller: Caller, body: unknown): Promise<void> {
  try {
    const parsed = parseCountTokensRequest(body);
    resolveScope(ex, caller, parsed.gateway);
    // The text is sent to the vendor to count: the same DLP as a prompt.
    parsed.request = guardCountTokensInput(caller.org.guardrails, parsed.request);
    const route = resolveRoute(deps, caller, parsed.gateway, 'chat');
    const counted = await countTokensVendor(route.target, parsed.request, { signal: ex.signal, timeouts: deps.timeouts, http: route.http });
    ex.json(200, await withRateLimit(deps, caller, {}), { input_tokens: counted.inputTokens });
  } catch (err) {
    ex.error('anthropic-messages', err, await withRateLimit(deps, caller, {}));
  }
}

/** What one request answered, kept instead of sent: a batch line's result. */
export interface CapturedAnswer {
  status: number;
  body: unknown;
}

/** The endpoints a captured request (a batch line) may name: what batches/ checks its lines against. */
export type CapturedEndpoint = '/v1/chat/completions' | '/v1/embeddings' | '/v1/responses';

/**
 * Runs one request through the same handler as the HTTP endpoint of `url` (OpenAI's wire format:
 * `/v1/responses` is the OpenAI responses surface here) and returns the answer instead of sending
 * it: routing, budgets (reserve, settle), guardrails and the usage record are the single request's.
 */
export async function runCapturedRequest(deps: ModelDeps, caller: Caller, url: CapturedEndpoint, body: unknown, headers: IncomingHttpHeaders, signal: AbortSignal): Promise<CapturedAnswer> {
  if (url === '/v1/embeddings') return captureAnswer(headers, signal, (ex) => handleEmbeddings(deps, ex, caller, body));
  return runCapturedChat(deps, caller, url === '/v1/responses' ? 'openai-responses' : 'openai-chat', body, headers, signal);
}

/**
 * One chat request on `surface`, through the same handler as its HTTP endpoint, with the answer kept
 * instead of sent (a batch line; each call of a fusion run, src/fusion): routing, budgets, guardrails
 * and the usage record are the single request's.
 */
export function runCapturedChat(deps: ModelDeps, caller: Caller, surface: ChatSurface, body: unknown, headers: IncomingHttpHeaders, signal: CancelSignal, shared?: SharedReservation): Promise<CapturedAnswer> {
  return captureAnswer(headers, signal, (ex) => handleChat(deps, surface, ex, caller, body), shared);
}

async function captureAnswer(headers: IncomingHttpHeaders, signal: CancelSignal, run: (ex: ModelExchange) => Promise<void>, shared?: SharedReservation): Promise<CapturedAnswer> {
  let answer: CapturedAnswer | null = null;
  const ex: ModelExchange = {
    headers,
    signal,
    res: null,
    ...(shared ? { shared } : {}),
    json: (status, _headers, sent) => {
      answer = { status, body: sent };
    },
    error: (surface, err) => {
      const rendered = renderError(surface, toGatewayErrorLike(err));
      const extra = err instanceof GatewayError ? err.bodyExtra : undefined;
      answer = { status: rendered.status, body: extra && typeof rendered.body === 'object' && rendered.body !== null ? { ...rendered.body, ...extra } : rendered.body };
    },
  };
  await run(ex);
  if (!answer) throw new Error('the model handler answered nothing');
  return answer;
}

function requestedModelOf(body: unknown): string | null {
  const model = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
  return typeof model === 'string' ? model : null;
}

export type ModelHandler = (deps: ModelDeps, ex: ModelExchange, caller: Caller, body: unknown) => Promise<void>;

/**
 * A surface that shares a path with a model endpoint and is told apart by its body (fusion on
 * /v1/responses, src/fusion): given the surface and the body read, its handler, or null to leave the
 * request to the endpoint's own.
 */
export type BodyRoute = (surface: Surface, body: unknown) => ModelHandler | null;

/** Every model endpoint, by path (the edge forwards `/v1/*` here unchanged): its surface (for the error envelope) and handler. */
function endpointTable(): Map<string, { surface: Surface; handle: ModelHandler }> {
  const table = new Map<string, { surface: Surface; handle: ModelHandler }>();
  for (const [path, surface] of CHAT_ROUTES) table.set(path, { surface, handle: (deps, ex, caller, body) => handleChat(deps, surface, ex, caller, body) });
  for (const path of EMBEDDING_ROUTES) table.set(path, { surface: 'openai-embeddings', handle: handleEmbeddings });
  for (const path of COUNT_TOKENS_ROUTES) table.set(path, { surface: 'anthropic-messages', handle: handleCountTokens });
  return table;
}

/** Serves a request when it is a model request (POST on a model path); false leaves it to the express app. */
export type ModelEndpoints = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * The model endpoints, served on the plain node request without express: the hot path of every
 * model call, where express's routing, request decoration and body parser cost more CPU than the
 * rest of a request to a fast vendor (the figures are in the README). The same behaviour as the
 * app's other routes: X-Request-Id and the access log (service-kit's beginRequest), the key checked
 * before the body is read (a bad key never costs a large upload), bodies up to `maxBodyBytes`
 * (gzip, deflate, br), every failure in the surface's error envelope.
 */
export function modelEndpoints(deps: ModelDeps, options: { maxBodyBytes: number; logger: Logger; bodyRoutes?: BodyRoute[] }): ModelEndpoints {
  const table = endpointTable();
  const serve = async (endpoint: { surface: Surface; handle: ModelHandler }, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let caller: Caller | null = null;
    let body: unknown;
    try {
      caller = await authenticateModelCaller(req, deps.caches);
      body = await readJsonBody(req, options.maxBodyBytes);
    } catch (err) {
      // A body refused part-way (too large, corrupt): read off and discard the rest before answering,
      // as express's body parser does, so a client or proxy still sending it gets the answer instead
      // of a reset connection. (A key refused before reading leaves the body to node, which discards it.)
      if (err instanceof BodyReadError && !req.complete) await discardRest(req);
      sendModelError(res, endpoint.surface, err, await withRateLimit(deps, caller, {}));
      return;
    }
    let handle = endpoint.handle;
    for (const route of options.bodyRoutes ?? []) handle = route(endpoint.surface, body) ?? handle;
    await handle(deps, httpExchange(req, res), caller, body);
  };
  return (req, res) => {
    if (req.method !== 'POST') return false;
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const endpoint = table.get(query === -1 ? url : url.slice(0, query));
    if (!endpoint) return false;
    // No requestContextStorage.run here: it would turn on promise hooks for the whole process (about
    // 30 µs of every request); the lines written here name the request id themselves.
    const requestId = beginRequest(options.logger, req, res);
    serve(endpoint, req, res).catch((err: unknown) => {
      options.logger.error({ request_id: requestId, err: err instanceof Error ? { type: err.name, message: err.message } : { type: typeof err } }, 'model request failed outside its handler');
      if (!res.headersSent) sendModelError(res, endpoint.surface, err);
      else res.destroy();
    });
    return true;
  };
}
