import type { SyncModel } from '@patchbay/marketing-platforms';
import type { Db, Tx } from '../db';
import type { SyncStatus } from '../generated/prisma/client';

export const SYNC_MODELS: readonly SyncModel[] = ['events', 'contacts'];

/** Merge's status values (status and last_sync_result). */
export type SyncStatusValue = 'SYNCING' | 'DONE' | 'FAILED' | 'DISABLED' | 'PAUSED' | 'PARTIALLY_SYNCED';

const MODEL_IDS: Record<string, { name: string; id: string }> = {
  events: { name: 'Event', id: 'mktg.Event' },
  contacts: { name: 'Contact', id: 'mktg.Contact' },
};

/** One row of GET /sync-status, with Merge's field names. */
export interface SyncStatusView {
  model_name: string;
  model_id: string;
  status: string;
  last_sync_start: string | null;
  last_sync_finished: string | null;
  last_sync_result: string | null;
  next_sync_start: string | null;
  is_initial_sync: boolean;
}

export function toSyncStatusView(row: SyncStatus): SyncStatusView {
  const model = MODEL_IDS[row.model] ?? { name: row.model, id: `mktg.${row.model}` };
  return {
    model_name: model.name,
    model_id: model.id,
    status: row.status,
    last_sync_start: row.lastSyncStart?.toISOString() ?? null,
    last_sync_finished: row.lastSyncFinished?.toISOString() ?? null,
    last_sync_result: row.lastSyncResult,
    next_sync_start: row.nextSyncStart?.toISOString() ?? null,
    is_initial_sync: row.isInitialSync,
  };
}

export async function syncStatusesOf(db: Db | Tx, linkedAccountId: string): Promise<SyncStatus[]> {
  const rows = await db.syncStatus.findMany({ where: { linkedAccountId } });
  return SYNC_MODELS.flatMap((m) => rows.filter((r) => r.model === m));
}

type StatusFields = Partial<Pick<SyncStatus, 'status' | 'lastSyncStart' | 'lastSyncFinished' | 'lastSyncResult' | 'nextSyncStart' | 'isInitialSync'>>;

/** Sets the same fields on the status of every model of an account that is not DISABLED. */
export async function setSyncStatuses(db: Db | Tx, linkedAccountId: string, data: StatusFields): Promise<void> {
  await db.syncStatus.updateMany({ where: { linkedAccountId, status: { not: 'DISABLED' } }, data });
}

/** Sets fields on one model's status (unless it is DISABLED). */
export async function setModelStatus(db: Db | Tx, linkedAccountId: string, model: SyncModel, data: StatusFields): Promise<void> {
  await db.syncStatus.updateMany({ where: { linkedAccountId, model, status: { not: 'DISABLED' } }, data });
}
