import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap, type UnifiedSchemas } from '../../api/api';
import { ErrorText } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';
import { SecretOnce } from '../../components/secret-once';

type LinkedAccount = UnifiedSchemas['LinkedAccountWithSummary'];

/** A linked account's label in controls and headings: the end user's organization and origin id. */
export const accountLabel = (a: Pick<LinkedAccount, 'end_user_organization_name' | 'end_user_origin_id'>) => `${a.end_user_organization_name} (${a.end_user_origin_id})`;

/**
 * What a member may do to a linked account: force a resync (force_resync), relink it through a new
 * magic link for the same end user (manage_linked_accounts: same account, records and history), delete it.
 * Each needs its own permission, which the service checks; the buttons only show it.
 */
export function LinkedAccountActions({ account, afterDelete }: { account: LinkedAccount; afterDelete?: 'list' }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [confirm, setConfirm] = useState(false);
  const [magicLink, setMagicLink] = useState<string | null>(null);
  const label = accountLabel(account);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['linked-accounts'] });
  const resync = useMutation({
    mutationFn: () => unwrap(api.POST('/api/mktg/v1/sync-status/resync', { params: { query: { linked_account_id: account.id } } })),
    onSuccess: refresh,
  });
  const relink = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/mktg/v1/link-token', {
          body: {
            end_user_origin_id: account.end_user_origin_id,
            end_user_organization_name: account.end_user_organization_name,
            ...(account.end_user_email_address ? { end_user_email_address: account.end_user_email_address } : {}),
            integration: account.platform,
          },
        }),
      ),
    onSuccess: (link) => setMagicLink(link.magic_link_url),
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/mktg/v1/linked-accounts/{id}', { params: { path: { id: account.id } } })),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: ['linked-accounts', 'one', account.id] });
      await refresh();
      if (afterDelete === 'list') await navigate({ to: '/linked-accounts' });
    },
  });
  return (
    <div>
      <div className="row">
        <GuardedButton permission="force_resync" className="secondary" busy={resync.isPending} aria-label={`Resync ${label}`} onClick={() => resync.mutate()}>
          Resync
        </GuardedButton>
        <GuardedButton permission="manage_linked_accounts" className="secondary" busy={relink.isPending} aria-label={`Relink ${label}`} onClick={() => relink.mutate()}>
          Relink
        </GuardedButton>
        {confirm ? (
          <>
            <button type="button" className="danger" aria-label={`Confirm deleting ${label}`} onClick={() => remove.mutate()}>
              Confirm delete
            </button>
            <button type="button" className="secondary" onClick={() => setConfirm(false)}>
              Cancel
            </button>
          </>
        ) : (
          <GuardedButton permission="manage_linked_accounts" className="danger" aria-label={`Delete ${label}`} onClick={() => setConfirm(true)}>
            Delete
          </GuardedButton>
        )}
      </div>
      {resync.isSuccess && <p role="status">Resync queued.</p>}
      {magicLink && <SecretOnce label={`Magic link to relink ${label}: send it to the end user.`} value={magicLink} onDone={() => setMagicLink(null)} />}
      <ErrorText error={resync.error ?? relink.error ?? remove.error} />
    </div>
  );
}
