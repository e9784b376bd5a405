/**
 * What routing needs to know about models and the vendors that serve them. The app owns the catalog
 * data (apps/model-gateway); it hands routing an object of this shape, built once in memory, so a
 * routing decision never waits on a database.
 */

/** Input kinds a route can read (as model-wire's RouteCapabilities names them). */
export type InputKind = 'text' | 'image' | 'document' | 'audio' | 'video';

/** What a model serves. */
export type ModelEndpoint = 'chat' | 'embeddings' | 'images' | 'speech' | 'transcription';

/** USD per million tokens, as the catalog and the facts file's price table write them. */
export interface TokenPrices {
  inputPerMillion: number;
  cachedInputPerMillion?: number | null;
  cacheWritePerMillion?: number | null;
  /** Anthropic's 1-hour cache writes; the 5-minute write price when absent. */
  cacheWrite1hPerMillion?: number | null;
  outputPerMillion: number;
}

/** One vendor serving one model: a route, once a service tier is chosen. */
export interface CatalogVendorRoute {
  /** The vendor's name in the gateway (`openai`, `anthropic`, `google`, `groq`…). */
  vendor: string;
  /** The model string the vendor knows. */
  vendorModel: string;
  /** false: the vendor is not offered right now (no credentials configured, retired). */
  available: boolean;
  /** The vendor keeps no prompts or answers (zero data retention). */
  zdr: boolean;
  /** The organization's own endpoint (vLLM, Ollama…): no catalog price, no shared latency figures. */
  selfHosted?: boolean;
  /** Region the vendor runs the model in (`us`, `eu`), for region restrictions. */
  region?: string | null;
  contextWindow: number;
  maxOutputTokens: number;
  capabilities: {
    tools: boolean;
    structuredOutputs: boolean;
    streaming: boolean;
    input: InputKind[];
  };
  /** Prices per service tier; `standard` always exists. Other tiers (`flex`, `priority`, `ultrafast`) only where the vendor sells them. */
  prices: { standard: TokenPrices } & Record<string, TokenPrices>;
}

export interface CatalogModel {
  /** `provider/model`, e.g. `openai/gpt-4o`. */
  id: string;
  /** The model's author, the part before the slash. */
  provider: string;
  endpoint: ModelEndpoint;
  /** false: deprecated or withdrawn; a routing policy skips it, a direct call is model_unavailable. */
  active: boolean;
  vendors: CatalogVendorRoute[];
}

/** Catalog access for routing: lookups only, all synchronous and in memory. */
export interface RoutingCatalog {
  /** A model by its full id (`openai/gpt-4o`). */
  model(id: string): CatalogModel | undefined;
  /** Models whose id ends in `/<name>`: a bare name matches one model, several (ambiguous) or none. */
  modelsByBareName(name: string): CatalogModel[];
}

/** A catalog from a list of models (tests, and an app that keeps its catalog as a list). */
export function catalogFromModels(models: CatalogModel[]): RoutingCatalog {
  const byId = new Map<string, CatalogModel>();
  const byBare = new Map<string, CatalogModel[]>();
  for (const model of models) {
    byId.set(model.id, model);
    const bare = model.id.slice(model.id.indexOf('/') + 1);
    const list = byBare.get(bare) ?? [];
    list.push(model);
    byBare.set(bare, list);
  }
  return {
    model: (id) => byId.get(id),
    modelsByBareName: (name) => byBare.get(name) ?? [],
  };
}
