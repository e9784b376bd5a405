import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/api';
import { ErrorText } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';

const blocklistQueryKey = ['blocklist'] as const;

/** /blocklist: models no key of the organization may call (GET/PUT /v1/blocklist; a trailing * is a prefix). */
export function BlocklistPage() {
  const queryClient = useQueryClient();
  const blocklist = useQuery({ queryKey: blocklistQueryKey, queryFn: () => unwrap(api.GET('/v1/blocklist')) });
  const save = useMutation({
    mutationFn: (models: string[]) => unwrap(api.PUT('/v1/blocklist', { body: { models } })),
    onSuccess: (data) => queryClient.setQueryData(blocklistQueryKey, data),
  });
  return (
    <section>
      <h1>Blocklist</h1>
      <p className="muted">Requests for these models answer 403 blocked_by_policy, whatever key sends them.</p>
      <ErrorText error={blocklist.error} />
      {/* The form appears once the list has loaded, so what a member types is never replaced by the load. */}
      {blocklist.data && (
        <form
          className="card"
          aria-label="Edit the blocklist"
          key={blocklist.data.models.join('\n')}
          onSubmit={(event) => {
            event.preventDefault();
            const text = String(new FormData(event.currentTarget).get('models') ?? '');
            save.mutate(text.split(/[\s,]+/).filter(Boolean));
          }}
        >
          <label>
            Blocked models, one a line (provider/model; openai/* blocks a provider)
            <textarea name="models" rows={8} defaultValue={blocklist.data.models.join('\n')} />
          </label>
          <p className="muted">{`${blocklist.data.models.length} blocked now.`}</p>
          <ErrorText error={save.error} />
          <GuardedButton permission="manage_policies" type="submit" busy={save.isPending}>
            Save blocklist
          </GuardedButton>
          <span role="status">{save.isSuccess ? ' Saved.' : ''}</span>
        </form>
      )}
    </section>
  );
}
