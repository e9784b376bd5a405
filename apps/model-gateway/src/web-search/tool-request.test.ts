import { WireError } from '@patchbay/model-wire';
import { extractWebSearch, parseSvcParameters } from './tool-request';

function codeOf(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (err) {
    return err instanceof WireError ? (err.code ?? null) : 'not a WireError';
  }
}

describe('svc:web_search parameters', () => {
  it('defaults: auto engine, 5 results, medium context, 5 searches', () => {
    expect(parseSvcParameters(undefined, 'tools[0]')).toEqual({ engine: 'auto', maxResults: 5, allowedDomains: [], excludedDomains: [], contextSize: 'medium', userLocation: null, maxSearches: 5 });
  });

  it('reads every parameter, domains normalised to hosts', () => {
    const settings = parseSvcParameters({ engine: 'Tavily', max_results: 25, allowed_domains: ['https://Kubernetes.io/docs'], search_context_size: 'high', user_location: { type: 'approximate', country: 'US', city: 'Austin' }, max_uses: 2 }, 'tools[0]');
    expect(settings).toEqual({ engine: 'tavily', maxResults: 25, allowedDomains: ['kubernetes.io'], excludedDomains: [], contextSize: 'high', userLocation: { country: 'US', city: 'Austin' }, maxSearches: 2 });
  });

  it.each([
    [{ max_results: 26 }, 'invalid_server_tool_parameters'],
    [{ max_results: 2.5 }, 'invalid_server_tool_parameters'],
    [{ allowed_domains: ['a.com'], blocked_domains: ['b.com'] }, 'invalid_server_tool_parameters'],
    [{ allowed_domains: 'a.com' }, 'invalid_server_tool_parameters'],
    [{ max_searches: 21 }, 'invalid_server_tool_parameters'],
    [{ user_location: { type: 'exact' } }, 'invalid_server_tool_parameters'],
    [{ depth: 'advanced' }, 'invalid_server_tool_parameters'],
    [{ search_context_size: 'max' }, 'invalid_search_context_size'],
    [{ engine: 'youcom' }, 'unsupported_web_search_engine'],
    [{ engine: 7 }, 'unsupported_web_search_engine'],
  ])('%j is %s', (parameters, code) => {
    expect(codeOf(() => parseSvcParameters(parameters, 'tools[0]'))).toBe(code);
  });
});

describe('extractWebSearch', () => {
  it('takes the search tool out and leaves the function tools; null without one', () => {
    const fn = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } };
    const found = extractWebSearch('openai-chat', { model: 'm', messages: [], tools: [fn, { type: 'openrouter:web_search' }] });
    expect(found?.body).toEqual({ model: 'm', messages: [], tools: [fn] });
    expect(found?.ask).toMatchObject({ mode: 'svc', nativeTool: null, param: 'tools[1]' });
    expect(extractWebSearch('openai-chat', { model: 'm', tools: [fn] })).toBeNull();
  });

  it('a vendor\'s own search tool becomes an auto-mode ask naming its family, with its options as parameters', () => {
    const found = extractWebSearch('anthropic-messages', { tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3, blocked_domains: ['x.com'] }] });
    expect(found?.ask).toMatchObject({ mode: 'auto', nativeTool: { type: 'web_search_20250305', family: 'anthropic' }, settings: { maxSearches: 3, excludedDomains: ['x.com'] } });
    expect(found?.body).toEqual({});
    expect(extractWebSearch('openai-responses', { tools: [{ type: 'web_search', filters: { allowed_domains: ['a.org'] } }] })?.ask.settings.allowedDomains).toEqual(['a.org']);
  });

  it('provider_options.web_search: auto, native, svc and merge; anything else is invalid_web_search_mode, even without a tool', () => {
    const body = (mode: unknown) => ({ tools: [{ type: 'svc:web_search' }], provider_options: { web_search: mode } });
    expect(extractWebSearch('native-responses', body('merge'))?.ask.mode).toBe('svc');
    expect(extractWebSearch('native-responses', body('native'))?.ask.mode).toBe('native');
    expect(extractWebSearch('native-responses', body('auto'))?.ask.mode).toBe('auto');
    expect(codeOf(() => extractWebSearch('native-responses', body('always')))).toBe('invalid_web_search_mode');
    expect(codeOf(() => extractWebSearch('native-responses', { input: 'x', provider_options: { web_search: 'nope' } }))).toBe('invalid_web_search_mode');
  });

  it('one web search tool per request', () => {
    expect(codeOf(() => extractWebSearch('native-responses', { tools: [{ type: 'svc:web_search' }, { type: 'openrouter:web_search' }] }))).toBe('invalid_server_tool_parameters');
  });
});
