import { randomUUID } from 'node:crypto';
import { runSync as defaultRunSync, type FieldMapping, type Platform, type RunSyncOptions, type SyncOutcome, type SyncTuning } from '@patchbay/marketing-platforms';
import type { QueueLogger, UnifiedDataSyncJob } from '@patchbay/queues';
import type { SecretBox } from '@patchbay/secrets';
import type { Cluster, Redis } from 'ioredis';
import type { Db } from '../db';
import { AUDIT, auditSystemEvent } from '../domain/audit';
import { connectionFor, openCredentials, sealCredentials } from '../domain/platform-credentials';
import { refreshPlatformTokens } from '../domain/platform-oauth';
import { Prisma, type LinkedAccount } from '../generated/prisma/client';
import type { PlatformConfig } from '../services';
import { finishRun, fullPassOwed, fullPassOwedAfterOpenRun, startRun } from './full-pass';
import { SyncLease } from './lease';
import { RedisRequestGate, allowanceOf } from './request-gate';
import { enqueueSyncInTx, type SyncScheduler } from './scheduler';
import { PostgresSyncSink, markMissingAsDeleted, type SinkOptions } from './sync-sink';
import { recordFinishedRun } from './sync-history';
import { setModelStatus, setSyncStatuses } from './sync-status';

export interface SyncWorkerDeps {
  db: Db;
  redis: Redis | Cluster;
  box: SecretBox;
  config: PlatformConfig;
  scheduler: SyncScheduler;
  logger: Pick<QueueLogger, 'warn' | 'info'>;
  /** Key prefix of the per-account lease (the installation's QUEUE_PREFIX). */
  lockPrefix: string;
  /** Lease lifetime; renewed every third of it while the sync runs. Default 30 s. */
  leaseTtlMs?: number;
  /** Wait before resuming after a transient failure. Default 15 s. */
  transientRetryMs?: number;
  /** The platform walk (H5's runSync); injectable so a test can stop a sync mid-way. */
  runSync?: (opts: RunSyncOptions) => Promise<SyncOutcome>;
  tuning?: SyncTuning;
  /** How the sink batches pages into statements. */
  sinkOptions?: SinkOptions;
  /** Aborts running syncs at shutdown (their last page stays committed). */
  shutdown?: AbortSignal;
  /** HTTP client of OAuth token refreshes (default: the global fetch; the token URLs are the operator's). */
  fetch?: typeof fetch;
  /** Scheduled syncs pause after this long without a request made with the account's token (0: never). Default 14 days. */
  pauseIdleMs?: number;
}

export type SyncJobResult =
  | 'done'
  | 'partially_synced'
  | 'skipped_busy'
  | 'skipped_missing'
  | 'skipped_paused'
  | 'skipped_disabled'
  | 'skipped_served'
  | 'rate_limited'
  | 'transient'
  | 'credentials_invalid'
  | 'failed'
  | 'aborted';

/** Syncs failing for longer than this (since the last successful one) pause the account's scheduled syncs. */
export const PAUSE_AFTER_FAILING_MS = 14 * 86_400_000;

/** Merge's rule: no inbound API request for two weeks pauses an account's syncs. */
export const PAUSE_IDLE_MS = 14 * 86_400_000;

/** No request with the account's token (or, before the first, since it was linked) for longer than `idleMs`. */
function isIdle(account: LinkedAccount, idleMs: number): boolean {
  if (idleMs <= 0) return false;
  const lastActivity = account.lastApiRequestAt ?? account.createdAt;
  return Date.now() - lastActivity.getTime() > idleMs;
}

/** PAUSED until the next request made with the account's token (domain/account-activity.ts resumes it). */
async function pauseIdle(deps: SyncWorkerDeps, account: LinkedAccount): Promise<void> {
  await deps.db.$transaction(async (tx) => {
    await tx.linkedAccount.update({ where: { id: account.id }, data: { idlePausedAt: new Date() } });
    await setSyncStatuses(tx, account.id, { status: 'PAUSED', nextSyncStart: null });
  });
  deps.logger.info({ linked_account_id: account.id, last_api_request_at: account.lastApiRequestAt?.toISOString() ?? null }, 'scheduled syncs paused: no request with the account token for the idle period');
}

export const leaseKey = (prefix: string, linkedAccountId: string) => `${prefix}:mktg-sync-lease:${linkedAccountId}`;

/**
 * One sync job: takes the account's lease, resumes its open run (or starts one), lets the platform
 * walk write pages through the sink, and records the outcome. Never throws for a platform's answer:
 * a rate limit or transient failure becomes a delayed job that resumes from the checkpoint, so the
 * worker moves on to other accounts at once.
 */
export async function processSyncJob(deps: SyncWorkerDeps, job: UnifiedDataSyncJob): Promise<SyncJobResult> {
  const account = await deps.db.linkedAccount.findUnique({ where: { id: job.linked_account_id } });
  if (!account) return 'skipped_missing';
  // PAUSED (refused credentials, or syncs failing for two weeks): scheduled syncs wait for a relink or a
  // manual resync, which still run.
  if (job.trigger === 'schedule' && (account.status === 'RELINK_NEEDED' || (await deps.db.syncStatus.count({ where: { linkedAccountId: account.id, status: 'PAUSED' } })) > 0)) {
    return 'skipped_paused';
  }
  if (job.trigger === 'schedule' && isIdle(account, deps.pauseIdleMs ?? PAUSE_IDLE_MS)) {
    await pauseIdle(deps, account);
    return 'skipped_paused';
  }
  // Contacts are found through events: with Event disabled nothing is synced.
  if (account.disabledModels.includes('events')) return 'skipped_disabled';
  const lease = await SyncLease.acquire(deps.redis, leaseKey(deps.lockPrefix, account.id), deps.leaseTtlMs ?? 30_000);
  if (!lease) {
    // Another worker is syncing this account: it continues any open run, and a full pass asked for after
    // that run started follows it. A request that came as the run was finishing may have been missed
    // there, so a resync job whose full pass is still owed beyond the open run waits a little and tries
    // again (it finds it served, or runs it); other manual syncs try again as well.
    if (job.trigger === 'manual') {
      const run = job.mode === 'full' ? await deps.db.syncRun.findUnique({ where: { linkedAccountId: account.id } }) : null;
      const retry = job.mode === 'incremental' || (run !== null && fullPassOwedAfterOpenRun(run));
      if (retry) await deps.scheduler.enqueue(account, job.mode, 'manual', new Date(Date.now() + 5_000));
    }
    return 'skipped_busy';
  }
  try {
    return await runLocked(deps, account, job, lease);
  } finally {
    await lease.release();
  }
}

async function runLocked(deps: SyncWorkerDeps, linked: LinkedAccount, job: UnifiedDataSyncJob, lease: SyncLease): Promise<SyncJobResult> {
  const { db } = deps;
  let account = linked;
  let run = await db.syncRun.findUnique({ where: { linkedAccountId: account.id } });
  if (!run) return 'skipped_missing';
  const now = new Date();
  if (!run.runId) {
    // Whether a run is full is the database's to say (a pass owed), not the job's: a full-sync job
    // whose pass a finished run already served (several requests, one pass) has nothing left to do.
    if (job.mode === 'full' && !fullPassOwed(run)) return 'skipped_served';
    await startRun(db, account.id, randomUUID(), now);
    run = await db.syncRun.findUniqueOrThrow({ where: { linkedAccountId: account.id } });
    await setSyncStatuses(db, account.id, { status: 'SYNCING', lastSyncStart: now });
  } else {
    await setSyncStatuses(db, account.id, { status: 'SYNCING' });
  }
  if (!run.runId) return 'skipped_missing';
  const runId = run.runId;
  const startedAt = run.startedAt ?? now;
  const kind = run.kind === 'incremental' ? 'incremental' : 'full';
  // Read after the run's counter: a model turned back on or a mapping added since is either seen here
  // or counted as asked for after this run started (and then a full pass follows it).
  account = (await db.linkedAccount.findUnique({ where: { id: account.id } })) ?? account;
  const mappings = await db.fieldMapping.findMany({ where: { linkedAccountId: account.id } });
  const fieldMappings: FieldMapping[] = mappings.map((m) => ({ model: m.model as FieldMapping['model'], target: m.targetFieldName, remotePath: m.remoteFieldPath }));
  const signal = deps.shutdown ? AbortSignal.any([lease.signal, deps.shutdown]) : lease.signal;
  const sink = new PostgresSyncSink(db, { linkedAccountId: account.id, runId }, signal, { ...deps.sinkOptions, touchUnchanged: kind === 'full' });

  let outcome: SyncOutcome;
  try {
    let credentials = openCredentials(deps.box, account.id, account.credentialsSealed);
    const platform = account.platform as Platform;
    const conn = connectionFor(platform, credentials, deps.config);
    // OAuth tokens: a refreshed pair is sealed and stored at once (Zoom's old refresh token dies with the refresh).
    conn.refreshAccessToken = async () => {
      credentials = await refreshPlatformTokens(deps.fetch ?? fetch, platform, deps.config, credentials, () => Date.now());
      await db.linkedAccount.update({ where: { id: account.id }, data: { credentialsSealed: sealCredentials(deps.box, account.id, credentials) } });
      const expiresAt = Number(credentials.expires_at);
      return { accessToken: credentials.access_token ?? '', expiresAt: Number.isFinite(expiresAt) ? expiresAt : null };
    };
    outcome = await (deps.runSync ?? defaultRunSync)({
      // Keyed by the credentials the run starts with (a refreshed OAuth token keeps counting there until the next run).
      gate: new RedisRequestGate(deps.redis, deps.lockPrefix, allowanceOf(platform, credentials)),
      conn,
      models: account.disabledModels.includes('contacts') ? ['events'] : ['events', 'contacts'],
      kind,
      modifiedSince: run.modifiedSince,
      checkpoint: run.checkpoint ?? null,
      fieldMappings,
      sink,
      signal,
      ...(deps.tuning ? { tuning: deps.tuning } : {}),
    });
  } catch (err) {
    outcome = { kind: 'failed', message: err instanceof Error ? err.message : String(err) };
  }
  try {
    // Pages the walk handed over may still be on their way into the database: an outcome (and the
    // checkpoint a pause stores) only holds once they are committed.
    await sink.flush();
  } catch (err) {
    outcome = { kind: 'failed', message: `The sink could not store a page: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (signal.aborted) {
    // Shutdown or a lost lease: the last committed page is the checkpoint; whoever runs next resumes.
    deps.logger.info({ linked_account_id: account.id, pages: sink.pages }, 'sync stopped; it resumes from its checkpoint');
    return 'aborted';
  }
  // Deleted while it synced: its records and sync state went with it (the fence refused the pages).
  if (!(await db.linkedAccount.findUnique({ where: { id: account.id }, select: { id: true } }))) return 'skipped_missing';
  const finished = new Date();
  switch (outcome.kind) {
    case 'done': {
      const partial = (outcome.skippedListings ?? 0) > 0;
      const { fullPassOwed: followUp } = await db.$transaction(async (tx) => {
        if (outcome.completeFullPass) await markMissingAsDeleted(tx, { linkedAccountId: account.id, runId }, { contacts: !account.disabledModels.includes('contacts') });
        await recordFinishedRun(tx, { linkedAccountId: account.id, runId, kind, startedAt, finishedAt: finished, result: partial ? 'PARTIALLY_SYNCED' : 'DONE', error: null });
        const closed = await finishRun(tx, account.id, runId, startedAt);
        // A full pass asked for while this run was open follows it at once: its job is written with the
        // run's end, so it is not lost if the worker stops now.
        if (closed.fullPassOwed) await enqueueSyncInTx(tx, account, 'full', 'manual');
        await setSyncStatuses(tx, account.id, {
          status: closed.fullPassOwed ? 'SYNCING' : 'DONE',
          lastSyncResult: 'DONE',
          lastSyncFinished: finished,
          isInitialSync: false,
          nextSyncStart: closed.fullPassOwed ? finished : await deps.scheduler.nextRun(account.id),
        });
        // Some contact listings were refused and skipped: the contacts are only partly there.
        if (partial) await setModelStatus(tx, account.id, 'contacts', { ...(closed.fullPassOwed ? {} : { status: 'PARTIALLY_SYNCED' }), lastSyncResult: 'PARTIALLY_SYNCED' });
        if (account.status !== 'COMPLETE') await tx.linkedAccount.update({ where: { id: account.id }, data: { status: 'COMPLETE', statusDetail: null } });
        return closed;
      });
      deps.logger.info(
        { linked_account_id: account.id, kind, pages: sink.pages, records: sink.records, skipped_listings: outcome.skippedListings ?? 0, full_pass_follows: followUp },
        followUp ? 'sync done; a full pass asked for during it follows' : 'sync done',
      );
      return partial ? 'partially_synced' : 'done';
    }
    case 'rate_limited':
    case 'transient': {
      const at = outcome.kind === 'rate_limited' ? outcome.retryAt : new Date(finished.getTime() + (deps.transientRetryMs ?? 15_000));
      await db.$executeRaw`UPDATE sync_runs SET checkpoint = ${JSON.stringify(outcome.checkpoint ?? null)}::jsonb
        WHERE linked_account_id = ${account.id}::uuid AND run_id = ${runId}::uuid`;
      await setSyncStatuses(db, account.id, { status: 'SYNCING', nextSyncStart: at });
      await deps.scheduler.enqueue(account, kind, 'schedule', at);
      deps.logger.info({ linked_account_id: account.id, resume_at: at.toISOString(), reason: outcome.message }, `sync paused (${outcome.kind}); resumes from its checkpoint`);
      return outcome.kind;
    }
    case 'credentials_invalid': {
      await db.$transaction(async (tx) => {
        await tx.linkedAccount.update({ where: { id: account.id }, data: { status: 'RELINK_NEEDED', statusDetail: outcome.message } });
        await recordFinishedRun(tx, { linkedAccountId: account.id, runId, kind, startedAt, finishedAt: finished, result: 'FAILED', error: outcome.message });
        // The open run stays: after a relink it resumes from its checkpoint. Until then scheduled syncs are PAUSED.
        await setSyncStatuses(tx, account.id, { status: 'PAUSED', lastSyncResult: 'FAILED', lastSyncFinished: finished, nextSyncStart: null });
        if (account.status !== 'RELINK_NEEDED') {
          await auditSystemEvent(tx, account, AUDIT.credentialsInvalid, account.id, { platform: account.platform, message: outcome.message });
        }
      });
      return 'credentials_invalid';
    }
    case 'failed': {
      // The run starts over next time: a failure mid-pass must never let a later pass judge deletions on
      // partial data. A full pass it was serving stays owed (only a finished run serves requests).
      await recordFinishedRun(db, { linkedAccountId: account.id, runId, kind, startedAt, finishedAt: finished, result: 'FAILED', error: outcome.message });
      await db.syncRun.update({ where: { linkedAccountId: account.id }, data: { runId: null, kind: null, checkpoint: Prisma.DbNull, runFullResyncRequests: null } });
      // Merge pauses an account whose syncs have failed for more than two weeks; so do we (a resync resumes it).
      const failingSince = run.lastSuccessStartedAt ?? account.createdAt;
      const paused = finished.getTime() - failingSince.getTime() > PAUSE_AFTER_FAILING_MS;
      await setSyncStatuses(db, account.id, {
        status: paused ? 'PAUSED' : 'FAILED',
        lastSyncResult: 'FAILED',
        lastSyncFinished: finished,
        nextSyncStart: paused ? null : await deps.scheduler.nextRun(account.id),
      });
      deps.logger.warn({ linked_account_id: account.id, reason: outcome.message }, 'sync failed');
      return 'failed';
    }
  }
}
