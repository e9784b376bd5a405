import {
  VendorError,
  callVendor,
  checkInlineMedia,
  countTokensVendor,
  createStreamRenderer,
  embedVendor,
  estimateEmbeddingTokens,
  estimateInputTokens,
  newResponseId,
  parseCountTokensRequest,
  parseSurfaceRequest,
  renderEmbeddings,
  renderResponse,
  requestedMaxOutputTokens,
  streamVendor,
  type CanonicalResponse,
  type ChatSurface,
  type GatewayErrorLike,
  type Surface,
  type VendorStream,
} from '@patchbay/model-wire';
import { routingMetadata, runWithFailover } from '@patchbay/model-routing';
import express, { Router, type Request, type Response } from 'express';
import { microsToUsd, reserveMicros } from '../catalog/catalog';
import { sendModelError, toGatewayErrorLike } from '../http/errors';
import { appRoute, decideRoutes } from '../routing/routing';
import { guardRequest, GUARDRAILS_ALERT_HEADER, withGuardrailsMetadata } from '../guardrails/guardrails';
import { RequestLedger, admit, type Caller, authenticateModelCaller, resolveRoute, resolveScope, spendSubject, type ModelDeps, type Route } from './model-request';

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

function abortOnClose(req: Request, res: Response): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  req.on('aborted', () => controller.abort());
  return controller.signal;
}

/** Set by the authentication step in front of the body parser. */
function callerOf(res: Response): Caller {
  return res.locals.caller as Caller;
}

function failureStatus(err: GatewayErrorLike): number {
  return err.status;
}

async function handleChat(deps: ModelDeps, surface: ChatSurface, req: Request, res: Response): Promise<void> {
  let ledger: RequestLedger | null = null;
  let headers: Record<string, string> = {};
  try {
    const caller = callerOf(res);
    const parsed = parseSurfaceRequest(surface, req.body as unknown);
    ledger = new RequestLedger(deps, caller, surface, parsed.gateway.stream);
    checkInlineMedia(parsed.request);
    const scope = resolveScope(req, caller, parsed.gateway);
    ledger.scope = scope;
    // Guardrails (issue 10 §3), from the organization's cached data: 422 before any vendor call, or a redacted prompt.
    const guarded = guardRequest(caller.org.guardrails, scope.customerId, parsed.request, parsed.gateway.include_guardrails_metadata, deps.guardrails);
    parsed.request = guarded.request;
    const guardrailHeaders: Record<string, string> = guarded.alerted ? { [GUARDRAILS_ALERT_HEADER]: 'prompt_injection' } : {};
    const inputEstimate = estimateInputTokens(parsed.request);
    const requestedMax = requestedMaxOutputTokens(parsed.request);
    const decisionStart = ledger.elapsedMs();
    const decision = decideRoutes(deps, req, caller, surface, parsed.gateway, parsed.request, { inputTokens: inputEstimate, outputTokens: requestedMax ?? 1024 });
    const routingDecisionMs = ledger.elapsedMs() - decisionStart;

    const signal = abortOnClose(req, res);
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
        try {
          if (!stream) return await callVendor(route!.target, parsed.request, { signal, timeouts: deps.timeouts, http: route!.http, failEmpty: context.failEmpty });
          return await streamVendor(route!.target, parsed.request, { signal, timeouts: deps.timeouts, http: route!.http, failEmpty: context.failEmpty, responseId });
        } finally {
          vendorMs += requestLedger.elapsedMs() - vendorStart;
        }
      },
      {
        stream,
        signal,
        health: deps.routing.health,
        hooks: {
          beforeAttempt: async (routing, context) => {
            route = appRoute(deps, caller, routing);
            if (context.attempt > 0) {
              attemptLedger = new RequestLedger(deps, caller, surface, stream);
              attemptLedger.scope = scope;
            }
            attemptLedger.route = route;
            const maxOutput = requestedMax ?? route.model.maxOutputTokens;
            // The organization's daily request count (free plan) counts the client's request once, not each attempt.
            const admitted = await admit(deps.spend, spendSubject(caller, scope, route.byok), reserveMicros(route.price, inputEstimate, maxOutput), context.attempt === 0);
            attemptLedger.reservation = admitted.reservation;
            headers = { ...guardrailHeaders, ...admitted.headers };
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
      const body = renderResponse(surface, { ...response, model: shownModel }, { costUsd: microsToUsd(cost), routing: metadata(cost) }, echo);
      res.set(headers).set(OVERHEAD_HEADER, requestLedger.overheadMs()).status(200).json(withGuardrailsMetadata(body, guarded.metadata));
      ledger.finish('finished', 200, response.usage);
      return;
    }

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
    });
    res.writeHead(200, { ...headers, [OVERHEAD_HEADER]: requestLedger.overheadMs(), 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.flushHeaders();
    res.write(renderer.start());
    // The native stream says when the answer comes from a later route than the first one tried (facts §1).
    if (result.attempts.length > 1 && renderer.restart) res.write(renderer.restart({ model: served.model.id, vendor: served.target.vendor }));
    let usage = null;
    try {
      for await (const event of vendorStream) {
        if (event.type === 'finish') usage = event.usage;
        const frames = renderer.event(event);
        if (frames) res.write(frames);
      }
      const cost = ledger.cost(usage);
      res.end(renderer.finish({ costUsd: microsToUsd(cost), routing: metadata(cost) }));
      ledger.finish('finished', 200, usage);
    } catch (err) {
      const error = err instanceof VendorError ? err : new VendorError({ kind: 'server', message: 'The stream failed inside the gateway.', vendor: served.target.vendor });
      if (!res.writableEnded && !res.destroyed) res.end(renderer.error(error));
      ledger.finish('cut', 200, error.usage ?? usage, error.code ?? error.kind);
    }
  } catch (err) {
    const error = toGatewayErrorLike(err);
    const usage = err instanceof VendorError ? err.usage : null;
    ledger?.finish('failed', failureStatus(error), usage, error.code ?? null, (req.body as { model?: string } | undefined)?.model ?? null);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendModelError(res, surface, error, { ...headers, ...(ledger ? { [OVERHEAD_HEADER]: ledger.overheadMs() } : {}) });
  }
}

async function handleEmbeddings(deps: ModelDeps, req: Request, res: Response): Promise<void> {
  const surface: Surface = 'openai-embeddings';
  let ledger: RequestLedger | null = null;
  let headers: Record<string, string> = {};
  try {
    const caller = callerOf(res);
    const parsed = parseSurfaceRequest(surface, req.body as unknown);
    ledger = new RequestLedger(deps, caller, surface, false);
    ledger.scope = resolveScope(req, caller, parsed.gateway);
    // Embeddings take one concrete model: aliases are refused and key bindings ignored (spec).
    const inputTokens = estimateEmbeddingTokens(parsed.request);
    const decision = decideRoutes(deps, req, caller, surface, parsed.gateway, null, { inputTokens, outputTokens: 0 });
    const route = appRoute(deps, caller, decision.routes[0]!);
    ledger.route = route;
    const admitted = await admit(deps.spend, spendSubject(caller, ledger.scope, route.byok), reserveMicros(route.price, inputTokens, 0));
    ledger.reservation = admitted.reservation;
    headers = admitted.headers;
    const vendorStart = ledger.elapsedMs();
    const result = await embedVendor(route.target, parsed.request, { signal: abortOnClose(req, res), timeouts: deps.timeouts, http: route.http });
    ledger.vendorMs = ledger.elapsedMs() - vendorStart;
    const cost = ledger.cost(result.usage);
    const body = renderEmbeddings(result, parsed.request.encodingFormat, parsed.gateway.model ?? route.model.id, { costUsd: microsToUsd(cost) });
    res.set(headers).set(OVERHEAD_HEADER, ledger.overheadMs()).status(200).json(body);
    ledger.finish('finished', 200, result.usage);
  } catch (err) {
    const error = toGatewayErrorLike(err);
    ledger?.finish('failed', error.status, err instanceof VendorError ? err.usage : null, error.code ?? null, (req.body as { model?: string } | undefined)?.model ?? null);
    sendModelError(res, surface, error, { ...headers, ...(ledger ? { [OVERHEAD_HEADER]: ledger.overheadMs() } : {}) });
  }
}

/** count_tokens costs nothing and is not a model request: no admission, no usage record. */
async function handleCountTokens(deps: ModelDeps, req: Request, res: Response): Promise<void> {
  try {
    const caller = callerOf(res);
    const parsed = parseCountTokensRequest(req.body as unknown);
    resolveScope(req, caller, parsed.gateway);
    const route = resolveRoute(deps, caller, parsed.gateway, 'chat');
    const counted = await countTokensVendor(route.target, parsed.request, { signal: abortOnClose(req, res), timeouts: deps.timeouts, http: route.http });
    res.status(200).json({ input_tokens: counted.inputTokens });
  } catch (err) {
    sendModelError(res, 'anthropic-messages', err);
  }
}

/**
 * The model endpoints. The body parser runs after authentication, so a bad key is refused before a
 * large body is read; inline media limits are checked from base64 lengths (model-wire) without decoding.
 */
export function modelRouter(deps: ModelDeps, maxBodyBytes: number): Router {
  const router = Router();
  const json = express.json({ limit: maxBodyBytes, type: () => true });
  const preAuth = (surface: Surface) => async (req: Request, res: Response, next: (err?: unknown) => void) => {
    try {
      res.locals.caller = await authenticateModelCaller(req, deps.caches);
      next();
    } catch (err) {
      sendModelError(res, surface, err);
    }
  };
  const bodyErrors = (surface: Surface) => (err: unknown, _req: Request, res: Response, _next: (err?: unknown) => void) => sendModelError(res, surface, err);
  for (const [path, surface] of CHAT_ROUTES) {
    router.post(path, preAuth(surface), json, (req, res) => handleChat(deps, surface, req, res));
    router.use(path, bodyErrors(surface));
  }
  for (const path of EMBEDDING_ROUTES) {
    router.post(path, preAuth('openai-embeddings'), json, (req, res) => handleEmbeddings(deps, req, res));
    router.use(path, bodyErrors('openai-embeddings'));
  }
  for (const path of COUNT_TOKENS_ROUTES) {
    router.post(path, preAuth('anthropic-messages'), json, (req, res) => handleCountTokens(deps, req, res));
    router.use(path, bodyErrors('anthropic-messages'));
  }
  return router;
}
