import { readFileSync } from 'node:fs';
import path from 'node:path';
import { costMicros as routeCostMicros, worstCaseMicros, type TokenPrices } from '@patchbay/model-routing';
import { WireError, type Dialect, type ReasoningEffort, type RouteCapabilities } from '@patchbay/model-wire';
import { z } from 'zod';

/**
 * The model catalog, shipped as data (models.json beside this file, or PATCHBAY_MODEL_CATALOG_FILE):
 * models as `provider/model`, the vendors serving each, context window, max output, capabilities and
 * prices in USD per million tokens keyed by (model, vendor, service tier). Held in memory: the hot
 * path never reads it from anywhere else. Routing (issue 10) reads it through `Catalog`.
 */
const priceSchema = z.object({
  input_per_million: z.number().min(0),
  output_per_million: z.number().min(0),
  cached_input_per_million: z.number().min(0).optional(),
  cache_write_per_million: z.number().min(0).optional(),
  cache_write_1h_per_million: z.number().min(0).optional(),
  /** Media models (issue 27 §2): USD per generated or edited image, per input character of speech, per second of transcribed audio. */
  per_image: z.number().min(0).optional(),
  per_character: z.number().min(0).optional(),
  per_second: z.number().min(0).optional(),
});
/** Models served by the media endpoints (/v1/images/*, /v1/audio/*), each billed in its own unit. */
export const MEDIA_MODEL_TYPES = ['image', 'speech', 'transcription'] as const;
export type MediaModelType = (typeof MEDIA_MODEL_TYPES)[number];
/** The unit a media model's price counts, as GET /v1/models and the usage records name it. */
export const MEDIA_BILLING_UNITS: Record<MediaModelType, 'per_image' | 'per_character' | 'per_second'> = { image: 'per_image', speech: 'per_character', transcription: 'per_second' };

const regionSchema = z.string().regex(/^[a-z][a-z0-9-]*$/, 'a lower-case region name such as us or eu');
const efforts = z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);
const capabilitiesSchema = z.object({
  input: z.array(z.enum(['text', 'image', 'document', 'audio', 'video'])),
  output: z.array(z.string()),
  supports_tool_calling: z.boolean(),
  supports_tool_choice: z.boolean(),
  supports_structured_outputs: z.boolean(),
  streaming: z.boolean(),
  reasoning_efforts: z.array(efforts).optional(),
});
const catalogSchema = z.object({
  /** Web search engines (issue 27 §1): USD per search, added to a searched request's cost. */
  web_search_engines: z.record(z.string(), z.object({ price_per_search: z.number().min(0) })).optional(),
  vendors: z.record(
    z.string().regex(/^[a-z0-9-]+$/),
    z.object({
      name: z.string(),
      dialect: z.enum(['openai', 'anthropic', 'gemini', 'openai-compatible']),
      default_base_url: z.string().url(),
      supports_byok: z.boolean(),
      /** The operator holds a zero-data-retention agreement with the vendor (GET /v1/vendors' supports_zdr). */
      supports_zdr: z.boolean().optional(),
      /** Where the vendor's endpoint runs its models (`us`, `eu`, `apac`), for allowed_regions. */
      region: regionSchema.nullable().optional(),
      /** The organization's own endpoint (vLLM, Ollama…): reached only through its vendor key and base_url, no catalog price. */
      self_hosted: z.boolean().optional(),
    }),
  ),
  models: z.array(
    z.object({
      id: z.string().regex(/^[a-z0-9-]+\/[A-Za-z0-9._:-]+$/),
      display_name: z.string(),
      type: z.enum(['chat', 'embedding', ...MEDIA_MODEL_TYPES]),
      context_window: z.number().int().positive(),
      max_output_tokens: z.number().int().min(0),
      capabilities: capabilitiesSchema,
      created_at: z.string(),
      vendors: z
        .array(
          z.object({
            vendor: z.string(),
            vendor_model: z.string(),
            /** Absent only on a self-hosted vendor, which bills nothing. */
            pricing: z.record(z.string(), priceSchema).optional(),
            /** Overrides the vendor's supports_zdr for this model (an agreement can cover some models only). */
            zero_data_retention: z.boolean().optional(),
            /** Overrides the vendor's region for this model. */
            region: regionSchema.nullable().optional(),
            /** Speech models: the vendor's limit on `input` in characters (OpenAI 4,096); over it is 400 input_too_long. */
            max_input_characters: z.number().int().positive().optional(),
          }),
        )
        .min(1),
    }),
  ),
});

export type CatalogFile = z.infer<typeof catalogSchema>;
export type Price = z.infer<typeof priceSchema>;

export interface VendorInfo {
  id: string;
  name: string;
  dialect: Dialect;
  defaultBaseUrl: string;
  supportsByok: boolean;
  supportsZdr: boolean;
  region: string | null;
  selfHosted: boolean;
}

/** One (model, vendor) pair: where a model can run and what it costs there, per service tier. */
export interface CatalogRoute {
  vendor: string;
  vendorModel: string;
  dialect: Dialect;
  /** Prices by service tier; `standard` always exists (zero on a self-hosted vendor). */
  pricing: Record<string, Price>;
  /** The vendor keeps no prompts or answers for this model. */
  zdr: boolean;
  region: string | null;
  /** The organization's own endpoint: needs its vendor key (with base_url), never the platform's. */
  selfHosted: boolean;
  /** Speech routes: the vendor's character limit on the input, or null. */
  maxInputCharacters: number | null;
}

export interface CatalogModel {
  id: string;
  provider: string;
  displayName: string;
  type: 'chat' | 'embedding' | MediaModelType;
  contextWindow: number;
  maxOutputTokens: number;
  capabilities: CatalogFile['models'][number]['capabilities'];
  /** What model-wire needs to translate with changes (dropped tools, clamped effort). */
  routeCapabilities: RouteCapabilities;
  createdAt: string;
  routes: CatalogRoute[];
}

export class Catalog {
  readonly models: CatalogModel[];
  readonly vendors: Map<string, VendorInfo>;
  /** USD per search by web search engine (`exa`, `tavily`, `brave`, `searxng`). */
  readonly searchPrices: Map<string, number>;
  private readonly byId = new Map<string, CatalogModel>();
  private readonly byBareName = new Map<string, CatalogModel[]>();

  constructor(file: CatalogFile) {
    const parsed = catalogSchema.parse(file);
    this.searchPrices = new Map(Object.entries(parsed.web_search_engines ?? {}).map(([engine, p]) => [engine, p.price_per_search]));
    this.vendors = new Map(Object.entries(parsed.vendors).map(([id, v]) => [
        id,
        { id, name: v.name, dialect: v.dialect, defaultBaseUrl: v.default_base_url, supportsByok: v.supports_byok || v.self_hosted === true, supportsZdr: v.supports_zdr ?? false, region: v.region ?? null, selfHosted: v.self_hosted ?? false },
      ]));
    this.models = parsed.models.map((m) => {
      const routes = m.vendors.map((r) => {
        const vendor = this.vendors.get(r.vendor);
        if (!vendor) throw new Error(`catalog: model ${m.id} names vendor "${r.vendor}", which the vendors table does not define`);
        const pricing = r.pricing ?? (vendor.selfHosted ? { standard: { input_per_million: 0, output_per_million: 0 } } : null);
        if (!pricing?.standard) throw new Error(`catalog: model ${m.id} on ${r.vendor} has no standard price`);
        return {
          vendor: r.vendor,
          vendorModel: r.vendor_model,
          dialect: vendor.dialect,
          pricing,
          zdr: r.zero_data_retention ?? vendor.supportsZdr,
          region: r.region !== undefined ? r.region : vendor.region,
          selfHosted: vendor.selfHosted,
          maxInputCharacters: r.max_input_characters ?? null,
        };
      });
      const caps = m.capabilities;
      return {
        id: m.id,
        provider: m.id.slice(0, m.id.indexOf('/')),
        displayName: m.display_name,
        type: m.type,
        contextWindow: m.context_window,
        maxOutputTokens: m.max_output_tokens,
        capabilities: caps,
        routeCapabilities: {
          tools: caps.supports_tool_calling,
          structuredOutputs: caps.supports_structured_outputs,
          input: caps.input,
          ...(caps.reasoning_efforts ? { reasoningEfforts: caps.reasoning_efforts as ReasoningEffort[] } : {}),
        },
        createdAt: m.created_at,
        routes,
      };
    });
    for (const model of this.models) {
      if (this.byId.has(model.id)) throw new Error(`catalog: model ${model.id} is listed twice`);
      this.byId.set(model.id, model);
      const bare = model.id.slice(model.provider.length + 1);
      this.byBareName.set(bare, [...(this.byBareName.get(bare) ?? []), model]);
    }
  }

  get(id: string): CatalogModel | undefined {
    return this.byId.get(id);
  }

  /**
   * The model a request names: `provider/model`, or a bare name that only one provider has.
   * Throws the spec's 400s: model_required, invalid_model_format, ambiguous_base_model.
   */
  resolve(name: string | null): CatalogModel {
    if (name === null || name === '') throw WireError.invalid('model_required', 'No model was given and no routing policy resolved: send "model" as provider/model, for example openai/gpt-4o.', 'model');
    const exact = this.byId.get(name);
    if (exact) return exact;
    if (!name.includes('/')) {
      const matches = this.byBareName.get(name) ?? [];
      if (matches.length === 1) return matches[0]!;
      if (matches.length > 1) {
        throw WireError.invalid('ambiguous_base_model', `"${name}" is served under several providers (${matches.map((m) => m.id).join(', ')}); send the full provider/model.`, 'model');
      }
    }
    throw WireError.invalid('invalid_model_format', `The model "${name}" matched nothing in the catalog; use provider/model as GET /v1/models lists them, for example openai/gpt-4o.`, 'model');
  }
}

export function loadCatalog(file?: string): Catalog {
  const source = file ? path.resolve(file) : path.join(__dirname, 'models.json');
  return new Catalog(JSON.parse(readFileSync(source, 'utf8')) as CatalogFile);
}

/** A catalog price as @patchbay/model-routing prices a route (its cost functions are the one place money is computed). */
export function tokenPrices(price: Price): TokenPrices {
  return {
    inputPerMillion: price.input_per_million,
    outputPerMillion: price.output_per_million,
    cachedInputPerMillion: price.cached_input_per_million ?? null,
    cacheWritePerMillion: price.cache_write_per_million ?? null,
    cacheWrite1hPerMillion: price.cache_write_1h_per_million ?? null,
  };
}

/** What usage cost at a catalog price, in integer micro-USD, rounded up (facts file §7; see model-routing's costMicros). */
export function costMicros(price: Price, usage: Parameters<typeof routeCostMicros>[1]): number {
  return routeCostMicros(tokenPrices(price), usage);
}

/** The worst case before the call: every input token at the full input price plus the whole output budget. */
export function reserveMicros(price: Price, inputTokens: number, maxOutputTokens: number): number {
  return worstCaseMicros(tokenPrices(price), inputTokens, maxOutputTokens);
}

export function microsToUsd(micros: number): number {
  return Math.round(micros) / 1e6;
}
