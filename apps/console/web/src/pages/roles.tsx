import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { api, unwrap, type PermissionEntry, type Role } from '../api/api';
import { ErrorText } from '../components/error-text';
import { GuardedButton } from '../components/guarded-button';
import { usePermissionCatalog } from '../components/use-permissions';
import { useHolds } from '../components/use-session';
import { rolesQueryKey, useRoles } from './members';

/** /roles: the permission matrix of every role, and custom roles made of any permissions. */
export function RolesPage() {
  const roles = useRoles();
  const catalog = usePermissionCatalog() ?? [];
  const [editing, setEditing] = useState<Role | 'new' | null>(null);
  const areas = [...new Set(catalog.map((p) => p.area))];
  return (
    <section>
      <h1>Roles</h1>
      <div className="row">
        <GuardedButton permission="manage_roles" onClick={() => setEditing('new')}>
          Create custom role
        </GuardedButton>
      </div>
      {editing && <RoleForm role={editing === 'new' ? null : editing} catalog={catalog} onDone={() => setEditing(null)} />}
      <div className="scroll">
        <table className="matrix">
          <caption>Permissions of each role</caption>
          <thead>
            <tr>
              <th scope="col">Permission</th>
              {roles.map((r) => (
                <th scope="col" key={r.id}>
                  {r.name}
                  {!r.built_in && (
                    <div className="row">
                      <GuardedButton permission="manage_roles" className="link" aria-label={`Edit role ${r.name}`} onClick={() => setEditing(r)}>
                        Edit
                      </GuardedButton>
                      <DeleteRole role={r} />
                    </div>
                  )}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {areas.map((area) => (
              <Fragment key={area}>
                <tr>
                  <th scope="rowgroup" colSpan={roles.length + 1} className="group">
                    {area.replace(/_/g, ' ')}
                  </th>
                </tr>
                {catalog
                  .filter((p) => p.area === area)
                  .map((p) => (
                    <tr key={p.codename}>
                      <th scope="row" title={p.description}>
                        {p.display_name} <code className="muted">{p.codename}</code>
                      </th>
                      {roles.map((r) => (
                        <td key={r.id} className="cell">
                          {r.permissions.includes(p.codename) ? <span aria-label="granted">✓</span> : <span aria-label="not granted">·</span>}
                        </td>
                      ))}
                    </tr>
                  ))}
              </Fragment>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function DeleteRole({ role }: { role: Role }) {
  const queryClient = useQueryClient();
  const [confirm, setConfirm] = useState(false);
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/roles/{role_id}', { params: { path: { role_id: role.id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: rolesQueryKey }),
  });
  if (confirm) {
    return (
      <>
        <button type="button" className="danger" onClick={() => remove.mutate()}>
          Confirm deleting {role.name}
        </button>
        <ErrorText error={remove.error} />
      </>
    );
  }
  return (
    <GuardedButton permission="manage_roles" className="link" aria-label={`Delete role ${role.name}`} onClick={() => setConfirm(true)}>
      Delete
    </GuardedButton>
  );
}

function RoleForm({ role, catalog, onDone }: { role: Role | null; catalog: PermissionEntry[]; onDone: () => void }) {
  const queryClient = useQueryClient();
  const canManage = useHolds('manage_roles');
  const save = useMutation({
    mutationFn: (body: { name: string; description: string; permissions: string[] }) =>
      role ? unwrap(api.PATCH('/api/v1/roles/{role_id}', { params: { path: { role_id: role.id } }, body })) : unwrap(api.POST('/api/v1/roles', { body })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: rolesQueryKey });
      onDone();
    },
  });
  return (
    <form
      className="card"
      aria-label={role ? `Edit role ${role.name}` : 'Create a custom role'}
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        save.mutate({ name: String(form.get('name') ?? ''), description: String(form.get('description') ?? ''), permissions: form.getAll('permission').map(String) });
      }}
    >
      <h2>{role ? `Edit ${role.name}` : 'New custom role'}</h2>
      <label>
        Role name
        <input name="name" required defaultValue={role?.name ?? ''} />
      </label>
      <label>
        Description
        <input name="description" defaultValue={role?.description ?? ''} />
      </label>
      <fieldset>
        <legend>Permissions</legend>
        <div className="checks">
          {catalog.map((p) => (
            <label key={p.codename} className="check">
              <input type="checkbox" name="permission" value={p.codename} defaultChecked={role?.permissions.includes(p.codename) ?? false} />
              {p.display_name}
            </label>
          ))}
        </div>
      </fieldset>
      <ErrorText error={save.error} />
      <div className="row">
        <button type="submit" disabled={!canManage || save.isPending}>
          {role ? 'Save role' : 'Create role'}
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
