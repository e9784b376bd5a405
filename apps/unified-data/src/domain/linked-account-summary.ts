import type { Db } from '../db';
import { SYNC_MODELS, toSyncStatusView, type SyncStatusView } from '../sync/sync-status';

/** Where an account's syncs stand and what they hold, for an overview (the console's linked accounts page). */
export interface LinkedAccountSyncSummary {
  /** Merge's SyncStatus per model (Event, Contact), as GET /sync-status gives it. */
  statuses: SyncStatusView[];
  /** The most recent run that failed, or null when none has. */
  last_error: { at: string; message: string } | null;
  /** Events and contacts as the lists show them by default (neither shell records nor deleted ones), counted when the last sync finished; null before the first did. */
  event_count: number | null;
  contact_count: number | null;
}

/**
 * The summaries of a page of accounts (at most 100, already scoped to the caller): two queries
 * whatever the page's size, each one index range per account. The counts were taken when each
 * account's last sync finished, so a list read never counts records.
 */
export async function syncSummariesOf(db: Db, linkedAccountIds: string[]): Promise<Map<string, LinkedAccountSyncSummary>> {
  const summaries = new Map<string, LinkedAccountSyncSummary>();
  if (linkedAccountIds.length === 0) return summaries;
  const [statuses, failures] = await Promise.all([
    db.syncStatus.findMany({ where: { linkedAccountId: { in: linkedAccountIds } } }),
    db.$queryRaw<Array<{ linked_account_id: string; finished_at: Date; error: string | null }>>`
      SELECT DISTINCT ON (linked_account_id) linked_account_id::text, finished_at, error
      FROM sync_run_history
      WHERE linked_account_id = ANY(${linkedAccountIds}::uuid[]) AND result = 'FAILED'
      ORDER BY linked_account_id, started_at DESC, id DESC`,
  ]);
  for (const id of linkedAccountIds) {
    const own = statuses.filter((s) => s.linkedAccountId === id);
    const failure = failures.find((f) => f.linked_account_id === id);
    summaries.set(id, {
      statuses: SYNC_MODELS.flatMap((m) => own.filter((s) => s.model === m)).map(toSyncStatusView),
      last_error: failure ? { at: failure.finished_at.toISOString(), message: failure.error ?? 'The sync failed.' } : null,
      event_count: own.find((s) => s.model === 'events')?.recordCount ?? null,
      contact_count: own.find((s) => s.model === 'contacts')?.recordCount ?? null,
    });
  }
  return summaries;
}
