import { WireError, type ChatSurface } from '@patchbay/model-wire';
import { ENGINE_NAMES, isEngineName, type EngineName, type SearchContextSize, type UserLocation } from '@patchbay/web-search';

/**
 * The web search a request asks for, read from its raw body before the surface parses it (the
 * surfaces' parsers know function tools only). Three ways to ask:
 * - the gateway-hosted tool `{"type": "svc:web_search", "parameters": {...}}` (alias `openrouter:web_search`);
 * - a vendor's own search tool (OpenAI `web_search`/`web_search_preview`, Anthropic
 *   `web_search_20250305`, Gemini `google_search`), on a route of that vendor;
 * and `provider_options.web_search` (auto | native | svc, `merge` accepted for svc) says who runs it.
 */
export const SVC_TOOL_TYPES = new Set(['svc:web_search', 'openrouter:web_search']);

/** Vendor server tools for web search, by the vendor family whose routes can take them. */
export const NATIVE_TOOL_FAMILIES: Record<string, VendorFamily> = {
  web_search: 'openai',
  web_search_preview: 'openai',
  web_search_2025_08_26: 'openai',
  web_search_preview_2025_03_11: 'openai',
  web_search_20250305: 'anthropic',
  web_search_20260209: 'anthropic',
  google_search: 'google',
  google_search_retrieval: 'google',
};

export type VendorFamily = 'openai' | 'anthropic' | 'google';
export type WebSearchMode = 'auto' | 'native' | 'svc';

/** Engines other gateways name that Patchbay does not run: refused as unsupported, with the list that works. */
const KNOWN_ELSEWHERE = ['youcom', 'you', 'parallel', 'serper', 'firecrawl', 'perplexity', 'native'];

export const MAX_RESULTS_LIMIT = 25;
export const DEFAULT_MAX_RESULTS = 5;
export const MAX_SEARCHES_LIMIT = 20;
export const DEFAULT_MAX_SEARCHES = 5;
const MAX_DOMAINS = 100;

export interface WebSearchSettings {
  engine: EngineName | 'auto';
  maxResults: number;
  allowedDomains: string[];
  excludedDomains: string[];
  contextSize: SearchContextSize;
  userLocation: UserLocation | null;
  /** Searches the gateway runs for one request; a call past it answers the model max_uses_exceeded. */
  maxSearches: number;
}

export interface WebSearchAsk {
  settings: WebSearchSettings;
  mode: WebSearchMode;
  /** The vendor tool the client sent (its type and family), when it asked that way. */
  nativeTool: { type: string; family: VendorFamily } | null;
  /** Where in `tools` the entry was (for `param`). */
  param: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function bad(code: string, message: string, param: string): never {
  throw WireError.invalid(code, message, param);
}

/** `provider_options.web_search`: the mode, or null when absent. */
export function readMode(body: Json): WebSearchMode | null {
  const options = body.provider_options;
  if (options === undefined || options === null) return null;
  if (!isObject(options)) return bad('invalid_request_body', 'provider_options must be an object such as {"web_search": "auto"}.', 'provider_options');
  const mode = options.web_search;
  if (mode === undefined || mode === null) return null;
  const value = isObject(mode) ? mode.mode : mode;
  if (value === 'auto' || value === 'native') return value;
  if (value === 'svc' || value === 'merge') return 'svc';
  return bad('invalid_web_search_mode', `provider_options.web_search must be "auto", "native" or "svc" (also accepted as "merge"); got ${JSON.stringify(value)?.slice(0, 40)}.`, 'provider_options.web_search');
}

function domains(value: unknown, param: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((d) => typeof d !== 'string' || d.trim() === '')) {
    return bad('invalid_server_tool_parameters', `${param} must be a list of domain names such as ["kubernetes.io"].`, param);
  }
  if (value.length > MAX_DOMAINS) return bad('invalid_server_tool_parameters', `${param} holds at most ${MAX_DOMAINS} domains; got ${value.length}.`, param);
  return (value as string[]).map((d) => d.trim().toLowerCase().replace(/^https?:\/\//, '').replace(/\/.*$/, ''));
}

function userLocation(value: unknown, param: string): UserLocation | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) return bad('invalid_server_tool_parameters', `${param} must be an object {"type": "approximate", "country", "region", "city", "timezone"}.`, param);
  // OpenAI chat nests the fields under "approximate".
  const fields = isObject(value.approximate) ? value.approximate : value;
  if (value.type !== undefined && value.type !== 'approximate') return bad('invalid_server_tool_parameters', `${param}.type must be "approximate".`, `${param}.type`);
  const out: UserLocation = {};
  for (const key of ['country', 'region', 'city', 'timezone'] as const) {
    const v = fields[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string' || v.length > 100) return bad('invalid_server_tool_parameters', `${param}.${key} must be a string.`, `${param}.${key}`);
    out[key] = v;
  }
  if (out.country !== undefined && !/^[A-Za-z]{2}$/.test(out.country)) return bad('invalid_server_tool_parameters', `${param}.country must be a two-letter ISO 3166 code such as "US".`, `${param}.country`);
  return out;
}

function integer(value: unknown, param: string, min: number, max: number, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    return bad('invalid_server_tool_parameters', `${param} must be an integer from ${min} to ${max}; got ${JSON.stringify(value)?.slice(0, 40)}.`, param);
  }
  return value;
}

const PARAMETERS = new Set(['engine', 'max_results', 'allowed_domains', 'excluded_domains', 'blocked_domains', 'search_context_size', 'user_location', 'max_searches', 'max_uses', 'max_total_results']);

/** The `parameters` of svc:web_search, checked: the spec's invalid_server_tool_parameters, invalid_search_context_size, unsupported_web_search_engine. */
export function parseSvcParameters(value: unknown, at: string): WebSearchSettings {
  const param = `${at}.parameters`;
  if (value !== undefined && value !== null && !isObject(value)) return bad('invalid_server_tool_parameters', `${param} must be an object such as {"max_results": 5}.`, param);
  const p = (value ?? {}) as Json;
  for (const key of Object.keys(p)) {
    if (!PARAMETERS.has(key)) {
      bad('invalid_server_tool_parameters', `${param}.${key} is not a web search parameter; use engine, max_results, allowed_domains, excluded_domains, search_context_size, user_location or max_searches.`, `${param}.${key}`);
    }
  }
  let engine: EngineName | 'auto' = 'auto';
  if (p.engine !== undefined && p.engine !== null) {
    if (typeof p.engine !== 'string') return bad('unsupported_web_search_engine', `${param}.engine must be "auto" or one of ${ENGINE_NAMES.join(', ')}.`, `${param}.engine`);
    const name = p.engine.toLowerCase();
    if (name !== 'auto' && !isEngineName(name)) {
      const hint = KNOWN_ELSEWHERE.includes(name) ? ' (not offered by this gateway)' : '';
      return bad('unsupported_web_search_engine', `${param}.engine "${p.engine.slice(0, 40)}" is not a web search engine${hint}; use "auto" or one of ${ENGINE_NAMES.join(', ')}.`, `${param}.engine`);
    }
    engine = name as EngineName | 'auto';
  }
  const size = p.search_context_size;
  if (size !== undefined && size !== null && size !== 'low' && size !== 'medium' && size !== 'high') {
    bad('invalid_search_context_size', `${param}.search_context_size must be "low", "medium" or "high"; got ${JSON.stringify(size)?.slice(0, 40)}.`, `${param}.search_context_size`);
  }
  const allowed = domains(p.allowed_domains, `${param}.allowed_domains`);
  const excluded = [...domains(p.excluded_domains, `${param}.excluded_domains`), ...domains(p.blocked_domains, `${param}.blocked_domains`)];
  if (allowed.length > 0 && excluded.length > 0) {
    bad('invalid_server_tool_parameters', `${param}: send allowed_domains or excluded_domains, not both.`, `${param}.allowed_domains`);
  }
  return {
    engine,
    maxResults: integer(p.max_results, `${param}.max_results`, 1, MAX_RESULTS_LIMIT, DEFAULT_MAX_RESULTS),
    allowedDomains: allowed,
    excludedDomains: excluded,
    contextSize: (size as SearchContextSize | undefined | null) ?? 'medium',
    userLocation: userLocation(p.user_location, `${param}.user_location`),
    maxSearches: integer(p.max_searches ?? p.max_uses ?? p.max_total_results, `${param}.max_searches`, 1, MAX_SEARCHES_LIMIT, DEFAULT_MAX_SEARCHES),
  };
}

/** A vendor's own search tool read into the same settings (OpenAI filters and user_location, Anthropic max_uses and domain lists). */
function nativeSettings(tool: Json, at: string): WebSearchSettings {
  const filters = isObject(tool.filters) ? tool.filters : {};
  const allowed = domains(tool.allowed_domains ?? filters.allowed_domains, `${at}.allowed_domains`);
  const excluded = domains(tool.blocked_domains, `${at}.blocked_domains`);
  if (allowed.length > 0 && excluded.length > 0) bad('invalid_server_tool_parameters', `${at}: allowed_domains and blocked_domains cannot be used together.`, `${at}.allowed_domains`);
  const size = tool.search_context_size;
  if (size !== undefined && size !== null && size !== 'low' && size !== 'medium' && size !== 'high') {
    bad('invalid_search_context_size', `${at}.search_context_size must be "low", "medium" or "high".`, `${at}.search_context_size`);
  }
  return {
    engine: 'auto',
    maxResults: DEFAULT_MAX_RESULTS,
    allowedDomains: allowed,
    excludedDomains: excluded,
    contextSize: (size as SearchContextSize | undefined | null) ?? 'medium',
    userLocation: userLocation(tool.user_location, `${at}.user_location`),
    maxSearches: integer(tool.max_uses, `${at}.max_uses`, 1, MAX_SEARCHES_LIMIT, DEFAULT_MAX_SEARCHES),
  };
}

/**
 * The web search in a body, and the body without it (a shallow copy with the other tools); null
 * when the body asks for none. At most one web search tool per request.
 */
export function extractWebSearch(_surface: ChatSurface, body: unknown): { body: unknown; ask: WebSearchAsk } | null {
  if (!isObject(body) || !Array.isArray(body.tools)) {
    if (isObject(body)) readMode(body);
    return null;
  }
  let ask: WebSearchAsk | null = null;
  const rest: unknown[] = [];
  body.tools.forEach((tool, i) => {
    const at = `tools[${i}]`;
    const type = isObject(tool) ? tool.type : undefined;
    // Gemini's wire writes its tool as a key: {"google_search": {}}.
    const geminiKey = isObject(tool) && type === undefined && isObject(tool.google_search) ? 'google_search' : null;
    const kind = typeof type === 'string' ? type : geminiKey;
    if (kind && (SVC_TOOL_TYPES.has(kind) || kind in NATIVE_TOOL_FAMILIES)) {
      if (ask) bad('invalid_server_tool_parameters', `${at}: a request takes one web search tool; ${ask.param} already is one.`, at);
      ask = SVC_TOOL_TYPES.has(kind)
        ? { settings: parseSvcParameters((tool as Json).parameters, at), mode: 'svc', nativeTool: null, param: at }
        : { settings: nativeSettings(tool as Json, at), mode: 'auto', nativeTool: { type: kind, family: NATIVE_TOOL_FAMILIES[kind]! }, param: at };
      return;
    }
    rest.push(tool);
  });
  const mode = readMode(body);
  if (!ask) return null;
  const found = ask as WebSearchAsk;
  // svc:web_search defaults to the gateway's engine unless the client asks otherwise; a vendor tool to auto.
  if (mode) found.mode = mode;
  const copy: Json = { ...body, tools: rest };
  if (rest.length === 0) {
    delete copy.tools;
    // A tool_choice naming nothing that is left would fail the parser: the search tool is the gateway's to call.
    if (copy.tool_choice !== undefined && !isObject(copy.tool_choice)) delete copy.tool_choice;
  }
  return { body: copy, ask: found };
}
