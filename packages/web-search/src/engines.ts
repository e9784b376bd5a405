import { engineJson, type EngineHttp } from './http';
import { SearchEngineError, SNIPPET_CHARS, type EngineConfig, type EngineName, type SearchEngine, type SearchRequest, type SearchResult } from './types';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Cuts page text to the request's context size, on a word boundary where one is near. */
export function cutSnippet(text: string, request: Pick<SearchRequest, 'contextSize'>): string {
  const max = SNIPPET_CHARS[request.contextSize];
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${space > max * 0.8 ? cut.slice(0, space) : cut}…`;
}

/** Whether a URL's host is `domain` or one of its subdomains (`docs.example.com` matches `example.com`). */
export function hostMatches(url: string, domain: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  const d = domain.toLowerCase().replace(/^\*\./, '').replace(/^https?:\/\//, '').replace(/\/.*$/, '');
  return host === d || host.endsWith(`.${d}`);
}

/** `site:` operators for engines that filter by query syntax only (Brave, SearXNG). */
function withSiteOperators(request: SearchRequest): string {
  let q = request.query;
  const allowed = request.allowedDomains ?? [];
  if (allowed.length === 1) q += ` site:${allowed[0]}`;
  else if (allowed.length > 1) q += ` (${allowed.map((d) => `site:${d}`).join(' OR ')})`;
  for (const d of request.excludedDomains ?? []) q += ` -site:${d}`;
  return q;
}

function results(engine: EngineName, list: unknown, map: (item: Json) => SearchResult | null): SearchResult[] {
  if (!Array.isArray(list)) throw new SearchEngineError(engine, 'format', `${engine}: the answer has no results list`);
  const out: SearchResult[] = [];
  for (const item of list) {
    if (!isObject(item)) continue;
    const result = map(item);
    if (result && /^https?:\/\//i.test(result.url)) out.push(result);
  }
  return out;
}

/** Exa `POST /search` (x-api-key), asking for page text with each result. */
export class ExaEngine implements SearchEngine {
  readonly name = 'exa' as const;
  constructor(private readonly config: EngineConfig, private readonly deps: EngineHttp) {}

  async search(request: SearchRequest): Promise<SearchResult[]> {
    const body: Json = {
      query: request.query,
      type: 'auto',
      numResults: request.maxResults,
      contents: { text: { maxCharacters: SNIPPET_CHARS[request.contextSize] } },
    };
    if (request.allowedDomains?.length) body.includeDomains = request.allowedDomains;
    if (request.excludedDomains?.length) body.excludeDomains = request.excludedDomains;
    if (request.userLocation?.country) body.userLocation = request.userLocation.country;
    const answer = await engineJson(this.name, this.deps, new URL(`${this.config.baseUrl}/search`), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': this.config.apiKey ?? '' },
      body: JSON.stringify(body),
    }, request);
    return results(this.name, isObject(answer) ? answer.results : undefined, (r) => ({
      url: str(r.url),
      title: str(r.title) || str(r.url),
      snippet: cutSnippet(str(r.text) || (Array.isArray(r.highlights) ? r.highlights.map(str).join(' … ') : ''), request),
      publishedAt: str(r.publishedDate) || null,
    }));
  }
}

/** Tavily `POST /search` (Authorization: Bearer tvly-…), basic depth (one credit per search). */
export class TavilyEngine implements SearchEngine {
  readonly name = 'tavily' as const;
  constructor(private readonly config: EngineConfig, private readonly deps: EngineHttp) {}

  async search(request: SearchRequest): Promise<SearchResult[]> {
    const body: Json = { query: request.query, search_depth: 'basic', topic: 'general', max_results: Math.min(request.maxResults, 20), include_answer: false };
    if (request.allowedDomains?.length) body.include_domains = request.allowedDomains;
    if (request.excludedDomains?.length) body.exclude_domains = request.excludedDomains;
    const answer = await engineJson(this.name, this.deps, new URL(`${this.config.baseUrl}/search`), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${this.config.apiKey ?? ''}` },
      body: JSON.stringify(body),
    }, request);
    return results(this.name, isObject(answer) ? answer.results : undefined, (r) => ({
      url: str(r.url),
      title: str(r.title) || str(r.url),
      snippet: cutSnippet(str(r.content), request),
      publishedAt: str(r.published_date) || null,
    }));
  }
}

/** Brave `GET /res/v1/web/search` (X-Subscription-Token); at most 20 results per call. */
export class BraveEngine implements SearchEngine {
  readonly name = 'brave' as const;
  constructor(private readonly config: EngineConfig, private readonly deps: EngineHttp) {}

  async search(request: SearchRequest): Promise<SearchResult[]> {
    const url = new URL(`${this.config.baseUrl}/res/v1/web/search`);
    url.searchParams.set('q', withSiteOperators(request));
    url.searchParams.set('count', String(Math.min(request.maxResults, 20)));
    url.searchParams.set('safesearch', 'moderate');
    if (request.userLocation?.country) url.searchParams.set('country', request.userLocation.country.toLowerCase());
    const answer = await engineJson(this.name, this.deps, url, {
      method: 'GET',
      headers: { accept: 'application/json', 'x-subscription-token': this.config.apiKey ?? '' },
    }, request);
    const web = isObject(answer) && isObject(answer.web) ? answer.web.results : [];
    return results(this.name, web ?? [], (r) => ({
      url: str(r.url),
      title: str(r.title) || str(r.url),
      snippet: cutSnippet([str(r.description), ...(Array.isArray(r.extra_snippets) ? r.extra_snippets.map(str) : [])].filter(Boolean).join(' '), request),
      publishedAt: str(r.page_age) || null,
    }));
  }
}

/**
 * SearXNG `GET /search?format=json` on the operator's own instance (keyless). It returns a fixed page
 * of results (about 20) and cannot be asked for fewer: the gateway cuts to max_results. An instance
 * without the json format enabled answers 403: a `format` error naming the setting.
 */
export class SearxngEngine implements SearchEngine {
  readonly name = 'searxng' as const;
  constructor(private readonly config: EngineConfig, private readonly deps: EngineHttp) {}

  async search(request: SearchRequest): Promise<SearchResult[]> {
    const url = new URL(`${this.config.baseUrl}/search`);
    url.searchParams.set('q', withSiteOperators(request));
    url.searchParams.set('format', 'json');
    url.searchParams.set('pageno', '1');
    url.searchParams.set('safesearch', '1');
    const headers: Record<string, string> = { accept: 'application/json' };
    // A SearXNG behind an authenticating proxy: the operator may still set a key, sent as a bearer token.
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;
    const answer = await engineJson(this.name, this.deps, url, { method: 'GET', headers }, request);
    return results(this.name, isObject(answer) ? answer.results : undefined, (r) => ({
      url: str(r.url),
      title: str(r.title) || str(r.url),
      snippet: cutSnippet(str(r.content), request),
      publishedAt: str(r.publishedDate) || null,
    }));
  }
}

export function createEngine(config: EngineConfig, deps: EngineHttp): SearchEngine {
  switch (config.name) {
    case 'exa':
      return new ExaEngine(config, deps);
    case 'tavily':
      return new TavilyEngine(config, deps);
    case 'brave':
      return new BraveEngine(config, deps);
    case 'searxng':
      return new SearxngEngine(config, deps);
  }
}
