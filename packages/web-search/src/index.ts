export { BraveEngine, ExaEngine, SearxngEngine, TavilyEngine, createEngine, cutSnippet, hostMatches } from './engines';
export { engineJson } from './http';
export type { EngineHttp } from './http';
export { AUTO_ORDER, ENGINE_NAMES, SNIPPET_CHARS, SearchEngineError } from './types';
export type { EngineConfig, EngineName, SearchContextSize, SearchEngine, SearchErrorKind, SearchRequest, SearchResult, UserLocation } from './types';
export { DEFAULT_BASE_URLS, WebSearch, filterResults, isEngineName, searchConfigFromEnv } from './web-search';
export type { SearchOutcome } from './web-search';
