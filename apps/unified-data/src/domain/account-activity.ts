import type { AppServices } from '../services';
import { setSyncStatuses } from '../sync/sync-status';

/** How often one replica writes an account's last request time: far finer than the idle period (days). */
const RECORD_EVERY_MS = 3_600_000;
/** Accounts remembered per replica before the memory starts over (a forgotten one costs one write). */
const MAX_REMEMBERED = 100_000;

/**
 * Records that an account's token made a request, for the idle rule (sync-runner pauses scheduled
 * syncs after MKTG_PAUSE_IDLE_DAYS without one). The time lives in PostgreSQL; this replica only
 * remembers when it last wrote it, so a busy account costs one UPDATE an hour, not one per request.
 * A request to an account paused for idleness resumes it: its statuses go to SYNCING and an
 * incremental sync is queued at once.
 */
export class AccountActivity {
  private readonly written = new Map<string, number>();

  constructor(
    private readonly services: Pick<AppServices, 'db' | 'scheduler' | 'logger'>,
    private readonly now: () => number = Date.now,
  ) {}

  async touch(linkedAccountId: string): Promise<void> {
    const now = this.now();
    const last = this.written.get(linkedAccountId);
    if (last !== undefined && now - last < RECORD_EVERY_MS) return;
    if (this.written.size >= MAX_REMEMBERED) this.written.clear();
    this.written.set(linkedAccountId, now);
    // Under the row lock, so of two replicas touching a paused account at once only one resumes it.
    const rows = await this.services.db.$queryRaw<Array<{ was_paused: boolean }>>`
      UPDATE linked_accounts a SET last_api_request_at = now(), idle_paused_at = NULL
      FROM (SELECT id, idle_paused_at FROM linked_accounts WHERE id = ${linkedAccountId}::uuid FOR UPDATE) old
      WHERE a.id = old.id
      RETURNING old.idle_paused_at IS NOT NULL AS was_paused`;
    if (rows[0]?.was_paused) await this.resume(linkedAccountId);
  }

  private async resume(linkedAccountId: string): Promise<void> {
    const { db, scheduler, logger } = this.services;
    const account = await db.linkedAccount.findUnique({ where: { id: linkedAccountId } });
    if (!account) return;
    await setSyncStatuses(db, account.id, { status: 'SYNCING', nextSyncStart: new Date() });
    await scheduler.enqueue(account, 'incremental', 'manual');
    logger.info({ linked_account_id: account.id }, 'idle pause ended by a request with the account token: incremental sync queued');
  }
}
