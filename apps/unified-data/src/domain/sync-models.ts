import type { KeyPrincipal } from '@patchbay/auth';
import { ValidationError } from '@patchbay/errors';
import type { SyncModel } from '@patchbay/marketing-platforms';
import type { LinkedAccount, SyncStatus } from '../generated/prisma/client';
import type { AppServices } from '../services';
import { requestFullPass } from '../sync/full-pass';
import { enqueueSyncInTx } from '../sync/scheduler';
import { syncStatusesOf } from '../sync/sync-status';
import { AUDIT, auditLinkedAccount } from './audit';

const MODEL_IDS: Record<string, SyncModel> = { 'mktg.Event': 'events', Event: 'events', 'mktg.Contact': 'contacts', Contact: 'contacts' };

/** `mktg.Event` / `Event` or `mktg.Contact` / `Contact` (the sync status's model_id or model_name). */
export function parseModelId(modelId: string): SyncModel {
  const model = MODEL_IDS[modelId];
  if (!model) throw ValidationError.forField('path.model_id', 'must be mktg.Event or mktg.Contact (or the model_name Event or Contact)');
  return model;
}

const ORDER: readonly SyncModel[] = ['events', 'contacts'];
const sorted = (models: Iterable<string>) => ORDER.filter((m) => new Set(models).has(m));

/**
 * Turns a model's sync off for the account: its status becomes DISABLED, syncs stop fetching it, its
 * records stay as they were. Contacts are found through events, so disabling Event disables Contact too.
 * Audited (linked_account.model_sync_disabled, with the models turned off).
 */
export async function disableModel(services: AppServices, principal: KeyPrincipal, account: LinkedAccount, model: SyncModel): Promise<SyncStatus[]> {
  const turnOff = model === 'events' ? ['events', 'contacts'] : ['contacts'];
  await services.db.$transaction(async (tx) => {
    await tx.linkedAccount.update({ where: { id: account.id }, data: { disabledModels: sorted([...account.disabledModels, ...turnOff]) } });
    await tx.syncStatus.updateMany({ where: { linkedAccountId: account.id, model: { in: turnOff } }, data: { status: 'DISABLED', nextSyncStart: null } });
    await auditLinkedAccount(tx, principal, AUDIT.modelSyncDisabled, account.id, { models: turnOff });
  });
  return syncStatusesOf(services.db, account.id);
}

/**
 * Turns a model's sync back on: a full sync is queued at once (what changed while it was off is fetched
 * again; with a run open, the full pass follows it) and its status is SYNCING. Enabling Contact enables Event too. Audited when something was off
 * (linked_account.model_sync_enabled, with the models turned on).
 */
export async function enableModel(services: AppServices, principal: KeyPrincipal, account: LinkedAccount, model: SyncModel): Promise<SyncStatus[]> {
  const turnOn = model === 'contacts' ? ['events', 'contacts'] : ['events'];
  const wasOff = account.disabledModels.filter((m) => turnOn.includes(m));
  if (wasOff.length > 0) {
    await services.db.$transaction(async (tx) => {
      await tx.linkedAccount.update({ where: { id: account.id }, data: { disabledModels: account.disabledModels.filter((m) => !turnOn.includes(m)) } });
      await tx.syncStatus.updateMany({ where: { linkedAccountId: account.id, model: { in: wasOff }, status: 'DISABLED' }, data: { status: 'SYNCING', nextSyncStart: new Date() } });
      await requestFullPass(tx, account.id);
      await enqueueSyncInTx(tx, account, 'full', 'manual');
      await auditLinkedAccount(tx, principal, AUDIT.modelSyncEnabled, account.id, { models: wasOff });
    });
    await services.relay.kick();
  }
  return syncStatusesOf(services.db, account.id);
}
