import type { RecordedRequest } from '../fake-server';
import { type ParsedInput, TokenCounter, buildAnswer } from './answer';
import { SUPPORTED_IMAGE_TYPES, asArray, asRecord, eventFrame, hexId, num, str, strings } from './common';
import { ANTHROPIC_MODELS, fakeModelInfo } from './models';
import { type FaultContext, type JsonResult, PROMPT_CACHE_ENTRIES, type RateInfo, type RespondContext, type StreamFrame, type VendorCall, type VendorDialect, type VendorResult, type VendorState, startVendorFake } from './server';
import type { FakeFault, FakeFinishReason, FakeUsage, FakeVendor, FakeVendorOptions } from './types';

/** Keys the fake Anthropic accepts, as `x-api-key` or `Authorization: Bearer`. */
export const ANTHROPIC_FAKE_KEYS = { valid: 'sk-ant-fake-valid-0000', secondary: 'sk-ant-fake-second-0000' } as const;

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Anthropic-style ids: `msg_01…`, `toolu_01…`, `req_011C…` with 22 base58 characters. */
function anthropicId(prefix: string, n: number): string {
  let x = (n * 2654435761) >>> 0;
  let out = '';
  for (let i = 0; i < 22; i++) {
    out += BASE58[(x + i * 7 + n) % 58];
    x = (x * 1103515245 + 12345) >>> 0;
  }
  return `${prefix}${out}`;
}

/** Anthropic's error envelope: `{type: "error", error: {type, message}, request_id}`. */
export function anthropicError(status: number, type: string, message: string, state?: VendorState, headers?: Record<string, string>): JsonResult {
  return { type: 'json', status, body: { type: 'error', error: { type, message }, request_id: anthropicId('req_011C', state?.nextId() ?? 0) }, headers };
}

function stopReason(finish: FakeFinishReason): string {
  return finish === 'stop' ? 'end_turn' : finish === 'content_filter' ? 'refusal' : finish;
}

function anthropicUsage(u: FakeUsage, ttl1h: boolean): Record<string, unknown> {
  return {
    input_tokens: Math.max(0, u.inputTokens - u.cachedInputTokens - u.cacheWriteInputTokens),
    cache_creation_input_tokens: u.cacheWriteInputTokens,
    cache_read_input_tokens: u.cachedInputTokens,
    cache_creation: { ephemeral_5m_input_tokens: ttl1h ? 0 : u.cacheWriteInputTokens, ephemeral_1h_input_tokens: ttl1h ? u.cacheWriteInputTokens : 0 },
    output_tokens: u.outputTokens,
    service_tier: 'standard',
  };
}

interface ParsedMessages {
  input: ParsedInput;
  stream: boolean;
  /** Everything up to the last `cache_control` breakpoint, when there is one. */
  breakpoint?: { key: string; tokens: number; ttl1h: boolean };
  /** The request carries Anthropic's own web search tool (web_search_20250305): the answer searches once first. */
  webSearch?: boolean;
}

/** Anthropic's server-side web search as the fake runs it: one search for the user's words, one fixed result, cited. */
function fakeWebSearch(query: string, n: number): { use: Record<string, unknown>; result: Record<string, unknown>; citation: Record<string, unknown> } {
  const id = anthropicId('srvtoolu_01', n);
  const url = 'https://example.com/fake-anthropic-search';
  const title = 'Fake Anthropic search result';
  return {
    use: { type: 'server_tool_use', id, name: 'web_search', input: { query } },
    result: { type: 'web_search_tool_result', tool_use_id: id, content: [{ type: 'web_search_result', url, title, encrypted_content: Buffer.from(`fake:${query}`).toString('base64'), page_age: null }] },
    citation: { type: 'web_search_result_location', url, title, cited_text: `A fake page about ${query}`.slice(0, 150), encrypted_index: Buffer.from(`idx:${n}`).toString('base64') },
  };
}

type Invalid = { message: string };

/** Reads a Messages request (also count_tokens, which has no max_tokens) the way Anthropic validates it. */
function parseMessages(body: Record<string, unknown>, model: string, countOnly: boolean): ParsedMessages | Invalid {
  if (!countOnly && body.max_tokens === undefined) return { message: 'max_tokens: Field required' };
  if (!Array.isArray(body.messages)) return { message: 'messages: Field required' };
  const info = fakeModelInfo(model);
  const maxTokens = num(body.max_tokens);
  if (!countOnly && maxTokens !== undefined && maxTokens > info.maxOutputTokens) {
    return { message: `max_tokens: ${maxTokens} > ${info.maxOutputTokens}, which is the maximum allowed number of output tokens for ${model}` };
  }
  const thinking = asRecord(body.thinking);
  if (thinking.type === 'enabled') {
    const budget = num(thinking.budget_tokens);
    if (budget === undefined || budget < 1024) return { message: 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024' };
    if (!countOnly && maxTokens !== undefined && maxTokens <= budget) {
      return { message: '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size' };
    }
  }
  const counter = new TokenCounter();
  // Cache prefix in Anthropic's order: tools, then system, then messages.
  const signature: string[] = [];
  let mark: { at: number; tokens: number; ttl1h: boolean } | undefined;
  const cacheable = (item: unknown) => {
    signature.push(JSON.stringify(item));
    const cc = asRecord(asRecord(item).cache_control);
    if (cc.type === 'ephemeral') mark = { at: signature.length, tokens: counter.tokens, ttl1h: cc.ttl === '1h' };
  };
  const webSearch = asArray(body.tools).some((t) => asRecord(t).type === 'web_search_20250305');
  const tools = asArray(body.tools).filter((t) => asRecord(t).type !== 'web_search_20250305').map((t) => {
    const tool = asRecord(t);
    counter.json({ name: tool.name, description: tool.description, input_schema: tool.input_schema });
    cacheable(tool);
    return { name: str(tool.name) ?? 'tool', parameters: tool.input_schema };
  });
  if (typeof body.system === 'string') {
    counter.text(body.system);
    signature.push(JSON.stringify(body.system));
  } else {
    for (const block of asArray(body.system)) {
      counter.text(asRecord(block).text);
      cacheable(block);
    }
  }
  let lastUserText = '';
  let lastToolResult: ParsedInput['lastToolResult'];
  const toolNames = new Map<string, string>();
  for (const [mi, raw] of body.messages.entries()) {
    const m = asRecord(raw);
    const texts: string[] = [];
    lastToolResult = undefined;
    if (typeof m.content === 'string') {
      counter.text(m.content);
      texts.push(m.content);
      signature.push(JSON.stringify(m.content));
    }
    for (const [bi, rawBlock] of asArray(m.content).entries()) {
      const block = asRecord(rawBlock);
      switch (block.type) {
        case 'text':
          counter.text(block.text);
          texts.push(str(block.text) ?? '');
          break;
        case 'image':
        case 'document': {
          const source = asRecord(block.source);
          if (block.type === 'image' && source.type === 'base64' && !SUPPORTED_IMAGE_TYPES.has(str(source.media_type) ?? '')) {
            return { message: `messages.${mi}.content.${bi}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'` };
          }
          counter.image();
          break;
        }
        case 'tool_use':
          counter.text(block.name);
          counter.json(block.input);
          if (typeof block.id === 'string' && typeof block.name === 'string') toolNames.set(block.id, block.name);
          break;
        case 'tool_result': {
          const content = typeof block.content === 'string' ? block.content : asArray(block.content).map((c) => str(asRecord(c).text) ?? '').join(' ');
          counter.text(content);
          lastToolResult = { name: toolNames.get(str(block.tool_use_id) ?? ''), content };
          break;
        }
        case 'thinking':
          counter.text(block.thinking);
          break;
        default:
          break;
      }
      cacheable(block);
    }
    if (m.role === 'user' && texts.length > 0) lastUserText = texts.join(' ');
  }
  const choice = asRecord(body.tool_choice);
  const toolChoice: ParsedInput['toolChoice'] =
    choice.type === 'any' ? 'required' : choice.type === 'tool' ? { name: str(choice.name) ?? '' } : choice.type === 'none' ? 'none' : tools.length > 0 ? 'auto' : 'none';
  const minCacheable = /haiku/.test(model) ? 2048 : 1024;
  const breakpoint = mark && mark.tokens >= minCacheable ? { key: `${model}\u0000${signature.slice(0, mark.at).join('\u0000')}`, tokens: mark.tokens, ttl1h: mark.ttl1h } : undefined;
  const thinks = thinking.type === 'enabled' || thinking.type === 'adaptive';
  return {
    webSearch,
    stream: body.stream === true,
    breakpoint,
    input: {
      inputTokens: counter.tokens,
      images: counter.images,
      lastUserText,
      tools,
      toolChoice,
      lastToolResult,
      maxOutputTokens: maxTokens,
      hiddenReasoningTokens: 0,
      visibleThinking: thinks,
      stopSequences: strings(body.stop_sequences),
    },
  };
}

/** Anthropic's prompt cache: the first request writes the prefix, later identical prefixes read it. */
function promptCache(state: VendorState, breakpoint: ParsedMessages['breakpoint']): { read: number; write: number } {
  if (!breakpoint) return { read: 0, write: 0 };
  if (state.cache.has(breakpoint.key)) return { read: breakpoint.tokens, write: 0 };
  if (state.cache.size >= PROMPT_CACHE_ENTRIES) state.cache.clear();
  state.cache.set(breakpoint.key, breakpoint.tokens);
  return { read: 0, write: breakpoint.tokens };
}

function signatureFor(n: number): string {
  return Buffer.from(`fake-signature-${hexId(n, 32)}`).toString('base64');
}

function respondMessages(parsed: ParsedMessages, ctx: RespondContext): VendorResult {
  const n = ctx.state.nextId();
  const id = anthropicId('msg_01', n);
  const answer = buildAnswer({
    input: parsed.input,
    scripted: ctx.scripted,
    fault: ctx.fault,
    toolCallId: (i) => anthropicId('toolu_01', n * 31 + i),
    cache: promptCache(ctx.state, parsed.breakpoint),
  });
  const ttl1h = parsed.breakpoint?.ttl1h ?? false;
  const search = parsed.webSearch && !ctx.scripted && !ctx.fault ? fakeWebSearch(parsed.input.lastUserText.slice(0, 100), n) : null;
  const usage: Record<string, unknown> = { ...anthropicUsage(answer.usage, ttl1h), ...(search ? { server_tool_use: { web_search_requests: 1 } } : {}) };
  const stop = answer.stopSequence !== undefined ? 'stop_sequence' : stopReason(answer.finish);
  const stopSequence = answer.stopSequence ?? null;
  const stopDetails = answer.finish === 'content_filter' ? { type: 'refusal', category: null, explanation: null } : null;
  const signature = signatureFor(n);
  const content: Array<Record<string, unknown>> = [];
  if (answer.thinking) content.push({ type: 'thinking', thinking: answer.thinking, signature });
  if (search) content.push(search.use, search.result);
  if (answer.text) content.push(search ? { type: 'text', text: answer.text, citations: [search.citation] } : { type: 'text', text: answer.text });
  const inputs = answer.toolCalls.map((c) => {
    try {
      return JSON.parse(c.arguments) as unknown;
    } catch {
      return {};
    }
  });
  answer.toolCalls.forEach((c, i) => content.push({ type: 'tool_use', id: c.id, name: c.name, input: inputs[i] }));
  const message = { id, type: 'message', role: 'assistant', model: ctx.model, content, stop_reason: stop, stop_sequence: stopSequence, stop_details: stopDetails, usage };
  if (!parsed.stream) return { type: 'json', body: message };

  const frames: StreamFrame[] = [];
  frames.push(eventFrame('message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, stop_sequence: null, stop_details: null, usage: { ...usage, output_tokens: 1 } } }));
  let index = 0;
  const block = (start: Record<string, unknown>, deltas: Array<Record<string, unknown>>, startTokens = 0) => {
    frames.push(eventFrame('content_block_start', { type: 'content_block_start', index, content_block: start }, startTokens));
    if (index === 0) frames.push(eventFrame('ping', { type: 'ping' }));
    for (const delta of deltas) frames.push(eventFrame('content_block_delta', { type: 'content_block_delta', index, delta }, delta.type === 'signature_delta' ? 0 : 1));
    frames.push(eventFrame('content_block_stop', { type: 'content_block_stop', index }));
    index += 1;
  };
  if (answer.thinking) {
    block({ type: 'thinking', thinking: '', signature: '' }, [...answer.thinkingPieces.map((thinking) => ({ type: 'thinking_delta', thinking })), { type: 'signature_delta', signature }]);
  }
  if (search) {
    block({ ...search.use, input: {} }, [{ type: 'input_json_delta', partial_json: JSON.stringify(search.use.input) }]);
    block(search.result, []);
  }
  if (answer.text) block({ type: 'text', text: '' }, [...answer.pieces.map((text) => ({ type: 'text_delta', text })), ...(search ? [{ type: 'citations_delta', citation: search.citation }] : [])]);
  answer.toolCalls.forEach((c) => {
    block({ type: 'tool_use', id: c.id, name: c.name, input: {} }, [{ type: 'input_json_delta', partial_json: '' }, ...c.pieces.map((partial_json) => ({ type: 'input_json_delta', partial_json }))], 1);
  });
  if (index === 0) frames.push(eventFrame('ping', { type: 'ping' }));
  const { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens } = usage;
  frames.push(
    eventFrame(
      'message_delta',
      { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: stopSequence, stop_details: stopDetails }, usage: { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens, ...(search ? { server_tool_use: { web_search_requests: 1 } } : {}) } },
      0,
      true,
    ),
  );
  frames.push(eventFrame('message_stop', { type: 'message_stop' }, 0, true));
  return { type: 'stream', frames };
}

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Anthropic's `anthropic-ratelimit-*` headers (requests, tokens, input tokens, output tokens). */
export function anthropicRateHeaders(rate: RateInfo): Record<string, string> {
  const reset = rfc3339(rate.resetAt);
  const headers: Record<string, string> = {
    'anthropic-ratelimit-requests-limit': String(rate.limitRequests),
    'anthropic-ratelimit-requests-remaining': String(rate.remainingRequests),
    'anthropic-ratelimit-requests-reset': reset,
  };
  for (const kind of ['tokens', 'input-tokens', 'output-tokens']) {
    headers[`anthropic-ratelimit-${kind}-limit`] = String(rate.limitTokens);
    headers[`anthropic-ratelimit-${kind}-remaining`] = String(rate.remainingTokens);
    headers[`anthropic-ratelimit-${kind}-reset`] = reset;
  }
  return headers;
}

function anthropicFaultError(fault: FakeFault, ctx: FaultContext): JsonResult | undefined {
  const s = ctx.state;
  switch (fault.kind) {
    case 'rate_limit': {
      const retry = fault.retryAfterSeconds ?? 1;
      const tokens = ctx.rate?.exceeded === 'tokens';
      const limit = tokens ? (ctx.rate?.limitTokens ?? 0) : (ctx.rate?.limitRequests ?? 0);
      return anthropicError(
        429,
        'rate_limit_error',
        `This request would exceed the rate limit for your organization (00000000-0000-4000-8000-fa4e0000a1e0) of ${limit.toLocaleString('en-US')} ${tokens ? 'input tokens' : 'requests'} per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://claude.com/contact-sales to discuss your options for a rate limit increase.`,
        s,
        { 'retry-after': String(retry) },
      );
    }
    case 'overloaded':
      return anthropicError(fault.status ?? 529, 'overloaded_error', 'Overloaded', s);
    case 'server_error':
      return anthropicError(500, 'api_error', 'Internal server error', s);
    case 'context_length': {
      const window = fakeModelInfo(ctx.model).contextWindow;
      return anthropicError(400, 'invalid_request_error', `prompt is too long: ${Math.max(ctx.inputTokens, window + 1)} tokens > ${window} maximum`, s);
    }
    case 'billing':
      return anthropicError(fault.status ?? 400, 'invalid_request_error', 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.', s);
    case 'model_not_found':
      return anthropicError(404, 'not_found_error', `model: ${ctx.model}`, s);
    default:
      return undefined;
  }
}

function authenticate(req: RecordedRequest, accepted: ReadonlySet<string>): string | JsonResult {
  const apiKey = req.headers['x-api-key'];
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  const key = typeof apiKey === 'string' ? apiKey : bearer;
  if (!key) return anthropicError(401, 'authentication_error', 'x-api-key header is required');
  if (!accepted.has(key)) return anthropicError(401, 'authentication_error', 'invalid x-api-key');
  const version = req.headers['anthropic-version'];
  if (typeof version !== 'string' || version === '') return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(version) || version < '2023-01-01') return anthropicError(400, 'invalid_request_error', `anthropic-version: "${version}" is not a valid version`);
  return key;
}

function modelObject(id: string): Record<string, unknown> {
  const display = id
    .replace(/-\d{8}$|-latest$/, '')
    .split('-')
    .map((w) => (w === 'claude' ? 'Claude' : /^\d/.test(w) ? w : w[0]!.toUpperCase() + w.slice(1)))
    .join(' ');
  return { type: 'model', id, display_name: display, created_at: '2025-05-22T00:00:00Z' };
}

function anthropicDialect(): VendorDialect {
  return {
    name: 'anthropic',
    basePath: '',
    keys: { ...ANTHROPIC_FAKE_KEYS },
    defaultModels: ANTHROPIC_MODELS,
    authenticate,
    notFound: () => anthropicError(404, 'not_found_error', 'Not Found'),
    invalidJson: () => anthropicError(400, 'invalid_request_error', 'There was an issue with the format or content of your request: the body is not valid JSON.'),
    errorFor: anthropicFaultError,
    streamErrorFrames: (ctx, kind) => [eventFrame('error', anthropicFaultError({ kind: kind ?? 'overloaded' }, ctx)?.body)],
    malformedFrame: () => 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\n\n',
    rateLimitHeaders: anthropicRateHeaders,
    commonHeaders: (state) => ({ 'request-id': anthropicId('req_011C', state.nextId()), 'anthropic-organization-id': '00000000-0000-4000-8000-fa4e0000a1e0' }),
    route(req, { models }): VendorCall | JsonResult | undefined {
      const path = req.path.replace(/\/+$/, '');
      if (req.method === 'GET' && path === '/v1/models') {
        const data = models.map(modelObject);
        return { operation: 'models', model: '', stream: false, inputTokens: 0, respond: () => ({ type: 'json', body: { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null } }) };
      }
      const one = /^\/v1\/models\/(.+)$/.exec(path);
      if (req.method === 'GET' && one) {
        const id = decodeURIComponent(one[1] ?? '');
        if (!models.includes(id)) return anthropicError(404, 'not_found_error', `model: ${id}`);
        return { operation: 'models', model: id, stream: false, inputTokens: 0, respond: () => ({ type: 'json', body: modelObject(id) }) };
      }
      if (req.method !== 'POST' || (path !== '/v1/messages' && path !== '/v1/messages/count_tokens')) return undefined;
      const body = asRecord(req.json);
      const countOnly = path === '/v1/messages/count_tokens';
      const model = str(body.model);
      if (!model) return anthropicError(400, 'invalid_request_error', 'model: Field required');
      const parsed = parseMessages(body, model, countOnly);
      if ('message' in parsed) return anthropicError(400, 'invalid_request_error', parsed.message);
      const window = fakeModelInfo(model).contextWindow;
      return {
        operation: countOnly ? 'messages.count_tokens' : 'messages',
        model,
        stream: parsed.stream,
        serviceTier: str(body.service_tier) ?? 'default',
        inputTokens: parsed.input.inputTokens,
        respond: (ctx) => {
          if (parsed.input.inputTokens > window) return anthropicFaultError({ kind: 'context_length' }, { ...ctx, operation: 'messages', inputTokens: parsed.input.inputTokens, stream: parsed.stream, key: '' })!;
          return countOnly ? { type: 'json', body: { input_tokens: parsed.input.inputTokens } } : respondMessages(parsed, ctx);
        },
      };
    },
  };
}

/**
 * A fake Anthropic API: messages (streaming events with ping, tool use, thinking, prompt-cache
 * usage), count_tokens and the models list; the key as `x-api-key` or Bearer, and the
 * `anthropic-version` header required. `baseUrl` is the server URL, as @anthropic-ai/sdk takes it.
 */
export function startFakeAnthropic(options?: FakeVendorOptions): Promise<FakeVendor> {
  return startVendorFake(anthropicDialect(), options);
}
