import type { Db, Tx } from '../db';
import type { SyncRun } from '../generated/prisma/client';

/**
 * Requests for a complete full pass of a linked account (a resync, a field-mapping change, a model
 * turned back on) are a counter in `sync_runs`, not a flag: each request adds one, in the transaction of
 * the change that needs it; a run records the counter's value in the statement that starts it
 * (`run_full_resync_requests`), and when a full run finishes the served count rises to that value
 * (compare-and-set in PostgreSQL). A request made after a run started is therefore never cleared by
 * that run: it stays owed, and a full pass follows. Several requests made during one run are served by
 * one pass. The state lives in the database, so it holds across worker restarts and any number of
 * workers.
 */
export async function requestFullPass(db: Db | Tx, linkedAccountId: string): Promise<void> {
  await db.syncRun.updateMany({ where: { linkedAccountId }, data: { fullResyncRequests: { increment: 1 } } });
}

/** The next run must be a full pass: one was asked for and not served, or none ever finished. */
export const fullPassOwed = (run: Pick<SyncRun, 'fullResyncRequests' | 'fullResyncRequestsServed' | 'lastSuccessStartedAt'>): boolean =>
  run.fullResyncRequests > run.fullResyncRequestsServed || run.lastSuccessStartedAt === null;

/**
 * A full pass is owed that the open run (if any) will not serve: asked for after the open run started,
 * or, with no run open, not yet served.
 */
export const fullPassOwedAfterOpenRun = (run: Pick<SyncRun, 'runId' | 'runFullResyncRequests' | 'fullResyncRequests' | 'fullResyncRequestsServed' | 'lastSuccessStartedAt'>): boolean =>
  run.runId ? run.fullResyncRequests > Math.max(run.fullResyncRequestsServed, run.runFullResyncRequests ?? 0) : fullPassOwed(run);

/**
 * Starts a run (the caller holds the account's lease): full when a full pass is owed, else incremental
 * since the start of the last run that finished. The counter is read in the same statement, so a
 * request either committed before it (this run serves it) or counts as made after the run started.
 */
export async function startRun(db: Db, linkedAccountId: string, runId: string, startedAt: Date): Promise<void> {
  await db.$executeRaw`
    UPDATE sync_runs SET
      run_id = ${runId}::uuid,
      started_at = ${startedAt},
      pages_written = 0,
      checkpoint = NULL,
      run_full_resync_requests = full_resync_requests,
      kind = CASE WHEN full_resync_requests > full_resync_requests_served OR last_success_started_at IS NULL THEN 'full' ELSE 'incremental' END,
      modified_since = CASE WHEN full_resync_requests > full_resync_requests_served OR last_success_started_at IS NULL THEN NULL ELSE last_success_started_at END
    WHERE linked_account_id = ${linkedAccountId}::uuid AND run_id IS NULL`;
}

/**
 * Closes a run that finished successfully, inside the caller's transaction. A full run serves the
 * requests counted when it started (and no later ones). Answers whether a full pass is still owed:
 * one was asked for while the run was open, or the run was incremental.
 */
export async function finishRun(tx: Tx, linkedAccountId: string, runId: string, startedAt: Date): Promise<{ fullPassOwed: boolean }> {
  const rows = await tx.$queryRaw<Array<{ owed: boolean }>>`
    UPDATE sync_runs SET
      run_id = NULL,
      kind = NULL,
      checkpoint = NULL,
      last_success_started_at = ${startedAt},
      full_resync_requests_served = CASE WHEN kind = 'full'
        THEN GREATEST(full_resync_requests_served, COALESCE(run_full_resync_requests, 0))
        ELSE full_resync_requests_served END,
      run_full_resync_requests = NULL
    WHERE linked_account_id = ${linkedAccountId}::uuid AND run_id = ${runId}::uuid
    RETURNING full_resync_requests > full_resync_requests_served AS owed`;
  return { fullPassOwed: rows[0]?.owed ?? false };
}
