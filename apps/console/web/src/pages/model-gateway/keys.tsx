import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type GatewaySchemas } from '../../api/api';
import type { paths as GatewayPaths } from '../../api/generated/model-gateway';
import { ErrorText, formatTime } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';
import { SecretOnce } from '../../components/secret-once';
import { Pager } from '../members';
import { formatUsd, usdOrNull } from './money';

type GatewayKey = GatewaySchemas['GatewayKey'];
type KeyQuery = NonNullable<GatewayPaths['/v1/keys']['get']['parameters']['query']>;
export const gatewayKeysQueryKey = ['gateway-keys'] as const;
const PAGE_SIZE = 20;

const SORTS = [
  ['-created_at', 'Newest first'],
  ['created_at', 'Oldest first'],
  ['name', 'Name A–Z'],
  ['-name', 'Name Z–A'],
  ['-spend', 'Most spend this month'],
  ['spend', 'Least spend this month'],
  ['expires_at', 'Expiring soonest'],
  ['-expires_at', 'Expiring latest'],
] as const;

/** The first page of projects and routing policies, for the filters and the create form's choices. */
function useChoices() {
  const projects = useQuery({ queryKey: ['projects', 'choices'], queryFn: () => unwrap(api.GET('/v1/projects', { params: { query: { limit: 100 } } })), retry: false });
  const policies = useQuery({ queryKey: ['routing-policies', 'choices'], queryFn: () => unwrap(api.GET('/v1/routing-policies', { params: { query: { limit: 100 } } })), retry: false });
  return { projects: projects.data?.data ?? [], policies: policies.data?.data ?? [] };
}

/**
 * /keys: the gateway's API keys (GET /v1/keys), searched, filtered, sorted and paged by the gateway;
 * spend against the limit at a glance; create, disable or enable, rotate, delete. A new secret is shown once.
 */
export function GatewayKeysPage() {
  const [filters, setFilters] = useState<{ search: string; project_id: string; customer: string; disabled: string; expiry: string; min_spend: string; sort: string }>({ search: '', project_id: '', customer: '', disabled: '', expiry: '', min_spend: '', sort: '-created_at' });
  const [page, setPage] = useState(1);
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const choices = useChoices();
  const set = (name: keyof typeof filters, value: string) => {
    setFilters((f) => ({ ...f, [name]: value }));
    setPage(1);
  };
  const query: KeyQuery = {
    search: filters.search || undefined,
    project_id: filters.project_id || undefined,
    customer_id: filters.customer || undefined,
    disabled: (filters.disabled || undefined) as 'true' | 'false' | undefined,
    expiry: (filters.expiry || undefined) as 'expired' | 'active' | 'never' | undefined,
    min_spend: filters.min_spend ? Number(filters.min_spend) : undefined,
    sort: filters.sort as KeyQuery['sort'],
    offset: (page - 1) * PAGE_SIZE,
    limit: PAGE_SIZE,
  };
  const keys = useQuery({ queryKey: [...gatewayKeysQueryKey, query], queryFn: () => unwrap(api.GET('/v1/keys', { params: { query } })), placeholderData: (previous) => previous });
  return (
    <section>
      <h1>Gateway keys</h1>
      <p className="muted">Keys for the model gateway (Authorization: Bearer pbgw_…). Spend is in USD; limit windows and this month are UTC.</p>
      <CreateKeyForm choices={choices} onCreated={(key) => setSecret({ label: `Gateway key “${key.name ?? key.label}”.`, value: key.key })} />
      {secret && <SecretOnce label={secret.label} value={secret.value} onDone={() => setSecret(null)} />}
      <form className="row" aria-label="Filter keys" onSubmit={(e) => e.preventDefault()}>
        <label className="inline">
          Search keys
          <input type="search" value={filters.search} placeholder="name or last 4 characters" onChange={(e) => set('search', e.target.value)} />
        </label>
        <label className="inline">
          Project
          <select value={filters.project_id} onChange={(e) => set('project_id', e.target.value)}>
            <option value="">Any project</option>
            {choices.projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          Customer
          <input value={filters.customer} placeholder="customer id, or none" onChange={(e) => set('customer', e.target.value.trim())} />
        </label>
        <label className="inline">
          Status
          <select value={filters.disabled} onChange={(e) => set('disabled', e.target.value)}>
            <option value="">Enabled and disabled</option>
            <option value="false">Enabled</option>
            <option value="true">Disabled</option>
          </select>
        </label>
        <label className="inline">
          Expiry
          <select value={filters.expiry} onChange={(e) => set('expiry', e.target.value)}>
            <option value="">Any</option>
            <option value="active">Not expired</option>
            <option value="expired">Expired</option>
            <option value="never">Never expires</option>
          </select>
        </label>
        <label className="inline">
          Spent this month at least (USD)
          <input type="number" min="0" step="any" value={filters.min_spend} onChange={(e) => set('min_spend', e.target.value)} />
        </label>
        <label className="inline">
          Sort
          <select value={filters.sort} onChange={(e) => set('sort', e.target.value)}>
            {SORTS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </form>
      <ErrorText error={keys.error} />
      {keys.data && (
        <>
          <div className="scroll">
            <table>
              <caption>{keys.data.total === 1 ? '1 key matches' : `${keys.data.total} keys match`}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Spend against limit</th>
                  <th scope="col">This month</th>
                  <th scope="col">Project</th>
                  <th scope="col">Customer</th>
                  <th scope="col">Status</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {keys.data.data.map((k) => (
                  <KeyRow key={k.hash} gatewayKey={k} choices={choices} projectName={choices.projects.find((p) => p.id === k.project_id)?.name} onSecret={setSecret} />
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} hasNext={page * PAGE_SIZE < keys.data.total} onPage={setPage} />
        </>
      )}
    </section>
  );
}

/** "$1.20 of $5.00 a day" with a bar, or the spend alone when the key has no limit. */
export function SpendAgainstLimit({ k }: { k: GatewayKey }) {
  const window = k.limit_reset === 'daily' ? ' a day' : k.limit_reset === 'weekly' ? ' a week' : k.limit_reset === 'monthly' ? ' a month' : ' in all';
  if (k.limit === null) return <span>{formatUsd(k.usage)} (no limit)</span>;
  const share = k.limit === 0 ? 1 : Math.min(1, k.usage / k.limit);
  const text = `${formatUsd(k.usage)} of ${formatUsd(k.limit)}${window}`;
  return (
    <span className="spend">
      <span>{text}</span>
      <progress max={1} value={share} aria-label={`Spend of ${k.name ?? k.label}: ${text}`} className={share >= 0.9 ? 'near-limit' : undefined} />
    </span>
  );
}

function keyStatus(k: GatewayKey): string {
  if (k.disabled) return 'Disabled';
  if (k.expires_at && Date.parse(k.expires_at) <= Date.now()) return 'Expired';
  return 'Active';
}

function KeyRow({ gatewayKey: k, choices, projectName, onSecret }: { gatewayKey: GatewayKey; choices: ReturnType<typeof useChoices>; projectName: string | undefined; onSecret: (s: { label: string; value: string }) => void }) {
  const queryClient = useQueryClient();
  const [confirm, setConfirm] = useState<'rotate' | 'delete' | null>(null);
  const [editing, setEditing] = useState(false);
  const name = k.name ?? k.label;
  const refresh = () => queryClient.invalidateQueries({ queryKey: gatewayKeysQueryKey });
  const toggle = useMutation({ mutationFn: () => unwrap(api.PATCH('/v1/keys/{hash}', { params: { path: { hash: k.hash } }, body: { disabled: !k.disabled } })), onSuccess: refresh });
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/v1/keys/{hash}/rotate', { params: { path: { hash: k.hash } } })),
    onSuccess: async (key) => {
      setConfirm(null);
      onSecret({ label: `New secret of “${name}” (the old one no longer works).`, value: key.key });
      await refresh();
    },
  });
  const remove = useMutation({ mutationFn: () => unwrap(api.DELETE('/v1/keys/{hash}', { params: { path: { hash: k.hash } } })), onSuccess: refresh });
  return (
    <>
      <tr>
        <th scope="row">
          {k.name ?? <span className="muted">Unnamed</span>}
          <br />
          <code>{k.label}</code>
        </th>
        <td>
          <SpendAgainstLimit k={k} />
        </td>
        <td>{formatUsd(k.usage_monthly)}</td>
        <td>{k.project_id ? (projectName ?? <code>{k.project_id.slice(0, 8)}</code>) : '—'}</td>
        <td>{k.customer_id ? <code>{k.customer_id.slice(0, 8)}</code> : '—'}</td>
        <td>{keyStatus(k)}</td>
        <td>{k.expires_at ? formatTime(k.expires_at) : 'Never'}</td>
        <td>
          <div className="row">
            <GuardedButton permission="manage_api_keys" className="secondary" busy={toggle.isPending} aria-label={`${k.disabled ? 'Enable' : 'Disable'} ${name}`} onClick={() => toggle.mutate()}>
              {k.disabled ? 'Enable' : 'Disable'}
            </GuardedButton>
            {confirm ? (
              <>
                <button type="button" className={confirm === 'delete' ? 'danger' : undefined} aria-label={`Confirm ${confirm === 'delete' ? 'deleting' : 'rotating'} ${name}`} onClick={() => (confirm === 'delete' ? remove.mutate() : rotate.mutate())}>
                  Confirm {confirm}
                </button>
                <button type="button" className="secondary" onClick={() => setConfirm(null)}>
                  Cancel
                </button>
              </>
            ) : (
              <>
                <GuardedButton permission="manage_api_keys" className="secondary" aria-label={`Edit ${name}`} aria-expanded={editing} onClick={() => setEditing((e) => !e)}>
                  Edit
                </GuardedButton>
                <GuardedButton permission="manage_api_keys" className="secondary" aria-label={`Rotate ${name}`} onClick={() => setConfirm('rotate')}>
                  Rotate
                </GuardedButton>
                <GuardedButton permission="manage_api_keys" className="danger" aria-label={`Delete ${name}`} onClick={() => setConfirm('delete')}>
                  Delete
                </GuardedButton>
              </>
            )}
          </div>
          <ErrorText error={toggle.error ?? rotate.error ?? remove.error} />
        </td>
      </tr>
      {editing && (
        <tr>
          <td colSpan={8}>
            <EditKeyForm gatewayKey={k} choices={choices} onDone={() => setEditing(false)} />
          </td>
        </tr>
      )}
    </>
  );
}

/** The key's name, limit and window, allowed models, routing policy and expiry (PATCH /v1/keys/{hash}); its project is fixed. */
function EditKeyForm({ gatewayKey: k, choices, onDone }: { gatewayKey: GatewayKey; choices: ReturnType<typeof useChoices>; onDone: () => void }) {
  const queryClient = useQueryClient();
  const name = k.name ?? k.label;
  const save = useMutation({
    mutationFn: (body: GatewaySchemas['GatewayKeyUpdate']) => unwrap(api.PATCH('/v1/keys/{hash}', { params: { path: { hash: k.hash } }, body })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: gatewayKeysQueryKey });
      onDone();
    },
  });
  return (
    <form
      className="card"
      aria-label={`Edit ${name}`}
      onSubmit={(event) => {
        event.preventDefault();
        const f = new FormData(event.currentTarget);
        const models = String(f.get('allowed_models') ?? '')
          .split(/[\s,]+/)
          .filter(Boolean);
        const expires = String(f.get('expires_on') ?? '');
        const limit = usdOrNull(f.get('limit'));
        save.mutate({
          name: String(f.get('name') ?? '') || null,
          limit,
          limit_reset: limit === null ? null : ((String(f.get('limit_reset') ?? '') || null) as GatewaySchemas['GatewayKeyUpdate']['limit_reset']),
          allowed_models: models.length > 0 ? models : null,
          routing_policy_id: String(f.get('routing_policy_id') ?? '') || null,
          expires_at: expires ? new Date(`${expires}T00:00:00Z`).toISOString() : null,
        });
      }}
    >
      <div className="grid">
        <label>
          Key name
          <input name="name" maxLength={255} defaultValue={k.name ?? ''} />
        </label>
        <label>
          Spend limit (USD, blank for none)
          <input name="limit" type="number" min="0" step="any" defaultValue={k.limit ?? ''} />
        </label>
        <label>
          Limit window
          <select name="limit_reset" defaultValue={k.limit_reset ?? ''}>
            <option value="daily">Per day (UTC)</option>
            <option value="weekly">Per week (UTC)</option>
            <option value="monthly">Per month (UTC)</option>
            <option value="">All time</option>
          </select>
        </label>
        <label>
          Allowed models (blank for all; openai/* for a prefix)
          <input name="allowed_models" defaultValue={(k.allowed_models ?? []).join(', ')} />
        </label>
        <label>
          Routing policy
          <select name="routing_policy_id" defaultValue={k.routing_policy_id ?? ''}>
            <option value="">None</option>
            {choices.policies.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Expires on (UTC, blank for never)
          <input name="expires_on" type="date" defaultValue={k.expires_at ? k.expires_at.slice(0, 10) : ''} />
        </label>
      </div>
      <ErrorText error={save.error} />
      <div className="row">
        <GuardedButton permission="manage_api_keys" type="submit" busy={save.isPending}>
          Save changes
        </GuardedButton>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function CreateKeyForm({ choices, onCreated }: { choices: ReturnType<typeof useChoices>; onCreated: (key: GatewaySchemas['GatewayKeyCreated']) => void }) {
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (body: GatewaySchemas['GatewayKeyCreate']) => unwrap(api.POST('/v1/keys', { body })),
    onSuccess: async (key) => {
      onCreated(key);
      await queryClient.invalidateQueries({ queryKey: gatewayKeysQueryKey });
    },
  });
  return (
    <form
      className="card"
      aria-label="Create a gateway key"
      onSubmit={(event) => {
        event.preventDefault();
        const f = new FormData(event.currentTarget);
        const models = String(f.get('allowed_models') ?? '')
          .split(/[\s,]+/)
          .filter(Boolean);
        const form = event.currentTarget;
        const expires = String(f.get('expires_on') ?? '');
        const limit = usdOrNull(f.get('limit'));
        create.mutate({
          name: String(f.get('name') ?? '') || null,
          limit,
          limit_reset: limit === null ? null : ((String(f.get('limit_reset') ?? '') || null) as GatewaySchemas['GatewayKeyCreate']['limit_reset']),
          allowed_models: models.length > 0 ? models : null,
          routing_policy_id: String(f.get('routing_policy_id') ?? '') || null,
          project_id: String(f.get('project_id') ?? '') || null,
          expires_at: expires ? new Date(`${expires}T00:00:00Z`).toISOString() : null,
        }, { onSuccess: () => form.reset() });
      }}
    >
      <h2>Create a gateway key</h2>
      <div className="grid">
        <label>
          Key name
          <input name="name" maxLength={255} />
        </label>
        <label>
          Spend limit (USD, blank for none)
          <input name="limit" type="number" min="0" step="any" />
        </label>
        <label>
          Limit window
          <select name="limit_reset" defaultValue="monthly">
            <option value="daily">Per day (UTC)</option>
            <option value="weekly">Per week (UTC)</option>
            <option value="monthly">Per month (UTC)</option>
            <option value="">All time</option>
          </select>
        </label>
        <label>
          Allowed models (blank for all; openai/* for a prefix)
          <input name="allowed_models" placeholder="openai/gpt-4o-mini, anthropic/*" />
        </label>
        <label>
          Routing policy
          <select name="routing_policy_id" defaultValue="">
            <option value="">None</option>
            {choices.policies.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Project (fixed once made)
          <select name="project_id" defaultValue="">
            <option value="">None</option>
            {choices.projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Expires on (UTC, blank for never)
          <input name="expires_on" type="date" />
        </label>
      </div>
      <ErrorText error={create.error} />
      <GuardedButton permission="manage_api_keys" type="submit" busy={create.isPending}>
        Create key
      </GuardedButton>
    </form>
  );
}
