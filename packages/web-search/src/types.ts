/** The engines Patchbay can search with. `auto` is not an engine: it picks one (see `AUTO_ORDER`). */
export const ENGINE_NAMES = ['searxng', 'exa', 'tavily', 'brave'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

/**
 * The order `auto` tries the configured engines in: SearXNG first (self-hosted and keyless, so it
 * costs nothing per search and sends no query to a third party), then Exa, Tavily and Brave (the
 * peers' most used first). A failure `auto` may move past (rate limit, 5xx, timeout, network) goes to
 * the next configured engine; a pinned engine is never swapped.
 */
export const AUTO_ORDER: readonly EngineName[] = ENGINE_NAMES;

export type SearchContextSize = 'low' | 'medium' | 'high';

/** Characters of page text kept per result for each context size (OpenAI's low/medium/high). */
export const SNIPPET_CHARS: Record<SearchContextSize, number> = { low: 400, medium: 1200, high: 3000 };

/** OpenAI's and Anthropic's `user_location` (type "approximate"). */
export interface UserLocation {
  country?: string;
  region?: string;
  city?: string;
  timezone?: string;
}

/** One query as every engine takes it. */
export interface SearchRequest {
  query: string;
  /** 1 to 25; engines asked for more than they serve are asked for their maximum and cut here. */
  maxResults: number;
  /** Only results on these hosts (and their subdomains). */
  allowedDomains?: string[];
  /** No results on these hosts (and their subdomains). */
  excludedDomains?: string[];
  contextSize: SearchContextSize;
  userLocation?: UserLocation;
  /** Cancels the engine call (the client went away). */
  signal?: AbortSignal;
}

/** A result as the gateway hands it to the model and cites it. */
export interface SearchResult {
  url: string;
  title: string;
  /** Page text the engine returned, cut to the context size. */
  snippet: string;
  /** ISO date, when the engine gives one. */
  publishedAt: string | null;
}

/** An engine's own settings, from the operator's environment. */
export interface EngineConfig {
  name: EngineName;
  /** null for a keyless engine (SearXNG). */
  apiKey: string | null;
  /** The engine's API root, without a trailing slash. */
  baseUrl: string;
}

/**
 * Why a search failed. `retryable` kinds let `auto` move to the next engine: rate_limit (429),
 * server (5xx), timeout, network. The others are the operator's to fix (auth: a wrong key; billing:
 * credits ran out; invalid_request: the engine refused the query; format: SearXNG's JSON disabled).
 */
export type SearchErrorKind = 'rate_limit' | 'server' | 'timeout' | 'network' | 'auth' | 'billing' | 'invalid_request' | 'format';

export class SearchEngineError extends Error {
  readonly engine: EngineName;
  readonly kind: SearchErrorKind;
  readonly status: number | null;
  readonly retryAfterSeconds: number | null;

  constructor(engine: EngineName, kind: SearchErrorKind, message: string, status: number | null = null, retryAfterSeconds: number | null = null) {
    super(message);
    this.name = 'SearchEngineError';
    this.engine = engine;
    this.kind = kind;
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  get retryable(): boolean {
    return this.kind === 'rate_limit' || this.kind === 'server' || this.kind === 'timeout' || this.kind === 'network';
  }
}

/** One engine behind the common interface. */
export interface SearchEngine {
  readonly name: EngineName;
  search(request: SearchRequest): Promise<SearchResult[]>;
}
