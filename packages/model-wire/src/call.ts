import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { BlockedDestinationError, OutboundError, readBody, type OutboundResponse } from '@patchbay/outbound';
import { anthropicAdapter } from './dialects/anthropic';
import { parseJson, zeroUsage, type DialectAdapter, type StreamDecoder, type VendorRequest } from './dialects/adapter';
import { geminiAdapter } from './dialects/gemini';
import { openAIAdapter } from './dialects/openai';
import { openAIResponsesAdapter } from './dialects/openai-responses';
import { VendorError } from './errors';
import { estimateEmbeddingTokens, estimateInputTokens } from './estimate';
import { Deadline, type DeadlineReason } from './stream/deadline';
import { SseParser, type SseFrame } from './stream/sse';
import type {
  ChatSurface,
  CallOptions,
  CanonicalEmbeddings,
  CanonicalEmbeddingsRequest,
  CanonicalRequest,
  CanonicalResponse,
  CanonicalStreamEvent,
  Dialect,
  FinishReason,
  NormalizedUsage,
  OutputBlock,
  VendorErrorKind,
  VendorTarget,
  Warning,
} from './types';

const ADAPTERS: Record<Dialect, DialectAdapter> = {
  openai: openAIAdapter(false),
  'openai-compatible': openAIAdapter(true),
  'openai-responses': openAIResponsesAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
};

/** Error bodies are read up to this size; a vendor's error is never bigger in practice. */
const ERROR_BODY_LIMIT = 256 * 1024;
/** A non-streaming answer larger than this is refused as malformed (guards memory). */
const ANSWER_BODY_LIMIT = 64 * 1024 * 1024;

/**
 * The target a responses-surface request is sent to: OpenAI's own routes speak the Responses API, so
 * the request goes out as Responses (reasoning items and their encrypted content pass as such);
 * every other route keeps its dialect and is translated (issue 27 §5).
 */
export function responsesTarget(surface: ChatSurface, target: VendorTarget): VendorTarget {
  if ((surface === 'openai-responses' || surface === 'native-responses') && target.dialect === 'openai') return { ...target, dialect: 'openai-responses' };
  return target;
}

export function adapterFor(dialect: Dialect): DialectAdapter {
  return ADAPTERS[dialect];
}

export function newResponseId(): string {
  // The UUID's 32 hex digits without its dashes (8-4-4-4-12), sliced rather than a regex per request.
  const uuid = randomUUID();
  return `resp_${uuid.slice(0, 8)}${uuid.slice(9, 13)}${uuid.slice(14, 18)}${uuid.slice(19, 23)}${uuid.slice(24)}`;
}

/** Options for the calls that also decide whether a 200 with no usable answer is a failure. */
export interface AnswerOptions extends CallOptions {
  /**
   * true (a later route can still answer: issue 10's failover): a 200 that is a content-filter
   * refusal, all output spent on reasoning, or empty is thrown as a VendorError of kind
   * content_filter / output_budget_exhausted / empty_response, carrying its usage for billing.
   * false (the default): it is returned as it is, with a `reasoning_exhausted` warning where that applies.
   */
  failEmpty?: boolean;
}

function deadlineError(reason: DeadlineReason, target: VendorTarget, options: CallOptions, cause: unknown): VendorError {
  const t = options.timeouts;
  const base = { vendor: target.vendor, model: target.model, cause };
  switch (reason) {
    case 'first_token':
      return new VendorError({ ...base, kind: 'timeout', message: `${target.vendor} sent no first token within ${t.firstTokenMs} ms` });
    case 'between_tokens':
      return new VendorError({ ...base, kind: 'stall', message: `${target.vendor} stalled: no token for ${t.betweenTokensMs} ms` });
    case 'total':
      return new VendorError({ ...base, kind: 'timeout', message: `${target.vendor} did not finish within ${t.totalMs} ms` });
    case 'cancelled':
      return new VendorError({ ...base, kind: 'network', message: 'the call was cancelled before the vendor answered' });
  }
}

/** Any failure of the exchange (not an answer) as a VendorError. */
function transportError(err: unknown, deadline: Deadline, target: VendorTarget, options: CallOptions, afterHeaders: boolean): VendorError {
  if (err instanceof VendorError) return err;
  if (deadline.reason) return deadlineError(deadline.reason, target, options, err);
  if (err instanceof BlockedDestinationError) return new VendorError({ kind: 'network', message: `${target.vendor}: ${err.message}`, vendor: target.vendor, model: target.model, cause: err });
  if (err instanceof OutboundError && err.kind === 'timeout') return new VendorError({ kind: 'timeout', message: `${target.vendor} did not answer in time`, vendor: target.vendor, model: target.model, cause: err });
  const code = (err as { code?: string }).code;
  const what = code ?? (err as Error)?.message ?? 'connection failed';
  if (afterHeaders) return new VendorError({ kind: 'stream_cut', message: `${target.vendor} broke off the answer (${what})`, vendor: target.vendor, model: target.model, cause: err });
  return new VendorError({ kind: 'network', message: `${target.vendor} could not be reached (${what})`, vendor: target.vendor, model: target.model, cause: err });
}

/** Sends the vendor request; `collectUpTo` for an answer read whole (JSON), which comes back already read (OutboundRequest.collectUpTo). */
async function send(vendorRequest: VendorRequest, deadline: Deadline, options: CallOptions, target: VendorTarget, collectUpTo?: number): Promise<OutboundResponse> {
  // Stopped already (the caller's signal was aborted): the abort event has fired and would not again.
  if (deadline.reason) throw deadlineError(deadline.reason, target, options, null);
  try {
    return await options.http(vendorRequest.url, {
      method: 'POST',
      headers: vendorRequest.headers,
      body: vendorRequest.body,
      signal: deadline.signalOut,
      timeoutMs: options.timeouts.totalMs,
      collectUpTo,
    });
  } catch (err) {
    throw transportError(err, deadline, target, options, false);
  }
}

async function failure(response: OutboundResponse, adapter: DialectAdapter, target: VendorTarget, deadline: Deadline, options: CallOptions): Promise<VendorError> {
  let body: unknown = null;
  try {
    body = parseJson((await readBody(response, ERROR_BODY_LIMIT, 'truncate')).bytes.toString('utf8'));
  } catch (err) {
    if (deadline.reason) return deadlineError(deadline.reason, target, options, err);
  }
  return new VendorError(adapter.classifyError(response.status, body, response.headers, target));
}

async function readJson(response: OutboundResponse, target: VendorTarget, deadline: Deadline, options: CallOptions): Promise<unknown> {
  let text: string;
  try {
    text = (await readBody(response, ANSWER_BODY_LIMIT, 'error')).bytes.toString('utf8');
  } catch (err) {
    throw transportError(err, deadline, target, options, true);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new VendorError({ kind: 'malformed', message: `${target.vendor} answered with a body that is not JSON`, vendor: target.vendor, model: target.model, vendorBody: text.slice(0, 500) });
  }
}

function hasAnswer(output: OutputBlock[]): boolean {
  return output.some((b) => (b.type === 'text' && b.text.trim() !== '') || b.type === 'tool_use');
}

/** Which of the three failing 200s an answer is, if any. */
export function emptyAnswerKind(output: OutputBlock[], finishReason: FinishReason, usage: NormalizedUsage): VendorErrorKind | null {
  if (finishReason === 'content_filter') return 'content_filter';
  if (hasAnswer(output)) return null;
  if (finishReason === 'max_tokens' && (usage.reasoningTokens > 0 || output.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking'))) return 'output_budget_exhausted';
  return 'empty_response';
}

function emptyAnswerError(kind: VendorErrorKind, target: VendorTarget, usage: NormalizedUsage): VendorError {
  const message =
    kind === 'content_filter'
      ? `${target.vendor} refused the request (content filter)`
      : kind === 'output_budget_exhausted'
        ? `${target.model} spent its whole output budget on reasoning and returned no answer`
        : `${target.vendor} answered with no content`;
  return new VendorError({ kind, message, vendor: target.vendor, model: target.model, usage, vendorStatus: 200 });
}

export function reasoningExhaustedWarning(target: VendorTarget): Warning {
  return {
    code: 'reasoning_exhausted',
    message: `${target.model} spent its whole thinking budget and returned no answer. The response is a 200 with finish_reason max_tokens; raise max_tokens or lower the reasoning effort.`,
    detail: { model: target.model, vendor: target.vendor },
  };
}

/** Non-streaming call: the canonical response, or a VendorError. */
export async function callVendor(target: VendorTarget, request: CanonicalRequest, options: AnswerOptions): Promise<CanonicalResponse> {
  const adapter = ADAPTERS[target.dialect];
  const vendorRequest = adapter.buildRequest(target, request, false);
  const deadline = new Deadline(options.signal, options.timeouts, false, options.now);
  try {
    const response = await send(vendorRequest, deadline, options, target, ANSWER_BODY_LIMIT);
    if (response.status < 200 || response.status >= 300) throw await failure(response, adapter, target, deadline, options);
    const json = await readJson(response, target, deadline, options);
    const answer = adapter.parseAnswer(json, target, response.headers);
    const warnings = [...vendorRequest.warnings];
    const empty = emptyAnswerKind(answer.output, answer.finishReason, answer.usage);
    if (empty && options.failEmpty) throw emptyAnswerError(empty, target, answer.usage);
    if (empty === 'output_budget_exhausted') warnings.push(reasoningExhaustedWarning(target));
    return {
      id: options.responseId ?? newResponseId(),
      model: target.model,
      vendor: target.vendor,
      vendorModel: answer.vendorModel,
      providerRequestId: answer.providerRequestId,
      created: Math.floor((options.now ?? Date.now)() / 1000),
      output: answer.output,
      finishReason: answer.finishReason,
      stopSequence: answer.stopSequence,
      refusal: answer.refusal,
      usage: answer.usage,
      serviceTier: answer.serviceTier,
      warnings,
    };
  } finally {
    deadline.dispose();
  }
}

function isToken(event: CanonicalStreamEvent): boolean {
  return event.type !== 'finish' && event.type !== 'thinking_signature';
}

/** What a stream has produced so far, for billing it when it fails. */
class StreamTally {
  outputChars = 0;
  tokens = 0;

  add(event: CanonicalStreamEvent): void {
    switch (event.type) {
      case 'text_delta':
        this.outputChars += event.text.length;
        break;
      case 'thinking_delta':
        this.outputChars += event.thinking.length;
        break;
      case 'tool_call_delta':
        this.outputChars += event.argumentsDelta.length;
        break;
      case 'tool_call_start':
        this.outputChars += event.name.length;
        break;
      default:
        break;
    }
  }

  usage(inputTokens: number): NormalizedUsage {
    return { ...zeroUsage(), inputTokens, outputTokens: Math.ceil(this.outputChars / 4), estimated: true };
  }
}

/** A vendor stream as canonical events, with the warnings of its translation. */
export interface VendorStream extends AsyncIterable<CanonicalStreamEvent> {
  readonly warnings: Warning[];
  /** The vendor's HTTP request id, when its headers carry one. */
  readonly vendorRequestId: string | null;
}

async function* decodeStream(
  body: Readable,
  decoder: StreamDecoder,
  deadline: Deadline,
  target: VendorTarget,
  options: CallOptions,
  tally: StreamTally,
  inputEstimate: () => number,
  delivered: { value: boolean },
): AsyncGenerator<CanonicalStreamEvent> {
  const parser = new SseParser();
  const frames: SseFrame[] = [];
  const events: CanonicalStreamEvent[] = [];
  let finished = false;
  try {
    body.setEncoding('utf8');
    // Leaving the loop at the finish must not destroy the body (a for-await over the stream itself would):
    // the finally below reads the little that is left ([DONE], the chunked terminator) so undici can reuse
    // the connection; destroyed, every stream opened a new one, a new TLS handshake for a real vendor.
    for await (const text of body.iterator({ destroyOnReturn: false }) as AsyncIterable<string>) {
      parser.push(text, frames);
      if (frames.length === 0) continue;
      for (const frame of frames) decoder.frame(frame, events);
      frames.length = 0;
      for (let i = 0; i < events.length; i++) {
        const event = events[i]!;
        if (isToken(event)) deadline.token();
        tally.add(event);
        if (event.type === 'finish') finished = true;
        yield event;
      }
      events.length = 0;
      if (finished) return;
    }
    if (deadline.reason) throw deadlineError(deadline.reason, target, options, null);
    decoder.end(events);
    for (const event of events) {
      finished = finished || event.type === 'finish';
      yield event;
    }
  } catch (err) {
    const error = transportError(err, deadline, target, options, true);
    throw error.withStreamState(delivered.value, error.usage ?? tally.usage(decoder.announcedInputTokens ?? inputEstimate()));
  } finally {
    deadline.dispose();
    // Nothing listens to the body any more: what fails from here on (the drain below cut, the abort
    // destroy raises) concerns no caller, and an unheard 'error' would end the process.
    body.on('error', ignoreLateError);
    if (!finished) body.destroy();
    else body.resume();
  }
}

function ignoreLateError(): void {}

/**
 * Streaming call. Resolves once the vendor's first token (or its finish, for an empty answer) has
 * arrived, so an error in the vendor's first frames, a refused request and a first-token timeout are
 * thrown before any byte reaches the client; then yields canonical events. A cut, stalled,
 * malformed or unterminated stream ends the iteration with a VendorError, never a clean finish.
 */
export async function streamVendor(target: VendorTarget, request: CanonicalRequest, options: AnswerOptions): Promise<VendorStream> {
  const adapter = ADAPTERS[target.dialect];
  const vendorRequest = adapter.buildRequest(target, request, true);
  const deadline = new Deadline(options.signal, options.timeouts, true, options.now);
  let response: OutboundResponse;
  try {
    response = await send(vendorRequest, deadline, options, target);
    if (response.status < 200 || response.status >= 300) throw await failure(response, adapter, target, deadline, options);
  } catch (err) {
    deadline.dispose();
    throw err;
  }
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.includes('text/event-stream')) {
    // A vendor that answers a stream request with plain JSON is answering an error in a 200, or is broken.
    const json = await readJson(response, target, deadline, options).finally(() => deadline.dispose());
    const error = adapter.classifyError(0, json, response.headers, target);
    throw new VendorError({ ...error, kind: error.kind === 'server' ? 'malformed' : error.kind, message: `${target.vendor} answered a stream request without a stream: ${error.message}` });
  }
  const tally = new StreamTally();
  const delivered = { value: false };
  let estimate: number | null = null;
  const inputEstimate = (): number => (estimate ??= estimateInputTokens(request));
  const decoder = adapter.streamDecoder(target, response.headers);
  const events = decodeStream(response.body, decoder, deadline, target, options, tally, inputEstimate, delivered);

  // Hold the stream until its first token: everything before it can still fail over.
  const head: CanonicalStreamEvent[] = [];
  const output: OutputBlock[] = [];
  for (;;) {
    const next = await events.next(); // throws the VendorError of a bad first frame
    if (next.done) break;
    head.push(next.value);
    if (next.value.type === 'finish') {
      const empty = emptyAnswerKind(output, next.value.finishReason, next.value.usage);
      if (empty && options.failEmpty) throw emptyAnswerError(empty, target, next.value.usage);
      if (empty === 'output_budget_exhausted') vendorRequest.warnings.push(reasoningExhaustedWarning(target));
      break;
    }
    if (next.value.type === 'thinking_delta') output.push({ type: 'thinking', thinking: next.value.thinking });
    else if (next.value.type === 'text_delta') output.push({ type: 'text', text: next.value.text });
    else if (next.value.type === 'tool_call_start') output.push({ type: 'tool_use', id: next.value.id, name: next.value.name, input: {} });
    if (next.value.type === 'text_delta' || next.value.type === 'tool_call_start') break;
  }

  const vendorRequestId = response.headers.get('x-request-id') ?? response.headers.get('request-id');
  return {
    warnings: vendorRequest.warnings,
    vendorRequestId,
    async *[Symbol.asyncIterator]() {
      delivered.value = true;
      try {
        for (const event of head) yield event;
        for (;;) {
          const next = await events.next();
          if (next.done) return;
          yield next.value;
        }
      } finally {
        await events.return(undefined);
      }
    },
  };
}

/** Embeddings from a vendor, vectors in input order. */
export async function embedVendor(target: VendorTarget, request: CanonicalEmbeddingsRequest, options: CallOptions): Promise<CanonicalEmbeddings> {
  const adapter = ADAPTERS[target.dialect];
  if (!adapter.buildEmbeddings || !adapter.parseEmbeddings) {
    throw new VendorError({ kind: 'invalid_request', message: `${target.vendor} does not serve embeddings`, vendor: target.vendor, model: target.model });
  }
  const vendorRequest = adapter.buildEmbeddings(target, request);
  const deadline = new Deadline(options.signal, options.timeouts, false, options.now);
  try {
    const response = await send(vendorRequest, deadline, options, target, ANSWER_BODY_LIMIT);
    if (response.status < 200 || response.status >= 300) throw await failure(response, adapter, target, deadline, options);
    const json = await readJson(response, target, deadline, options);
    const parsed = adapter.parseEmbeddings(json, target, request);
    if (parsed.vectors.length !== request.input.length || parsed.vectors.some((v) => v === undefined)) {
      throw new VendorError({ kind: 'malformed', message: `${target.vendor} answered ${parsed.vectors.length} embeddings for ${request.input.length} inputs`, vendor: target.vendor, model: target.model });
    }
    return {
      vectors: parsed.vectors,
      model: target.model,
      vendor: target.vendor,
      providerRequestId: response.headers.get('x-request-id'),
      usage: parsed.usage ?? { ...zeroUsage(), inputTokens: estimateEmbeddingTokens(request), estimated: true },
    };
  } finally {
    deadline.dispose();
  }
}

/**
 * Input tokens of a request as the vendor counts them (Anthropic count_tokens, Gemini countTokens);
 * vendors without a counting endpoint get the gateway's estimate.
 */
export async function countTokensVendor(target: VendorTarget, request: CanonicalRequest, options: CallOptions): Promise<{ inputTokens: number; estimated: boolean }> {
  const adapter = ADAPTERS[target.dialect];
  if (!adapter.buildCountTokens || !adapter.parseCountTokens) return { inputTokens: estimateInputTokens(request), estimated: true };
  const vendorRequest = adapter.buildCountTokens(target, request);
  const deadline = new Deadline(options.signal, options.timeouts, false, options.now);
  try {
    const response = await send(vendorRequest, deadline, options, target, ANSWER_BODY_LIMIT);
    if (response.status < 200 || response.status >= 300) throw await failure(response, adapter, target, deadline, options);
    return { inputTokens: adapter.parseCountTokens(await readJson(response, target, deadline, options)), estimated: false };
  } finally {
    deadline.dispose();
  }
}
