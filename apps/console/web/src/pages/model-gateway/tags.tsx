import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type GatewaySchemas } from '../../api/api';
import { ErrorText, formatTime } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';

const tagsQueryKey = ['tags'] as const;

/** /tags: the tag pairs model requests may carry (GET/POST/DELETE /v1/tags); usage can be grouped by them. */
export function TagsPage() {
  const queryClient = useQueryClient();
  const tags = useQuery({ queryKey: tagsQueryKey, queryFn: () => unwrap(api.GET('/v1/tags')) });
  const create = useMutation({
    mutationFn: (body: GatewaySchemas['TagCreate']) => unwrap(api.POST('/v1/tags', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tagsQueryKey }),
  });
  return (
    <section>
      <h1>Tags</h1>
      <p className="muted">A request may carry only defined key=value pairs; usage groups by them.</p>
      <form
        className="card"
        aria-label="Define a tag"
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const f = new FormData(form);
          create.mutate({ key: String(f.get('key') ?? ''), value: String(f.get('value') ?? '') }, { onSuccess: () => form.reset() });
        }}
      >
        <h2>Define a tag</h2>
        <div className="grid">
          <label>
            Tag key
            <input name="key" required maxLength={100} placeholder="team" />
          </label>
          <label>
            Tag value
            <input name="value" required maxLength={200} placeholder="search" />
          </label>
        </div>
        <ErrorText error={create.error} />
        <GuardedButton permission="manage_policies" type="submit" busy={create.isPending}>
          Define tag
        </GuardedButton>
      </form>
      <ErrorText error={tags.error} />
      {tags.data && (
        <div className="table-scroll">
          <table>
            <caption>{tags.data.data.length} tags, by key and value</caption>
            <thead>
              <tr>
                <th scope="col">Tag</th>
                <th scope="col">Defined</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {tags.data.data.map((t) => (
                <TagRow key={t.id} tag={t} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function TagRow({ tag: t }: { tag: GatewaySchemas['Tag'] }) {
  const queryClient = useQueryClient();
  const remove = useMutation({ mutationFn: () => unwrap(api.DELETE('/v1/tags/{id}', { params: { path: { id: t.id } } })), onSuccess: () => queryClient.invalidateQueries({ queryKey: tagsQueryKey }) });
  return (
    <tr>
      <th scope="row">
        <code>
          {t.tag_key}={t.tag_value}
        </code>
      </th>
      <td>{formatTime(t.created_at)}</td>
      <td>
        <GuardedButton permission="manage_policies" className="danger" busy={remove.isPending} aria-label={`Delete tag ${t.tag_key}=${t.tag_value}`} onClick={() => remove.mutate()}>
          Delete
        </GuardedButton>
        <ErrorText error={remove.error} />
      </td>
    </tr>
  );
}
