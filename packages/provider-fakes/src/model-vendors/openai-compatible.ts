import type { RecordedRequest } from '../fake-server';
import { asRecord, dataFrame, hexId, str } from './common';
import { OPENAI_COMPATIBLE_MODELS, fakeModelInfo } from './models';
import { openAIDialect, openAIFaultError, openAIRateHeaders, respondEmbeddings } from './openai';
import { type ChatFlavour, embeddingInputs, parseChatRequest, respondChat } from './openai-chat';
import { type FaultContext, type JsonResult, type VendorCall, type VendorDialect, startVendorFake } from './server';
import type { FakeFault, FakeVendor, FakeVendorOptions } from './types';

/** Which OpenAI-compatible server the fake imitates: paths, auth, error bodies and headers differ. */
export type OpenAICompatibleFlavour = 'generic' | 'groq' | 'together' | 'mistral' | 'vllm' | 'ollama';

export interface FakeOpenAICompatibleOptions extends FakeVendorOptions {
  flavour?: OpenAICompatibleFlavour;
  /** Path before `/chat/completions` (default per flavour: Groq `/openai/v1`, the others `/v1`). */
  pathPrefix?: string;
  /** Whether a key is required (default: yes, except vLLM and Ollama, which accept any or none). */
  requireKey?: boolean;
}

/** Keys the fake OpenAI-compatible vendor accepts (as `Authorization: Bearer`). */
export const OPENAI_COMPATIBLE_FAKE_KEYS = { valid: 'sk-fake-compat-valid-0000', secondary: 'sk-fake-compat-second-0000' } as const;

const PREFIX: Record<OpenAICompatibleFlavour, string> = { generic: '/v1', groq: '/openai/v1', together: '/v1', mistral: '/v1', vllm: '/v1', ollama: '/v1' };

interface ErrorShape {
  (status: number, message: string, type: string, code: string | null, headers?: Record<string, string>): JsonResult;
}

/** Each flavour's error body: OpenAI's envelope (generic, Groq, Together), Mistral's and vLLM's flat objects, Ollama's envelope. */
function errorShape(flavour: OpenAICompatibleFlavour): ErrorShape {
  switch (flavour) {
    case 'mistral':
      return (status, message, type, code, headers) => ({ type: 'json', status, body: { object: 'error', message, type, param: null, code }, headers });
    case 'vllm': {
      const vllmType: Record<number, string> = { 400: 'BadRequestError', 401: 'Unauthorized', 404: 'NotFoundError', 429: 'TooManyRequests', 500: 'InternalServerError', 503: 'ServiceUnavailableError' };
      return (status, message, _type, _code, headers) => ({ type: 'json', status, body: { object: 'error', message, type: vllmType[status] ?? 'BadRequestError', param: null, code: status }, headers });
    }
    case 'ollama':
      return (status, message, type, _code, headers) => ({ type: 'json', status, body: { error: { message, type: status >= 500 ? 'api_error' : type, param: null, code: null } }, headers });
    case 'groq':
      return (status, message, type, code, headers) => ({ type: 'json', status, body: { error: { message, type, code } }, headers });
    default:
      return (status, message, type, code, headers) => ({ type: 'json', status, body: { error: { message, type, param: null, code } }, headers });
  }
}

/** Re-shapes an OpenAI-envelope error into the flavour's own body, keeping status and headers. */
function reshape(result: JsonResult, shape: ErrorShape): JsonResult {
  const e = asRecord(asRecord(result.body).error);
  return shape(result.status ?? 500, str(e.message) ?? 'error', str(e.type) ?? 'invalid_request_error', str(e.code) ?? null, result.headers);
}

function compatFaultError(flavour: OpenAICompatibleFlavour, shape: ErrorShape, fault: FakeFault, ctx: FaultContext): JsonResult | undefined {
  if (fault.kind === 'model_not_found') {
    if (flavour === 'ollama') return shape(404, `model "${ctx.model}" not found, try pulling it first`, 'api_error', null);
    if (flavour === 'vllm') return shape(404, `The model \`${ctx.model}\` does not exist.`, 'NotFoundError', null);
  }
  if (fault.kind === 'rate_limit' && flavour === 'groq') {
    const retry = fault.retryAfterSeconds ?? 1;
    const tokens = ctx.rate?.exceeded === 'tokens';
    const limit = tokens ? (ctx.rate?.limitTokens ?? 0) : (ctx.rate?.limitRequests ?? 0);
    const used = tokens ? (ctx.rate?.usedTokens ?? 0) : (ctx.rate?.usedRequests ?? 0);
    return shape(
      429,
      `Rate limit reached for model \`${ctx.model}\` in organization \`org_fake\` service tier \`on_demand\` on ${tokens ? 'tokens per minute (TPM)' : 'requests per minute (RPM)'}: Limit ${limit}, Used ${used}, Requested ${tokens ? ctx.inputTokens : 1}. Please try again in ${retry}s. Need more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing`,
      tokens ? 'tokens' : 'requests',
      'rate_limit_exceeded',
      { 'retry-after': String(retry) },
    );
  }
  const openai = openAIFaultError(fault, ctx, { organization: 'org-fake' });
  return openai ? reshape(openai, shape) : undefined;
}

function compatDialect(options: FakeOpenAICompatibleOptions): VendorDialect {
  const flavour = options.flavour ?? 'generic';
  const prefix = (options.pathPrefix ?? PREFIX[flavour]).replace(/\/+$/, '');
  const requireKey = options.requireKey ?? !(flavour === 'vllm' || flavour === 'ollama');
  const shape = errorShape(flavour);
  const base = openAIDialect();
  const chat: ChatFlavour = {
    systemFingerprint: flavour === 'groq' ? 'fp_fake0groq' : null,
    serviceTier: false,
    finalChunkExtra:
      flavour === 'groq'
        ? (answer) => {
            const u = answer.usage;
            return { x_groq: { id: `req_${hexId(u.inputTokens + u.outputTokens, 26)}`, usage: { queue_time: 0.0001, prompt_tokens: u.inputTokens, prompt_time: 0.001, completion_tokens: u.outputTokens, completion_time: 0.01, total_tokens: u.inputTokens + u.outputTokens, total_time: 0.011 } } };
          }
        : undefined,
  };
  const rateHeaders = flavour === 'generic' || flavour === 'groq' || flavour === 'together';
  return {
    ...base,
    name: 'openai-compatible',
    basePath: prefix,
    keys: { ...OPENAI_COMPATIBLE_FAKE_KEYS },
    defaultModels: OPENAI_COMPATIBLE_MODELS,
    authenticate(req: RecordedRequest, accepted: ReadonlySet<string>): string | JsonResult {
      const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!requireKey) return key ?? 'anonymous';
      if (!key || !accepted.has(key)) {
        if (flavour === 'mistral') return { type: 'json', status: 401, body: { message: 'Unauthorized', request_id: hexId(1, 32) } };
        return shape(401, 'Invalid API Key', 'invalid_request_error', 'invalid_api_key');
      }
      return key;
    },
    notFound: (req) => (flavour === 'vllm' ? { type: 'json', status: 404, body: { detail: 'Not Found' } } : shape(404, `Unknown request URL: ${req.method} ${req.path}. Please check the URL for typos, or see the docs at https://platform.openai.com/docs/api-reference/.`, 'invalid_request_error', 'unknown_url')),
    invalidJson: () => shape(400, 'Invalid JSON body', 'invalid_request_error', null),
    errorFor: (fault, ctx) => compatFaultError(flavour, shape, fault, ctx),
    streamErrorFrames: (ctx, kind) => [dataFrame({ error: asRecord(openAIFaultError({ kind: kind ?? 'server_error' }, ctx)?.body).error })],
    rateLimitHeaders: (rate) => (rateHeaders ? openAIRateHeaders(rate) : {}),
    commonHeaders: (state): Record<string, string> => (flavour === 'groq' ? { 'x-request-id': `req_${hexId(state.nextId(), 26)}` } : {}),
    route(req, { models }): VendorCall | JsonResult | undefined {
      if (!req.path.startsWith(`${prefix}/`)) return undefined;
      const path = req.path.slice(prefix.length).replace(/\/+$/, '');
      if (req.method === 'GET' && path === '/models') {
        return { operation: 'models', model: '', stream: false, inputTokens: 0, respond: () => ({ type: 'json', body: { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 1_715_367_049, owned_by: flavour === 'generic' ? 'fake' : flavour })) } }) };
      }
      if (req.method !== 'POST') return undefined;
      const body = asRecord(req.json);
      const model = str(body.model);
      if (path === '/chat/completions') {
        if (!model) return shape(400, 'model is required', 'invalid_request_error', null);
        const parsed = parseChatRequest(body, model);
        if ('status' in parsed) return shape(parsed.status, parsed.message, 'invalid_request_error', parsed.code);
        return {
          operation: 'chat.completions',
          model,
          stream: parsed.stream,
          inputTokens: parsed.input.inputTokens,
          respond: (ctx) =>
            parsed.input.inputTokens > fakeModelInfo(ctx.model).contextWindow
              ? compatFaultError(flavour, shape, { kind: 'context_length' }, { ...ctx, operation: 'chat.completions', inputTokens: parsed.input.inputTokens, stream: parsed.stream, key: '' })!
              : respondChat(parsed, ctx, chat),
        };
      }
      if (path === '/embeddings') {
        if (!model) return shape(400, 'model is required', 'invalid_request_error', null);
        const inputs = embeddingInputs(body.input);
        if (!inputs) return shape(400, "'input' is required", 'invalid_request_error', null);
        return {
          operation: 'embeddings',
          model,
          stream: false,
          inputTokens: inputs.tokens,
          respond: (ctx) => respondEmbeddings(body, inputs.texts, inputs.tokens, ctx.model),
        };
      }
      return undefined;
    },
  };
}

/**
 * A fake OpenAI-compatible vendor (Groq, Together, Mistral, vLLM, Ollama style): chat completions
 * with streaming and tool calls, embeddings and the models list under a configurable path prefix,
 * with the chosen flavour's auth, error bodies and headers. `baseUrl` is `${url}${pathPrefix}`.
 */
export function startFakeOpenAICompatible(options: FakeOpenAICompatibleOptions = {}): Promise<FakeVendor> {
  return startVendorFake(compatDialect(options), options);
}
