import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap, type GatewaySchemas } from '../../api/api';
import { ErrorText } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';
import { useFormSubmit } from '../../components/use-form-submit';
import { Pager } from '../members';

export type RoutingPolicy = GatewaySchemas['RoutingPolicy'];
type Strategy = RoutingPolicy['strategy'];
export const routingPoliciesQueryKey = ['gateway-routing-policies'] as const;
const PAGE_SIZE = 20;

/** Every strategy the gateway routes by (@patchbay/model-routing), as a member reads it. */
export const STRATEGIES: Array<[Strategy, string, string]> = [
  ['priority', 'Priority', 'Targets in the order listed; each target’s vendors in the order listed, else cheapest first. Later routes are the failover.'],
  ['weighted', 'Weighted', 'Load balancing: each request draws the first target by weight; the others follow, so every target is still a fallback.'],
  ['lowest_cost', 'Lowest cost', 'Every route, cheapest first for the request’s own token estimate; self-hosted routes last.'],
  ['lowest_latency', 'Lowest latency', 'Every route, fastest first by the gateway’s measured time to first token; unmeasured routes after, cheapest first.'],
];

const list = (text: FormDataEntryValue | null): string[] =>
  String(text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** The catalog's chat models, for the target pickers (GET /v1/models: any signed-in member). */
export function useChatModels(): string[] {
  const models = useQuery({ queryKey: ['gateway-models'], queryFn: () => unwrap(api.GET('/v1/models', {})), staleTime: 5 * 60_000 });
  return (models.data?.data ?? []).filter((m) => m.type === 'chat').map((m) => m.id);
}

/**
 * A policy's fields as a form: name, strategy, targets (model, vendors, weight), vendor rules, alias
 * and default; the scope (organization, project or customer) only when creating. `onSave` gets the body.
 */
export function PolicyForm({ policy, onSave, submitLabel }: { policy?: RoutingPolicy; onSave: (body: GatewaySchemas['RoutingPolicyCreate']) => Promise<void>; submitLabel: string }) {
  const models = useChatModels();
  const [strategy, setStrategy] = useState<Strategy>(policy?.strategy ?? 'priority');
  const [targets, setTargets] = useState(() => (policy?.targets ?? [{ model: '', vendors: null, weight: null }]).map((t, i) => ({ key: i, model: t.model, vendors: (t.vendors ?? []).join(', '), weight: t.weight === null || t.weight === undefined ? '' : String(t.weight) })));
  const [nextKey, setNextKey] = useState(targets.length);
  const { submit, error, busy } = useFormSubmit(async (form) => {
    const scope = String(form.get('scope') ?? 'organization');
    const scopeId = String(form.get('scope_id') ?? '').trim();
    const body: GatewaySchemas['RoutingPolicyCreate'] = {
      name: String(form.get('name')).trim(),
      description: String(form.get('description') ?? '').trim() || null,
      strategy,
      targets: targets.map((t) => ({
        model: t.model.trim(),
        vendors: list(t.vendors).length > 0 ? list(t.vendors) : null,
        weight: strategy === 'weighted' && t.weight !== '' ? Number(t.weight) : null,
      })),
      allowed_vendors: list(form.get('allowed_vendors')).length > 0 ? list(form.get('allowed_vendors')) : null,
      denied_vendors: list(form.get('denied_vendors')),
      allowed_regions: list(form.get('allowed_regions')).length > 0 ? list(form.get('allowed_regions')) : null,
      zero_data_retention: form.get('zero_data_retention') === 'on',
      is_default: form.get('is_default') === 'on',
    };
    const slug = String(form.get('slug') ?? '').trim();
    if (slug) body.slug = slug;
    if (!policy && scope === 'project') body.project_id = scopeId;
    if (!policy && scope === 'customer') body.customer_id = scopeId;
    await onSave(body);
  }, 'The routing policy could not be saved.');
  const described = STRATEGIES.find(([s]) => s === strategy)!;
  return (
    <form className="card" aria-label={submitLabel} onSubmit={submit}>
      <div className="grid">
        <label>
          Name
          <input name="name" required defaultValue={policy?.name ?? ''} />
        </label>
        <label>
          Alias slug (model “@alias/…”; organization policies)
          <input name="slug" defaultValue={policy?.slug ?? ''} placeholder="minted from the name" pattern="[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?" />
        </label>
        <label>
          Strategy
          <select name="strategy" value={strategy} onChange={(e) => setStrategy(e.target.value as Strategy)}>
            {STRATEGIES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Description
          <input name="description" defaultValue={policy?.description ?? ''} />
        </label>
      </div>
      <p className="muted">{described[2]}</p>
      <fieldset>
        <legend>Targets, in order</legend>
        <datalist id="gateway-chat-models">
          {models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        {targets.map((t, i) => (
          <div className="row" key={t.key}>
            <label>
              Model {i + 1}
              <input list="gateway-chat-models" required value={t.model} placeholder="provider/model" onChange={(e) => setTargets(targets.map((x) => (x.key === t.key ? { ...x, model: e.target.value } : x)))} />
            </label>
            <label>
              Vendors {i + 1} (comma-separated; empty: any)
              <input value={t.vendors} onChange={(e) => setTargets(targets.map((x) => (x.key === t.key ? { ...x, vendors: e.target.value } : x)))} />
            </label>
            {strategy === 'weighted' && (
              <label>
                Weight {i + 1}
                <input type="number" min="1" step="1" value={t.weight} onChange={(e) => setTargets(targets.map((x) => (x.key === t.key ? { ...x, weight: e.target.value } : x)))} />
              </label>
            )}
            <button type="button" className="secondary" disabled={targets.length === 1} onClick={() => setTargets(targets.filter((x) => x.key !== t.key))}>
              Remove target {i + 1}
            </button>
          </div>
        ))}
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setTargets([...targets, { key: nextKey, model: '', vendors: '', weight: '' }]);
            setNextKey(nextKey + 1);
          }}
        >
          Add target
        </button>
      </fieldset>
      <div className="grid">
        <label>
          Allowed vendors (empty: any)
          <input name="allowed_vendors" defaultValue={(policy?.allowed_vendors ?? []).join(', ')} />
        </label>
        <label>
          Denied vendors
          <input name="denied_vendors" defaultValue={(policy?.denied_vendors ?? []).join(', ')} />
        </label>
        <label>
          Allowed regions (empty: any)
          <input name="allowed_regions" defaultValue={(policy?.allowed_regions ?? []).join(', ')} />
        </label>
        {!policy && (
          <>
            <label>
              Scope
              <select name="scope" defaultValue="organization">
                <option value="organization">Organization</option>
                <option value="project">A project</option>
                <option value="customer">A customer</option>
              </select>
            </label>
            <label>
              Project or customer id (for those scopes)
              <input name="scope_id" />
            </label>
          </>
        )}
      </div>
      <div className="row">
        <label className="inline">
          <input type="checkbox" name="zero_data_retention" defaultChecked={policy?.zero_data_retention ?? false} /> Zero data retention only
        </label>
        <label className="inline">
          <input type="checkbox" name="is_default" defaultChecked={policy?.is_default ?? false} /> Default of its scope
        </label>
      </div>
      <ErrorText error={error} />
      <GuardedButton type="submit" permission="manage_routing" busy={busy}>
        {submitLabel}
      </GuardedButton>
    </form>
  );
}

/** /routing-policies: the organization's routing policies, paged by the gateway, and a new one. */
export function RoutingPoliciesPage() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const policies = useQuery({
    queryKey: [...routingPoliciesQueryKey, page],
    queryFn: () => unwrap(api.GET('/v1/routing-policies', { params: { query: { offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE } } })),
  });
  return (
    <section>
      <h1>Routing policies</h1>
      <p className="muted">
        Which models and vendors serve a request, in which order, and where it fails over. A request routes by a policy when it names its alias (model “@alias/…”) or its id, when its key is bound to
        it, or by its customer’s, project’s or organization’s default. Open a policy to dry-run a request through it.
      </p>
      <ErrorText error={policies.error} />
      {policies.data && (
        <>
          <div className="table-scroll">
            <table>
              <caption>Routing policies, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Alias</th>
                  <th scope="col">Strategy</th>
                  <th scope="col">Targets</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Default</th>
                </tr>
              </thead>
              <tbody>
                {policies.data.data.map((p) => (
                  <tr key={p.id}>
                    <th scope="row">
                      <Link to="/routing-policies/$id" params={{ id: p.id }}>
                        {p.name}
                      </Link>
                    </th>
                    <td>{p.model ? <code>{p.model}</code> : '—'}</td>
                    <td>{STRATEGIES.find(([s]) => s === p.strategy)?.[1] ?? p.strategy}</td>
                    <td>{p.targets.map((t) => t.model + (t.vendors ? ` (${t.vendors.join(', ')})` : '') + (t.weight ? ` ×${t.weight}` : '')).join(' → ')}</td>
                    <td>{p.project_id ? `project ${p.project_id}` : p.customer_id ? `customer ${p.customer_id}` : 'organization'}</td>
                    <td>{p.is_default ? 'Default' : ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} hasNext={policies.data.data.length === PAGE_SIZE} onPage={setPage} />
        </>
      )}
      <h2>New routing policy</h2>
      {creating ? (
        <PolicyForm
          submitLabel="Create policy"
          onSave={async (body) => {
            const created = await unwrap(api.POST('/v1/routing-policies', { body }));
            await queryClient.invalidateQueries({ queryKey: routingPoliciesQueryKey });
            await navigate({ to: '/routing-policies/$id', params: { id: created.id } });
          }}
        />
      ) : (
        <GuardedButton permission="manage_routing" onClick={() => setCreating(true)}>
          New routing policy
        </GuardedButton>
      )}
    </section>
  );
}
