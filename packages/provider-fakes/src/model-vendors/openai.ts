import type { RecordedRequest } from '../fake-server';
import { type ParsedInput, TokenCounter, buildAnswer, embeddingToBase64, fakeEmbedding } from './answer';
import { SUPPORTED_IMAGE_TYPES, asArray, asRecord, dataFrame, eventFrame, goDuration, hexId, imageMediaType, num, str } from './common';
import { fakeModelInfo, OPENAI_MODELS } from './models';
import { routeOpenAIMedia } from './openai-media';
import { INVALID_IMAGE, OPENAI_FLAVOUR, type OpenAIRequestError, answeredTier, embeddingInputs, openAIToolChoice, parseChatRequest, reasoningTokensFor, respondChat } from './openai-chat';
import { type FaultContext, type JsonResult, type RateInfo, type RespondContext, type StreamFrame, type VendorCall, type VendorDialect, type VendorResult, startVendorFake } from './server';
import type { FakeFault, FakeStreamErrorKind, FakeUsage, FakeVendor, FakeVendorOptions } from './types';

/** Keys the fake OpenAI accepts (send as `Authorization: Bearer <key>`). */
export const OPENAI_FAKE_KEYS = { valid: 'sk-fake-openai-valid-0000', secondary: 'sk-fake-openai-second-0000' } as const;

/** OpenAI's error envelope: `{error: {message, type, param, code}}`. */
export function openAIError(status: number, message: string, type: string, param: string | null = null, code: string | null = null, headers?: Record<string, string>): JsonResult {
  return { type: 'json', status, body: { error: { message, type, param, code } }, headers };
}

function fromRequestError(e: OpenAIRequestError): JsonResult {
  return openAIError(e.status, e.message, 'invalid_request_error', e.param, e.code);
}

function maskKey(key: string): string {
  if (key.length <= 8) return key;
  return `${key.slice(0, 8)}${'*'.repeat(Math.max(4, key.length - 12))}${key.slice(-4)}`;
}

/** Authentication the OpenAI way: a missing key and a wrong key get different 401 bodies. */
export function openAIAuthenticate(req: RecordedRequest, accepted: ReadonlySet<string>): string | JsonResult {
  const header = req.headers.authorization;
  const key = /^Bearer (.+)$/.exec(header ?? '')?.[1];
  if (!key) {
    return openAIError(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username. You can obtain an API key from https://platform.openai.com/account/api-keys.",
      'invalid_request_error',
    );
  }
  if (!accepted.has(key)) {
    return openAIError(401, `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`, 'invalid_request_error', null, 'invalid_api_key');
  }
  return key;
}

/** OpenAI's `x-ratelimit-*` headers. */
export function openAIRateHeaders(rate: RateInfo): Record<string, string> {
  return {
    'x-ratelimit-limit-requests': String(rate.limitRequests),
    'x-ratelimit-limit-tokens': String(rate.limitTokens),
    'x-ratelimit-remaining-requests': String(rate.remainingRequests),
    'x-ratelimit-remaining-tokens': String(rate.remainingTokens),
    'x-ratelimit-reset-requests': goDuration(rate.resetMs),
    'x-ratelimit-reset-tokens': goDuration(rate.resetMs),
  };
}

export interface OpenAIErrorTexts {
  /** Whose quota and rate limits the messages name. */
  organization: string;
}

/** The error answers of the OpenAI API (and of vendors that copy its envelope) for each error fault. */
export function openAIFaultError(fault: FakeFault, ctx: FaultContext, texts: OpenAIErrorTexts = { organization: 'org-fake' }): JsonResult | undefined {
  switch (fault.kind) {
    case 'rate_limit': {
      const retry = fault.retryAfterSeconds ?? 1;
      const rate = ctx.rate;
      const tokens = rate?.exceeded === 'tokens';
      const limit = tokens ? (rate?.limitTokens ?? 0) : (rate?.limitRequests ?? 0);
      const used = tokens ? (rate?.usedTokens ?? 0) : (rate?.usedRequests ?? 0);
      const message = `Rate limit reached for ${ctx.model} in organization ${texts.organization} on ${tokens ? 'tokens per min (TPM)' : 'requests per min (RPM)'}: Limit ${limit}, Used ${used}, Requested ${tokens ? ctx.inputTokens : 1}. Please try again in ${retry}s. Visit https://platform.openai.com/account/rate-limits to learn more.`;
      return openAIError(429, message, tokens ? 'tokens' : 'requests', null, 'rate_limit_exceeded', { 'retry-after': String(retry) });
    }
    case 'overloaded':
      return openAIError(fault.status ?? 503, 'The server is overloaded or not ready yet.', 'server_error');
    case 'server_error':
      return openAIError(500, 'The server had an error while processing your request. Sorry about that!', 'server_error');
    case 'context_length': {
      const window = fakeModelInfo(ctx.model).contextWindow;
      if (ctx.operation === 'responses') return openAIError(400, 'Your input exceeds the context window of this model. Please adjust your input and try again.', 'invalid_request_error', 'input', 'context_length_exceeded');
      if (ctx.operation === 'embeddings') {
        return openAIError(400, `This model's maximum context length is ${window} tokens, however you requested ${ctx.inputTokens} tokens (${ctx.inputTokens} in your prompt; 0 for the completion). Please reduce your prompt; or completion length.`, 'invalid_request_error', null, 'context_length_exceeded');
      }
      return openAIError(400, `This model's maximum context length is ${window} tokens. However, your messages resulted in ${Math.max(ctx.inputTokens, window + 1)} tokens. Please reduce the length of the messages.`, 'invalid_request_error', 'messages', 'context_length_exceeded');
    }
    case 'content_filter':
      if (fault.form !== 'error') return undefined;
      return openAIError(400, 'Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system.', 'invalid_request_error', null, 'content_policy_violation');
    case 'billing':
      return openAIError(fault.status ?? 429, 'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.', 'insufficient_quota', null, 'insufficient_quota');
    case 'model_not_found':
      return openAIError(404, `The model \`${ctx.model}\` does not exist or you do not have access to it.`, 'invalid_request_error', null, 'model_not_found');
    default:
      return undefined;
  }
}

function missingModel(): JsonResult {
  return openAIError(400, 'you must provide a model parameter', 'invalid_request_error');
}

function responsesUsage(u: FakeUsage): Record<string, unknown> {
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cachedInputTokens },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens },
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

interface ParsedResponses {
  input: ParsedInput;
  body: Record<string, unknown>;
  stream: boolean;
  serviceTier: string;
}

/** Reads a Responses API request: `input` as a string or items, flat function tools, `text.format`. */
function parseResponsesRequest(body: Record<string, unknown>, model: string): ParsedResponses | OpenAIRequestError {
  if (body.input === undefined) return { status: 400, message: "Missing required parameter: 'input'.", param: 'input', code: 'missing_required_parameter' };
  const counter = new TokenCounter();
  counter.text(body.instructions);
  let lastUserText = '';
  let lastToolResult: ParsedInput['lastToolResult'];
  let badImage: string | undefined;
  const callNames = new Map<string, string>();
  const items = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : asArray(body.input);
  for (const raw of items) {
    const item = asRecord(raw);
    lastToolResult = undefined;
    if (item.type === 'function_call') {
      counter.text(item.name);
      counter.text(item.arguments);
      if (typeof item.call_id === 'string' && typeof item.name === 'string') callNames.set(item.call_id, item.name);
      continue;
    }
    if (item.type === 'reasoning') {
      // OpenAI refuses encrypted reasoning it did not issue (stateless multi-turn hands it back as it came).
      if (item.encrypted_content !== undefined && !isFakeEncryptedReasoning(item.encrypted_content)) {
        return { status: 400, message: 'The encrypted content for item rs could not be verified.', param: 'input', code: 'invalid_encrypted_content' };
      }
      continue;
    }
    if (item.type === 'function_call_output') {
      const output = typeof item.output === 'string' ? item.output : JSON.stringify(item.output ?? '');
      counter.text(output);
      lastToolResult = { name: callNames.get(str(item.call_id) ?? ''), content: output };
      continue;
    }
    if (item.type !== undefined && item.type !== 'message') continue;
    const texts: string[] = [];
    if (typeof item.content === 'string') {
      counter.text(item.content);
      texts.push(item.content);
    } else {
      for (const part of asArray(item.content)) {
        const p = asRecord(part);
        if (p.type === 'input_text' || p.type === 'output_text') {
          counter.text(p.text);
          texts.push(str(p.text) ?? '');
        } else if (p.type === 'input_image' || p.type === 'input_file') {
          const url = str(p.image_url) ?? '';
          const media = url.startsWith('data:') ? imageMediaType(url) : undefined;
          if (media !== undefined && !SUPPORTED_IMAGE_TYPES.has(media)) badImage = media;
          counter.image();
        }
      }
    }
    if (item.role === 'user') lastUserText = texts.join(' ');
  }
  if (badImage) return INVALID_IMAGE(badImage);
  const tools = asArray(body.tools)
    .map((t) => asRecord(t))
    .filter((t) => t.type === 'function')
    .map((t) => {
      counter.json({ name: t.name, description: t.description, parameters: t.parameters });
      return { name: str(t.name) ?? 'tool', parameters: t.parameters };
    });
  const toolChoice = openAIToolChoice(body.tool_choice, tools.length > 0);
  const format = asRecord(asRecord(body.text).format);
  let responseFormat: ParsedInput['responseFormat'];
  if (format.type === 'json_object') responseFormat = { type: 'json_object' };
  if (format.type === 'json_schema') {
    counter.json(format.schema);
    responseFormat = { type: 'json_schema', schema: format.schema };
  }
  const reasoning = asRecord(body.reasoning);
  const reasons = fakeModelInfo(model).reasons;
  return {
    body,
    stream: body.stream === true,
    serviceTier: answeredTier(body.service_tier),
    input: {
      inputTokens: counter.tokens,
      images: counter.images,
      lastUserText,
      tools,
      toolChoice,
      lastToolResult,
      maxOutputTokens: num(body.max_output_tokens),
      responseFormat,
      hiddenReasoningTokens: reasoningTokensFor(model, reasoning.effort),
      visibleThinking: reasons && typeof reasoning.summary === 'string' && reasoning.summary !== 'none',
    },
  };
}

const ENCRYPTED_REASONING_PREFIX = 'gAAAAfake';

/** Opaque encrypted reasoning as the fake issues it (OpenAI's is a Fernet token, `gAAAA…`). */
export function fakeEncryptedReasoning(id: string): string {
  return `${ENCRYPTED_REASONING_PREFIX}${Buffer.from(`reasoning:${id}`).toString('base64url')}`;
}

function isFakeEncryptedReasoning(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith(ENCRYPTED_REASONING_PREFIX);
}

const WEB_SEARCH_TOOLS = new Set(['web_search', 'web_search_preview', 'web_search_2025_08_26', 'web_search_preview_2025_03_11']);

/**
 * OpenAI's built-in web search (Responses `tools: [{"type": "web_search"}]`) as the fake runs it: one
 * search for the user's words before the answer, a `web_search_call` item whose `action.sources` are
 * there only when the request includes "web_search_call.action.sources" (as OpenAI does), and one
 * url_citation annotation on the answer's text. OpenAI reports no search count in usage.
 */
function fakeOpenAIWebSearch(query: string, hex: string, includeSources: boolean, allowed: string[]): { item: Record<string, unknown>; url: string; title: string } {
  const domain = allowed[0] ?? 'example.com';
  const url = `https://${domain}/fake-openai-search`;
  const action = { type: 'search', query, ...(includeSources ? { sources: [{ type: 'url', url }] } : {}) };
  return { item: { id: `ws_${hex}`, type: 'web_search_call', status: 'completed', action }, url, title: 'Fake OpenAI search result' };
}

/** Renders a Responses API answer: the response object, or its event stream with sequence numbers. */
function respondResponses(parsed: ParsedResponses, ctx: RespondContext): VendorResult {
  const n = ctx.state.nextId();
  const hex = hexId(n, 40);
  const answer = buildAnswer({ input: parsed.input, scripted: ctx.scripted, fault: ctx.fault, toolCallId: (i) => `call_${hexId(n * 31 + i, 24)}` });
  const b = parsed.body;
  const reasons = fakeModelInfo(ctx.model).reasons;
  const status = answer.finish === 'max_tokens' || answer.finish === 'content_filter' ? 'incomplete' : 'completed';
  const base = {
    id: `resp_${hex}`,
    object: 'response',
    created_at: Math.floor(ctx.state.now() / 1000),
    status: 'in_progress',
    background: false,
    error: null,
    incomplete_details: null,
    instructions: b.instructions ?? null,
    max_output_tokens: b.max_output_tokens ?? null,
    max_tool_calls: null,
    model: ctx.model,
    output: [] as unknown[],
    parallel_tool_calls: b.parallel_tool_calls ?? true,
    previous_response_id: b.previous_response_id ?? null,
    reasoning: { effort: asRecord(b.reasoning).effort ?? (reasons ? 'medium' : null), summary: asRecord(b.reasoning).summary ?? null },
    service_tier: parsed.serviceTier,
    store: b.store ?? true,
    temperature: b.temperature ?? 1,
    text: { format: asRecord(b.text).format ?? { type: 'text' }, verbosity: 'medium' },
    tool_choice: b.tool_choice ?? 'auto',
    tools: b.tools ?? [],
    top_p: b.top_p ?? 1,
    truncation: 'disabled',
    usage: null as unknown,
    user: null,
    metadata: b.metadata ?? {},
  };
  // With include: ["reasoning.encrypted_content"] (what store: false callers ask for) the item carries it.
  const encrypted = asArray(b.include).includes('reasoning.encrypted_content') ? { encrypted_content: fakeEncryptedReasoning(hex) } : {};
  const reasoningItem = reasons || answer.thinking || answer.shapedBy === 'reasoning_exhausted' ? { id: `rs_${hex}`, type: 'reasoning', summary: answer.thinking ? [{ type: 'summary_text', text: answer.thinking }] : [], ...encrypted } : undefined;
  const searchTool = asArray(b.tools).map((t) => asRecord(t)).find((t) => WEB_SEARCH_TOOLS.has(str(t.type) ?? ''));
  const search = searchTool && !ctx.scripted && !ctx.fault
    ? fakeOpenAIWebSearch(parsed.input.lastUserText.slice(0, 100), hex, asArray(b.include).includes('web_search_call.action.sources'), asArray(asRecord(searchTool.filters).allowed_domains).filter((d): d is string => typeof d === 'string'))
    : null;
  const annotation = search && answer.text ? { type: 'url_citation', start_index: 0, end_index: answer.text.length, url: search.url, title: search.title } : null;
  const textPart = { type: 'output_text', text: answer.text, annotations: annotation ? [annotation] : [], logprobs: [] };
  const hasMessage = answer.text !== '' || (answer.toolCalls.length === 0 && answer.shapedBy !== 'content_filter' && answer.shapedBy !== 'reasoning_exhausted');
  const messageItem = hasMessage ? { id: `msg_${hex}`, type: 'message', status: 'completed', role: 'assistant', content: [textPart] } : undefined;
  const callItems = answer.toolCalls.map((c, i) => ({ id: `fc_${hexId(n * 31 + i, 40)}`, type: 'function_call', status: 'completed', arguments: c.arguments, call_id: c.id, name: c.name }));
  const output = [reasoningItem, search?.item, messageItem, ...callItems].filter((x) => x !== undefined);
  const final = {
    ...base,
    status,
    incomplete_details: status === 'incomplete' ? { reason: answer.finish === 'content_filter' ? 'content_filter' : 'max_output_tokens' } : null,
    output,
    usage: responsesUsage(answer.usage),
  };
  if (!parsed.stream) return { type: 'json', body: final };

  let seq = 0;
  const frames: StreamFrame[] = [];
  const ev = (type: string, fields: Record<string, unknown>, tokens = 0, terminal = false) => frames.push(eventFrame(type, { type, sequence_number: seq++, ...fields }, tokens, terminal));
  ev('response.created', { response: base });
  ev('response.in_progress', { response: base });
  output.forEach((item, output_index) => {
    if (item.type === 'reasoning') {
      ev('response.output_item.added', { output_index, item: { ...item, summary: [] } });
      if (answer.thinking) {
        const ids = { item_id: item.id, output_index, summary_index: 0 };
        ev('response.reasoning_summary_part.added', { ...ids, part: { type: 'summary_text', text: '' } });
        for (const delta of answer.thinkingPieces) ev('response.reasoning_summary_text.delta', { ...ids, delta }, 1);
        ev('response.reasoning_summary_text.done', { ...ids, text: answer.thinking });
        ev('response.reasoning_summary_part.done', { ...ids, part: { type: 'summary_text', text: answer.thinking } });
      }
      ev('response.output_item.done', { output_index, item });
    } else if (item.type === 'web_search_call') {
      const ids = { item_id: item.id, output_index };
      ev('response.output_item.added', { output_index, item: { id: item.id, type: 'web_search_call', status: 'in_progress' } });
      ev('response.web_search_call.in_progress', ids);
      ev('response.web_search_call.searching', ids);
      ev('response.web_search_call.completed', ids);
      ev('response.output_item.done', { output_index, item });
    } else if (item.type === 'message') {
      const ids = { item_id: item.id, output_index, content_index: 0 };
      ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      ev('response.content_part.added', { ...ids, part: { ...textPart, text: '' } });
      for (const delta of answer.pieces) ev('response.output_text.delta', { ...ids, delta, logprobs: [] }, 1);
      if (annotation) ev('response.output_text.annotation.added', { ...ids, annotation_index: 0, annotation });
      ev('response.output_text.done', { ...ids, text: answer.text, logprobs: [] });
      ev('response.content_part.done', { ...ids, part: textPart });
      ev('response.output_item.done', { output_index, item });
    } else {
      const call = item as (typeof callItems)[number];
      const pieces = answer.toolCalls.find((c) => c.id === call.call_id)?.pieces ?? [call.arguments];
      ev('response.output_item.added', { output_index, item: { ...call, status: 'in_progress', arguments: '' } }, 1);
      for (const delta of pieces) ev('response.function_call_arguments.delta', { item_id: call.id, output_index, delta }, 1);
      ev('response.function_call_arguments.done', { item_id: call.id, output_index, name: call.name, arguments: call.arguments });
      ev('response.output_item.done', { output_index, item: call });
    }
  });
  ev(status === 'completed' ? 'response.completed' : 'response.incomplete', { response: final }, 0, true);
  const errorFrames = (kind: FakeStreamErrorKind | undefined, fctx: FaultContext, written: number): StreamFrame[] => {
    const body = asRecord(asRecord(openAIFaultError({ kind: kind ?? 'server_error' }, fctx)?.body).error);
    const error = { code: str(body.code) ?? 'server_error', message: str(body.message) ?? 'The server had an error while processing your request. Sorry about that!' };
    const at = written;
    return [
      eventFrame('error', { type: 'error', sequence_number: at, code: error.code, message: error.message, param: null }),
      eventFrame('response.failed', { type: 'response.failed', sequence_number: at + 1, response: { ...base, status: 'failed', error } }),
    ];
  };
  return { type: 'stream', frames, errorFrames };
}

/** Renders an embeddings answer: float arrays, or base64 little-endian float32 as the SDK asks by default. */
export function respondEmbeddings(body: Record<string, unknown>, texts: string[], tokens: number, model: string): VendorResult {
  const info = fakeModelInfo(model);
  const dims = num(body.dimensions) ?? info.embeddingDimensions ?? 1536;
  const base64 = body.encoding_format === 'base64';
  return {
    type: 'json',
    body: {
      object: 'list',
      data: texts.map((text, index) => {
        const vector = fakeEmbedding(text, dims);
        return { object: 'embedding', index, embedding: base64 ? embeddingToBase64(vector) : Array.from(vector) };
      }),
      model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
  };
}

/** The OpenAI dialect, also the base of the OpenAI-compatible fake. */
export function openAIDialect(): VendorDialect {
  return {
    name: 'openai',
    basePath: '/v1',
    keys: { ...OPENAI_FAKE_KEYS },
    defaultModels: OPENAI_MODELS,
    authenticate: openAIAuthenticate,
    notFound: (req) => openAIError(404, `Invalid URL (${req.method} ${req.path})`, 'invalid_request_error'),
    invalidJson: () =>
      openAIError(
        400,
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)",
        'invalid_request_error',
      ),
    errorFor: (fault, ctx) => openAIFaultError(fault, ctx),
    streamErrorFrames: (ctx, kind) => [dataFrame({ error: asRecord(openAIFaultError({ kind: kind ?? 'server_error' }, ctx)?.body).error })],
    malformedFrame: () => 'data: {"id":"chatcmpl-malformed","object":"chat.completion.chunk","choices":[{"delta":{"content":"\n\n',
    rateLimitHeaders: openAIRateHeaders,
    commonHeaders: (state) => ({ 'x-request-id': `req_${hexId(state.nextId(), 32)}`, 'openai-version': '2020-10-01', 'openai-organization': 'org-fake', 'openai-processing-ms': '1' }),
    route(req, { state, models }): VendorCall | JsonResult | undefined {
      const body = asRecord(req.json);
      const path = req.path.replace(/\/+$/, '');
      const media = routeOpenAIMedia(req, path, () => state.nextId());
      if (media) return media;
      if (req.method === 'GET' && path === '/v1/models') {
        return { operation: 'models', model: '', stream: false, inputTokens: 0, respond: () => ({ type: 'json', body: { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 1_715_367_049, owned_by: 'system' })) } }) };
      }
      const one = /^\/v1\/models\/(.+)$/.exec(path);
      if (req.method === 'GET' && one) {
        const id = decodeURIComponent(one[1] ?? '');
        if (!models.includes(id)) return openAIError(404, `The model '${id}' does not exist`, 'invalid_request_error', 'model', 'model_not_found');
        return { operation: 'models', model: id, stream: false, inputTokens: 0, respond: () => ({ type: 'json', body: { id, object: 'model', created: 1_715_367_049, owned_by: 'system' } }) };
      }
      if (req.method !== 'POST') return undefined;
      const model = str(body.model);
      if (path === '/v1/chat/completions') {
        if (!model) return missingModel();
        const parsed = parseChatRequest(body, model);
        if ('status' in parsed) return fromRequestError(parsed);
        return {
          operation: 'chat.completions',
          model,
          stream: parsed.stream,
          serviceTier: str(body.service_tier) ?? 'default',
          inputTokens: parsed.input.inputTokens,
          respond: (ctx) => (parsed.input.inputTokens > fakeModelInfo(ctx.model).contextWindow ? openAIFaultError({ kind: 'context_length' }, { ...ctx, operation: 'chat.completions', inputTokens: parsed.input.inputTokens, stream: parsed.stream, key: '' })! : respondChat(parsed, ctx, OPENAI_FLAVOUR)),
        };
      }
      if (path === '/v1/responses') {
        if (!model) return missingModel();
        const parsed = parseResponsesRequest(body, model);
        if ('status' in parsed) return fromRequestError(parsed);
        return {
          operation: 'responses',
          model,
          stream: parsed.stream,
          serviceTier: str(body.service_tier) ?? 'default',
          inputTokens: parsed.input.inputTokens,
          respond: (ctx) => (parsed.input.inputTokens > fakeModelInfo(ctx.model).contextWindow ? openAIFaultError({ kind: 'context_length' }, { ...ctx, operation: 'responses', inputTokens: parsed.input.inputTokens, stream: parsed.stream, key: '' })! : respondResponses(parsed, ctx)),
        };
      }
      if (path === '/v1/embeddings') {
        if (!model) return missingModel();
        const inputs = embeddingInputs(body.input);
        if (!inputs) return openAIError(400, "'input' is a required property and must be a string, an array of strings, or an array of token arrays.", 'invalid_request_error', 'input');
        if (body.encoding_format !== undefined && body.encoding_format !== 'float' && body.encoding_format !== 'base64') {
          return openAIError(400, `Invalid value for 'encoding_format': '${String(body.encoding_format)}'. Supported values are: 'float' and 'base64'.`, 'invalid_request_error', 'encoding_format', 'invalid_value');
        }
        if (body.dimensions !== undefined && /ada-002/.test(model)) return openAIError(400, 'This model does not support specifying dimensions.', 'invalid_request_error', 'dimensions');
        return {
          operation: 'embeddings',
          model,
          stream: false,
          inputTokens: inputs.tokens,
          respond: (ctx) => {
            const window = fakeModelInfo(ctx.model).contextWindow;
            const longest = Math.max(...inputs.texts.map((t) => Math.ceil(t.length / 4)));
            if (longest > window) return openAIFaultError({ kind: 'context_length' }, { ...ctx, operation: 'embeddings', inputTokens: longest, stream: false, key: '' })!;
            return respondEmbeddings(body, inputs.texts, inputs.tokens, ctx.model);
          },
        };
      }
      return undefined;
    },
  };
}

/**
 * A fake OpenAI API: chat completions (streaming with include_usage, tool calls, images,
 * response_format), the Responses API with its streaming events, embeddings (float and base64) and
 * the models list. `baseUrl` is `${url}/v1`, as the openai SDK takes it.
 */
export function startFakeOpenAI(options?: FakeVendorOptions): Promise<FakeVendor> {
  return startVendorFake(openAIDialect(), options);
}
