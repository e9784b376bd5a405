import { WireError } from '@patchbay/model-wire';
import { Catalog, costMicros, loadCatalog, reserveMicros, type CatalogFile } from './catalog';

const shipped = loadCatalog();

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof WireError ? err.code ?? undefined : 'not a WireError';
  }
  return undefined;
}

describe('the shipped catalog', () => {
  it.each([
    ['openai/gpt-4o', 2.5, 1.25, 10],
    ['openai/gpt-4o-mini', 0.15, 0.075, 0.6],
    ['openai/gpt-4.1', 2.0, 0.5, 8.0],
    ['openai/o3-mini', 1.1, 0.55, 4.4],
    ['anthropic/claude-sonnet-4', 3.0, 0.3, 15.0],
    ['anthropic/claude-haiku-4-5', 1.0, 0.1, 5.0],
    ['anthropic/claude-3-5-haiku', 0.8, 0.08, 4.0],
    ['google/gemini-2.0-flash', 0.1, 0.025, 0.4],
    ['google/gemini-2.5-flash', 0.3, 0.03, 2.5],
    ['google/gemini-2.5-pro', 1.25, 0.125, 10.0],
  ])('has %s at the facts file price', (id, input, cached, output) => {
    const price = shipped.get(id)!.routes[0]!.pricing.standard!;
    expect(price).toMatchObject({ input_per_million: input, cached_input_per_million: cached, output_per_million: output });
  });

  it('has the embedding models of the price table', () => {
    expect(shipped.get('openai/text-embedding-3-small')!.routes[0]!.pricing.standard!.input_per_million).toBe(0.02);
    expect(shipped.get('openai/text-embedding-3-large')!.routes[0]!.pricing.standard!.input_per_million).toBe(0.13);
  });
});

describe('resolve', () => {
  const file: CatalogFile = {
    vendors: { a: { name: 'A', dialect: 'openai', default_base_url: 'https://a.example/v1', supports_byok: true }, b: { name: 'B', dialect: 'openai-compatible', default_base_url: 'https://b.example/v1', supports_byok: true } },
    models: ['a/shared', 'b/shared', 'a/only'].map((id) => ({
      id,
      display_name: id,
      type: 'chat' as const,
      context_window: 1000,
      max_output_tokens: 100,
      capabilities: { input: ['text' as const], output: ['text'], supports_tool_calling: true, supports_tool_choice: true, supports_structured_outputs: true, streaming: true },
      created_at: '2025-01-01T00:00:00Z',
      vendors: [{ vendor: id.split('/')[0]!, vendor_model: id.split('/')[1]!, pricing: { standard: { input_per_million: 1, output_per_million: 2 } } }],
    })),
  };
  const catalog = new Catalog(file);

  it('model_required', () => expect(codeOf(() => catalog.resolve(null))).toBe('model_required'));
  it('invalid_model_format', () => expect(codeOf(() => catalog.resolve('c/none'))).toBe('invalid_model_format'));
  it('ambiguous_base_model', () => expect(codeOf(() => catalog.resolve('shared'))).toBe('ambiguous_base_model'));
  it('a bare name that one provider has', () => expect(catalog.resolve('only').id).toBe('a/only'));
  it('refuses a route whose vendor the vendors table does not define', () => {
    expect(() => new Catalog({ ...file, models: [{ ...file.models[0]!, vendors: [{ vendor: 'zz', vendor_model: 'm', pricing: { standard: { input_per_million: 1, output_per_million: 1 } } }] }] })).toThrow(/zz/);
  });
});

describe('cost in micro-USD', () => {
  it('prices uncached input, cached reads, cache writes (5 min and 1 h) and output, as the facts file gives', () => {
    const price = shipped.get('anthropic/claude-sonnet-4')!.routes[0]!.pricing.standard!;
    // 1000 input of which 200 cached reads and 300 cache writes (100 of them 1 h), 50 output:
    // 500 × 3 + 200 × 0.3 + 200 × 3.75 + 100 × 6 + 50 × 15 = 1500 + 60 + 750 + 600 + 750
    expect(costMicros(price, { inputTokens: 1000, cachedInputTokens: 200, cacheWriteInputTokens: 300, cacheWrite1hInputTokens: 100, outputTokens: 50 })).toBe(3660);
  });

  it('reserves every input token at the input price plus the whole output budget', () => {
    const price = shipped.get('openai/gpt-4o')!.routes[0]!.pricing.standard!;
    expect(reserveMicros(price, 100, 1000)).toBe(100 * 2.5 + 1000 * 10);
  });
});

describe('zero data retention, region and self-hosted vendors', () => {
  const caps = { input: ['text' as const], output: ['text'], supports_tool_calling: true, supports_tool_choice: true, supports_structured_outputs: true, streaming: true };
  const model = (id: string, vendors: CatalogFile['models'][number]['vendors']) => ({ id, display_name: id, type: 'chat' as const, context_window: 1000, max_output_tokens: 100, capabilities: caps, created_at: '2025-01-01T00:00:00Z', vendors });
  const standard = { standard: { input_per_million: 1, output_per_million: 2 } };
  const file: CatalogFile = {
    vendors: {
      z: { name: 'Z', dialect: 'openai-compatible', default_base_url: 'https://z.example/v1', supports_byok: false, supports_zdr: true, region: 'eu' },
      own: { name: 'Own', dialect: 'openai-compatible', default_base_url: 'http://localhost:8000/v1', supports_byok: false, self_hosted: true },
    },
    models: [model('m/inherits', [{ vendor: 'z', vendor_model: 'a', pricing: standard }, { vendor: 'own', vendor_model: 'a' }]), model('m/overrides', [{ vendor: 'z', vendor_model: 'b', pricing: standard, zero_data_retention: false, region: 'us' }])],
  };
  const catalog = new Catalog(file);

  it('a route takes its vendor’s zero data retention and region unless the model entry overrides them', () => {
    expect(catalog.get('m/inherits')!.routes[0]).toMatchObject({ zdr: true, region: 'eu', selfHosted: false });
    expect(catalog.get('m/overrides')!.routes[0]).toMatchObject({ zdr: false, region: 'us' });
  });

  it('a self-hosted route is priced at zero, accepts organization keys, and has no region unless given', () => {
    expect(catalog.get('m/inherits')!.routes[1]).toMatchObject({ selfHosted: true, region: null, pricing: { standard: { input_per_million: 0, output_per_million: 0 } } });
    expect(catalog.vendors.get('own')!.supportsByok).toBe(true);
  });

  it('refuses a vendor route without a price unless the vendor is self-hosted', () => {
    expect(() => new Catalog({ ...file, models: [model('m/x', [{ vendor: 'z', vendor_model: 'x' }])] })).toThrow(/no standard price/);
  });

  it('the shipped catalog names a region for every public vendor and offers one self-hosted vendor', () => {
    const vendors = [...shipped.vendors.values()];
    expect(vendors.filter((v) => !v.selfHosted).every((v) => v.region !== null)).toBe(true);
    expect(vendors.filter((v) => v.selfHosted).map((v) => v.id)).toEqual(['vllm']);
  });
});
