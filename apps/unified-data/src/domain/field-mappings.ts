import { randomUUID } from 'node:crypto';
import type { KeyPrincipal } from '@patchbay/auth';
import { ConflictError, NotFoundError, ValidationError, type FieldError } from '@patchbay/errors';
import { checkFieldMapping, type Platform, type SyncModel } from '@patchbay/marketing-platforms';
import { isUuid } from '@patchbay/service-kit';
import type { FieldMapping } from '../generated/prisma/client';
import type { AccountIdentity } from './account-tokens';
import type { AppServices } from '../services';
import { requestFullPass } from '../sync/full-pass';
import { SYNC_MODELS } from '../sync/sync-status';
import { AUDIT, auditLinkedAccount } from './audit';

export interface FieldMappingInput {
  /** events or contacts */
  model: string;
  /** The key the value appears under in the records' field_mappings.linked_account_defined_targets. */
  target_field_name: string;
  /** Dot path into the platform's original record, e.g. `eventType` or `customProperties.<name>`. */
  remote_field_path: string;
}

export interface FieldMappingView {
  id: string;
  model: string;
  target_field_name: string;
  remote_field_path: string;
  created_at: string;
}

export const toFieldMappingView = (m: FieldMapping): FieldMappingView => ({
  id: m.id,
  model: m.model,
  target_field_name: m.targetFieldName,
  remote_field_path: m.remoteFieldPath,
  created_at: m.createdAt.toISOString(),
});

export async function listFieldMappings(services: AppServices, account: Pick<AccountIdentity, 'id' | 'platform'>): Promise<FieldMappingView[]> {
  const rows = await services.db.fieldMapping.findMany({ where: { linkedAccountId: account.id }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return rows.map(toFieldMappingView);
}

/**
 * Adds a mapping; the next sync is a full one, so every record gets it (as Merge does). Made while a run
 * is open, a full pass follows that run.
 */
export async function createFieldMapping(services: AppServices, principal: KeyPrincipal, account: Pick<AccountIdentity, 'id' | 'platform'>, body: FieldMappingInput): Promise<FieldMappingView> {
  const raw = body as unknown as Record<string, unknown>;
  const errors: FieldError[] = [];
  const model = raw.model;
  if (typeof model !== 'string' || !(SYNC_MODELS as readonly string[]).includes(model)) errors.push({ field: 'body.model', message: 'must be events or contacts' });
  const target = raw.target_field_name;
  if (typeof target !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(target)) {
    errors.push({ field: 'body.target_field_name', message: 'must be 1 to 64 letters, digits or _ (not starting with a digit)' });
  }
  const path = raw.remote_field_path;
  if (typeof path !== 'string' || path.length === 0 || path.length > 256) errors.push({ field: 'body.remote_field_path', message: 'is required (a dot path of at most 256 characters)' });
  if (errors.length > 0) throw new ValidationError(errors);
  const p = path as string;
  const problem = checkFieldMapping(account.platform as Platform, { model: model as SyncModel, remotePath: p, target: target as string });
  if (problem) throw ValidationError.forField('body.remote_field_path', problem);
  try {
    const row = await services.db.$transaction(async (tx) => {
      const created = await tx.fieldMapping.create({
        data: { id: randomUUID(), linkedAccountId: account.id, model: model as string, targetFieldName: target as string, remoteFieldPath: p },
      });
      await requestFullPass(tx, account.id);
      await auditLinkedAccount(tx, principal, AUDIT.fieldMappingCreated, account.id, { model, target_field_name: target, remote_field_path: p });
      return created;
    });
    void services.relay.kick();
    return toFieldMappingView(row);
  } catch (err) {
    if ((err as { code?: string }).code === 'P2002') throw new ConflictError(`A ${String(model)} field mapping onto "${String(target)}" already exists; delete it first.`);
    throw err;
  }
}

export async function deleteFieldMapping(services: AppServices, principal: KeyPrincipal, account: Pick<AccountIdentity, 'id' | 'platform'>, id: string): Promise<void> {
  const notFound = new NotFoundError(`No field mapping ${id} on this linked account.`);
  if (!isUuid(id)) throw notFound;
  await services.db.$transaction(async (tx) => {
    const removed = await tx.fieldMapping.deleteMany({ where: { id, linkedAccountId: account.id } });
    if (removed.count !== 1) throw notFound;
    await requestFullPass(tx, account.id);
    await auditLinkedAccount(tx, principal, AUDIT.fieldMappingDeleted, account.id, { field_mapping_id: id });
  });
  void services.relay.kick();
}
