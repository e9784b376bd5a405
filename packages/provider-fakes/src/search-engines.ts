import { FakeRoutes, startFakeServer, type FakeReply, type FakeRequest, type FakeServer } from './fake-server';

/**
 * Fakes of the web search engines the model gateway searches with (issue 27 §1): Exa, Tavily, Brave
 * and SearXNG, each on its own port with its own wire format, authentication, error bodies and rate
 * limit. They search a small in-memory corpus (seeded with a few pages, extended with `seed`): a page
 * matches when any of the query's words (3+ letters, `site:` operators honoured) appears in its title
 * or text, ranked by how many do.
 */
export type FakeSearchEngineName = 'exa' | 'tavily' | 'brave' | 'searxng';

export interface FakeWebPage {
  url: string;
  title: string;
  text: string;
  publishedAt?: string;
}

/** A fault for the next matching searches (or all of them, `times: Infinity`). */
export type FakeSearchFault =
  /** 429 with the engine's body and Retry-After. */
  | { kind: 'rate_limit'; retryAfterSeconds?: number }
  /** 500 (Brave, Exa, Tavily) or 502 (SearXNG behind its proxy). */
  | { kind: 'server_error' }
  /** The engine's out-of-credits answer (Tavily 432, Exa 402, Brave 402); SearXNG answers server_error. */
  | { kind: 'billing' }
  /** SearXNG only: the instance's json format disabled (403). */
  | { kind: 'format_disabled' }
  /** Waits this long before answering. */
  | { kind: 'slow'; delayMs: number };

export interface FakeSearchEngineOptions {
  /** Searches per key per 60-second window before 429 (default 1000). */
  requestsPerMinute?: number;
  /** Pages beyond the default corpus. */
  pages?: FakeWebPage[];
  /** Replace the default corpus instead of extending it. */
  replaceCorpus?: boolean;
  now?: () => number;
}

export interface FakeSearchEngine extends FakeServer {
  engine: FakeSearchEngineName;
  /** What PATCHBAY_SEARCH_<ENGINE>_BASE_URL is set to. */
  baseUrl: string;
  /** A key the fake accepts (SearXNG: null, it is keyless). */
  apiKey: string | null;
  /** Adds pages to the corpus (a page with a known URL replaces it). */
  seed(...pages: FakeWebPage[]): void;
  /** Queues a fault for the next `times` searches (default 1). */
  fail(fault: FakeSearchFault, times?: number): void;
  /** The queries searched so far, in order. */
  queries: string[];
  reset(): void;
}

export const SEARCH_FAKE_KEYS: Record<Exclude<FakeSearchEngineName, 'searxng'>, string> = {
  exa: 'exa-fake-key-0001',
  tavily: 'tvly-fake-key-0001',
  brave: 'BSA-fake-key-0001',
};

/** The corpus every fake engine starts with. */
export const DEFAULT_WEB_PAGES: readonly FakeWebPage[] = [
  {
    url: 'https://kubernetes.io/docs/concepts/workloads/pods/',
    title: 'Pods | Kubernetes',
    text: 'Pods are the smallest deployable units of computing that you can create and manage in Kubernetes. A Pod is a group of one or more containers with shared storage and network resources.',
    publishedAt: '2026-03-02',
  },
  {
    url: 'https://kubernetes.io/releases/',
    title: 'Releases | Kubernetes',
    text: 'The Kubernetes project maintains release branches for the most recent three minor releases. The latest release of Kubernetes is v1.36.',
    publishedAt: '2026-08-20',
  },
  {
    url: 'https://nodejs.org/en/about/previous-releases',
    title: 'Node.js Releases',
    text: 'Major Node.js versions enter Active LTS status for 12 months, then Maintenance LTS for 18 more. Node.js 24 is the current Active LTS release.',
    publishedAt: '2026-05-11',
  },
  {
    url: 'https://en.wikipedia.org/wiki/Eiffel_Tower',
    title: 'Eiffel Tower - Wikipedia',
    text: 'The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. It is 330 metres tall and was completed in 1889.',
  },
];

interface QueuedFault {
  fault: FakeSearchFault;
  left: number;
}

function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []).filter((w) => !STOP_WORDS.has(w));
}

const STOP_WORDS = new Set(['the', 'and', 'for', 'what', 'who', 'how', 'with', 'latest', 'site', 'are', 'was', 'that', 'this']);

/** `site:x`, `(site:a OR site:b)` and `-site:x` out of a query string. */
function siteOperators(query: string): { text: string; include: string[]; exclude: string[] } {
  const include: string[] = [];
  const exclude: string[] = [];
  const text = query.replace(/(-?)site:([^\s)]+)/g, (_m, minus: string, domain: string) => {
    (minus ? exclude : include).push(domain.toLowerCase());
    return ' ';
  });
  return { text: text.replace(/\(\s*(OR\s*)*\)/g, ' ').replace(/\bOR\b/g, ' '), include, exclude };
}

function onHost(url: string, domain: string): boolean {
  const host = new URL(url).hostname;
  return host === domain || host.endsWith(`.${domain}`);
}

/** Pages matching a query, best first. */
function searchCorpus(corpus: Map<string, FakeWebPage>, query: string, include: string[], exclude: string[]): FakeWebPage[] {
  const terms = words(query);
  const scored: Array<{ page: FakeWebPage; score: number }> = [];
  for (const page of corpus.values()) {
    if (include.length > 0 && !include.some((d) => onHost(page.url, d))) continue;
    if (exclude.some((d) => onHost(page.url, d))) continue;
    const haystack = `${page.title} ${page.text}`.toLowerCase();
    const score = terms.filter((t) => haystack.includes(t)).length;
    if (score > 0) scored.push({ page, score });
  }
  return scored.sort((a, b) => b.score - a.score).map((s) => s.page);
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string').map((v) => v.toLowerCase()) : [];
}

/** Starts one engine's fake on 127.0.0.1 (random port). */
export async function startFakeSearchEngine(engine: FakeSearchEngineName, options: FakeSearchEngineOptions = {}): Promise<FakeSearchEngine> {
  const corpus = new Map<string, FakeWebPage>();
  const seed = (...pages: FakeWebPage[]) => pages.forEach((p) => corpus.set(p.url, p));
  if (!options.replaceCorpus) seed(...DEFAULT_WEB_PAGES);
  seed(...(options.pages ?? []));
  const faults: QueuedFault[] = [];
  const queries: string[] = [];
  const now = options.now ?? Date.now;
  const limit = options.requestsPerMinute ?? 1000;
  const windows = new Map<string, { start: number; count: number }>();
  const apiKey = engine === 'searxng' ? null : SEARCH_FAKE_KEYS[engine];

  /** Authentication then the per-key window; an answer when the request must stop here. */
  const gate = (req: FakeRequest): FakeReply | undefined => {
    const presented = engine === 'exa' ? req.headers['x-api-key'] : engine === 'brave' ? req.headers['x-subscription-token'] : engine === 'tavily' ? /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] : 'searxng';
    if (engine !== 'searxng' && presented !== apiKey) return unauthorized(engine);
    const key = String(presented);
    const t = now();
    let w = windows.get(key);
    if (!w || t - w.start >= 60_000) {
      w = { start: t, count: 0 };
      windows.set(key, w);
    }
    w.count += 1;
    const resetSeconds = Math.max(1, Math.ceil((w.start + 60_000 - t) / 1000));
    if (w.count > limit) return rateLimited(engine, resetSeconds, limit);
    return undefined;
  };

  const takeFault = async (): Promise<FakeReply | undefined> => {
    const queued = faults[0];
    if (!queued) return undefined;
    queued.left -= 1;
    if (queued.left <= 0) faults.shift();
    const fault = queued.fault;
    switch (fault.kind) {
      case 'slow':
        await new Promise((r) => setTimeout(r, fault.delayMs));
        return undefined;
      case 'rate_limit':
        return rateLimited(engine, fault.retryAfterSeconds ?? 1, limit);
      case 'server_error':
        return serverError(engine);
      case 'billing':
        return engine === 'searxng' ? serverError(engine) : outOfCredits(engine);
      case 'format_disabled':
        return engine === 'searxng' ? { status: 403, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html><body><h1>Forbidden</h1></body></html>' } : serverError(engine);
    }
  };

  const routes = new FakeRoutes();
  const handle = (run: (req: FakeRequest) => FakeReply) => async (req: FakeRequest): Promise<FakeReply> => {
    const gated = gate(req);
    if (gated) return gated;
    const faulted = await takeFault();
    if (faulted) return faulted;
    return run(req);
  };

  if (engine === 'exa') {
    routes.route('POST', '/search', handle((req) => {
      const body = (req.json ?? {}) as Record<string, unknown>;
      if (typeof body.query !== 'string' || body.query.trim() === '') return { status: 400, body: { requestId: requestId(), error: 'query: Required', tag: 'INVALID_REQUEST_BODY' } };
      queries.push(body.query);
      const numResults = typeof body.numResults === 'number' ? Math.min(100, Math.max(1, body.numResults)) : 10;
      const contents = body.contents as { text?: { maxCharacters?: number } } | undefined;
      const max = contents?.text?.maxCharacters;
      const found = searchCorpus(corpus, body.query, stringList(body.includeDomains), stringList(body.excludeDomains)).slice(0, numResults);
      return {
        body: {
          requestId: requestId(),
          resolvedSearchType: 'neural',
          results: found.map((p, i) => ({
            id: p.url,
            url: p.url,
            title: p.title,
            score: 1 - i * 0.05,
            publishedDate: p.publishedAt ? `${p.publishedAt}T00:00:00.000Z` : null,
            author: null,
            ...(contents?.text ? { text: typeof max === 'number' ? p.text.slice(0, max) : p.text } : {}),
          })),
          costDollars: { total: 0.005 },
        },
      };
    }));
  } else if (engine === 'tavily') {
    routes.route('POST', '/search', handle((req) => {
      const body = (req.json ?? {}) as Record<string, unknown>;
      if (typeof body.query !== 'string' || body.query.trim() === '') return { status: 400, body: { detail: { error: 'Query is missing.' } } };
      const maxResults = body.max_results ?? 5;
      if (typeof maxResults !== 'number' || maxResults < 0 || maxResults > 20) return { status: 400, body: { detail: { error: 'max_results must be between 0 and 20.' } } };
      if (stringList(body.include_domains).length > 300) return { status: 400, body: { detail: { error: 'include_domains holds at most 300 domains.' } } };
      queries.push(body.query);
      const started = now();
      const found = searchCorpus(corpus, body.query, stringList(body.include_domains), stringList(body.exclude_domains)).slice(0, maxResults);
      return {
        body: {
          query: body.query,
          follow_up_questions: null,
          answer: null,
          images: [],
          results: found.map((p, i) => ({ title: p.title, url: p.url, content: p.text.slice(0, 500), score: 0.9 - i * 0.05, raw_content: null, ...(p.publishedAt ? { published_date: p.publishedAt } : {}) })),
          response_time: (now() - started) / 1000,
          request_id: requestId(),
        },
      };
    }));
  } else if (engine === 'brave') {
    routes.route('GET', '/res/v1/web/search', handle((req) => {
      const q = req.query.get('q') ?? '';
      if (q.trim() === '') return braveError(422, 'VALIDATION', 'Unable to validate request parameter(s): q is required');
      const count = Number(req.query.get('count') ?? '20');
      if (!Number.isInteger(count) || count < 1 || count > 20) return braveError(422, 'VALIDATION', 'Unable to validate request parameter(s): count must be between 1 and 20');
      queries.push(q);
      const ops = siteOperators(q);
      const found = searchCorpus(corpus, ops.text, ops.include, ops.exclude).slice(0, count);
      return {
        headers: rateHeaders(limit, 1, 60),
        body: {
          type: 'search',
          query: { original: q, more_results_available: false },
          web: {
            type: 'search',
            results: found.map((p) => ({ type: 'search_result', title: p.title, url: p.url, description: p.text.slice(0, 300), extra_snippets: p.text.length > 300 ? [p.text.slice(300, 600)] : [], ...(p.publishedAt ? { page_age: `${p.publishedAt}T00:00:00` } : {}), language: 'en', family_friendly: true })),
            family_friendly: true,
          },
        },
      };
    }));
  } else {
    const search = handle((req) => {
      const q = req.query.get('q') ?? (req.json as Record<string, string> | undefined)?.q ?? '';
      const format = req.query.get('format') ?? (req.json as Record<string, string> | undefined)?.format ?? 'html';
      if (format !== 'json') return { status: 403, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html><body><h1>Forbidden</h1></body></html>' };
      queries.push(q);
      const ops = siteOperators(q);
      // SearXNG returns its whole first page (about 20): no count parameter.
      const found = searchCorpus(corpus, ops.text, ops.include, ops.exclude).slice(0, 20);
      return {
        body: {
          query: q,
          number_of_results: found.length,
          results: found.map((p, i) => ({ url: p.url, title: p.title, content: p.text, engine: 'duckduckgo', engines: ['duckduckgo', 'brave'], positions: [i + 1], score: 2 - i * 0.1, category: 'general', publishedDate: p.publishedAt ? `${p.publishedAt}T00:00:00` : null })),
          answers: [],
          corrections: [],
          infoboxes: [],
          suggestions: [],
          unresponsive_engines: [],
        },
      };
    });
    routes.route('GET', '/search', search);
    routes.route('POST', '/search', search);
  }

  const server = await startFakeServer({ routes, notFound: { status: 404, body: { error: 'Not Found' } } });
  return {
    ...server,
    engine,
    baseUrl: server.url,
    apiKey,
    seed,
    fail(fault, times = 1) {
      faults.push({ fault, left: times });
    },
    queries,
    reset() {
      faults.length = 0;
      queries.length = 0;
      windows.clear();
      server.requests.length = 0;
    },
  };
}

let requestCounter = 0;
function requestId(): string {
  requestCounter += 1;
  return `req_${Date.now().toString(36)}${requestCounter.toString(36)}`;
}

function rateHeaders(limit: number, remaining: number, reset: number): Record<string, string> {
  // Brave reports the per-second and per-month windows as comma lists.
  return { 'x-ratelimit-limit': `1, ${limit}`, 'x-ratelimit-policy': `1;w=1, ${limit};w=60`, 'x-ratelimit-remaining': `${Math.max(0, remaining)}, ${Math.max(0, limit - 1)}`, 'x-ratelimit-reset': `1, ${reset}` };
}

function braveError(status: number, code: string, detail: string, headers: Record<string, string> = {}): FakeReply {
  return { status, headers, body: { type: 'ErrorResponse', error: { id: requestId(), status, code, detail, meta: {} }, time: Math.floor(Date.now() / 1000) } };
}

function unauthorized(engine: FakeSearchEngineName): FakeReply {
  switch (engine) {
    case 'exa':
      return { status: 401, body: { requestId: requestId(), error: 'Invalid API key', tag: 'INVALID_API_KEY' } };
    case 'tavily':
      return { status: 401, body: { detail: { error: 'Unauthorized: missing or invalid API key.' } } };
    case 'brave':
      return braveError(401, 'SUBSCRIPTION_TOKEN_INVALID', 'The provided subscription token is invalid.');
    case 'searxng':
      return { status: 401, body: 'Unauthorized' };
  }
}

function rateLimited(engine: FakeSearchEngineName, retryAfter: number, limit: number): FakeReply {
  const headers = { 'retry-after': String(retryAfter) };
  switch (engine) {
    case 'exa':
      return { status: 429, headers, body: { requestId: requestId(), error: 'You have exceeded your rate limit. Please slow down.', tag: 'RATE_LIMIT_EXCEEDED' } };
    case 'tavily':
      return { status: 429, headers, body: { detail: { error: 'Your request has been blocked due to excessive requests. Please reduce the rate of requests.' } } };
    case 'brave':
      return braveError(429, 'RATE_LIMITED', 'Request rate limit exceeded for plan.', { ...headers, ...rateHeaders(limit, 0, retryAfter) });
    case 'searxng':
      return { status: 429, headers: { ...headers, 'content-type': 'text/plain' }, body: 'Too Many Requests' };
  }
}

function serverError(engine: FakeSearchEngineName): FakeReply {
  switch (engine) {
    case 'exa':
      return { status: 500, body: { requestId: requestId(), error: 'Internal server error', tag: 'INTERNAL_ERROR' } };
    case 'tavily':
      return { status: 500, body: { detail: { error: 'Internal Server Error' } } };
    case 'brave':
      return braveError(500, 'INTERNAL_ERROR', 'An internal error occurred.');
    case 'searxng':
      return { status: 502, headers: { 'content-type': 'text/html' }, body: '<html><body>502 Bad Gateway</body></html>' };
  }
}

function outOfCredits(engine: Exclude<FakeSearchEngineName, 'searxng'>): FakeReply {
  switch (engine) {
    case 'exa':
      return { status: 402, body: { requestId: requestId(), error: 'You have run out of credits.', tag: 'NO_MORE_CREDITS' } };
    case 'tavily':
      return { status: 432, body: { detail: { error: 'This request exceeds your plan\'s set usage limit. Please upgrade your plan or contact support@tavily.com' } } };
    case 'brave':
      return braveError(402, 'SUBSCRIPTION_NOT_FOUND', 'The subscription has no remaining quota.');
  }
}
