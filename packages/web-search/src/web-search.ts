import type { OutboundHttp } from '@patchbay/outbound';
import { createEngine, hostMatches } from './engines';
import { AUTO_ORDER, ENGINE_NAMES, SearchEngineError, type EngineConfig, type EngineName, type SearchEngine, type SearchRequest, type SearchResult } from './types';

/** Each engine's public API root; SearXNG has none (it is the operator's own instance). */
export const DEFAULT_BASE_URLS: Record<EngineName, string | null> = {
  exa: 'https://api.exa.ai',
  tavily: 'https://api.tavily.com',
  brave: 'https://api.search.brave.com',
  searxng: null,
};

/**
 * The engines the operator configured, from `PATCHBAY_SEARCH_<ENGINE>_API_KEY` and
 * `PATCHBAY_SEARCH_<ENGINE>_BASE_URL` (the vendors' convention, as PATCHBAY_VENDOR_<X>_*): a keyed
 * engine is configured by its key (the base URL defaults to its public API), SearXNG by its base URL
 * (keyless). A base URL that is not an http(s) URL is a configuration error, thrown at boot.
 */
export function searchConfigFromEnv(env: NodeJS.ProcessEnv): Map<EngineName, EngineConfig> {
  const configs = new Map<EngineName, EngineConfig>();
  const problems: string[] = [];
  for (const name of ENGINE_NAMES) {
    const prefix = `PATCHBAY_SEARCH_${name.toUpperCase()}`;
    const apiKey = env[`${prefix}_API_KEY`]?.trim() || null;
    const baseUrlValue = env[`${prefix}_BASE_URL`]?.trim() || null;
    if (baseUrlValue && !/^https?:\/\/[^\s]+$/i.test(baseUrlValue)) {
      problems.push(`${prefix}_BASE_URL must be an http(s) URL`);
      continue;
    }
    const baseUrl = (baseUrlValue ?? DEFAULT_BASE_URLS[name])?.replace(/\/+$/, '') ?? null;
    if (!baseUrl) continue;
    if (name !== 'searxng' && !apiKey) continue;
    configs.set(name, { name, apiKey, baseUrl });
  }
  if (problems.length > 0) throw new Error(`web search configuration: ${problems.join('; ')}`);
  return configs;
}

/** What one search gave: the engine that answered and its results (filtered and cut). */
export interface SearchOutcome {
  engine: EngineName;
  results: SearchResult[];
}

export function isEngineName(value: string): value is EngineName {
  return (ENGINE_NAMES as readonly string[]).includes(value);
}

/**
 * The configured engines behind one call. `search('auto', …)` tries the configured engines in
 * AUTO_ORDER, moving on only past a retryable failure; a named engine runs alone. Results are
 * filtered by the domain lists again here (engines that take them as query syntax can leak others),
 * de-duplicated by URL and cut to max_results.
 */
export class WebSearch {
  private readonly engines = new Map<EngineName, SearchEngine>();

  constructor(configs: Map<EngineName, EngineConfig>, http: OutboundHttp, options: { timeoutMs?: number } = {}) {
    for (const [name, config] of configs) this.engines.set(name, createEngine(config, { http, timeoutMs: options.timeoutMs ?? 10_000 }));
  }

  /** The configured engines, in auto order. */
  configured(): EngineName[] {
    return AUTO_ORDER.filter((name) => this.engines.has(name));
  }

  has(name: EngineName): boolean {
    return this.engines.has(name);
  }

  /** The engines a choice runs on, in order (empty when none is configured). */
  candidates(choice: EngineName | 'auto'): EngineName[] {
    return choice === 'auto' ? this.configured() : this.engines.has(choice) ? [choice] : [];
  }

  async search(choice: EngineName | 'auto', request: SearchRequest): Promise<SearchOutcome> {
    const order = this.candidates(choice);
    if (order.length === 0) throw new SearchEngineError(choice === 'auto' ? 'searxng' : choice, 'auth', choice === 'auto' ? 'no web search engine is configured' : `${choice} is not configured`);
    let last: SearchEngineError | null = null;
    for (const name of order) {
      try {
        const raw = await this.engines.get(name)!.search(request);
        return { engine: name, results: filterResults(raw, request) };
      } catch (err) {
        last = err instanceof SearchEngineError ? err : new SearchEngineError(name, 'network', `${name}: ${(err as Error).message}`);
        if (!last.retryable || request.signal?.aborted) throw last;
      }
    }
    throw last!;
  }
}

export function filterResults(raw: SearchResult[], request: Pick<SearchRequest, 'allowedDomains' | 'excludedDomains' | 'maxResults'>): SearchResult[] {
  const seen = new Set<string>();
  const out: SearchResult[] = [];
  for (const result of raw) {
    if (request.allowedDomains?.length && !request.allowedDomains.some((d) => hostMatches(result.url, d))) continue;
    if (request.excludedDomains?.some((d) => hostMatches(result.url, d))) continue;
    if (seen.has(result.url)) continue;
    seen.add(result.url);
    out.push(result);
    if (out.length >= request.maxResults) break;
  }
  return out;
}
