import { useMutation, useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { api, unwrap, type UnifiedSchemas } from '../../api/api';
import { CursorPager } from '../../components/cursor-pager';
import { ErrorText, formatTime } from '../../components/error-text';
import { GuardedButton } from '../../components/guarded-button';
import { SecretOnce } from '../../components/secret-once';
import { useSession } from '../../components/use-session';
import { LinkedAccountActions, accountLabel } from './linked-account-actions';

type LinkedAccount = UnifiedSchemas['LinkedAccountWithSummary'];
type SyncStatus = UnifiedSchemas['SyncStatusView'];

/** The Event model's status: the one every sync walks first, so its times are the account's sync times. */
export const eventStatus = (a: LinkedAccount): SyncStatus | undefined => a.sync_summary?.statuses.find((s) => s.model_name === 'Event');

/** A sync of the account is queued or running. */
export const isSyncing = (a: LinkedAccount): boolean => a.sync_summary?.statuses.some((s) => s.status === 'SYNCING') ?? false;

/** How long the list keeps a close watch after a magic link was made here (the link token's default lifetime). */
const LINK_WATCH_MS = 30 * 60_000;

/** DONE, or "FAILED (Contact: PARTIALLY_SYNCED)" when the models differ. */
export function syncState(a: LinkedAccount): string {
  const statuses = a.sync_summary?.statuses ?? [];
  const event = eventStatus(a);
  if (!event) return '—';
  const others = statuses.filter((s) => s !== event && s.status !== event.status);
  return others.length > 0 ? `${event.status} (${others.map((s) => `${s.model_name}: ${s.status}`).join(', ')})` : event.status;
}

/** The list's server-side filters and order (GET /api/mktg/v1/linked-accounts). */
interface ListFilters {
  search?: string;
  status?: string;
  platform?: string;
  order: 'created_at' | '-created_at';
}

/**
 * /linked-accounts: the environment's linked accounts with where their syncs stand (the server's
 * sync summary: statuses, last error, record counts), a cursor list as the API pages it; link a new
 * account through a magic link; resync, relink and delete each one.
 */
export function LinkedAccountsPage() {
  const session = useSession();
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const [filters, setFilters] = useState<ListFilters>({ order: 'created_at' });
  const [linkMadeAt, setLinkMadeAt] = useState<number | null>(null);
  // Every filter change starts from the first page: a cursor belongs to the list it came from.
  const filter = (change: Partial<ListFilters>) => {
    setFilters({ ...filters, ...change });
    setCursor(undefined);
  };
  const accounts = useQuery({
    queryKey: ['linked-accounts', session?.environment, 'page', filters, cursor],
    queryFn: () =>
      unwrap(
        api.GET('/api/mktg/v1/linked-accounts', {
          params: {
            query: {
              include_sync_summary: 'true',
              page_size: '20',
              order: filters.order,
              ...(filters.search ? { search: filters.search } : {}),
              ...(filters.status ? { status: filters.status } : {}),
              ...(filters.platform ? { platform: filters.platform } : {}),
              ...(cursor ? { cursor } : {}),
            },
          },
        }),
      ),
    placeholderData: (previous) => previous,
    // Syncs move on their own: the page follows them closely while one runs or an end user may be
    // linking through a magic link made here, and calmly otherwise (each refresh counts records).
    refetchInterval: (query) => (query.state.data?.results.some(isSyncing) || (linkMadeAt !== null && Date.now() - linkMadeAt < LINK_WATCH_MS) ? 5_000 : 60_000),
  });
  return (
    <section>
      <h1>Linked accounts</h1>
      <p className="muted">Marketing platform accounts linked in the {session?.environment} environment. Times are UTC.</p>
      <LinkForm onCreated={() => setLinkMadeAt(Date.now())} />
      <div className="row">
        <label className="inline">
          Search linked accounts
          <input type="search" value={filters.search ?? ''} placeholder="end user id or organization" onChange={(e) => filter({ search: e.target.value || undefined })} />
        </label>
        <label className="inline">
          Status
          <select value={filters.status ?? ''} onChange={(e) => filter({ status: e.target.value || undefined })}>
            <option value="">Any status</option>
            <option value="COMPLETE">COMPLETE</option>
            <option value="INCOMPLETE">INCOMPLETE</option>
            <option value="RELINK_NEEDED">RELINK_NEEDED</option>
          </select>
        </label>
        <label className="inline">
          Platform
          <select value={filters.platform ?? ''} onChange={(e) => filter({ platform: e.target.value || undefined })}>
            <option value="">Any platform</option>
            <option value="hubspot">HubSpot</option>
            <option value="zoom">Zoom</option>
            <option value="eventbrite">Eventbrite</option>
          </select>
        </label>
        <label className="inline">
          Sort
          <select value={filters.order} onChange={(e) => filter({ order: e.target.value as ListFilters['order'] })}>
            <option value="created_at">Oldest first</option>
            <option value="-created_at">Newest first</option>
          </select>
        </label>
      </div>
      <ErrorText error={accounts.error} />
      {accounts.data && (
        <>
          <div className="scroll">
            <table>
              <caption>{accounts.data.results.length > 0 ? 'Linked accounts and their syncs' : filters.search || filters.status || filters.platform ? 'No linked accounts match.' : 'No linked accounts yet.'}</caption>
              <thead>
                <tr>
                  <th scope="col">Account</th>
                  <th scope="col">Platform</th>
                  <th scope="col">Status</th>
                  <th scope="col">Sync</th>
                  <th scope="col">Last sync</th>
                  <th scope="col">Next sync</th>
                  <th scope="col">Last error</th>
                  <th scope="col">Records</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {accounts.data.results.map((a) => (
                  <AccountRow key={a.id} account={a} />
                ))}
              </tbody>
            </table>
          </div>
          <CursorPager next={accounts.data.next} previous={accounts.data.previous} onCursor={setCursor} />
        </>
      )}
    </section>
  );
}

function AccountRow({ account: a }: { account: LinkedAccount }) {
  const event = eventStatus(a);
  return (
    <tr>
      <th scope="row">
        <Link to="/linked-accounts/$id" params={{ id: a.id }}>
          {a.end_user_organization_name}
        </Link>
        <div className="muted">{a.end_user_origin_id}</div>
      </th>
      <td>{a.integration.name}</td>
      <td>
        {a.status}
        {a.status_detail && <div className="muted">{a.status_detail}</div>}
      </td>
      <td>{syncState(a)}</td>
      <td>
        {formatTime(event?.last_sync_finished)}
        {event?.last_sync_result && <div className="muted">{event.last_sync_result}</div>}
      </td>
      <td>{formatTime(event?.next_sync_start)}</td>
      <td>{a.sync_summary?.last_error ? <span title={formatTime(a.sync_summary.last_error.at)}>{a.sync_summary.last_error.message}</span> : '—'}</td>
      <td>
        <Link to="/events" search={{ linked_account_id: a.id }} aria-label={`${a.sync_summary?.event_count ?? '—'} events of ${accountLabel(a)}`}>
          {a.sync_summary?.event_count ?? '—'} events
        </Link>
        <div className="muted">{a.sync_summary?.contact_count ?? '—'} contacts</div>
        <div className="muted">at the last sync</div>
      </td>
      <td>
        <LinkedAccountActions account={a} />
      </td>
    </tr>
  );
}

/** A link token for a new end user: its magic link is what they open to link their account. */
function LinkForm({ onCreated }: { onCreated: () => void }) {
  const [magicLink, setMagicLink] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (body: UnifiedSchemas['LinkTokenInput']) => unwrap(api.POST('/api/mktg/v1/link-token', { body })),
    onSuccess: (link) => {
      setMagicLink(link.magic_link_url);
      onCreated();
    },
  });
  return (
    <>
      <form
        className="card"
        aria-label="Link an account"
        onSubmit={(event) => {
          event.preventDefault();
          const f = new FormData(event.currentTarget);
          const email = String(f.get('end_user_email_address') ?? '');
          const integration = String(f.get('integration') ?? '');
          create.mutate({
            end_user_origin_id: String(f.get('end_user_origin_id') ?? ''),
            end_user_organization_name: String(f.get('end_user_organization_name') ?? ''),
            ...(email ? { end_user_email_address: email } : {}),
            ...(integration ? { integration } : {}),
          });
        }}
      >
        <h2>Link an account</h2>
        <p className="muted">Makes a magic link for your end user: they open it and sign in to their platform. An end user who already has an account relinks it.</p>
        <div className="grid">
          <label>
            End user id
            <input name="end_user_origin_id" required maxLength={256} />
          </label>
          <label>
            End user organization
            <input name="end_user_organization_name" required maxLength={256} />
          </label>
          <label>
            End user email (optional)
            <input name="end_user_email_address" type="email" maxLength={256} />
          </label>
          <label>
            Platform
            <select name="integration" defaultValue="">
              <option value="">The end user chooses</option>
              <option value="hubspot">HubSpot</option>
              <option value="zoom">Zoom</option>
              <option value="eventbrite">Eventbrite</option>
            </select>
          </label>
        </div>
        <ErrorText error={create.error} />
        <GuardedButton permission="manage_linked_accounts" type="submit" busy={create.isPending}>
          Create magic link
        </GuardedButton>
      </form>
      {magicLink && <SecretOnce label="Magic link: send it to the end user." value={magicLink} onDone={() => setMagicLink(null)} />}
    </>
  );
}
