import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap, type UnifiedSchemas } from '../../api/api';
import { ErrorText, formatTime } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';
import { LinkedAccountPicker } from './linked-account-picker';

type FieldMapping = UnifiedSchemas['FieldMappingView'];

/**
 * /field-mappings: a linked account's field mappings (a platform field copied into each record's
 * field_mappings.linked_account_defined_targets by the next sync, a full one); add and delete them
 * with manage_linked_accounts.
 */
export function FieldMappingsPage() {
  const { linked_account_id: accountId } = useSearch({ strict: false }) as { linked_account_id?: string };
  const navigate = useNavigate();
  const mappings = useQuery({
    queryKey: ['linked-accounts', 'one', accountId, 'field-mappings'],
    enabled: accountId !== undefined,
    queryFn: () => unwrap(api.GET('/api/mktg/v1/field-mappings', { params: { query: { linked_account_id: accountId } } })),
  });
  return (
    <section>
      <h1>Field mappings</h1>
      <p className="muted">
        Copy a field of the platform's original record into <code>field_mappings.linked_account_defined_targets</code> of every event or contact of a linked account. The next sync applies a change, as a full sync.
      </p>
      <LinkedAccountPicker value={accountId} onChange={(id) => void navigate({ to: '/field-mappings', search: { linked_account_id: id } })} />
      {accountId && <CreateMappingForm accountId={accountId} />}
      <ErrorText error={mappings.error} />
      {accountId && mappings.data && (
        <div className="table-scroll">
          <table>
            <caption>{mappings.data.results.length === 0 ? 'No field mappings on this linked account.' : 'Field mappings'}</caption>
            <thead>
              <tr>
                <th scope="col">Target field</th>
                <th scope="col">Records</th>
                <th scope="col">Platform field</th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {mappings.data.results.map((m) => (
                <MappingRow key={m.id} accountId={accountId} mapping={m} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function CreateMappingForm({ accountId }: { accountId: string }) {
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (body: UnifiedSchemas['FieldMappingInput']) => unwrap(api.POST('/api/mktg/v1/field-mappings', { params: { query: { linked_account_id: accountId } }, body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['linked-accounts', 'one', accountId, 'field-mappings'] }),
  });
  return (
    <form
      className="card"
      aria-label="Add a field mapping"
      onSubmit={(event) => {
        event.preventDefault();
        const f = new FormData(event.currentTarget);
        create.mutate({ model: String(f.get('model') ?? 'events'), target_field_name: String(f.get('target_field_name') ?? ''), remote_field_path: String(f.get('remote_field_path') ?? '') });
      }}
    >
      <h2>Add a field mapping</h2>
      <div className="grid">
        <label>
          Records
          <select name="model" defaultValue="events">
            <option value="events">Events</option>
            <option value="contacts">Contacts</option>
          </select>
        </label>
        <label>
          Target field
          <input name="target_field_name" required maxLength={100} placeholder="event_type" />
        </label>
        <label>
          Platform field
          <input name="remote_field_path" required maxLength={200} placeholder="eventType" />
        </label>
      </div>
      <ErrorText error={create.error} />
      <GuardedButton permission="manage_linked_accounts" type="submit" busy={create.isPending}>
        Add mapping
      </GuardedButton>
    </form>
  );
}

function MappingRow({ accountId, mapping: m }: { accountId: string; mapping: FieldMapping }) {
  const queryClient = useQueryClient();
  const [confirm, setConfirm] = useState(false);
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/mktg/v1/field-mappings/{id}', { params: { path: { id: m.id }, query: { linked_account_id: accountId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['linked-accounts', 'one', accountId, 'field-mappings'] }),
  });
  return (
    <tr>
      <th scope="row">
        <code>{m.target_field_name}</code>
      </th>
      <td>{m.model}</td>
      <td>
        <code>{m.remote_field_path}</code>
      </td>
      <td>{formatTime(m.created_at)}</td>
      <td>
        {confirm ? (
          <div className="row">
            <button type="button" className="danger" aria-label={`Confirm deleting the mapping ${m.target_field_name}`} onClick={() => remove.mutate()}>
              Confirm delete
            </button>
            <button type="button" className="secondary" onClick={() => setConfirm(false)}>
              Cancel
            </button>
          </div>
        ) : (
          <GuardedButton permission="manage_linked_accounts" className="danger" aria-label={`Delete the mapping ${m.target_field_name}`} onClick={() => setConfirm(true)}>
            Delete
          </GuardedButton>
        )}
        <ErrorText error={remove.error} />
      </td>
    </tr>
  );
}
