import {
  type Environment,
  type KeyPrincipal,
  type Scope,
  SCOPES,
  addKeyInvalidationToOutbox,
  generateAccessKey,
  hashesEqual,
  maskAccessKey,
} from '@patchbay/auth';
import {
  InvalidRequestError,
  KeyScopeViolationError,
  NotFoundError,
  PermissionDeniedError,
  ValidationError,
  type FieldError,
} from '@patchbay/errors';
import type { PageParams } from '@patchbay/pagination';
import type { Db, Tx } from '../db';
import type { RestrictionIdChecker } from './restriction-ids';
import type { AccessKey, Organization } from '../generated/prisma/client';
import { recordAuditEvent } from './audit-log';
import { covers, expiryCovers, isUnrestrictedKey, restrictionCovers, type KeyDimensions } from './coverage';
import { AUDIT_EVENT_TYPES } from './event-types';
import { organizationSettings } from './management-keys';
import { isUuid } from '@patchbay/service-kit';
import type { Prisma } from '../generated/prisma/client';
import type { SessionPrincipal } from './members/session-principal';

export const DEFAULT_KEY_LIFETIME_DAYS = 90;
const SOURCE = 'access-keys-and-audit';

/** The wire shape of an access key. The secret appears only in `key`, on create and regenerate. */
export interface AccessKeyRecord {
  id: string;
  /** Null only for the master key. */
  name: string | null;
  environment: Environment;
  key_masked: string;
  scopes: Scope[];
  tool_pack_ids: string[] | null;
  registered_user_ids: string[] | null;
  expires_at: string | null;
  is_master: boolean;
  /** Set for a key linked to a service account; such a key cannot be regenerated. */
  service_account: string | null;
  status: 'active' | 'revoked' | 'expired';
  created_at: string;
  regenerated_at: string | null;
  revoked_at: string | null;
}

export interface AccessKeyWithSecret extends AccessKeyRecord {
  key: string;
}

export interface CreateAccessKeyInput {
  name?: string;
  scopes?: string[];
  tool_pack_ids?: string[] | null;
  registered_user_ids?: string[] | null;
  expires_at?: string | null;
  expires_in?: number;
}

/**
 * Side effects after a commit: other services drop the key from their caches. The invalidation itself
 * is written to the outbox in the change's transaction; keyChanged publishes it now.
 */
/**
 * Who acts on keys: an access key (the API: no wider than itself, spec Authentication 8-9), or a member
 * signed in to the console holding manage_access_keys (checked by the route), who acts on any key of the
 * session's organization and environment and is named in the audit log.
 */
export type KeyActor = { kind: 'key'; principal: KeyPrincipal } | { kind: 'member'; principal: Pick<SessionPrincipal, 'organizationId' | 'environment' | 'memberId'> };

/** The console's key list: search by name or the key's last characters, sort by a column. */
export interface AccessKeyListFilters {
  search?: string;
  sort?: string;
}

export const ACCESS_KEY_SORTS = ['created_at', '-created_at', 'name', '-name', 'expires_at', '-expires_at'] as const;

export interface KeyEvents {
  keyChanged(oldKeyHash: string): Promise<void>;
}

export function dimensionsOfRow(row: AccessKey): KeyDimensions {
  return {
    id: row.id,
    environment: row.environment,
    scopes: row.scopes as Scope[],
    toolPackIds: row.toolPacksRestricted ? row.toolPackIds : null,
    registeredUserIds: row.usersRestricted ? row.registeredUserIds : null,
    expiresAt: row.expiresAt,
  };
}

export function dimensionsOfPrincipal(p: KeyPrincipal): KeyDimensions {
  return {
    id: p.keyId,
    environment: p.environment,
    scopes: p.scopes,
    toolPackIds: p.toolPackIds,
    registeredUserIds: p.registeredUserIds,
    expiresAt: p.expiresAt ? new Date(p.expiresAt) : null,
  };
}

function statusOf(row: AccessKey, now: Date): AccessKeyRecord['status'] {
  if (row.revokedAt) return 'revoked';
  if (row.expiresAt && row.expiresAt <= now) return 'expired';
  return 'active';
}

export function toAccessKeyRecord(row: AccessKey, now: Date = new Date()): AccessKeyRecord {
  const d = dimensionsOfRow(row);
  return {
    id: row.id,
    name: row.name,
    environment: row.environment,
    key_masked: maskAccessKey(row.keyPrefix, row.keyLast4),
    scopes: d.scopes,
    tool_pack_ids: d.toolPackIds,
    registered_user_ids: d.registeredUserIds,
    expires_at: row.expiresAt?.toISOString() ?? null,
    is_master: row.isMaster,
    service_account: row.serviceAccount,
    status: statusOf(row, now),
    created_at: row.createdAt.toISOString(),
    regenerated_at: row.regeneratedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

/** The principal other services act on, from a key row and its organization. */
export function toPrincipal(row: AccessKey & { organization: Organization }): KeyPrincipal {
  const d = dimensionsOfRow(row);
  return {
    keyId: row.id,
    organizationId: row.organizationId,
    environment: row.environment,
    scopes: d.scopes,
    toolPackIds: d.toolPackIds,
    registeredUserIds: d.registeredUserIds,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    isMaster: row.isMaster,
    serviceAccount: row.serviceAccount,
    organization: organizationSettings(row.organization),
  };
}

/** Finds the active key with this hash; revoked keys are never returned. Expiry is checked by the verifier. */
export async function loadPrincipalByHash(db: Db, keyHash: string): Promise<KeyPrincipal | null> {
  const row = await db.accessKey.findUnique({ where: { keyHash }, include: { organization: true } });
  if (!row || row.revokedAt || !hashesEqual(row.keyHash, keyHash)) return null;
  return toPrincipal(row);
}

function validateIdList(field: string, value: string[] | null | undefined, errors: FieldError[]): void {
  if (value === undefined || value === null) return;
  if (value.length === 0) {
    errors.push({ field: `body.${field}`, message: 'must list at least one id, or be null for unrestricted' });
    return;
  }
  const bad = value.filter((v) => !isUuid(v));
  if (bad.length > 0) errors.push({ field: `body.${field}`, message: `must contain UUIDs only; not UUIDs: ${bad.slice(0, 5).join(', ')}` });
}

/**
 * Resolves the new key's dimensions from the request and the caller. Omitted restrictions and
 * scopes are inherited from the caller; anything wider than the caller is refused (spec, Authentication 8).
 */
export function resolveNewKeyDimensions(caller: Pick<KeyPrincipal, 'environment' | 'scopes' | 'toolPackIds' | 'registeredUserIds' | 'expiresAt'>, input: CreateAccessKeyInput, now: Date): Omit<KeyDimensions, 'id'> & { name: string } {
  const errors: FieldError[] = [];
  const name = input.name?.trim();
  if (!name) errors.push({ field: 'body.name', message: 'is required' });
  else if (name.length > 255) errors.push({ field: 'body.name', message: 'must be at most 255 characters' });
  if (input.scopes !== undefined) {
    if (input.scopes.length === 0) errors.push({ field: 'body.scopes', message: `must contain at least one of ${SCOPES.join(', ')}` });
    const unknown = input.scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
    if (unknown.length > 0) errors.push({ field: 'body.scopes', message: `unknown scopes ${unknown.join(', ')}; allowed: ${SCOPES.join(', ')}` });
  }
  validateIdList('tool_pack_ids', input.tool_pack_ids, errors);
  validateIdList('registered_user_ids', input.registered_user_ids, errors);

  let expiresAt: Date | null;
  const hasAt = input.expires_at !== undefined;
  const hasIn = input.expires_in !== undefined;
  if (hasAt && hasIn) {
    errors.push({ field: 'body.expires_in', message: 'send either expires_at or expires_in, not both' });
    expiresAt = null;
  } else if (hasIn) {
    const seconds = input.expires_in as number;
    if (!Number.isSafeInteger(seconds) || seconds < 1) errors.push({ field: 'body.expires_in', message: 'must be a whole number of seconds, at least 1' });
    expiresAt = new Date(now.getTime() + seconds * 1000);
  } else if (hasAt && input.expires_at !== null) {
    const parsed = new Date(input.expires_at as string);
    if (Number.isNaN(parsed.getTime())) errors.push({ field: 'body.expires_at', message: 'must be an ISO 8601 date-time or null' });
    else if (parsed <= now) errors.push({ field: 'body.expires_at', message: 'must be in the future' });
    expiresAt = parsed;
  } else if (hasAt) {
    expiresAt = null;
  } else {
    // The 90-day default never outlives the caller: a key cannot create a key wider than itself.
    const defaultExpiry = new Date(now.getTime() + DEFAULT_KEY_LIFETIME_DAYS * 86_400_000);
    const callerExpiry = caller.expiresAt ? new Date(caller.expiresAt) : null;
    expiresAt = callerExpiry && callerExpiry < defaultExpiry ? callerExpiry : defaultExpiry;
  }
  if (errors.length > 0) throw new ValidationError(errors);

  const scopes = (input.scopes ?? caller.scopes) as Scope[];
  const toolPackIds = input.tool_pack_ids === undefined ? caller.toolPackIds : input.tool_pack_ids;
  const registeredUserIds = input.registered_user_ids === undefined ? caller.registeredUserIds : input.registered_user_ids;

  const wider: string[] = [];
  if (!scopes.every((s) => caller.scopes.includes(s))) wider.push('scopes must be a subset of the calling key\'s scopes');
  if (!restrictionCovers(caller.toolPackIds, toolPackIds)) {
    wider.push(toolPackIds === null ? 'tool_pack_ids may be null (unrestricted) only when the calling key is unrestricted on tool packs' : 'tool_pack_ids must be a subset of the calling key\'s tool packs');
  }
  if (!restrictionCovers(caller.registeredUserIds, registeredUserIds)) {
    wider.push(registeredUserIds === null ? 'registered_user_ids may be null (unrestricted) only when the calling key is unrestricted on registered users' : 'registered_user_ids must be a subset of the calling key\'s registered users');
  }
  if (!expiryCovers(caller.expiresAt ? new Date(caller.expiresAt) : null, expiresAt)) wider.push('the new key must expire no later than the calling key');
  if (wider.length > 0) throw new PermissionDeniedError(`A new key cannot be wider than the calling key: ${wider.join('; ')}.`);

  return {
    name: name as string,
    environment: caller.environment,
    scopes: [...new Set(scopes)],
    toolPackIds: toolPackIds === null ? null : [...new Set(toolPackIds)],
    registeredUserIds: registeredUserIds === null ? null : [...new Set(registeredUserIds)],
    expiresAt,
  };
}

export class AccessKeyService {
  constructor(
    private readonly db: Db,
    private readonly events: KeyEvents,
    private readonly clock: () => Date = () => new Date(),
    /** Checks that restriction ids exist (connector-registry); without it they are checked only for form. */
    private readonly restrictionIds?: RestrictionIdChecker,
  ) {}

  async list(caller: Pick<KeyPrincipal, 'organizationId' | 'environment'>, page: PageParams, filters: AccessKeyListFilters = {}): Promise<{ count: number; results: AccessKeyRecord[] }> {
    const now = this.clock();
    const sort = filters.sort ?? '-created_at';
    if (!(ACCESS_KEY_SORTS as readonly string[]).includes(sort)) throw ValidationError.forField('query.sort', `must be one of ${ACCESS_KEY_SORTS.join(', ')}`);
    const search = filters.search?.trim();
    if (search !== undefined && search.length > 255) throw ValidationError.forField('query.search', 'must be at most 255 characters');
    const where: Prisma.AccessKeyWhereInput = {
      organizationId: caller.organizationId,
      environment: caller.environment,
      revokedAt: null,
      AND: [
        { OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
        ...(search ? [{ OR: [{ name: { contains: search, mode: 'insensitive' as const } }, { keyLast4: search }] }] : []),
      ],
    };
    const direction = sort.startsWith('-') ? 'desc' : 'asc';
    const column = sort.replace(/^-/, '');
    // Keys without a name (the master key) or without an expiry sort last either way.
    const orderBy: Prisma.AccessKeyOrderByWithRelationInput[] =
      column === 'name' ? [{ name: { sort: direction, nulls: 'last' } }] : column === 'expires_at' ? [{ expiresAt: { sort: direction, nulls: 'last' } }] : [{ createdAt: direction }];
    const [count, rows] = await Promise.all([
      this.db.accessKey.count({ where }),
      this.db.accessKey.findMany({ where, orderBy: [...orderBy, { id: direction }], skip: page.offset, take: page.pageSize }),
    ]);
    return { count, results: rows.map((r) => toAccessKeyRecord(r, now)) };
  }

  async get(caller: Pick<KeyPrincipal, 'organizationId' | 'environment'>, keyId: string): Promise<AccessKeyRecord> {
    return toAccessKeyRecord(await this.findInEnvironment(this.db, caller, keyId), this.clock());
  }

  async create(caller: KeyPrincipal, input: CreateAccessKeyInput): Promise<AccessKeyWithSecret> {
    const now = this.clock();
    return this.store({ kind: 'key', principal: caller }, resolveNewKeyDimensions(caller, input, now), input, now);
  }

  /**
   * A key made in the console (spec: "Keys created in the dashboard cannot choose scopes and so reach
   * both runtime and management endpoints"): every scope, with the tool-pack and registered-user
   * restrictions and the expiry asked for, none of which can be edited later.
   */
  async createForMember(member: Extract<KeyActor, { kind: 'member' }>['principal'], input: CreateAccessKeyInput): Promise<AccessKeyWithSecret> {
    if (input.scopes !== undefined) {
      throw ValidationError.forField('body.scopes', `keys created in the console cannot choose scopes; they get ${SCOPES.join(' and ')}. Restrict them by tool pack, registered user or expiry instead, or create a scoped key through the API with a key`);
    }
    // An unrestricted, never-expiring caller: the member's permission, checked by the route, is the limit.
    const unrestricted = { environment: member.environment, scopes: [...SCOPES], toolPackIds: null, registeredUserIds: null, expiresAt: null };
    const now = this.clock();
    const dims = resolveNewKeyDimensions(unrestricted, { tool_pack_ids: null, registered_user_ids: null, ...input }, now);
    return this.store({ kind: 'member', principal: member }, dims, input, now);
  }

  /** Stores a new key with its audit event; `now` is the instant its expiry was computed from, so expires_in is exact. */
  private async store(actor: KeyActor, dims: Omit<KeyDimensions, 'id'> & { name: string }, input: CreateAccessKeyInput, now: Date): Promise<AccessKeyWithSecret> {
    const caller = actor.principal;
    await this.checkRestrictionIdsExist(caller, input);
    const material = generateAccessKey(dims.environment);
    const row = await this.db.$transaction(async (tx) => {
      const created = await tx.accessKey.create({
        data: {
          organizationId: caller.organizationId,
          environment: dims.environment,
          name: dims.name,
          keyHash: material.hash,
          keyPrefix: material.prefix,
          keyLast4: material.last4,
          scopes: dims.scopes,
          toolPacksRestricted: dims.toolPackIds !== null,
          toolPackIds: dims.toolPackIds ?? [],
          usersRestricted: dims.registeredUserIds !== null,
          registeredUserIds: dims.registeredUserIds ?? [],
          expiresAt: dims.expiresAt,
          createdByKeyId: actor.kind === 'key' ? actor.principal.keyId : null,
          createdAt: now,
        },
      });
      await recordAuditEvent(tx, keyEvent(AUDIT_EVENT_TYPES.accessKeyCreated, actor, created, now));
      return created;
    });
    return { ...toAccessKeyRecord(row, now), key: material.key };
  }

  async regenerate(by: KeyPrincipal | KeyActor, keyId: string): Promise<AccessKeyWithSecret> {
    const actor = asActor(by);
    const now = this.clock();
    const { row, oldHash, key } = await this.db.$transaction(async (tx) => {
      const target = await this.findForAction(tx, actor, keyId);
      if (target.environment === 'test') throw new InvalidRequestError('Test keys cannot be regenerated; revoke the key and create a new one.');
      if (target.serviceAccount) throw new InvalidRequestError('This key is linked to a service account and has no secret to regenerate; revoke it and link a new key instead.');
      if (target.expiresAt && target.expiresAt <= now) throw new InvalidRequestError('This key has expired; regenerating keeps its expiry, so create a new key instead.');
      const material = generateAccessKey(target.environment);
      const updated = await tx.accessKey.update({
        where: { id: target.id },
        data: { keyHash: material.hash, keyPrefix: material.prefix, keyLast4: material.last4, regeneratedAt: now },
      });
      await recordAuditEvent(tx, keyEvent(AUDIT_EVENT_TYPES.accessKeyRegenerated, actor, updated, now));
      await addKeyInvalidationToOutbox(tx, { keyHash: target.keyHash });
      return { row: updated, oldHash: target.keyHash, key: material.key };
    });
    await this.events.keyChanged(oldHash);
    return { ...toAccessKeyRecord(row, now), key };
  }

  async revoke(by: KeyPrincipal | KeyActor, keyId: string): Promise<void> {
    const actor = asActor(by);
    const caller = actor.principal;
    const now = this.clock();
    const oldHash = await this.db.$transaction(async (tx) => {
      // One revocation at a time per organization, so two concurrent revokes cannot remove the last two unrestricted keys.
      // NO KEY UPDATE, not UPDATE: a concurrent regenerate's audit insert takes KEY SHARE on the organization (its foreign
      // key) while holding its key's row lock, and FOR UPDATE would deadlock with it (seen under the fuzzer).
      await tx.$queryRaw`SELECT id FROM organizations WHERE id = ${caller.organizationId}::uuid FOR NO KEY UPDATE`;
      const target = await this.findForAction(tx, actor, keyId);
      if (target.isMaster) throw new InvalidRequestError('The master key cannot be revoked; regenerate it instead.');
      if (target.environment === 'production' && isUnrestrictedKey(dimensionsOfRow(target)) && (!target.expiresAt || target.expiresAt > now)) {
        const others = await tx.accessKey.findMany({
          where: {
            organizationId: target.organizationId,
            environment: 'production',
            revokedAt: null,
            id: { not: target.id },
            toolPacksRestricted: false,
            usersRestricted: false,
            OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
          },
        });
        if (!others.some((k) => isUnrestrictedKey(dimensionsOfRow(k)))) {
          throw new InvalidRequestError('This is the organization\'s last unrestricted production key and cannot be revoked; create another unrestricted production key first.');
        }
      }
      const revoked = await tx.accessKey.update({ where: { id: target.id }, data: { revokedAt: now, revokedByKeyId: actor.kind === 'key' ? actor.principal.keyId : null } });
      await recordAuditEvent(tx, keyEvent(AUDIT_EVENT_TYPES.accessKeyRevoked, actor, revoked, now));
      await addKeyInvalidationToOutbox(tx, { keyHash: target.keyHash });
      return target.keyHash;
    });
    await this.events.keyChanged(oldHash);
  }

  /** Ids sent in tool_pack_ids / registered_user_ids must exist in the caller's organization and environment: 400 naming each that does not. */
  private async checkRestrictionIdsExist(caller: Pick<KeyPrincipal, 'organizationId' | 'environment'>, input: CreateAccessKeyInput): Promise<void> {
    const toolPackIds = [...new Set(input.tool_pack_ids ?? [])];
    const registeredUserIds = [...new Set(input.registered_user_ids ?? [])];
    if (!this.restrictionIds || (toolPackIds.length === 0 && registeredUserIds.length === 0)) return;
    const missing = await this.restrictionIds.missing({ organizationId: caller.organizationId, environment: caller.environment, toolPackIds, registeredUserIds });
    const errors: FieldError[] = [
      ...missing.toolPackIds.map((id) => ({ field: 'body.tool_pack_ids', message: `tool pack ${id} does not exist in this organization and environment` })),
      ...missing.registeredUserIds.map((id) => ({ field: 'body.registered_user_ids', message: `registered user ${id} does not exist in this organization and environment` })),
    ];
    if (errors.length > 0) throw new ValidationError(errors);
  }

  /** A key of the caller's organization and environment; the other environment's keys are 404 like missing ones. */
  private async findInEnvironment(db: Tx, caller: Pick<KeyPrincipal, 'organizationId' | 'environment'>, keyId: string): Promise<AccessKey> {
    const row = isUuid(keyId) ? await db.accessKey.findFirst({ where: { id: keyId, organizationId: caller.organizationId, environment: caller.environment } }) : null;
    if (!row) throw new NotFoundError('Access key not found.');
    return row;
  }

  /**
   * The active target of a regenerate or revoke, locked for the transaction. It is looked up across the
   * organization's environments because environment is one of the coverage dimensions (spec,
   * Authentication 9): a key of the other environment gets the same 403 as any key the caller does not cover.
   */
  private async findForAction(db: Tx, actor: KeyActor, keyId: string): Promise<AccessKey> {
    if (!isUuid(keyId)) throw new NotFoundError('Access key not found.');
    await db.$queryRaw`SELECT id FROM access_keys WHERE id = ${keyId}::uuid FOR UPDATE`;
    const caller = actor.principal;
    // A member acts in the session's environment only: the other environment's keys are 404, as everywhere.
    const environment = actor.kind === 'member' ? { environment: caller.environment } : {};
    const row = await db.accessKey.findFirst({ where: { id: keyId, organizationId: caller.organizationId, revokedAt: null, ...environment } });
    if (!row) throw new NotFoundError('Access key not found.');
    if (actor.kind === 'key' && !covers(dimensionsOfPrincipal(actor.principal), dimensionsOfRow(row))) throw new KeyScopeViolationError();
    return row;
  }
}

function asActor(by: KeyPrincipal | KeyActor): KeyActor {
  return 'kind' in by ? by : { kind: 'key', principal: by };
}

function keyEvent(eventType: string, actor: KeyActor, target: AccessKey, now: Date) {
  const record = toAccessKeyRecord(target, now);
  return {
    organizationId: target.organizationId,
    environment: target.environment,
    eventType,
    actorType: actor.kind === 'key' ? ('access_key' as const) : ('member' as const),
    actorKeyId: actor.kind === 'key' ? actor.principal.keyId : null,
    actorMemberId: actor.kind === 'member' ? actor.principal.memberId : null,
    targetKeyId: target.id,
    resourceType: 'access_key',
    resourceId: target.id,
    sourceService: SOURCE,
    details: {
      name: record.name,
      key_masked: record.key_masked,
      scopes: record.scopes,
      tool_pack_ids: record.tool_pack_ids,
      registered_user_ids: record.registered_user_ids,
      expires_at: record.expires_at,
    },
    createdAt: now,
  };
}
