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
  type ChatSurface,
  type GatewayErrorLike,
  type Surface,
} from '@patchbay/model-wire';
import express, { Router, type Request, type Response } from 'express';
import { microsToUsd, reserveMicros } from '../catalog/catalog';
import { sendModelError, toGatewayErrorLike } from '../http/errors';
import { RequestLedger, admit, type Caller, authenticateModelCaller, resolveRoute, resolveScope, spendSubject, type ModelDeps } from './model-request';

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
    ledger.scope = resolveScope(req, caller, parsed.gateway);
    const route = resolveRoute(deps, caller, parsed.gateway, 'chat');
    ledger.route = route;
    const inputEstimate = estimateInputTokens(parsed.request);
    const maxOutput = requestedMaxOutputTokens(parsed.request) ?? route.model.maxOutputTokens;
    const admitted = await admit(deps.spend, spendSubject(caller, ledger.scope, route.byok), reserveMicros(route.price, inputEstimate, maxOutput));
    ledger.reservation = admitted.reservation;
    headers = admitted.headers;

    const signal = abortOnClose(req, res);
    const options = { signal, timeouts: deps.timeouts, http: route.http };
    const shownModel = surface === 'native-responses' ? route.model.id : (parsed.gateway.model ?? route.model.id);
    const echo = { instructions: parsed.render.instructions ?? null, metadata: parsed.gateway.metadata };

    if (!parsed.gateway.stream) {
      const vendorStart = ledger.elapsedMs();
      const response = await callVendor(route.target, parsed.request, options);
      ledger.vendorMs = ledger.elapsedMs() - vendorStart;
      response.warnings.unshift(...parsed.warnings);
      const cost = ledger.cost(response.usage);
      const body = renderResponse(surface, { ...response, model: shownModel }, { costUsd: microsToUsd(cost) }, echo);
      res.set(headers).set(OVERHEAD_HEADER, ledger.overheadMs()).status(200).json(body);
      ledger.finish('finished', 200, response.usage);
      return;
    }

    const id = newResponseId();
    const vendorStart = ledger.elapsedMs();
    const stream = await streamVendor(route.target, parsed.request, { ...options, responseId: id });
    ledger.firstTokenMs = ledger.elapsedMs();
    ledger.vendorMs = ledger.firstTokenMs - vendorStart;
    const renderer = createStreamRenderer(surface, {
      id,
      model: shownModel,
      vendor: route.target.vendor,
      created: Math.floor(Date.now() / 1000),
      warnings: [...parsed.warnings, ...stream.warnings],
      render: parsed.render,
      metadata: parsed.gateway.metadata,
      estimatedInputTokens: inputEstimate,
    });
    res.writeHead(200, { ...headers, [OVERHEAD_HEADER]: ledger.overheadMs(), 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.flushHeaders();
    res.write(renderer.start());
    let usage = null;
    try {
      for await (const event of stream) {
        if (event.type === 'finish') usage = event.usage;
        const frames = renderer.event(event);
        if (frames) res.write(frames);
      }
      res.end(renderer.finish({ costUsd: microsToUsd(ledger.cost(usage)) }));
      ledger.finish('finished', 200, usage);
    } catch (err) {
      const error = err instanceof VendorError ? err : new VendorError({ kind: 'server', message: 'The stream failed inside the gateway.', vendor: route.target.vendor });
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
    const route = resolveRoute(deps, caller, parsed.gateway, 'embedding');
    ledger.route = route;
    const admitted = await admit(deps.spend, spendSubject(caller, ledger.scope, route.byok), reserveMicros(route.price, estimateEmbeddingTokens(parsed.request), 0));
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
