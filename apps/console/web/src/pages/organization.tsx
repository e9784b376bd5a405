import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type Organization, type Schemas } from '../api/api';
import { ErrorText, formatTime } from '../components/error-text';
import { GuardedButton } from '../components/guarded-button';
import { useHolds } from '../components/use-session';

const organizationQueryKey = ['organization'] as const;

function lines(value: FormDataEntryValue | null): string[] {
  return String(value ?? '')
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** /organization: the settings the admin CLI's `org update` sets, changed through the same update. */
export function OrganizationPage() {
  const org = useQuery({ queryKey: organizationQueryKey, queryFn: () => unwrap(api.GET('/api/v1/organization')) });
  return (
    <section>
      <h1>Organization settings</h1>
      <ErrorText error={org.error} />
      {org.data && <SettingsForm org={org.data} />}
    </section>
  );
}

function SettingsForm({ org }: { org: Organization }) {
  const queryClient = useQueryClient();
  const canManage = useHolds('manage_org_settings');
  const canBill = useHolds('manage_billing');
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: (body: Schemas['UpdateOrganizationBody']) => unwrap(api.PATCH('/api/v1/organization', { body })),
    onSuccess: async (updated) => {
      queryClient.setQueryData(organizationQueryKey, updated);
      await queryClient.invalidateQueries({ queryKey: ['session'] });
      setSaved(true);
    },
  });
  return (
    <form
      className="card"
      aria-label="Organization settings"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        setSaved(false);
        const f = new FormData(event.currentTarget);
        save.mutate({
          name: String(f.get('name') ?? ''),
          callback_origins: lines(f.get('callback_origins')),
          mcp_allowed_origins: lines(f.get('mcp_allowed_origins')),
          environment_matching: f.get('environment_matching') === 'on',
          mcp_rate_limit_per_minute: Number(f.get('mcp_rate_limit_per_minute')),
          ...(canBill
            ? {
                plan: f.get('plan') === 'paid' ? ('paid' as const) : ('free' as const),
                monthly_credits: Number(f.get('monthly_credits')),
                gateway_payment_method: f.get('gateway_payment_method') === 'on',
                gateway_credit_usd: Number(f.get('gateway_credit_usd')),
              }
            : {}),
        });
      }}
    >
      <fieldset disabled={!canManage}>
        <legend>General</legend>
        <label>
          Organization name
          <input name="name" defaultValue={org.name} required maxLength={255} />
        </label>
        <label>
          Allowed callback origins (one per line)
          <textarea name="callback_origins" rows={3} defaultValue={org.callback_origins.join('\n')} />
        </label>
        <label>
          MCP allowed origins (one per line)
          <textarea name="mcp_allowed_origins" rows={3} defaultValue={org.mcp_allowed_origins.join('\n')} />
        </label>
        <label className="check">
          <input type="checkbox" name="environment_matching" defaultChecked={org.environment_matching} />
          Environment matching (test keys act on test resources only, production keys on production ones)
        </label>
        <label>
          MCP rate limit (calls per minute per registered user)
          <input name="mcp_rate_limit_per_minute" type="number" min={1} max={100000} defaultValue={org.mcp_rate_limit_per_minute} />
        </label>
      </fieldset>
      <fieldset disabled={!canManage || !canBill}>
        <legend>Plan and billing{!canBill && ' (needs the permission Manage billing, manage_billing)'}</legend>
        <label>
          Plan
          <select name="plan" defaultValue={org.plan}>
            <option value="free">Free</option>
            <option value="paid">Paid</option>
          </select>
        </label>
        <label>
          Monthly credits
          <input name="monthly_credits" type="number" min={0} defaultValue={org.monthly_credits} />
        </label>
        <label className="check">
          <input type="checkbox" name="gateway_payment_method" defaultChecked={org.gateway_payment_method} />
          Model gateway: payment method on file
        </label>
        <label>
          Model gateway credit (USD)
          <input name="gateway_credit_usd" type="number" min={0} step="0.000001" defaultValue={org.gateway_credit_usd} />
        </label>
      </fieldset>
      <p className="muted">Last changed {formatTime(org.updated_at)}. Changes take effect in every service within a second.</p>
      <ErrorText error={save.error} />
      <div className="row">
        <GuardedButton permission="manage_org_settings" type="submit" busy={save.isPending}>
          Save settings
        </GuardedButton>
        <span role="status">{saved ? 'Saved.' : ''}</span>
      </div>
    </form>
  );
}
