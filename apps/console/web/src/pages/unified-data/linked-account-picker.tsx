import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { api, unwrap } from '../../api/api';
import { useSession } from '../../components/use-session';

/** The first page of the environment's linked accounts, for pickers (at most 100: one request, never "all pages"). */
export function useLinkedAccountChoices() {
  const session = useSession();
  return useQuery({
    queryKey: ['linked-accounts', session?.environment, 'choices'],
    queryFn: () => unwrap(api.GET('/api/mktg/v1/linked-accounts', { params: { query: { page_size: '100' } } })),
  });
}

/**
 * Which linked account a page shows (the API names it by `linked_account_id` for a console session). The
 * choice lives in the address (`?linked_account_id=`), so a page of one account can be linked to.
 */
export function LinkedAccountPicker({ value, onChange }: { value: string | undefined; onChange: (id: string | undefined) => void }) {
  const choices = useLinkedAccountChoices();
  const id = useId();
  const accounts = choices.data?.results ?? [];
  return (
    <div className="row">
      <label className="inline" htmlFor={id}>
        Linked account
        <select id={id} value={value ?? ''} onChange={(e) => onChange(e.target.value || undefined)}>
          <option value="">Choose a linked account</option>
          {accounts.map((a) => (
            <option key={a.id} value={a.id}>
              {a.end_user_organization_name} ({a.integration.name}, {a.end_user_origin_id})
            </option>
          ))}
          {value && !accounts.some((a) => a.id === value) && <option value={value}>{value}</option>}
        </select>
      </label>
      {choices.data?.next && <p className="muted">The first 100 linked accounts are listed; open another from the Linked accounts page.</p>}
    </div>
  );
}
