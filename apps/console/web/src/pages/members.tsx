import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type Member, type Role } from '../api/api';
import { ErrorText, formatTime } from '../components/error-text';
import { GuardedButton } from '../components/guarded-button';
import { SecretOnce } from '../components/secret-once';
import { useSession } from '../components/use-session';

export const membersQueryKey = ['members'] as const;
export const rolesQueryKey = ['roles'] as const;

export function useRoles(): Role[] {
  return useQuery({ queryKey: rolesQueryKey, queryFn: async () => (await unwrap(api.GET('/api/v1/roles'))).results }).data ?? [];
}

/** /members: the organization's members and open invitations; invite, change roles, disable, remove. */
export function MembersPage() {
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const members = useQuery({
    queryKey: [...membersQueryKey, { search, page }],
    queryFn: () => unwrap(api.GET('/api/v1/members', { params: { query: { search: search || undefined, page: String(page), page_size: '20' } } })),
  });
  return (
    <section>
      <h1>Members</h1>
      <InviteForm />
      <label className="inline">
        Search members
        <input type="search" value={search} onChange={(e) => { setSearch(e.target.value); setPage(1); }} placeholder="email or name" />
      </label>
      <ErrorText error={members.error} />
      {members.data && (
        <>
          <div className="table-scroll">
            <table>
              <caption>{members.data.count} members and invitations</caption>
              <thead>
                <tr>
                  <th scope="col">Member</th>
                  <th scope="col">Status</th>
                  <th scope="col">Roles</th>
                  <th scope="col">Last sign-in</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {members.data.results.map((m) => (
                  <MemberRow key={m.id} member={m} />
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} hasNext={members.data.next !== null} onPage={setPage} />
        </>
      )}
    </section>
  );
}

export function Pager({ page, hasNext, onPage }: { page: number; hasNext: boolean; onPage: (page: number) => void }) {
  return (
    <nav aria-label="Pages" className="row">
      <button type="button" className="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous page
      </button>
      <span>Page {page}</span>
      <button type="button" className="secondary" disabled={!hasNext} onClick={() => onPage(page + 1)}>
        Next page
      </button>
    </nav>
  );
}

function InviteForm() {
  const roles = useRoles();
  const queryClient = useQueryClient();
  const [link, setLink] = useState<string | null>(null);
  const invite = useMutation({
    mutationFn: (body: { email: string; role_ids: string[] }) => unwrap(api.POST('/api/v1/members', { body })),
    onSuccess: async (result) => {
      setLink(result.invitation.url);
      await queryClient.invalidateQueries({ queryKey: membersQueryKey });
    },
  });
  return (
    <form
      className="card"
      aria-label="Invite a member"
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        invite.mutate({ email: String(form.get('email') ?? ''), role_ids: [String(form.get('role') ?? '')] });
      }}
    >
      <h2>Invite a member</h2>
      <div className="row">
        <label>
          Email
          <input name="email" type="email" required />
        </label>
        <label>
          Role
          <select name="role" defaultValue="developer" key={roles.length}>
            {roles.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name}
              </option>
            ))}
          </select>
        </label>
        <GuardedButton permission="manage_members" type="submit" busy={invite.isPending}>
          Invite
        </GuardedButton>
      </div>
      <ErrorText error={invite.error} />
      {link && <SecretOnce label="Invitation link (single use, valid 7 days)." value={link} onDone={() => setLink(null)} />}
    </form>
  );
}

function MemberRow({ member }: { member: Member }) {
  const session = useSession();
  const roles = useRoles();
  const queryClient = useQueryClient();
  const [confirmRemove, setConfirmRemove] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: membersQueryKey });
  const update = useMutation({
    mutationFn: (body: { role_ids?: string[]; status?: 'active' | 'disabled' }) => unwrap(api.PATCH('/api/v1/members/{member_id}', { params: { path: { member_id: member.id } }, body })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/members/{member_id}', { params: { path: { member_id: member.id } } })),
    onSuccess: refresh,
  });
  const resetTwoFactor = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/members/{member_id}/two-factor', { params: { path: { member_id: member.id } } })),
    onSuccess: refresh,
  });
  const self = session?.member.id === member.id;
  const ownerReason = member.is_owner ? 'The owner cannot be removed, disabled or given other roles' : undefined;
  const who = member.name || member.email;
  return (
    <tr>
      <th scope="row">
        <span className="name">{member.name || '(invited)'}</span>
        <br />
        <span className="muted">{member.email}</span>
        {member.is_owner && <span className="badge">Owner</span>}
      </th>
      <td>{member.status}</td>
      <td>
        {member.is_owner ? 'Owner (every permission)' : member.roles.map((r) => r.name).join(', ') || 'No role'}
        {!member.is_owner && (
          <details className="roles-editor">
            <summary aria-label={`Change roles of ${who}`}>Change roles</summary>
            <form
              aria-label={`Roles of ${who}`}
              onSubmit={(event) => {
                event.preventDefault();
                update.mutate({ role_ids: new FormData(event.currentTarget).getAll('role').map(String) });
              }}
            >
              <fieldset>
                <legend className="sr-only">Roles of {who}</legend>
                {roles.map((r) => (
                  <label key={r.id} className="check">
                    <input type="checkbox" name="role" value={r.id} defaultChecked={member.roles.some((held) => held.id === r.id)} />
                    {r.name}
                  </label>
                ))}
              </fieldset>
              <GuardedButton permission="manage_members" type="submit" busy={update.isPending}>
                Save roles
              </GuardedButton>
            </form>
          </details>
        )}
      </td>
      <td>{formatTime(member.last_sign_in_at)}</td>
      <td>
        <div className="row">
          {member.status !== 'invited' && (
            <GuardedButton
              permission="manage_members"
              className="secondary"
              disabledReason={ownerReason ?? (self ? 'You cannot disable yourself' : undefined)}
              busy={update.isPending}
              aria-label={`${member.status === 'disabled' ? 'Enable' : 'Disable'} ${who}`}
              onClick={() => update.mutate({ status: member.status === 'disabled' ? 'active' : 'disabled' })}
            >
              {member.status === 'disabled' ? 'Enable' : 'Disable'}
            </GuardedButton>
          )}
          {member.two_factor_enabled && (
            <GuardedButton
              permission="manage_members"
              className="secondary"
              disabledReason={self ? 'Turn off your own two-factor sign-in on your account page' : member.is_owner && !session?.member.is_owner ? 'Only the owner can reset the owner\'s two-factor sign-in' : undefined}
              busy={resetTwoFactor.isPending}
              aria-label={`Reset two-factor sign-in of ${who}`}
              onClick={() => resetTwoFactor.mutate()}
            >
              Reset two-factor
            </GuardedButton>
          )}
          {confirmRemove ? (
            <>
              <button type="button" className="danger" onClick={() => remove.mutate()} aria-label={`Confirm removing ${who}`}>
                Confirm removal
              </button>
              <button type="button" className="secondary" onClick={() => setConfirmRemove(false)}>
                Cancel
              </button>
            </>
          ) : (
            <GuardedButton
              permission="manage_members"
              className="danger"
              disabledReason={ownerReason ?? (self ? 'You cannot remove yourself' : undefined)}
              aria-label={`Remove ${who}`}
              onClick={() => setConfirmRemove(true)}
            >
              {member.status === 'invited' ? 'Cancel invitation' : 'Remove'}
            </GuardedButton>
          )}
        </div>
        <ErrorText error={update.error ?? remove.error ?? resetTwoFactor.error} />
      </td>
    </tr>
  );
}
