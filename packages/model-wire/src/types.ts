/**
 * The canonical model request, response and stream of the gateway, and the shapes every surface and
 * vendor adapter translates to and from. The app (apps/model-gateway) codes against these types:
 * change them additively.
 *
 * Conventions: canonical fields are camelCase; wire fields (what a client or vendor sends) keep their
 * own spelling and live only in the surface and dialect modules.
 */
import type { ModelErrorType } from '@patchbay/errors';
import type { OutboundHttp } from '@patchbay/outbound';

/** The client-facing APIs the gateway serves. */
export type Surface = 'native-responses' | 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'openai-embeddings';
/** The surfaces that carry a chat (everything but embeddings). */
export type ChatSurface = Exclude<Surface, 'openai-embeddings'>;

/** The wire formats of the vendors the gateway calls. */
/** `openai-responses`: OpenAI's Responses API, chosen per request for the responses surfaces (never in the catalog). */
export type Dialect = 'openai' | 'anthropic' | 'gemini' | 'openai-compatible' | 'openai-responses';

// ---------------------------------------------------------------------------------------------
// Canonical request
// ---------------------------------------------------------------------------------------------

/** A prompt-caching marker (Anthropic `cache_control`); routes that cannot honour it drop it with a warning. */
export interface CacheMarker {
  type: 'ephemeral';
  /** '5m' (default) or '1h'. */
  ttl?: string;
}

/** Where a media block's bytes are: inline base64 (counted against the 413 limits) or a URL the vendor fetches. */
export type MediaSource =
  | { kind: 'base64'; mediaType: string; data: string }
  | { kind: 'url'; url: string; mediaType?: string }
  /** A vendor file id (OpenAI `file_id`, Anthropic `file` source); only the vendor that issued it can read it. */
  | { kind: 'file'; fileId: string; mediaType?: string };

export interface TextBlock {
  type: 'text';
  text: string;
  cache?: CacheMarker;
  /** Sources the text cites (web search): rendered as each surface's url_citation / citations. */
  annotations?: UrlCitation[];
}

/** A web source cited by an answer's text; indices are UTF-16 offsets into the text block (end exclusive). */
export interface UrlCitation {
  type: 'url_citation';
  url: string;
  title: string;
  startIndex: number;
  endIndex: number;
  /** The cited passage (Anthropic's cited_text), when known. */
  citedText?: string;
}

/**
 * A search the gateway (or the vendor) ran for the model, shown to the client as the surface's own
 * server-tool item (OpenAI `web_search_call`, Anthropic `server_tool_use` + `web_search_tool_result`).
 * Never sent to a vendor: the tool loop gives the model its results as a function call and result.
 */
export interface WebSearchCallBlock {
  type: 'web_search_call';
  /** `ws_…`. */
  id: string;
  queries: string[];
  sources: Array<{ url: string; title: string; pageAge?: string | null }>;
  status: 'completed' | 'failed';
  /** Why a failed search failed (Anthropic's error codes: unavailable, too_many_requests, max_uses_exceeded…). */
  errorCode?: string;
}

export interface ImageBlock {
  type: 'image';
  source: MediaSource;
  /** OpenAI's `detail` (auto|low|high); dropped by vendors without it. */
  detail?: string;
  cache?: CacheMarker;
}

export interface DocumentBlock {
  type: 'document';
  source: MediaSource;
  /** File name or title, when the client gave one. */
  title?: string;
  cache?: CacheMarker;
}

export interface AudioBlock {
  type: 'audio';
  source: MediaSource;
}

export interface VideoBlock {
  type: 'video';
  source: MediaSource;
}

/** A call of a client-defined tool by the model (in assistant messages and in responses). */
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  /** The arguments as a JSON value (an object for every well-behaved model). */
  input: unknown;
  /**
   * The arguments exactly as the model wrote them, when the vendor sends them as text (OpenAI):
   * renderers pass this through so a client sees the vendor's bytes.
   */
  inputJson?: string;
  /** Gemini's `thoughtSignature` on a function call part, sent back on the next turn. */
  signature?: string;
  cache?: CacheMarker;
}

/** The result of a tool call, sent by the client (in user messages). */
export interface ToolResultBlock {
  type: 'tool_result';
  toolUseId: string;
  content: Array<TextBlock | ImageBlock | DocumentBlock>;
  isError: boolean;
  cache?: CacheMarker;
}

/** Model reasoning, when the vendor shows it. `signature` must go back unchanged to the same vendor. */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature?: string;
  /** The vendor family that produced it; a signed block goes back only to that family. */
  origin?: ThinkingOrigin;
}

export type ThinkingOrigin = 'anthropic' | 'openai' | 'gemini';

/** Reasoning the vendor encrypted (Anthropic `redacted_thinking`, OpenAI `encrypted_content`). */
export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
  origin?: ThinkingOrigin;
}

export type ContentBlock =
  | TextBlock
  | ImageBlock
  | DocumentBlock
  | AudioBlock
  | VideoBlock
  | ToolUseBlock
  | ToolResultBlock
  | ThinkingBlock
  | RedactedThinkingBlock;

/** The blocks a model produces. */
export type OutputBlock = TextBlock | ToolUseBlock | ThinkingBlock | RedactedThinkingBlock | WebSearchCallBlock;

/**
 * One turn. Tool results travel in `user` turns (as Anthropic has them); an OpenAI `tool` message
 * becomes a user turn holding one tool_result block, and the reverse on the way out.
 */
export interface CanonicalMessage {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

export interface ToolDefinition {
  name: string;
  description?: string;
  /** A JSON Schema object. */
  parameters: Record<string, unknown>;
  /** OpenAI's `strict`; vendors without it ignore it. */
  strict?: boolean;
  cache?: CacheMarker;
}

export type ToolChoice =
  | { type: 'auto' }
  | { type: 'none' }
  /** The model must call some tool (OpenAI `required`, Anthropic `any`, Gemini mode ANY). */
  | { type: 'required' }
  | { type: 'tool'; name: string };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean; description?: string };

/** The effort levels the spec knows, lowest to highest. */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export interface ReasoningOptions {
  /** Effort level (OpenAI `reasoning_effort` / `reasoning.effort`, native `reasoning_effort`). */
  effort?: ReasoningEffort;
  /** Explicit thinking budget in tokens (Anthropic/native `thinking.budget_tokens`, Gemini `thinkingBudget`). */
  budgetTokens?: number;
  /** Thinking explicitly switched on or off (Anthropic/native `thinking.type`). */
  enabled?: boolean;
  /** Ask for a reasoning summary / thought text where the vendor can give one. */
  summary?: string;
}

/** The request a surface parses into and a vendor adapter translates from. */
export interface CanonicalRequest {
  /** System and developer instructions, in order. */
  system: TextBlock[];
  messages: CanonicalMessage[];
  tools: ToolDefinition[];
  /** null: the vendor's default (auto when tools exist). */
  toolChoice: ToolChoice | null;
  /** OpenAI `parallel_tool_calls`; null: the vendor's default. */
  parallelToolCalls: boolean | null;
  /** The client's output cap (max_tokens, max_completion_tokens, max_output_tokens); null when absent. */
  maxOutputTokens: number | null;
  temperature: number | null;
  topP: number | null;
  topK: number | null;
  stop: string[];
  seed: number | null;
  presencePenalty: number | null;
  frequencyPenalty: number | null;
  responseFormat: ResponseFormat | null;
  reasoning: ReasoningOptions | null;
  /** End-user id for the vendor's abuse monitoring (OpenAI `user`/`safety_identifier`, Anthropic `metadata.user_id`). */
  endUserId: string | null;
  /** Whether the client asked for a stream. */
  stream: boolean;
  /** The vendor's own web search, when the gateway asks the route's vendor to search (native mode); dialects without one ignore it. */
  webSearch?: NativeWebSearch;
}

/** What a vendor's own web search tool is sent with (Anthropic web_search_20250305, OpenAI web_search, Gemini google_search). */
export interface NativeWebSearch {
  maxUses: number;
  /** OpenAI's search_context_size (the others have none). */
  contextSize?: 'low' | 'medium' | 'high';
  allowedDomains: string[];
  blockedDomains: string[];
  userLocation: { country?: string; region?: string; city?: string; timezone?: string } | null;
}

/** A request that runs with changes carries these (never `[]` on the wire: absent or null when clean). */
export interface Warning {
  code: string;
  message: string;
  detail?: Record<string, unknown>;
}

/** One entry of an inline priority list (`priority_order`). */
export interface PriorityOrderEntry {
  model: string;
  vendors?: string[];
}

/**
 * The fields the gateway decides on. model-wire checks only their shape (types, lengths); the app
 * checks their meaning (does the model exist, is the policy the caller's).
 */
export interface GatewayFields {
  /** `provider/model`, a bare model name, `@alias/<slug>`, or null (a routing policy must resolve). `default_routing` reads as null. */
  model: string | null;
  routing_policy_id: string | null;
  priority_order: PriorityOrderEntry[] | null;
  vendor: string | null;
  vendors: string[] | null;
  tags: Array<{ key: string; value: string }>;
  project_id: string | null;
  customer: string | null;
  include_routing_metadata: boolean;
  include_guardrails_metadata: boolean;
  service_tier: string | null;
  service_tier_fallback: boolean;
  user: string | null;
  stream: boolean;
  /** Native/OpenAI responses `store`; the gateway stores nothing in issue 9 (documented). */
  store: boolean | null;
  /** Surface-specific metadata the client sent (OpenAI `metadata`), passed back on responses where the surface echoes it. */
  metadata: Record<string, string> | null;
}

/** How the client wants the answer rendered, beyond the canonical request. */
export interface RenderHints {
  /** OpenAI chat `stream_options.include_usage`. */
  includeUsage: boolean;
  /** OpenAI responses `instructions`, echoed on the response object. */
  instructions?: string | null;
}

export interface ParsedChatRequest {
  surface: ChatSurface;
  request: CanonicalRequest;
  gateway: GatewayFields;
  render: RenderHints;
  /** Changes made while parsing (a dropped unsupported field), merged into the response's warnings. */
  warnings: Warning[];
}

// ---------------------------------------------------------------------------------------------
// Embeddings
// ---------------------------------------------------------------------------------------------

export interface CanonicalEmbeddingsRequest {
  /** Texts, or token arrays as OpenAI accepts them. */
  input: Array<string | number[]>;
  /** How the client wants the vectors: JSON floats, or base64 of little-endian float32. */
  encodingFormat: 'float' | 'base64';
  dimensions: number | null;
  endUserId: string | null;
}

export interface ParsedEmbeddingsRequest {
  surface: 'openai-embeddings';
  request: CanonicalEmbeddingsRequest;
  gateway: GatewayFields;
  warnings: Warning[];
}

export interface CanonicalEmbeddings {
  /** One vector per input, in input order (as the vendor sent them: JSON numbers, or float32 from base64). */
  vectors: Array<number[] | Float32Array>;
  model: string;
  vendor: string;
  providerRequestId: string | null;
  usage: NormalizedUsage;
}

// ---------------------------------------------------------------------------------------------
// Canonical response and stream
// ---------------------------------------------------------------------------------------------

export type FinishReason = 'stop' | 'max_tokens' | 'tool_use' | 'content_filter';

/**
 * Tokens as priced (facts file §7). Every count is a whole number.
 * - inputTokens: all input, cached reads and cache writes included (OpenAI prompt_tokens; Anthropic
 *   input_tokens + cache_read + cache_creation; Gemini promptTokenCount + toolUsePromptTokenCount).
 * - cachedInputTokens: the part of inputTokens read from the cache.
 * - cacheWriteInputTokens: the part of inputTokens written to the cache (Anthropic), all TTLs;
 *   cacheWrite1hInputTokens is the 1-hour part of it.
 * - outputTokens: all output, reasoning included (Gemini candidates + thoughts).
 * - reasoningTokens: the part of outputTokens spent on reasoning.
 */
export interface NormalizedUsage {
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteInputTokens: number;
  cacheWrite1hInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  /** True when the vendor did not report usage (a cut stream) and the gateway estimated it. */
  estimated?: boolean;
  /** Server tools the gateway ran (web search): shown as each surface's `server_tool_use`, priced on top of the tokens. */
  serverToolUse?: ServerToolUse;
}

export interface ServerToolUse {
  webSearchRequests: number;
  /** Results the searches returned to the model. */
  webSearchResults: number;
  /** What the searches cost (the engines' catalog prices), in micro-USD; added to the token cost. */
  costMicros: number;
}

export interface CanonicalResponse {
  /** The gateway's id for this response (`resp_…`). */
  id: string;
  /** The model as the gateway names it (`openai/gpt-4o`). */
  model: string;
  /** The vendor that served it (`openai`, `anthropic`, `google`, or a configured compatible vendor). */
  vendor: string;
  /** The vendor's own model string, as it reported it. */
  vendorModel: string;
  /** The vendor's id of the answer (chatcmpl-…, msg_…, Gemini responseId), or its request id header. */
  providerRequestId: string | null;
  /** Unix seconds. */
  created: number;
  output: OutputBlock[];
  finishReason: FinishReason;
  /** The stop sequence that ended the answer, when the vendor says. */
  stopSequence: string | null;
  /** Text of a refusal the vendor returned as such (OpenAI `refusal`), also present as text in output. */
  refusal: string | null;
  usage: NormalizedUsage;
  serviceTier: string | null;
  warnings: Warning[];
}

/**
 * What a vendor stream yields, in order. `index` is the output block the event belongs to
 * (0, 1, 2… in the order blocks start); a block starts with its first event and ends when an event
 * of a higher index arrives or at `finish`. Exactly one `finish` ends a good stream; a bad stream
 * ends by throwing a VendorError instead.
 */
export type CanonicalStreamEvent =
  | { type: 'text_delta'; index: number; text: string }
  | { type: 'tool_call_start'; index: number; id: string; name: string; signature?: string }
  | { type: 'tool_call_delta'; index: number; argumentsDelta: string }
  | { type: 'thinking_delta'; index: number; thinking: string }
  | { type: 'thinking_signature'; index: number; signature: string }
  | { type: 'redacted_thinking'; index: number; data: string; origin?: ThinkingOrigin }
  /** A whole web search (its block starts and ends with this event). */
  | { type: 'web_search_call'; index: number; call: WebSearchCallBlock }
  /** A citation on the text block `index`, after its last text_delta. */
  | { type: 'annotation'; index: number; annotation: UrlCitation }
  | {
      type: 'finish';
      finishReason: FinishReason;
      stopSequence: string | null;
      usage: NormalizedUsage;
      providerRequestId: string | null;
      vendorModel: string;
      serviceTier: string | null;
      refusal: string | null;
    };

// ---------------------------------------------------------------------------------------------
// Calling vendors
// ---------------------------------------------------------------------------------------------

export interface VendorTarget {
  dialect: Dialect;
  /** As the vendor's SDK takes it: `https://api.openai.com/v1`, `https://api.anthropic.com`, `https://generativelanguage.googleapis.com`. */
  baseUrl: string;
  apiKey: string;
  /** The model string the vendor knows (`gpt-4o`, `claude-sonnet-4-20250514`, `gemini-2.5-flash`). */
  vendorModel: string;
  /** The vendor's name in the gateway (`openai`, `groq`…), reported on responses. */
  vendor: string;
  /** The gateway's model id (`openai/gpt-4o`), reported on responses. */
  model: string;
  serviceTier?: string;
  extraHeaders?: Record<string, string>;
  /** The model's largest output (catalog); used where the vendor requires a cap (Anthropic) and none was asked. */
  maxOutputTokens?: number;
  /** What the route supports, for the warnings of requests that run with changes. Defaults: everything. */
  capabilities?: RouteCapabilities;
}

export interface RouteCapabilities {
  tools?: boolean;
  /** Effort levels the route accepts; null: no effort control (the effort is dropped with a warning). */
  reasoningEfforts?: ReasoningEffort[] | null;
  promptCaching?: boolean;
  structuredOutputs?: boolean;
  /** Input kinds the route reads: text, image, document, audio, video. */
  input?: Array<'text' | 'image' | 'document' | 'audio' | 'video'>;
}

/** One HTTP exchange with a vendor; the same shape as @patchbay/outbound's guarded request, so a BYOK base URL can go through the guard. */
export type VendorHttp = OutboundHttp;

export interface StreamTimeouts {
  /** From sending the request to the first token (text, tool call or thinking). */
  firstTokenMs: number;
  /** Longest silence between two tokens once the first arrived. */
  betweenTokensMs: number;
  /** The whole call, streaming or not. */
  totalMs: number;
}

/**
 * What a vendor call reads of its caller's cancellation. An AbortSignal has these members; so does
 * the lighter Cancellation the gateway gives each HTTP request.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface CallOptions {
  /** The client went away, or the gateway gave up: cancels the vendor call. */
  signal: CancelSignal;
  timeouts: StreamTimeouts;
  http: VendorHttp;
  /** The gateway's id for the answer (`resp_…`); generated when absent. */
  responseId?: string;
  /** Clock for `created`; Date.now by default. */
  now?: () => number;
}

/**
 * Why a vendor call failed. Issue 10's failover decides on `kind` alone:
 * - rate_limit (429), overloaded (503/529), server (5xx), timeout (no first token / total),
 *   network (reset, refused), billing (quota, credit), not_found (model 404), auth (vendor 401/403),
 *   content_filter (a refusal, 200 or 400), context_length (prompt too long: not failed over),
 *   invalid_request (any other vendor 4xx), stream_cut (closed mid-stream), stall (silence between
 *   tokens), malformed (unparseable frame), output_budget_exhausted (all output spent on reasoning),
 *   empty_response (a 200 with nothing in it).
 */
export type VendorErrorKind =
  | 'rate_limit'
  | 'overloaded'
  | 'server'
  | 'timeout'
  | 'network'
  | 'billing'
  | 'not_found'
  | 'auth'
  | 'content_filter'
  | 'context_length'
  | 'invalid_request'
  | 'stream_cut'
  | 'stall'
  | 'malformed'
  | 'output_budget_exhausted'
  | 'empty_response';

/** The envelope types of model endpoints (the spec's list), as @patchbay/errors defines them. */
export type ErrorType = ModelErrorType;

/**
 * Any error the app renders on a model surface: a WireError, a VendorError, or the app's own
 * (budget, auth…) in this shape. `source` is 'gateway' or 'provider'; `provider` the model's author.
 */
export interface GatewayErrorLike {
  status: number;
  type: ErrorType;
  message: string;
  code?: string | null;
  param?: string | null;
  source?: 'gateway' | 'provider' | null;
  provider?: string | null;
  headers?: Record<string, string>;
  /** Native 422: the `detail` array replaces the envelope. */
  detail?: ValidationDetail[];
}

/** One entry of a native 422 `detail` array (FastAPI / pydantic shape). */
export interface ValidationDetail {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

export interface RenderExtras {
  /** What the request cost, at the route that ran it. */
  costUsd: number;
  /** The `routing` object (native, with include_routing_metadata). */
  routing?: unknown;
  /** Warnings beyond those on the response (the app's own). */
  warnings?: Warning[];
}

export interface StreamInit {
  id: string;
  /** The model as shown to the client (the gateway's id, or what the client asked for). */
  model: string;
  vendor: string;
  /** Unix seconds. */
  created: number;
  /** Warnings known before the stream starts (parse and translation changes). */
  warnings?: Warning[];
  render?: RenderHints;
  /** The client's metadata, echoed where the surface does. */
  metadata?: Record<string, string> | null;
  /** Input tokens as estimated before the call, for frames that announce them up front (Anthropic message_start). */
  estimatedInputTokens?: number;
  /** Fields set on the response objects of the OpenAI responses frames (store, previous_response_id of a stored turn). */
  echo?: Record<string, unknown>;
}

/** Turns canonical events into one surface's SSE frames (each string is whole frames, ready to write). */
export interface StreamRenderer {
  /** Frames to write when the stream opens (before any event); may be ''. */
  start(): string;
  event(event: CanonicalStreamEvent): string;
  /** The terminal frames of a good stream. */
  finish(extras: RenderExtras): string;
  /** The terminal frames of a failed stream. */
  error(error: GatewayErrorLike): string;
  /** Native only: a failover restart marker; other surfaces return ''. */
  restart?(info: { model: string; vendor: string }): string;
}
