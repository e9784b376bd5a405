import type { FakeServer, RecordedRequest } from '../fake-server';

/** Which vendor a fake imitates. */
export type FakeVendorName = 'openai' | 'anthropic' | 'gemini' | 'openai-compatible';

/** The operation a request asked for, as each vendor names its endpoints. */
export type FakeOperation =
  | 'chat.completions'
  | 'responses'
  | 'embeddings'
  | 'models'
  | 'messages'
  | 'messages.count_tokens'
  | 'generateContent'
  | 'streamGenerateContent'
  | 'countTokens'
  | 'embedContent'
  | 'batchEmbedContents'
  | 'images.generations'
  | 'images.edits'
  | 'audio.speech'
  | 'audio.transcriptions';

/**
 * Every fault a fake can produce. The same names work in `script`, `setFault`, the HTTP control
 * and in a model name (`gpt-4o@stream_cut=3`); the README says what a client sees for each.
 */
export type FakeFault =
  /** 429 with Retry-After and the vendor's rate-limit body and headers. */
  | { kind: 'rate_limit'; retryAfterSeconds?: number }
  /** OpenAI 503, Anthropic 529 `overloaded_error`, Gemini 503 UNAVAILABLE (status overridable). */
  | { kind: 'overloaded'; status?: number }
  /** 500 with the vendor's internal-error body. */
  | { kind: 'server_error' }
  /** TCP reset (RST) once the request is read, before any byte of the answer. */
  | { kind: 'reset' }
  /** No response at all: the connection stays open and silent until the client closes it. */
  | { kind: 'hang' }
  /** Headers at once, then nothing until `delayMs` has passed, then the normal answer. */
  | { kind: 'slow_first_token'; delayMs: number }
  /** The stream stops after `afterTokens` content frames: socket destroyed, no terminal frame. */
  | { kind: 'stream_cut'; afterTokens: number }
  /** The stream stops sending after `afterTokens` content frames but stays open. */
  | { kind: 'stall'; afterTokens: number }
  /** One frame of invalid JSON after `afterTokens` content frames (default 1), then the rest. */
  | { kind: 'malformed_chunk'; afterTokens?: number }
  /** Everything but the terminal frames (`[DONE]`, `message_stop`, the final chunk), then a clean close. */
  | { kind: 'missing_terminal' }
  /**
   * The vendor's own mid-stream error frame after `afterTokens` content frames (default 0), for the
   * error `error` (default: OpenAI and Gemini `server_error`, Anthropic `overloaded`).
   */
  | { kind: 'stream_error'; afterTokens?: number; error?: FakeStreamErrorKind }
  /** 400 with the vendor's context-length body. */
  | { kind: 'context_length' }
  /**
   * A content-filter refusal. `finish` (default): a 200 whose finish reason is the vendor's filter
   * reason (OpenAI `content_filter`, Anthropic `refusal`, Gemini `SAFETY`); `error`: OpenAI's 400
   * `content_policy_violation` (other vendors answer `finish`); `prompt`: Gemini's
   * `promptFeedback.blockReason` with no candidates (other vendors answer `finish`).
   */
  | { kind: 'content_filter'; form?: 'finish' | 'error' | 'prompt' }
  /** A 200 with no content at all. */
  | { kind: 'empty' }
  /** All output spent on reasoning: no answer, finish reason of a length stop. */
  | { kind: 'reasoning_exhausted' }
  /** The vendor's billing error (OpenAI 429 insufficient_quota, Anthropic 400 credit balance, Gemini 429 or `status: 402`). */
  | { kind: 'billing'; status?: number }
  /** 404 with the vendor's unknown-model body. */
  | { kind: 'model_not_found' };

export type FakeFaultKind = FakeFault['kind'];

/** Which error a `stream_error` frame reports. */
export type FakeStreamErrorKind = 'server_error' | 'overloaded' | 'rate_limit' | 'billing';

/** Usage in the normalised sense (the facts file's §7): totals that include their parts. */
export interface FakeUsage {
  /** All input tokens, cached reads and cache writes included. */
  inputTokens: number;
  /** Input tokens read from the prompt cache. */
  cachedInputTokens: number;
  /** Input tokens written to the prompt cache (Anthropic). */
  cacheWriteInputTokens: number;
  /** All output tokens, reasoning included. */
  outputTokens: number;
  /** Output tokens spent on reasoning/thinking. */
  reasoningTokens: number;
}

export type FakeFinishReason = 'stop' | 'max_tokens' | 'tool_use' | 'content_filter';

export interface FakeToolCall {
  /** Generated in the vendor's form (`call_…`, `toolu_…`) when omitted. */
  id?: string;
  name: string;
  /** An object (serialised as JSON) or the raw argument string. */
  arguments: unknown;
}

/** Which requests a scripted answer applies to. All given conditions must hold. */
export interface FakeMatch {
  /** Exact model name, or a RegExp (over HTTP: a string `/pattern/`). */
  model?: string | RegExp;
  operation?: FakeOperation;
  stream?: boolean;
  /** The request's service tier as sent (OpenAI `service_tier`, Anthropic `service_tier`); `default` when absent. */
  serviceTier?: string;
}

/** One scripted answer (or fault), consumed by the next matching request(s). */
export interface FakeScript {
  match?: FakeMatch;
  /** How many requests this entry answers (default 1; `Infinity` for every matching request). */
  times?: number;
  /** The answer text (replaces the default echo). */
  text?: string;
  /** Tool calls in the answer; the finish reason becomes `tool_use` unless given. */
  toolCalls?: FakeToolCall[];
  /** Reasoning/thinking text (Anthropic thinking block, Gemini thought part, OpenAI reasoning summary). */
  thinking?: string;
  finishReason?: FakeFinishReason;
  /** Overrides the computed usage, field by field. */
  usage?: Partial<FakeUsage>;
  /** A fault instead of (or, for stream faults, applied to) the answer. */
  fault?: FakeFault;
  /** Extra wait before answering, in milliseconds. */
  delayMs?: number;
}

/** A persistent fault: every matching request gets it (or a deterministic share of them). */
export interface FakeFaultRule {
  fault: FakeFault;
  /** Only requests for this model (exact name or RegExp). */
  model?: string | RegExp;
  operation?: FakeOperation;
  /** Only requests for this service tier (e.g. `flex`, to fail flex and serve the standard retry). */
  serviceTier?: string;
  /**
   * The share of matching requests that get the fault, spread deterministically: 0.5 faults the
   * 1st, 3rd, 5th… matching request; 1 (default) faults all of them.
   */
  fraction?: number;
}

/** Per-key limits, in a fixed 60-second window per key that starts at the key's first request. */
export interface FakeRateLimits {
  requestsPerMinute?: number;
  tokensPerMinute?: number;
}

export interface FakeVendorOptions {
  /** Port to listen on (default 0: any free port). */
  port?: number;
  /** Extra keys the fake accepts, besides its documented ones. */
  apiKeys?: string[];
  /** Per-key rate limits; headers report them on every answer. Defaults are high enough never to trip. */
  rateLimits?: FakeRateLimits;
  /** Known models: listed by the models endpoint, and with `strictModels` the only ones served. */
  models?: string[];
  /** Unknown models get the vendor's 404 (default false: any model name is served). */
  strictModels?: boolean;
  /** Wait before every answer (network and server time of a real API, for benchmarks). Default 0. */
  latencyMs?: number;
  /** Wait between stream frames (default 0: each frame is still written and flushed on its own). */
  tokenIntervalMs?: number;
  /** Keep every request in `requests` (default true; a benchmark turns it off so memory stays flat). */
  recordRequests?: boolean;
  /** Clock for rate-limit windows and timestamps (default Date.now). */
  now?: () => number;
}

export interface FakeVendor extends FakeServer {
  vendor: FakeVendorName;
  /** Exactly what PATCHBAY_VENDOR_<X>_BASE_URL would be set to for this vendor's SDK. */
  baseUrl: string;
  /** Keys the fake accepts; any other key gets the vendor's real authentication error. */
  apiKeys: { valid: string; secondary: string };
  /** Queues scripted answers; each request takes the first entry that matches it. */
  script(...entries: FakeScript[]): void;
  /** Adds a persistent fault rule (first matching rule wins). */
  setFault(fault: FakeFault, options?: Omit<FakeFaultRule, 'fault'>): void;
  clearFaults(): void;
  /** Scripts, faults, recorded requests, rate-limit windows and prompt caches back to the start. */
  reset(): void;
  /** The same controls over HTTP, for a fake running in another process (see the README). */
  control: { url: string };
}

export type { RecordedRequest };
