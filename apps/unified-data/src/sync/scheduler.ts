import { randomUUID } from 'node:crypto';
import { QUEUE_NAMES, addToOutbox, type OutboxWriter, type UnifiedDataSyncJob } from '@patchbay/queues';
import type { Queue } from 'bullmq';
import { SYNC_MODELS } from './sync-status';

type AccountRef = { id: string; organizationId: string; environment: 'production' | 'test'; platform: string; syncFrequencySeconds: number };

export function syncJob(account: AccountRef, mode: UnifiedDataSyncJob['mode'], trigger: UnifiedDataSyncJob['trigger']): UnifiedDataSyncJob {
  return {
    event_id: randomUUID(),
    organization_id: account.organizationId,
    environment: account.environment,
    linked_account_id: account.id,
    integration_slug: account.platform,
    models: [...SYNC_MODELS],
    mode,
    trigger,
    requested_at: new Date().toISOString(),
  };
}

/** Queues a sync through the outbox, inside the caller's transaction (used when an account is linked). */
export async function enqueueSyncInTx(tx: OutboxWriter, account: AccountRef, mode: UnifiedDataSyncJob['mode'], trigger: UnifiedDataSyncJob['trigger']): Promise<void> {
  await addToOutbox(tx, { queue: QUEUE_NAMES.unifiedDataSync, jobName: `${mode}-sync`, payload: syncJob(account, mode, trigger) });
}

export const schedulerId = (linkedAccountId: string) => `mktg-sync-${linkedAccountId}`;

const JOB_OPTIONS = { attempts: 3, backoff: { type: 'exponential' as const, delay: 5000 }, removeOnComplete: { age: 3600, count: 1000 }, removeOnFail: { age: 7 * 86_400 } };

/**
 * The sync jobs of linked accounts on BullMQ: one job scheduler per account (its incremental syncs,
 * every `syncFrequencySeconds`), and single jobs for resyncs and for resuming after a rate limit.
 */
export class SyncScheduler {
  constructor(private readonly queue: Pick<Queue, 'add' | 'upsertJobScheduler' | 'removeJobScheduler' | 'getJobScheduler'>) {}

  /** Creates or updates the account's schedule; its first run is one interval from now (the initial sync is its own job). */
  async schedule(account: AccountRef): Promise<void> {
    const every = account.syncFrequencySeconds * 1000;
    await this.queue.upsertJobScheduler(
      schedulerId(account.id),
      { every, startDate: Date.now() + every },
      { name: 'incremental-sync', data: syncJob(account, 'incremental', 'schedule'), opts: JOB_OPTIONS },
    );
  }

  async unschedule(linkedAccountId: string): Promise<void> {
    await this.queue.removeJobScheduler(schedulerId(linkedAccountId));
  }

  /** When the schedule runs next, if there is one. */
  async nextRun(linkedAccountId: string): Promise<Date | null> {
    const scheduler = await this.queue.getJobScheduler(schedulerId(linkedAccountId));
    return scheduler?.next ? new Date(scheduler.next) : null;
  }

  /** A one-off job, now or at `at`. */
  async enqueue(account: AccountRef, mode: UnifiedDataSyncJob['mode'], trigger: UnifiedDataSyncJob['trigger'], at?: Date): Promise<void> {
    const payload = syncJob(account, mode, trigger);
    // One clock reading for both, so the job runs exactly at `at` (timestamp + delay).
    const now = Date.now();
    const delay = at ? Math.max(0, at.getTime() - now) : 0;
    await this.queue.add(`${mode}-sync`, payload, { ...JOB_OPTIONS, jobId: payload.event_id, timestamp: now, delay });
  }
}
