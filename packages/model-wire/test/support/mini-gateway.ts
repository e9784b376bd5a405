/**
 * A tiny HTTP server, for these tests only, that serves every surface with model-wire and routes
 * models to the vendor fakes: `openai/*` and bare `gpt-*` to the OpenAI fake, `anthropic/*` and
 * `claude-*` to the Anthropic fake, `google/*` and `gemini-*` to the Gemini fake, `compat/*` to the
 * OpenAI-compatible fake. The real app (apps/model-gateway) does much more; this is just enough to
 * point the official SDKs at model-wire.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  callVendor,
  checkInlineMedia,
  countTokensVendor,
  createStreamRenderer,
  createVendorHttp,
  embedVendor,
  estimateInputTokens,
  newResponseId,
  parseCountTokensRequest,
  parseSurfaceRequest,
  renderEmbeddings,
  renderError,
  renderResponse,
  streamVendor,
  VendorError,
  WireError,
  type ChatSurface,
  type Dialect,
  type GatewayErrorLike,
  type StreamTimeouts,
  type Surface,
  type VendorTarget,
} from '../../src';

export interface VendorBases {
  openai?: { baseUrl: string; apiKey: string };
  anthropic?: { baseUrl: string; apiKey: string };
  gemini?: { baseUrl: string; apiKey: string };
  compat?: { baseUrl: string; apiKey: string };
}

export interface MiniGateway {
  url: string;
  /** Every failure the server rendered, for assertions on kinds. */
  errors: GatewayErrorLike[];
  timeouts: StreamTimeouts;
  close(): Promise<void>;
}

const COST_USD = 0.0042;

function resolve(model: string | null, vendors: VendorBases): VendorTarget {
  const name = model ?? '';
  const slash = name.indexOf('/');
  const provider = slash > 0 ? name.slice(0, slash) : name.startsWith('claude') ? 'anthropic' : name.startsWith('gemini') ? 'google' : 'openai';
  const vendorModel = slash > 0 ? name.slice(slash + 1) : name;
  const table: Record<string, { dialect: Dialect; vendor: string; base?: { baseUrl: string; apiKey: string } }> = {
    openai: { dialect: 'openai', vendor: 'openai', base: vendors.openai },
    anthropic: { dialect: 'anthropic', vendor: 'anthropic', base: vendors.anthropic },
    google: { dialect: 'gemini', vendor: 'google', base: vendors.gemini },
    compat: { dialect: 'openai-compatible', vendor: 'groq', base: vendors.compat },
  };
  const route = table[provider];
  if (!route?.base) throw WireError.invalid('invalid_model_format', `no vendor serves "${name}" in this test gateway`, 'model');
  return {
    dialect: route.dialect,
    vendor: route.vendor,
    baseUrl: route.base.baseUrl,
    apiKey: route.base.apiKey,
    vendorModel,
    model: slash > 0 ? name : `${provider}/${name}`,
    maxOutputTokens: 4096,
  };
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw WireError.invalid('invalid_request_body', 'The body is not valid JSON.');
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const ROUTES: Record<string, Surface | 'count-tokens'> = {
  '/v1/responses': 'native-responses',
  '/v1/openai/chat/completions': 'openai-chat',
  '/v1/chat/completions': 'openai-chat',
  '/v1/openai/responses': 'openai-responses',
  '/v1/openai/embeddings': 'openai-embeddings',
  '/v1/embeddings': 'openai-embeddings',
  '/v1/anthropic/v1/messages': 'anthropic-messages',
  '/v1/messages': 'anthropic-messages',
  '/v1/anthropic/v1/messages/count_tokens': 'count-tokens',
};

export async function startMiniGateway(vendors: VendorBases, timeouts: StreamTimeouts = { firstTokenMs: 2000, betweenTokensMs: 1000, totalMs: 10_000 }): Promise<MiniGateway> {
  const http = createVendorHttp();
  const errors: GatewayErrorLike[] = [];
  const state = { timeouts };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0]!;
    const route = ROUTES[path];
    const surface: Surface = route === 'count-tokens' ? 'anthropic-messages' : (route ?? 'openai-chat');
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    try {
      if (!route || req.method !== 'POST') return send(res, 404, { error: { type: 'not_found_error', message: `no route ${req.method} ${path}` } });
      const body = await readBody(req);
      const options = { signal: abort.signal, timeouts: state.timeouts, http };

      if (route === 'count-tokens') {
        const parsed = parseCountTokensRequest(body);
        const counted = await countTokensVendor(resolve(parsed.gateway.model, vendors), parsed.request, options);
        return send(res, 200, { input_tokens: counted.inputTokens });
      }
      if (surface === 'openai-embeddings') {
        const parsed = parseSurfaceRequest('openai-embeddings', body);
        const target = resolve(parsed.gateway.model, vendors);
        const result = await embedVendor(target, parsed.request, options);
        return send(res, 200, renderEmbeddings(result, parsed.request.encodingFormat, parsed.gateway.model ?? target.model));
      }
      const chat = surface as ChatSurface;
      const parsed = parseSurfaceRequest(chat, body);
      checkInlineMedia(parsed.request);
      const target = resolve(parsed.gateway.model, vendors);
      const shownModel = chat === 'native-responses' ? target.model : (parsed.gateway.model ?? target.model);
      const echo = { instructions: parsed.render.instructions ?? null, metadata: parsed.gateway.metadata };
      if (!parsed.gateway.stream) {
        const response = await callVendor({ ...target }, parsed.request, options);
        response.warnings.unshift(...parsed.warnings);
        return send(res, 200, renderResponse(chat, { ...response, model: shownModel }, { costUsd: COST_USD }, echo));
      }
      const id = newResponseId();
      const stream = await streamVendor(target, parsed.request, { ...options, responseId: id });
      const renderer = createStreamRenderer(chat, {
        id,
        model: shownModel,
        vendor: target.vendor,
        created: Math.floor(Date.now() / 1000),
        warnings: [...parsed.warnings, ...stream.warnings],
        render: parsed.render,
        metadata: parsed.gateway.metadata,
        estimatedInputTokens: estimateInputTokens(parsed.request),
      });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      res.write(renderer.start());
      try {
        for await (const event of stream) {
          const frames = renderer.event(event);
          if (frames) res.write(frames);
        }
        res.end(renderer.finish({ costUsd: COST_USD }));
      } catch (err) {
        const error = err instanceof VendorError ? err : new VendorError({ kind: 'server', message: String(err), vendor: target.vendor });
        errors.push(error);
        res.end(renderer.error(error));
      }
    } catch (err) {
      if (err instanceof WireError || err instanceof VendorError) {
        errors.push(err);
        const rendered = renderError(surface, err);
        return send(res, rendered.status, rendered.body, rendered.headers);
      }
      const internal: GatewayErrorLike = { status: 500, type: 'internal_error', message: (err as Error).message, source: 'gateway' };
      errors.push(internal);
      const rendered = renderError(surface, internal);
      send(res, rendered.status, rendered.body);
    }
  }

  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    errors,
    get timeouts() {
      return state.timeouts;
    },
    set timeouts(value: StreamTimeouts) {
      state.timeouts = value;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
      await http.close();
    },
  };
}
