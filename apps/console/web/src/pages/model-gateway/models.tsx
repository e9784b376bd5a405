import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type GatewaySchemas } from '../../api/api';
import { ErrorText } from '../../components/error-text';

export const modelsQueryKey = ['models'] as const;

function price(value: number | undefined, unit: string): string {
  if (value === undefined) return '—';
  return `$${value}${unit === 'per_million_tokens' ? ' / 1M tokens' : unit === 'per_image' ? ' / image' : unit === 'per_character' ? ' / character' : ' / second'}`;
}

/**
 * /models: the model catalog as the organization's keys see it (GET /v1/models), each vendor route with
 * its standard prices in USD, context window and zero-data-retention; filtered by provider on the server.
 */
export function ModelsPage() {
  const [provider, setProvider] = useState('');
  const all = useQuery({ queryKey: [...modelsQueryKey, ''], queryFn: () => unwrap(api.GET('/v1/models')), staleTime: 300_000 });
  const filtered = useQuery({ queryKey: [...modelsQueryKey, provider], queryFn: () => unwrap(api.GET('/v1/models', { params: { query: { provider } } })), staleTime: 300_000, enabled: provider !== '' });
  const models = provider ? filtered : all;
  const providers = [...new Set((all.data?.data ?? []).map((m) => m.provider))].sort();
  return (
    <section>
      <h1>Models</h1>
      <p className="muted">Prices in USD, standard tier; other tiers are listed by name. A vendor without a platform key or one of yours is not offered.</p>
      <label className="inline">
        Provider
        <select value={provider} onChange={(e) => setProvider(e.target.value)}>
          <option value="">All providers</option>
          {providers.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </label>
      <ErrorText error={models.error} />
      {models.data && (
        <div className="scroll">
          <table>
            <caption>{models.data.data.length} models offered</caption>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Type</th>
                <th scope="col">Context</th>
                <th scope="col">Vendor</th>
                <th scope="col">Input</th>
                <th scope="col">Output</th>
                <th scope="col">Tiers</th>
                <th scope="col">Zero retention</th>
              </tr>
            </thead>
            <tbody>
              {models.data.data.flatMap((m) => Object.entries(m.vendors).map(([vendor, route], i) => <ModelRow key={`${m.id}:${vendor}`} model={m} vendor={vendor} route={route} first={i === 0} />))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function ModelRow({ model: m, vendor, route, first }: { model: GatewaySchemas['Model']; vendor: string; route: GatewaySchemas['ModelVendorRoute']; first: boolean }) {
  const unit = route.pricing.unit;
  return (
    <tr>
      <th scope="row">
        {first ? m.display_name : <span className="sr-only">{m.display_name}</span>}
        {first && (
          <>
            <br />
            <code className="muted">{m.id}</code>
          </>
        )}
      </th>
      <td>{m.type}</td>
      <td>{m.context_window.toLocaleString('en-US')}</td>
      <td>{vendor}</td>
      <td>{price(route.pricing.input_per_million ?? route.pricing.per_image ?? route.pricing.per_character ?? route.pricing.per_second, unit)}</td>
      <td>{unit === 'per_million_tokens' ? price(route.pricing.output_per_million, unit) : '—'}</td>
      <td>{route.service_tiers.join(', ')}</td>
      <td>{route.zero_data_retention ? 'Yes' : 'No'}</td>
    </tr>
  );
}
