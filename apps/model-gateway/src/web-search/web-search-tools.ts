import { callVendor, responsesTarget, streamVendor, WireError, type AnswerOptions, type CanonicalRequest, type CanonicalResponse, type CanonicalStreamEvent, type NormalizedUsage, type ToolDefinition, type VendorStream } from '@patchbay/model-wire';
import type { Scorer } from '@patchbay/prompt-injection';
import { SNIPPET_CHARS, type EngineName, type WebSearch } from '@patchbay/web-search';
import { reserveMicros, type Catalog } from '../catalog/catalog';
import type { ServerToolRun, ServerTools } from '../model/server-tools';
import type { Route } from '../routing/vendor-route';
import { callWithSearch, streamWithSearch, type SearchRunner } from './search-loop';
import { SEARCH_FUNCTION, UNTRUSTED_INSTRUCTION } from './search-results';
import { extractWebSearch, type VendorFamily, type WebSearchAsk } from './tool-request';

export interface WebSearchDeps {
  /** The engines the operator configured (PATCHBAY_SEARCH_<ENGINE>_*). */
  search: WebSearch;
  /** Prices and vendors (each engine's price per search is in the catalog's web_search_engines). */
  catalog: Catalog;
  /** The prompt-injection detector results are screened with (default the package's). */
  piScorer?: Scorer;
}

/** The vendor family whose own search a route could run, by the route's wire dialect. */
function familyOf(catalog: Catalog, vendor: string): VendorFamily | null {
  switch (catalog.vendors.get(vendor)?.dialect) {
    case 'openai':
      return 'openai';
    case 'anthropic':
      return 'anthropic';
    case 'gemini':
      return 'google';
    default:
      return null;
  }
}

const FAMILY_TOOL: Record<VendorFamily, string> = { openai: 'web_search', anthropic: 'web_search_20250305', google: 'google_search' };

/**
 * Whether the route vendor's own search can run this request. Gemini's google_search cannot be sent
 * beside function declarations in one generateContent request (facts file §4.3), so a request with
 * function tools of its own cannot use it.
 */
function canSearchNatively(family: VendorFamily | null, clientTools: number): family is VendorFamily {
  return family !== null && (family !== 'google' || clientTools === 0);
}

/** The catalog key of a vendor's own search price (in web_search_engines): `anthropic:web_search_20250305`. */
export function nativePriceKey(family: VendorFamily): string {
  return `${family}:${FAMILY_TOOL[family]}`;
}

/** The function the model sees for svc:web_search. */
function searchFunction(ask: WebSearchAsk): ToolDefinition {
  return {
    name: SEARCH_FUNCTION,
    description:
      'Search the public web for current information. Pass one to five concise keyword queries; the results (titles, URLs and page text) come back as untrusted web content to use as evidence and cite. ' +
      `At most ${ask.settings.maxSearches} searches for this request.`,
    parameters: {
      type: 'object',
      properties: { queries: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 5, description: 'Keyword queries, most important first.' } },
      required: ['queries'],
    },
  };
}

/**
 * Web search as a server tool of the model pipeline (issue 27 §1). `prepare` reads the tool and
 * `provider_options.web_search` from the raw body and refuses what cannot run (400s, before any call);
 * `start` decides per request who searches and adds the search function and the untrusted-content
 * instruction to the request; the run's `call` is the tool loop.
 *
 * Who searches: `svc` (also `merge`) and the svc:web_search tool by default: the gateway's engines.
 * `native`: the route vendor's own search; a route whose vendor has none is web_search_requires_provider.
 * `auto`: native where the vendor has one, else the gateway's engine. Native search goes to the vendor
 * as its own server tool (OpenAI `web_search` on the Responses API, Anthropic `web_search_20250305`,
 * Gemini `google_search`) and its searches and citations come back as the canonical search blocks and
 * url_citation annotations; the gateway's engine runs only where the vendor has no search of its own.
 */
export function webSearchTools(deps: WebSearchDeps): ServerTools {
  return {
    prepare(surface, body) {
      const found = extractWebSearch(surface, body);
      if (!found) return null;
      const { ask } = found;
      const engine = ask.settings.engine;
      return {
        body: found.body,
        start({ caller, scope, request, decision }): ServerToolRun {
          const families = decision.routes.map((r) => ({ vendor: r.vendor, family: familyOf(deps.catalog, r.vendor) }));
          if (ask.nativeTool) {
            const other = families.find((f) => f.family !== ask.nativeTool!.family);
            if (other) {
              throw WireError.invalid(
                'unsupported_provider_native_tool',
                `${ask.param}: "${ask.nativeTool.type}" is ${ask.nativeTool.family}'s own search tool and this request runs on ${other.vendor}; use {"type": "svc:web_search"} for search on any vendor.`,
                `${ask.param}.type`,
              );
            }
          }
          const clientTools = request.tools.length;
          let native = false;
          if (ask.mode === 'native') {
            const without = families.find((f) => f.family === null);
            if (without) {
              throw WireError.invalid('web_search_requires_provider', `provider_options.web_search is "native" but ${without.vendor} has no search of its own; use "svc" (the gateway's engines) or "auto".`, 'provider_options.web_search');
            }
            const google = families.find((f) => !canSearchNatively(f.family, clientTools));
            if (google) {
              throw WireError.invalid('invalid_server_tool_parameters', `provider_options.web_search is "native" but ${google.vendor}'s google_search cannot run beside function tools in one request; drop the function tools, or use "svc" or "auto" (the gateway's engine).`, 'provider_options.web_search');
            }
            native = true;
          } else if (ask.mode === 'auto') native = families.every((f) => f.family !== null);
          // The gateway's engine is needed unless every route's vendor searches itself.
          const allUpstream = native && families.every((f) => canSearchNatively(f.family, clientTools));
          if (!allUpstream && deps.search.candidates(engine).length === 0) throw unavailable(engine, native);
          if (request.tools.some((t) => t.name === SEARCH_FUNCTION)) {
            throw WireError.invalid('invalid_tool_definition', `tools: "${SEARCH_FUNCTION}" is the name of the gateway's web search function; rename your tool.`, 'tools');
          }
          request.tools = [...request.tools, searchFunction(ask)];
          request.system = [...request.system, { type: 'text', text: UNTRUSTED_INSTRUCTION }];
          const guardrails = caller.org.guardrails;
          const runner: SearchRunner = {
            settings: ask.settings,
            waitedMs: 0,
            screen: { compiled: guardrails.settingsFor(scope.customerId), scanner: guardrails.scanner, ...(deps.piScorer ? { scorer: deps.piScorer } : {}) },
            search: async (query, signal) => {
              const controller = new AbortController();
              const onAbort = () => controller.abort();
              signal?.addEventListener('abort', onAbort);
              try {
                const s = ask.settings;
                const outcome = await deps.search.search(engine, {
                  query,
                  maxResults: s.maxResults,
                  contextSize: s.contextSize,
                  ...(s.allowedDomains.length ? { allowedDomains: s.allowedDomains } : {}),
                  ...(s.excludedDomains.length ? { excludedDomains: s.excludedDomains } : {}),
                  ...(s.userLocation ? { userLocation: s.userLocation } : {}),
                  signal: controller.signal,
                });
                return { ...outcome, priceMicros: priceMicros(deps.catalog, outcome.engine) };
              } finally {
                signal?.removeEventListener('abort', onAbort);
              }
            },
          };
          const maxPrice = Math.max(0, ...deps.search.candidates(engine).map((e) => priceMicros(deps.catalog, e)), ...families.map((f) => (f.family ? priceMicros(deps.catalog, nativePriceKey(f.family)) : 0)));
          const resultTokens = ask.settings.maxResults * Math.ceil((SNIPPET_CHARS[ask.settings.contextSize] + 200) / 4);
          return {
            reserveMicros: (route: Route, inputTokens: number, maxOutputTokens: number) =>
              ask.settings.maxSearches * (maxPrice + reserveMicros(route.price, inputTokens + ask.settings.maxSearches * resultTokens, maxOutputTokens)),
            get waitedMs() {
              return runner.waitedMs;
            },
            async call(route, canonical: CanonicalRequest, options) {
              const { stream, ...answer } = options;
              const family = familyOf(deps.catalog, route.target.vendor);
              // auto with function tools on Gemini lands here with native true: the gateway's engine searches.
              if (native && canSearchNatively(family, clientTools)) {
                return callNative(route, canonical, answer, stream, ask, priceMicros(deps.catalog, nativePriceKey(family)), runner);
              }
              return stream ? await streamWithSearch(route.target, canonical, answer, runner, answer.signal) : await callWithSearch(route.target, canonical, answer, runner, answer.signal);
            },
          };
        },
      };
    },
  };
}

function unavailable(engine: EngineName | 'auto', native: boolean): WireError {
  const message =
    engine === 'auto'
      ? `No web search engine is configured on this gateway${native ? ' (and it cannot run the vendor\'s own search)' : ''}; the operator sets PATCHBAY_SEARCH_SEARXNG_BASE_URL or PATCHBAY_SEARCH_<EXA|TAVILY|BRAVE>_API_KEY.`
      : `The web search engine "${engine}" has no key configured on this gateway; the operator sets PATCHBAY_SEARCH_${engine.toUpperCase()}_${engine === 'searxng' ? 'BASE_URL' : 'API_KEY'}, or send "engine": "auto".`;
  return WireError.invalid('web_search_unavailable', message, 'tools');
}

/** One search on `engine` at its catalog price, in micro-USD (0 when the catalog names no price: a self-hosted SearXNG). */
export function priceMicros(catalog: Catalog, engine: string): number {
  return Math.round((catalog.searchPrices.get(engine) ?? 0) * 1e6);
}

/**
 * Native search: the request goes as the client wrote it plus the vendor's own tool (not the gateway's
 * function or its instruction): Anthropic's web_search_20250305, OpenAI's web_search (always on the
 * Responses API, the only OpenAI API with it for every model, so a chat-completions request on an
 * OpenAI route goes out as Responses too), Gemini's google_search. The vendor searches, and its
 * searches come back as the same canonical blocks and url_citation annotations whatever the surface;
 * each search is priced at the catalog's price for that vendor's search. The vendor's results are not
 * screened by the gateway (the model reads them inside the vendor, never from the gateway).
 */
async function callNative(route: Route, canonical: CanonicalRequest, answer: AnswerOptions, stream: boolean, ask: WebSearchAsk, perSearchMicros: number, runner: SearchRunner): Promise<CanonicalResponse | VendorStream> {
  const s = ask.settings;
  const request: CanonicalRequest = {
    ...canonical,
    tools: canonical.tools.filter((t) => t.name !== SEARCH_FUNCTION),
    system: canonical.system.filter((b) => b.text !== UNTRUSTED_INSTRUCTION),
    webSearch: { maxUses: s.maxSearches, contextSize: s.contextSize, allowedDomains: s.allowedDomains, blockedDomains: s.excludedDomains, userLocation: s.userLocation },
  };
  const target = responsesTarget('openai-responses', route.target);
  if (request.tools.length === 0 && request.toolChoice) request.toolChoice = null;
  const priced = (usage: NormalizedUsage): NormalizedUsage =>
    usage.serverToolUse ? { ...usage, serverToolUse: { ...usage.serverToolUse, costMicros: usage.serverToolUse.webSearchRequests * perSearchMicros } } : usage;
  const start = performance.now();
  try {
    if (!stream) {
      const response = await callVendor(target, request, answer);
      return { ...response, usage: priced(response.usage) };
    }
    const upstream = await streamVendor(target, request, answer);
    async function* events(): AsyncGenerator<CanonicalStreamEvent> {
      for await (const event of upstream) yield event.type === 'finish' ? { ...event, usage: priced(event.usage) } : event;
    }
    const iterable = events();
    return { warnings: upstream.warnings, vendorRequestId: upstream.vendorRequestId, [Symbol.asyncIterator]: () => iterable };
  } finally {
    runner.waitedMs += performance.now() - start;
  }
}
