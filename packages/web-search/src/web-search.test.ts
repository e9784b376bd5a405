import { Agent } from 'undici';
import { sendThrough, type OutboundHttp } from '@patchbay/outbound';
import { startFakeSearchEngine, type FakeSearchEngine, type FakeSearchEngineName } from '@patchbay/provider-fakes';
import { SearchEngineError, type EngineName, type SearchRequest } from './types';
import { WebSearch, searchConfigFromEnv } from './web-search';

const agent = new Agent();
const http: OutboundHttp = (url, request) => sendThrough(agent, url, request);
const ENGINES: FakeSearchEngineName[] = ['exa', 'tavily', 'brave', 'searxng'];
const fakes = {} as Record<FakeSearchEngineName, FakeSearchEngine>;

function envFor(names: FakeSearchEngineName[]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of names) {
    const fake = fakes[name];
    env[`PATCHBAY_SEARCH_${name.toUpperCase()}_BASE_URL`] = fake.baseUrl;
    if (fake.apiKey) env[`PATCHBAY_SEARCH_${name.toUpperCase()}_API_KEY`] = fake.apiKey;
  }
  return env;
}

const request = (over: Partial<SearchRequest> = {}): SearchRequest => ({ query: 'kubernetes pods', maxResults: 5, contextSize: 'medium', ...over });

beforeAll(async () => {
  for (const name of ENGINES) fakes[name] = await startFakeSearchEngine(name);
});
afterEach(() => ENGINES.forEach((n) => fakes[n].reset()));
afterAll(async () => {
  await Promise.all(ENGINES.map((n) => fakes[n].close()));
  await agent.close();
});

describe('searchConfigFromEnv', () => {
  it('configures a keyed engine by its key (public base URL by default) and SearXNG by its base URL', () => {
    const configs = searchConfigFromEnv({ PATCHBAY_SEARCH_EXA_API_KEY: 'k', PATCHBAY_SEARCH_BRAVE_BASE_URL: 'https://brave.example', PATCHBAY_SEARCH_SEARXNG_BASE_URL: 'http://searx.local:8888/' });
    expect([...configs.keys()].sort()).toEqual(['exa', 'searxng']);
    expect(configs.get('exa')).toEqual({ name: 'exa', apiKey: 'k', baseUrl: 'https://api.exa.ai' });
    expect(configs.get('searxng')?.baseUrl).toBe('http://searx.local:8888');
  });

  it('refuses a base URL that is not http(s), naming the variable', () => {
    expect(() => searchConfigFromEnv({ PATCHBAY_SEARCH_TAVILY_BASE_URL: 'ftp://x' })).toThrow(/PATCHBAY_SEARCH_TAVILY_BASE_URL/);
  });
});

describe.each(ENGINES)('%s', (name) => {
  it('finds pages, cut to max_results, with title, URL and snippet', async () => {
    const search = new WebSearch(searchConfigFromEnv(envFor([name])), http);
    const outcome = await search.search(name, request({ maxResults: 1 }));
    expect(outcome.engine).toBe(name);
    expect(outcome.results).toHaveLength(1);
    expect(outcome.results[0]).toMatchObject({ url: 'https://kubernetes.io/docs/concepts/workloads/pods/', title: 'Pods | Kubernetes' });
    expect(outcome.results[0]!.snippet).toMatch(/smallest deployable units/);
    expect(fakes[name].queries).toHaveLength(1);
  });

  it('keeps results inside allowed_domains and out of excluded_domains', async () => {
    const search = new WebSearch(searchConfigFromEnv(envFor([name])), http);
    const allowed = await search.search(name, request({ query: 'latest release kubernetes node.js', allowedDomains: ['nodejs.org'] }));
    expect(allowed.results.map((r) => new URL(r.url).hostname)).toEqual(['nodejs.org']);
    const excluded = await search.search(name, request({ query: 'latest release kubernetes node.js', excludedDomains: ['kubernetes.io'] }));
    expect(excluded.results.length).toBeGreaterThan(0);
    expect(excluded.results.every((r) => !r.url.includes('kubernetes.io'))).toBe(true);
  });

  it('reports a rate limit as a retryable rate_limit error with the engine\'s Retry-After', async () => {
    const search = new WebSearch(searchConfigFromEnv(envFor([name])), http);
    fakes[name].fail({ kind: 'rate_limit', retryAfterSeconds: 7 });
    const err = (await search.search(name, request()).catch((e: unknown) => e)) as SearchEngineError;
    expect(err).toBeInstanceOf(SearchEngineError);
    expect(err.kind).toBe('rate_limit');
    expect(err.retryAfterSeconds).toBe(7);
    expect(err.retryable).toBe(true);
  });
});

describe('errors and auto', () => {
  it('a wrong key is an auth error that never carries the key', async () => {
    const search = new WebSearch(new Map([['tavily', { name: 'tavily', apiKey: 'tvly-wrong-secret', baseUrl: fakes.tavily.baseUrl }]]), http);
    const err = (await search.search('tavily', request()).catch((e: unknown) => e)) as SearchEngineError;
    expect(err.kind).toBe('auth');
    expect(err.message).toMatch(/401/);
    expect(err.message).not.toMatch(/wrong-secret/);
  });

  it('Tavily out of credits (432) is a billing error', async () => {
    const search = new WebSearch(searchConfigFromEnv(envFor(['tavily'])), http);
    fakes.tavily.fail({ kind: 'billing' });
    await expect(search.search('tavily', request())).rejects.toMatchObject({ kind: 'billing', status: 432 });
  });

  it('SearXNG without the json format enabled is a format error naming the setting', async () => {
    const search = new WebSearch(searchConfigFromEnv(envFor(['searxng'])), http);
    fakes.searxng.fail({ kind: 'format_disabled' });
    await expect(search.search('searxng', request())).rejects.toMatchObject({ kind: 'format', message: expect.stringMatching(/search\.formats/) });
  });

  it('auto tries the configured engines in order and moves past a retryable failure only', async () => {
    const search = new WebSearch(searchConfigFromEnv(envFor(['brave', 'exa', 'searxng'])), http);
    expect(search.configured()).toEqual<EngineName[]>(['searxng', 'exa', 'brave']);
    fakes.searxng.fail({ kind: 'server_error' });
    const outcome = await search.search('auto', request());
    expect(outcome.engine).toBe('exa');
    fakes.searxng.fail({ kind: 'format_disabled' });
    await expect(search.search('auto', request())).rejects.toMatchObject({ engine: 'searxng', kind: 'format' });
  });

  it('the per-key window of a fake engine answers 429 past its limit', async () => {
    const limited = await startFakeSearchEngine('brave', { requestsPerMinute: 2 });
    try {
      const search = new WebSearch(new Map([['brave', { name: 'brave', apiKey: limited.apiKey, baseUrl: limited.baseUrl }]]), http);
      await search.search('brave', request());
      await search.search('brave', request());
      await expect(search.search('brave', request())).rejects.toMatchObject({ kind: 'rate_limit', status: 429 });
    } finally {
      await limited.close();
    }
  });
});
