import type { RecordedRequest } from '../fake-server';
import { type Answer, type ParsedInput, TokenCounter, buildAnswer, fakeEmbedding, fakeTokenCount } from './answer';
import { asArray, asRecord, hexId, num, str, strings } from './common';
import { GEMINI_MODELS, fakeModelInfo } from './models';
import { routeGeminiMedia } from './gemini-media';
import { type FaultContext, type JsonResult, type RespondContext, type StreamFrame, type VendorCall, type VendorDialect, type VendorResult, startVendorFake } from './server';
import type { FakeFault, FakeOperation, FakeVendor, FakeVendorOptions } from './types';

/** Keys the fake Gemini accepts, as `x-goog-api-key` or `?key=`. */
export const GEMINI_FAKE_KEYS = { valid: 'AIzaFakeGeminiValid0000', secondary: 'AIzaFakeGeminiSecond0000' } as const;

/** Google's error envelope: `{error: {code, message, status, details?}}`. */
export function geminiError(code: number, status: string, message: string, details?: unknown[]): JsonResult {
  return { type: 'json', status: code, body: { error: { code, message, status, ...(details ? { details } : {}) } } };
}

/** `data: <json>\r\n\r\n`, as Gemini's `alt=sse` stream frames its chunks. */
function sseChunk(value: unknown, tokens = 0, terminal = false): StreamFrame {
  return { text: `data: ${JSON.stringify(value)}\r\n\r\n`, tokens, terminal };
}

const SAFETY_CATEGORIES = ['HARM_CATEGORY_HATE_SPEECH', 'HARM_CATEGORY_DANGEROUS_CONTENT', 'HARM_CATEGORY_HARASSMENT', 'HARM_CATEGORY_SEXUALLY_EXPLICIT'];

function safetyRatings(blocked: boolean): unknown[] {
  return SAFETY_CATEGORIES.map((category, i) => (blocked && i === 2 ? { category, probability: 'HIGH', blocked: true } : { category, probability: 'NEGLIGIBLE' }));
}

interface ParsedGenerate {
  input: ParsedInput;
  operation: FakeOperation;
  stream: boolean;
  sse: boolean;
  /** The request carries Gemini's own search tool (google_search): the answer is grounded on one search. */
  googleSearch?: boolean;
}

/** Reads a generateContent request (contents, systemInstruction, tools, toolConfig, generationConfig). */
function parseGenerate(body: Record<string, unknown>, model: string): ParsedInput | string {
  if (!Array.isArray(body.contents) || body.contents.length === 0) return '* GenerateContentRequest.contents: contents is not specified';
  const counter = new TokenCounter();
  for (const part of asArray(asRecord(body.systemInstruction).parts)) counter.text(asRecord(part).text);
  let lastUserText = '';
  let lastToolResult: ParsedInput['lastToolResult'];
  for (const raw of body.contents) {
    const content = asRecord(raw);
    const texts: string[] = [];
    lastToolResult = undefined;
    for (const rawPart of asArray(content.parts)) {
      const part = asRecord(rawPart);
      if (typeof part.text === 'string') {
        counter.text(part.text);
        if (part.thought !== true) texts.push(part.text);
      } else if (part.inlineData || part.fileData) {
        counter.image();
      } else if (part.functionCall) {
        const call = asRecord(part.functionCall);
        counter.text(call.name);
        counter.json(call.args);
      } else if (part.functionResponse) {
        const response = asRecord(part.functionResponse);
        const text = JSON.stringify(response.response ?? {});
        counter.text(text);
        lastToolResult = { name: str(response.name), content: text };
      }
    }
    if ((content.role ?? 'user') === 'user' && texts.length > 0) lastUserText = texts.join(' ');
  }
  const tools = asArray(body.tools).flatMap((t) =>
    asArray(asRecord(t).functionDeclarations).map((d) => {
      const decl = asRecord(d);
      const parameters = decl.parametersJsonSchema ?? decl.parameters;
      counter.json({ name: decl.name, description: decl.description, parameters });
      return { name: str(decl.name) ?? 'tool', parameters };
    }),
  );
  const calling = asRecord(asRecord(body.toolConfig).functionCallingConfig);
  const allowed = strings(calling.allowedFunctionNames);
  const toolChoice: ParsedInput['toolChoice'] = calling.mode === 'NONE' ? 'none' : calling.mode === 'ANY' ? (allowed[0] ? { name: allowed[0] } : 'required') : tools.length > 0 ? 'auto' : 'none';
  const config = asRecord(body.generationConfig);
  const schema = config.responseJsonSchema ?? config.responseSchema;
  if (schema) counter.json(schema);
  const thinking = asRecord(config.thinkingConfig);
  const reasons = fakeModelInfo(model).reasons && thinking.thinkingBudget !== 0;
  return {
    inputTokens: counter.tokens,
    images: counter.images,
    lastUserText,
    tools,
    toolChoice,
    lastToolResult,
    maxOutputTokens: num(config.maxOutputTokens),
    responseFormat: schema ? { type: 'json_schema', schema } : config.responseMimeType === 'application/json' ? { type: 'json_object' } : undefined,
    hiddenReasoningTokens: reasons ? 16 : 0,
    visibleThinking: reasons && thinking.includeThoughts === true,
    stopSequences: strings(config.stopSequences),
  };
}

function finishReason(answer: Answer): string {
  switch (answer.finish) {
    case 'max_tokens':
      return 'MAX_TOKENS';
    case 'content_filter':
      return 'SAFETY';
    default:
      return 'STOP';
  }
}

function usageMetadata(answer: Answer): Record<string, unknown> {
  const u = answer.usage;
  const candidates = u.outputTokens - u.reasoningTokens;
  const meta: Record<string, unknown> = { promptTokenCount: u.inputTokens };
  if (candidates > 0) meta.candidatesTokenCount = candidates;
  meta.totalTokenCount = u.inputTokens + u.outputTokens;
  if (u.cachedInputTokens > 0) {
    meta.cachedContentTokenCount = u.cachedInputTokens;
    meta.cacheTokensDetails = [{ modality: 'TEXT', tokenCount: u.cachedInputTokens }];
  }
  meta.promptTokensDetails = [{ modality: 'TEXT', tokenCount: u.inputTokens }];
  if (u.reasoningTokens > 0) meta.thoughtsTokenCount = u.reasoningTokens;
  return meta;
}

/**
 * Grounding with Google Search as the fake runs it: one query (the user's words), one source behind a
 * Google redirect URL with the site's domain as its title, and one support spanning the whole answer
 * (segment indices count UTF-8 bytes, as Gemini's do). Reported on the candidate that finishes.
 */
function fakeGrounding(query: string, text: string, n: number): Record<string, unknown> {
  const uri = `https://vertexaisearch.cloud.google.com/grounding-api-redirect/fake-${hexId(n, 16)}`;
  return {
    webSearchQueries: [query],
    searchEntryPoint: { renderedContent: `<style>.container{}</style><div class="container"><a class="chip" href="https://www.google.com/search?q=${encodeURIComponent(query)}">${query}</a></div>` },
    groundingChunks: [{ web: { uri, title: 'example.com' } }],
    ...(text ? { groundingSupports: [{ segment: { startIndex: 0, endIndex: Buffer.byteLength(text), text }, groundingChunkIndices: [0], confidenceScores: [0.9] }] } : {}),
  };
}

function respondGenerate(parsed: ParsedGenerate, ctx: RespondContext): VendorResult {
  const n = ctx.state.nextId();
  const responseId = hexId(n, 22);
  const answer = buildAnswer({ input: parsed.input, scripted: ctx.scripted, fault: ctx.fault, toolCallId: (i) => `call_${hexId(n * 31 + i, 16)}` });
  const head = { modelVersion: ctx.model, responseId };
  const promptBlocked = ctx.fault?.kind === 'content_filter' && ctx.fault.form === 'prompt';
  const calls = answer.toolCalls.map((c) => {
    let args: unknown = {};
    try {
      args = JSON.parse(c.arguments);
    } catch {
      args = {};
    }
    return { functionCall: { name: c.name, args } };
  });
  const finish = finishReason(answer);
  const usage = usageMetadata(answer);
  const grounding = parsed.googleSearch && !ctx.scripted && !ctx.fault ? fakeGrounding(parsed.input.lastUserText.slice(0, 100), answer.text, n) : null;

  if (promptBlocked) {
    const body = { promptFeedback: { blockReason: 'SAFETY', safetyRatings: safetyRatings(true) }, usageMetadata: { promptTokenCount: answer.usage.inputTokens, totalTokenCount: answer.usage.inputTokens }, ...head };
    return parsed.stream && parsed.sse ? { type: 'stream', frames: [sseChunk(body, 0, true)] } : { type: 'json', body: parsed.stream ? [body] : body };
  }
  const candidate = (parts: unknown[] | undefined, withFinish: boolean): Record<string, unknown> => {
    const c: Record<string, unknown> = {};
    if (parts) c.content = { parts, role: 'model' };
    if (withFinish) c.finishReason = finish;
    if (withFinish && answer.finish === 'content_filter') c.safetyRatings = safetyRatings(true);
    if (withFinish && grounding) c.groundingMetadata = grounding;
    c.index = 0;
    return c;
  };
  const parts: unknown[] = [];
  if (answer.thinking) parts.push({ text: answer.thinking, thought: true });
  if (answer.text) parts.push({ text: answer.text });
  parts.push(...calls);
  let finalParts: unknown[] | undefined = parts;
  if (answer.shapedBy === 'content_filter' || answer.shapedBy === 'empty') finalParts = undefined;
  else if (answer.shapedBy === 'reasoning_exhausted') finalParts = undefined;
  const full = { candidates: [candidate(finalParts, true)], usageMetadata: usage, ...head };
  if (!parsed.stream) return { type: 'json', body: full };

  const running = (candidatesSoFar: number) => ({ promptTokenCount: answer.usage.inputTokens, ...(candidatesSoFar > 0 ? { candidatesTokenCount: candidatesSoFar } : {}), totalTokenCount: answer.usage.inputTokens + candidatesSoFar });
  const chunks: StreamFrame[] = [];
  let emitted = 0;
  const push = (part: unknown, tokens: number) => {
    emitted += tokens;
    chunks.push(sseChunk({ candidates: [candidate([part], false)], usageMetadata: running(emitted), ...head }, tokens));
  };
  if (finalParts) {
    for (const piece of answer.thinkingPieces) push({ text: piece, thought: true }, 1);
    for (const piece of answer.pieces) push({ text: piece }, 1);
    for (const call of calls) push(call, 1);
  }
  chunks.push(sseChunk({ candidates: [candidate(finalParts ? [{ text: '' }] : undefined, true)], usageMetadata: usage, ...head }, 0, true));
  if (!parsed.sse) {
    // Without alt=sse Gemini streams one JSON array of the same chunks.
    return { type: 'json', body: chunks.map((c) => JSON.parse(c.text.slice('data: '.length)) as unknown) };
  }
  return { type: 'stream', frames: chunks };
}

function modelObject(id: string): Record<string, unknown> {
  const info = fakeModelInfo(id);
  const embedding = info.embeddingDimensions !== undefined;
  return {
    name: `models/${id}`,
    version: id.replace(/^gemini-/, '').split('-')[0] ?? '001',
    displayName: id.replace(/-/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase()),
    description: `Fake ${id}`,
    inputTokenLimit: info.contextWindow,
    outputTokenLimit: embedding ? 1 : info.maxOutputTokens,
    supportedGenerationMethods: embedding ? ['embedContent', 'countTextTokens', 'countTokens'] : ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'],
    ...(embedding ? {} : { temperature: 1, topP: 0.95, topK: 64, maxTemperature: 2, thinking: info.reasons }),
  };
}

function geminiFaultError(fault: FakeFault, ctx: FaultContext): JsonResult | undefined {
  switch (fault.kind) {
    case 'rate_limit': {
      const retry = fault.retryAfterSeconds ?? 1;
      const limit = ctx.rate?.exceeded === 'tokens' ? ctx.rate.limitTokens : (ctx.rate?.limitRequests ?? 0);
      const metric = ctx.rate?.exceeded === 'tokens' ? 'generate_content_paid_tier_input_token_count' : 'generate_content_paid_tier_requests';
      const quotaId = ctx.rate?.exceeded === 'tokens' ? 'GenerateContentPaidTierInputTokensPerModelPerMinute' : 'GenerateRequestsPerMinutePerProjectPerModel';
      return geminiError(
        429,
        'RESOURCE_EXHAUSTED',
        `You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. To monitor your current usage, head to: https://ai.dev/rate-limit. \n* Quota exceeded for metric: generativelanguage.googleapis.com/${metric}, limit: ${limit}, model: ${ctx.model}\nPlease retry in ${retry}s.`,
        [
          { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: `generativelanguage.googleapis.com/${metric}`, quotaId, quotaDimensions: { location: 'global', model: ctx.model }, quotaValue: String(limit) }] },
          { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retry}s` },
        ],
      );
    }
    case 'overloaded':
      return geminiError(fault.status ?? 503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.');
    case 'server_error':
      return geminiError(500, 'INTERNAL', 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting');
    case 'context_length': {
      const window = fakeModelInfo(ctx.model).contextWindow;
      return geminiError(400, 'INVALID_ARGUMENT', `The input token count (${Math.max(ctx.inputTokens, window + 1)}) exceeds the maximum number of tokens allowed (${window}).`);
    }
    case 'billing':
      return geminiError(
        fault.status ?? 429,
        'RESOURCE_EXHAUSTED',
        'Your prepayment credits are depleted. Please go to AI Studio at https://ai.studio/projects to manage your project and billing. Learn more at https://ai.google.dev/gemini-api/docs/billing#prepay.',
      );
    case 'model_not_found': {
      const method = ctx.operation === 'streamGenerateContent' ? 'generateContent' : ctx.operation;
      return geminiError(404, 'NOT_FOUND', `models/${ctx.model} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`);
    }
    default:
      return undefined;
  }
}

function authenticate(req: RecordedRequest, accepted: ReadonlySet<string>): string | JsonResult {
  const header = req.headers['x-goog-api-key'];
  const key = typeof header === 'string' ? header : (req.query.get('key') ?? undefined);
  if (!key) {
    return geminiError(403, 'PERMISSION_DENIED', "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.");
  }
  if (!accepted.has(key)) {
    return geminiError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
      { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message: 'API key not valid. Please pass a valid API key.' },
    ]);
  }
  return key;
}

function embedValues(request: Record<string, unknown>, model: string): { values: number[]; tokens: number } {
  const text = asArray(asRecord(request.content).parts)
    .map((p) => str(asRecord(p).text) ?? '')
    .join(' ');
  const dims = num(request.outputDimensionality) ?? fakeModelInfo(model).embeddingDimensions ?? 768;
  return { values: Array.from(fakeEmbedding(text, dims)), tokens: fakeTokenCount(text) };
}

function geminiDialect(): VendorDialect {
  return {
    name: 'gemini',
    basePath: '',
    keys: { ...GEMINI_FAKE_KEYS },
    defaultModels: GEMINI_MODELS,
    authenticate,
    notFound: () => geminiError(404, 'NOT_FOUND', 'Method not found.'),
    invalidJson: () => geminiError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received. Unexpected token.'),
    errorFor: geminiFaultError,
    streamErrorFrames: (ctx, kind) => {
      const { error } = asRecord(geminiFaultError({ kind: kind ?? 'server_error' }, ctx)?.body);
      const { details: _details, ...rest } = asRecord(error);
      return [sseChunk({ error: rest })];
    },
    malformedFrame: () => 'data: {"candidates":[{"content":{"parts":[{"text":"\r\n\r\n',
    rateLimitHeaders: () => ({}),
    commonHeaders: () => ({ server: 'scaffolding on HTTPServer2', vary: 'Origin, X-Origin, Referer' }),
    route(req, { state, models }): VendorCall | JsonResult | undefined {
      const list = /^\/(v1|v1beta)\/models\/?$/.exec(req.path);
      if (req.method === 'GET' && list) {
        return { operation: 'models', model: '', stream: false, inputTokens: 0, respond: () => ({ type: 'json', body: { models: models.map(modelObject) } }) };
      }
      const one = /^\/(v1|v1beta)\/models\/([^:]+)$/.exec(req.path);
      if (req.method === 'GET' && one) {
        const id = decodeURIComponent(one[2] ?? '');
        if (!models.includes(id)) return geminiError(404, 'NOT_FOUND', `models/${id} is not found for API version ${one[1]}, or is not supported for get. Call ListModels to see the list of available models and their supported methods.`);
        return { operation: 'models', model: id, stream: false, inputTokens: 0, respond: () => ({ type: 'json', body: modelObject(id) }) };
      }
      const m = /^\/(v1|v1beta)\/models\/(.+):([A-Za-z]+)$/.exec(req.path);
      if (req.method !== 'POST' || !m) return undefined;
      const model = decodeURIComponent(m[2] ?? '');
      const method = m[3];
      const body = asRecord(req.json);
      const media = routeGeminiMedia(model, method ?? '', body, state.nextId);
      if (media) return media;
      const window = fakeModelInfo(model).contextWindow;
      const tooLong = (ctx: RespondContext, operation: FakeOperation, inputTokens: number): JsonResult | undefined =>
        inputTokens > window ? geminiFaultError({ kind: 'context_length' }, { ...ctx, operation, inputTokens, stream: false, key: '' }) : undefined;
      if (method === 'generateContent' || method === 'streamGenerateContent') {
        const input = parseGenerate(body, model);
        if (typeof input === 'string') return geminiError(400, 'INVALID_ARGUMENT', input);
        const stream = method === 'streamGenerateContent';
        const googleSearch = asArray(body.tools).some((t) => asRecord(t).google_search !== undefined || asRecord(t).googleSearch !== undefined);
        // As the Gemini API answers generateContent with both (search tools cannot be mixed with function calling).
        if (googleSearch && input.tools.length > 0) return geminiError(400, 'INVALID_ARGUMENT', 'Tool use with function calling is unsupported');
        const parsed: ParsedGenerate = { input, operation: method, stream, sse: req.query.get('alt') === 'sse', googleSearch };
        return { operation: method, model, stream, inputTokens: input.inputTokens, respond: (ctx) => tooLong(ctx, method, input.inputTokens) ?? respondGenerate(parsed, ctx) };
      }
      if (method === 'countTokens') {
        const inner = asRecord(body.generateContentRequest);
        const contents = body.contents ?? inner.contents;
        const input = parseGenerate({ ...inner, contents }, model);
        if (typeof input === 'string') return geminiError(400, 'INVALID_ARGUMENT', input);
        return {
          operation: 'countTokens',
          model,
          stream: false,
          inputTokens: input.inputTokens,
          respond: () => ({ type: 'json', body: { totalTokens: input.inputTokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: input.inputTokens }] } }),
        };
      }
      if (method === 'embedContent') {
        if (!body.content) return geminiError(400, 'INVALID_ARGUMENT', '* EmbedContentRequest.content: content is not specified');
        const { values, tokens } = embedValues(body, model);
        return { operation: 'embedContent', model, stream: false, inputTokens: tokens, respond: (ctx) => tooLong(ctx, 'embedContent', tokens) ?? { type: 'json', body: { embedding: { values } } } };
      }
      if (method === 'batchEmbedContents') {
        const requests = asArray(body.requests).map(asRecord);
        if (requests.length === 0) return geminiError(400, 'INVALID_ARGUMENT', '* BatchEmbedContentsRequest.requests: requests is not specified');
        const embedded = requests.map((r) => embedValues(r, model));
        const longest = Math.max(...embedded.map((e) => e.tokens));
        return {
          operation: 'batchEmbedContents',
          model,
          stream: false,
          inputTokens: embedded.reduce((s, e) => s + e.tokens, 0),
          respond: (ctx) => tooLong(ctx, 'batchEmbedContents', longest) ?? { type: 'json', body: { embeddings: embedded.map((e) => ({ values: e.values })) } },
        };
      }
      return undefined;
    },
  };
}

/**
 * A fake Google Gemini API (the Developer API under `/v1beta`, and `/v1`): generateContent,
 * streamGenerateContent (`alt=sse` frames, or one JSON array without it), countTokens,
 * embedContent, batchEmbedContents and the models list; the key as `x-goog-api-key` or `?key=`.
 * `baseUrl` is the server URL, as @google/genai takes it.
 */
export function startFakeGemini(options?: FakeVendorOptions): Promise<FakeVendor> {
  return startVendorFake(geminiDialect(), options);
}
