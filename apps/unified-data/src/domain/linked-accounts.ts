import { randomUUID } from 'node:crypto';
import type { KeyPrincipal } from '@patchbay/auth';
import { ConflictError, NotFoundError, ServiceUnavailableError, ValidationError, type FieldError } from '@patchbay/errors';
import { PlatformError, verifyCredentials, type AccountInfo, type Platform } from '@patchbay/marketing-platforms';
import { retryOnTransactionConflict } from '@patchbay/db';
import { cursorList, decodeCursor, parseCursorPageSize, type CursorList } from '@patchbay/pagination';
import { isUuid } from '@patchbay/service-kit';
import type { Tx } from '../db';
import type { LinkedAccount } from '../generated/prisma/client';
import type { AppServices } from '../services';
import { enqueueSyncInTx } from '../sync/scheduler';
import { SYNC_MODELS } from '../sync/sync-status';
import { accountTokenChanged, generateAccountToken, stageAccountTokenChange } from './account-tokens';
import { AUDIT, auditLinkedAccount } from './audit';
import { CREDENTIAL_FIELDS, connectionFor, parseCredentials, platformField, sealCredentials } from './platform-credentials';

/** A linked account as the API shows it (Merge's names). */
export interface LinkedAccountView {
  id: string;
  platform: Platform;
  integration: { name: string; slug: Platform };
  category: 'mktg';
  /** COMPLETE, INCOMPLETE (first sync not finished yet) or RELINK_NEEDED (the platform refused the credentials). */
  status: string;
  status_detail: string | null;
  end_user_origin_id: string;
  end_user_organization_name: string;
  end_user_email_address: string | null;
  remote_account_id: string | null;
  remote_account_name: string | null;
  is_test_account: boolean;
  /** Seconds between incremental syncs. */
  sync_frequency_seconds: number;
  created_at: string;
}

export interface LinkedAccountCreated extends LinkedAccountView {
  /** Shown only here: send it as X-Account-Token. */
  account_token: string;
}

export interface LinkedAccountInput {
  platform: string;
  /** The platform's credentials: `access_token` for HubSpot and Eventbrite; Zoom `access_token` or `account_id` + `client_id` + `client_secret`. */
  credentials: Record<string, unknown>;
  end_user_origin_id: string;
  end_user_organization_name: string;
  end_user_email_address?: string;
  /** Seconds between incremental syncs (60 to 604800); default: the installation's MKTG_SYNC_FREQUENCY_SECONDS. */
  sync_frequency_seconds?: number;
}

export function toLinkedAccountView(row: LinkedAccount): LinkedAccountView {
  const platform = row.platform as Platform;
  return {
    id: row.id,
    platform,
    integration: { name: CREDENTIAL_FIELDS[platform].label, slug: platform },
    category: 'mktg',
    status: row.status,
    status_detail: row.statusDetail,
    end_user_origin_id: row.endUserOriginId,
    end_user_organization_name: row.endUserOrganizationName,
    end_user_email_address: row.endUserEmailAddress,
    remote_account_id: row.remoteAccountId,
    remote_account_name: row.remoteAccountName,
    is_test_account: row.environment === 'test',
    sync_frequency_seconds: row.syncFrequencySeconds,
    created_at: row.createdAt.toISOString(),
  };
}

/** The end-user fields every way of linking shares; pushes problems onto `errors`. */
export function parseEndUser(body: Record<string, unknown>, errors: FieldError[]): { originId: string; organizationName: string; email: string | null } {
  const str = (key: string, required: boolean, max = 256): string | null => {
    const value = body[key];
    if (value === undefined || value === null || value === '') {
      if (required) errors.push({ field: `body.${key}`, message: 'is required' });
      return null;
    }
    if (typeof value !== 'string' || value.length > max) {
      errors.push({ field: `body.${key}`, message: `must be a string of at most ${max} characters` });
      return null;
    }
    return value;
  };
  const originId = str('end_user_origin_id', true) ?? '';
  const organizationName = str('end_user_organization_name', true) ?? '';
  const email = str('end_user_email_address', false);
  if (email !== null && !/^[^@\s]+@[^@\s]+$/.test(email)) errors.push({ field: 'body.end_user_email_address', message: 'must be an email address' });
  return { originId, organizationName, email };
}

export function parseSyncFrequency(value: unknown, fallback: number, errors: FieldError[]): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 60 || value > 604_800) {
    errors.push({ field: 'body.sync_frequency_seconds', message: 'must be an integer from 60 to 604800' });
    return fallback;
  }
  return value;
}

/** Asks the platform whether the credentials work; a refusal is the caller's mistake (400). */
export async function checkCredentials(services: Pick<AppServices, 'config'>, platform: Platform, credentials: Record<string, string>): Promise<AccountInfo> {
  try {
    return await verifyCredentials(connectionFor(platform, credentials, services.config));
  } catch (err) {
    if (err instanceof PlatformError && err.kind === 'credentials_invalid') {
      throw ValidationError.forField('body.credentials', `were refused by ${CREDENTIAL_FIELDS[platform].label}: ${err.message}`);
    }
    const why = err instanceof Error ? err.message : String(err);
    throw new ServiceUnavailableError(`${CREDENTIAL_FIELDS[platform].label} could not check the credentials right now (${why}); try again shortly.`);
  }
}

interface NewAccount {
  platform: Platform;
  credentials: Record<string, string>;
  originId: string;
  organizationName: string;
  email: string | null;
  syncFrequencySeconds: number;
  info: AccountInfo;
}

/**
 * Stores a new linked account with its sync state, its audit event and the initial full sync job, in
 * one transaction (the job leaves through the outbox, so it is not lost if Redis is down).
 */
export async function insertLinkedAccount(
  tx: Tx,
  services: Pick<AppServices, 'box'>,
  principal: KeyPrincipal,
  input: NewAccount,
  via: 'api' | 'link',
): Promise<{ row: LinkedAccount; accountToken: string }> {
  const id = randomUUID();
  const { token, hash } = generateAccountToken();
  const row = await tx.linkedAccount.create({
    data: {
      id,
      organizationId: principal.organizationId,
      environment: principal.environment,
      platform: input.platform,
      status: 'INCOMPLETE',
      // Millisecond precision, as the list's cursors carry it (see the migration oauth_link_and_model_toggles).
      createdAt: new Date(),
      endUserOriginId: input.originId,
      endUserOrganizationName: input.organizationName,
      endUserEmailAddress: input.email,
      remoteAccountId: input.info.remoteAccountId,
      remoteAccountName: input.info.name,
      accountTokenHash: hash,
      credentialsSealed: sealCredentials(services.box, id, input.credentials),
      syncFrequencySeconds: input.syncFrequencySeconds,
    },
  });
  await tx.syncStatus.createMany({ data: SYNC_MODELS.map((model) => ({ linkedAccountId: id, model, status: 'SYNCING', isInitialSync: true })) });
  await tx.syncRun.create({ data: { linkedAccountId: id } });
  await auditLinkedAccount(tx, principal, AUDIT.linked, id, { platform: input.platform, end_user_origin_id: input.originId, via });
  await enqueueSyncInTx(tx, row, 'full', 'account_linked');
  return { row, accountToken: token };
}

/** POST /linked-accounts: the server-side way to link an account. */
export async function createLinkedAccount(services: AppServices, principal: KeyPrincipal, body: LinkedAccountInput): Promise<LinkedAccountCreated> {
  const raw = body as unknown as Record<string, unknown>;
  const platform = platformField(raw.platform);
  const credentials = parseCredentials(platform, raw.credentials);
  const errors: FieldError[] = [];
  const endUser = parseEndUser(raw, errors);
  const syncFrequencySeconds = parseSyncFrequency(raw.sync_frequency_seconds, services.config.MKTG_SYNC_FREQUENCY_SECONDS, errors);
  if (errors.length > 0) throw new ValidationError(errors);
  await assertOriginFree(services, principal, endUser.originId);
  const info = await checkCredentials(services, platform, credentials);
  let created: { row: LinkedAccount; accountToken: string };
  try {
    created = await services.db.$transaction((tx) =>
      insertLinkedAccount(tx, services, principal, { platform, credentials, ...endUser, syncFrequencySeconds, info }, 'api'),
    );
  } catch (err) {
    if ((err as { code?: string }).code === 'P2002') throw originTaken(endUser.originId);
    throw err;
  }
  void services.relay.kick();
  await scheduleAfterCommit(services, created.row);
  return { ...toLinkedAccountView(created.row), account_token: created.accountToken };
}

/**
 * The account's incremental schedule, once it is committed. Redis being down must not fail a link that
 * is stored: the initial sync is in the outbox, and every worker re-creates missing schedules at start.
 */
export async function scheduleAfterCommit(services: Pick<AppServices, 'scheduler' | 'logger'>, account: LinkedAccount): Promise<void> {
  try {
    await services.scheduler.schedule(account);
  } catch (err) {
    services.logger.warn({ linked_account_id: account.id, error: err instanceof Error ? err.message : String(err) }, 'sync schedule not created; a worker re-creates it at start');
  }
}

function originTaken(originId: string): ConflictError {
  return new ConflictError(
    `end_user_origin_id "${originId}" already has a linked account (one per end user): relink it through a link token, or delete it first.`,
  );
}

async function assertOriginFree(services: AppServices, principal: KeyPrincipal, originId: string): Promise<void> {
  const existing = await services.db.linkedAccount.findFirst({
    where: { organizationId: principal.organizationId, environment: principal.environment, endUserOriginId: originId },
    select: { id: true },
  });
  if (existing) throw originTaken(originId);
}

/** What the linked-accounts list takes besides its cursor: Merge's status filter, the platform, a search, the order. */
export interface LinkedAccountListQuery {
  cursor?: string;
  page_size?: string;
  status?: string;
  platform?: string;
  search?: string;
  order?: string;
}

const STATUSES = ['COMPLETE', 'INCOMPLETE', 'RELINK_NEEDED'] as const;
const ORDERS = ['created_at', '-created_at'] as const;
/** The cursor's third key element when the list runs newest first (oldest first carries none, as before). */
const NEWEST_FIRST = 'd';

function parseListFilters(query: LinkedAccountListQuery): { status?: string; platform?: string; search?: string; newestFirst: boolean } {
  const errors: FieldError[] = [];
  const given = (v: string | undefined) => (v !== undefined && v !== '' ? v : undefined);
  const status = given(query.status);
  if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) errors.push({ field: 'query.status', message: `must be one of ${STATUSES.join(', ')}` });
  const platform = given(query.platform);
  if (platform !== undefined && !(platform in CREDENTIAL_FIELDS)) errors.push({ field: 'query.platform', message: `must be one of ${Object.keys(CREDENTIAL_FIELDS).join(', ')}` });
  const search = given(query.search?.trim());
  if (search !== undefined && search.length > 256) errors.push({ field: 'query.search', message: 'must be at most 256 characters' });
  const order = given(query.order) ?? 'created_at';
  if (!(ORDERS as readonly string[]).includes(order)) errors.push({ field: 'query.order', message: 'must be created_at (oldest first) or -created_at (newest first)' });
  if (errors.length > 0) throw new ValidationError(errors);
  return { status, platform, search, newestFirst: order === '-created_at' };
}

/**
 * One page of the organization's linked accounts of the key's environment, oldest first (Merge's
 * order, as for events) or newest first (`order=-created_at`): a keyset cursor on (created_at, id),
 * page_size 1 to 100. Filters: `status`, `platform`, and `search` (a case-insensitive part of the end
 * user's origin id or organization name). Keep them unchanged while paging, as for every cursor list.
 */
export async function listLinkedAccounts(services: AppServices, principal: KeyPrincipal, query: LinkedAccountListQuery): Promise<CursorList<LinkedAccount>> {
  const pageSize = parseCursorPageSize(query.page_size);
  const filters = parseListFilters(query);
  const from = query.cursor !== undefined && query.cursor !== '' ? decodeCursor(query.cursor) : null;
  let after: { createdAt: Date; id: string } | null = null;
  if (from) {
    const [at, id, order] = from.key;
    const createdAt = typeof at === 'string' ? new Date(at) : null;
    const cursorNewestFirst = order === NEWEST_FIRST;
    if (!createdAt || Number.isNaN(createdAt.getTime()) || typeof id !== 'string' || !isUuid(id) || from.key.length > 3 || (order !== undefined && !cursorNewestFirst)) {
      throw ValidationError.forField('query.cursor', 'is not a cursor this API returned; send the next or previous value of an earlier page unchanged');
    }
    if (cursorNewestFirst !== filters.newestFirst) {
      throw ValidationError.forField('query.cursor', 'was returned for the other order; keep order unchanged while paging, or drop the cursor to start from the first page');
    }
    after = { createdAt, id };
  }
  const back = from?.direction === 'previous';
  // Walking forward in ascending order, or back in descending order, goes towards later rows.
  const later = back === filters.newestFirst;
  const beyond = <T>(v: T) => (later ? { gt: v } : { lt: v });
  const direction = later ? 'asc' : 'desc';
  const rows = await services.db.linkedAccount.findMany({
    where: {
      organizationId: principal.organizationId,
      environment: principal.environment,
      ...(filters.status ? { status: filters.status } : {}),
      ...(filters.platform ? { platform: filters.platform } : {}),
      ...(filters.search
        ? { OR: [{ endUserOriginId: { contains: filters.search, mode: 'insensitive' as const } }, { endUserOrganizationName: { contains: filters.search, mode: 'insensitive' as const } }] }
        : {}),
      ...(after ? { AND: [{ OR: [{ createdAt: beyond(after.createdAt) }, { createdAt: after.createdAt, id: beyond(after.id) }] }] } : {}),
    },
    orderBy: [{ createdAt: direction }, { id: direction }],
    take: pageSize + 1,
  });
  if (back) rows.reverse();
  return cursorList(rows, { pageSize, from, keyOf: (r) => (filters.newestFirst ? [r.createdAt.toISOString(), r.id, NEWEST_FIRST] : [r.createdAt.toISOString(), r.id]) });
}

export async function getLinkedAccount(services: AppServices, principal: KeyPrincipal, id: string): Promise<LinkedAccount> {
  const notFound = () => new NotFoundError(`No linked account ${id} in this organization and environment.`);
  if (!isUuid(id)) throw notFound();
  const row = await services.db.linkedAccount.findFirst({ where: { id, organizationId: principal.organizationId, environment: principal.environment } });
  if (!row) throw notFound();
  return row;
}

/** Deletes the account and every record synced from it, and stops its schedule. */
export async function deleteLinkedAccount(services: AppServices, principal: KeyPrincipal, id: string): Promise<void> {
  const row = await getLinkedAccount(services, principal, id);
  await services.scheduler.unschedule(row.id);
  // A sync of the account may be writing its records meanwhile and can lock them in another order
  // (a full pass ending marks events, then contacts): PostgreSQL then aborts one side to break the
  // deadlock, and when it is this side, the deletion runs again once the sync's write is through.
  await retryOnTransactionConflict(() =>
    services.db.$transaction(async (tx) => {
      // Children first, in bulk: a cascade over a million events is the same work, but explicit deletes keep the plan simple.
      await tx.$executeRaw`DELETE FROM event_contacts WHERE linked_account_id = ${row.id}::uuid`;
      await tx.$executeRaw`DELETE FROM contacts WHERE linked_account_id = ${row.id}::uuid`;
      await tx.$executeRaw`DELETE FROM events WHERE linked_account_id = ${row.id}::uuid`;
      await tx.linkedAccount.delete({ where: { id: row.id } });
      await auditLinkedAccount(tx, principal, AUDIT.deleted, row.id, { platform: row.platform, end_user_origin_id: row.endUserOriginId });
      await stageAccountTokenChange(tx, row.id);
    }),
  );
  await accountTokenChanged(services.accountTokens, services.relay, row.id);
}

/** A new account token for the account; the old one stops working at once. */
export async function regenerateAccountToken(services: AppServices, principal: KeyPrincipal, account: Pick<LinkedAccount, 'id'>): Promise<{ linked_account_id: string; account_token: string }> {
  const { token, hash } = generateAccountToken();
  await services.db.$transaction(async (tx) => {
    await tx.linkedAccount.update({ where: { id: account.id }, data: { accountTokenHash: hash } });
    await auditLinkedAccount(tx, principal, AUDIT.tokenRegenerated, account.id, {});
    await stageAccountTokenChange(tx, account.id);
  });
  await accountTokenChanged(services.accountTokens, services.relay, account.id);
  return { linked_account_id: account.id, account_token: token };
}
