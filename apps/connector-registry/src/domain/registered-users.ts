import { randomUUID } from 'node:crypto';
import { assertRegisteredUserInScope, registeredUserIdFilter, type KeyPrincipal } from '@patchbay/auth';
import { ConflictError, isUniqueViolation, NotFoundError, NotInScopeError, ValidationError, type FieldError } from '@patchbay/errors';
import type { PageParams } from '@patchbay/pagination';
import { QUEUE_NAMES, addToOutbox } from '@patchbay/queues';
import type { Db, Tx } from '../db';
import type { Environment, Prisma, RegisteredUser, UserType } from '../generated/prisma/client';
import { emitAudit } from './audit';
import { isUuid } from './ids';

export const TEXT_MAX = 255;
const USER_TYPES: UserType[] = ['HUMAN', 'SYSTEM'];

/** Groupings across which credentials are shared: SHARED connections belong to `origin_company_id`. */
export interface SharedCredentialGroup {
  origin_company_id: string;
  origin_company_name: string;
  /** Free-form string labels; stored and returned as given. */
  custom_groupings: Record<string, string>;
}

/** The registered-user record of the API (spec: Registered user). */
export interface RegisteredUserRecord {
  id: string;
  origin_user_id: string;
  origin_user_name: string;
  shared_credential_group: SharedCredentialGroup;
  user_type: UserType;
  /**
   * Slugs with an ACTIVE connection usable on this user's behalf: the user's own (INDIVIDUAL),
   * its company's (SHARED, by origin_company_id) and the organization's (ORGANIZATION). Sorted, unique.
   */
  authenticated_connectors: string[];
  is_test: boolean;
  created_at: string;
  updated_at: string;
}

export interface SharedCredentialGroupInput {
  origin_company_id?: string;
  origin_company_name?: string;
  custom_groupings?: Record<string, string>;
}

export interface CreateRegisteredUserInput {
  origin_user_id?: string;
  origin_user_name?: string;
  shared_credential_group?: SharedCredentialGroupInput;
  user_type?: string | null;
}

export type UpdateRegisteredUserInput = CreateRegisteredUserInput;

export interface ListRegisteredUsersFilters {
  includeTestUsers?: boolean;
  isTest?: boolean;
  originUserId?: string;
  /** origin_user_id starting with it, or origin_user_name containing it; either case. */
  search?: string;
}

/**
 * Which environments a list shows, by the spec's precedence: `is_test` when given; else
 * `include_test_users=true` shows both kinds; else the default, production only, except that a test
 * key of an organization with environment matching gets test users. The key's own environment then
 * bounds the answer: a key never sees the other environment's users, in lists either.
 */
export function listedEnvironments(principal: KeyPrincipal, filters: Pick<ListRegisteredUsersFilters, 'includeTestUsers' | 'isTest'>): Environment[] {
  let requested: Environment[];
  if (filters.isTest !== undefined) requested = filters.isTest ? ['test'] : ['production'];
  else if (filters.includeTestUsers === true) requested = ['production', 'test'];
  else if (principal.environment === 'test' && principal.organization.environmentMatching) requested = ['test'];
  else requested = ['production'];
  return requested.filter((e) => e === principal.environment);
}

function validateGroup(group: SharedCredentialGroupInput | undefined, errors: FieldError[]): void {
  const field = 'body.shared_credential_group';
  if (group === undefined || group === null || typeof group !== 'object') {
    errors.push({ field, message: 'is required: {origin_company_id, origin_company_name, custom_groupings}' });
    return;
  }
  checkText(group.origin_company_id, `${field}.origin_company_id`, errors);
  checkText(group.origin_company_name, `${field}.origin_company_name`, errors);
  const custom = group.custom_groupings;
  if (custom === undefined) return;
  if (custom === null || typeof custom !== 'object' || Array.isArray(custom)) {
    errors.push({ field: `${field}.custom_groupings`, message: 'must be an object of string keys to string values' });
    return;
  }
  for (const [key, value] of Object.entries(custom)) {
    if (typeof value !== 'string') errors.push({ field: `${field}.custom_groupings.${key}`, message: 'must be a string' });
  }
}

function checkText(value: unknown, field: string, errors: FieldError[]): void {
  if (value === undefined) errors.push({ field, message: 'is required' });
  else if (typeof value !== 'string' || value.trim() === '' || value.length > TEXT_MAX) errors.push({ field, message: `must be a string of 1 to ${TEXT_MAX} characters` });
}

function parseUserType(value: string | null | undefined, errors: FieldError[]): UserType | undefined {
  // null and omitted both mean the default on create; on update null resets to the default.
  if (value === undefined) return undefined;
  if (value === null) return 'HUMAN';
  if (!USER_TYPES.includes(value as UserType)) {
    errors.push({ field: 'body.user_type', message: `must be ${USER_TYPES.join(' or ')} (or null for HUMAN)` });
    return undefined;
  }
  return value as UserType;
}

function groupColumns(group: SharedCredentialGroupInput): Pick<Prisma.RegisteredUserUncheckedCreateInput, 'originCompanyId' | 'originCompanyName' | 'customGroupings'> {
  return {
    originCompanyId: group.origin_company_id as string,
    originCompanyName: group.origin_company_name as string,
    customGroupings: group.custom_groupings ?? {},
  };
}

/**
 * The connector slugs each user may run with (ACTIVE connections at any scope that covers the user),
 * for a page of users in one query.
 */
async function authenticatedConnectors(db: Db | Tx, organizationId: string, environment: Environment, users: RegisteredUser[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>(users.map((u) => [u.id, []]));
  if (users.length === 0) return result;
  const rows = await db.connection.findMany({
    where: {
      organizationId,
      environment,
      status: 'ACTIVE',
      OR: [
        { authScope: 'INDIVIDUAL', registeredUserId: { in: users.map((u) => u.id) } },
        { authScope: 'SHARED', companyId: { in: [...new Set(users.map((u) => u.originCompanyId))] } },
        { authScope: 'ORGANIZATION' },
      ],
    },
    select: { connectorSlug: true, authScope: true, registeredUserId: true, companyId: true },
  });
  for (const user of users) {
    const slugs = new Set<string>();
    for (const row of rows) {
      const covers =
        row.authScope === 'ORGANIZATION' ||
        (row.authScope === 'INDIVIDUAL' && row.registeredUserId === user.id) ||
        (row.authScope === 'SHARED' && row.companyId === user.originCompanyId);
      if (covers) slugs.add(row.connectorSlug);
    }
    result.set(user.id, [...slugs].sort());
  }
  return result;
}

function toRecord(row: RegisteredUser, connectors: string[]): RegisteredUserRecord {
  return {
    id: row.id,
    origin_user_id: row.originUserId,
    origin_user_name: row.originUserName,
    shared_credential_group: {
      origin_company_id: row.originCompanyId,
      origin_company_name: row.originCompanyName,
      custom_groupings: (row.customGroupings ?? {}) as Record<string, string>,
    },
    user_type: row.userType,
    authenticated_connectors: connectors,
    is_test: row.environment === 'test',
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * A registered user the key may act on, or the 404 the spec asks for: `Resource not in API key scope.`
 * outside the key's registered-user list, `Registered user not found.` when missing or in the other
 * environment or organization.
 */
export async function findRegisteredUser(db: Db | Tx, principal: KeyPrincipal, id: string): Promise<RegisteredUser> {
  if (!isUuid(id)) throw new NotFoundError('Registered user not found.');
  assertRegisteredUserInScope(principal, id);
  const row = await db.registeredUser.findFirst({ where: { id, organizationId: principal.organizationId, environment: principal.environment } });
  if (!row) throw new NotFoundError('Registered user not found.');
  return row;
}

export class RegisteredUserService {
  constructor(private readonly db: Db) {}

  private async record(row: RegisteredUser): Promise<RegisteredUserRecord> {
    const connectors = await authenticatedConnectors(this.db, row.organizationId, row.environment, [row]);
    return toRecord(row, connectors.get(row.id) ?? []);
  }

  /** The existing user with this origin_user_id, as the key may see it (a restricted key gets 404 for others). */
  private async existing(principal: KeyPrincipal, originUserId: string): Promise<RegisteredUser | null> {
    const row = await this.db.registeredUser.findUnique({
      where: { organizationId_environment_originUserId: { organizationId: principal.organizationId, environment: principal.environment, originUserId } },
    });
    if (row) assertRegisteredUserInScope(principal, row.id);
    return row;
  }

  /**
   * Idempotent on origin_user_id within the organization and environment: `created: false` returns the
   * existing record unchanged, whatever the other fields say, also when two creates race (the unique
   * constraint decides, the loser returns the winner's record).
   */
  async create(principal: KeyPrincipal, input: CreateRegisteredUserInput): Promise<{ record: RegisteredUserRecord; created: boolean }> {
    const errors: FieldError[] = [];
    checkText(input.origin_user_id, 'body.origin_user_id', errors);
    checkText(input.origin_user_name, 'body.origin_user_name', errors);
    validateGroup(input.shared_credential_group, errors);
    const userType = parseUserType(input.user_type, errors) ?? 'HUMAN';
    if (errors.length > 0) throw new ValidationError(errors);
    const originUserId = input.origin_user_id as string;

    const found = await this.existing(principal, originUserId);
    if (found) return { record: await this.record(found), created: false };
    // A key restricted to registered users acts only on those: it cannot add users it could never see.
    // Same 404 as for an existing user outside its list, so it cannot probe which origin ids exist.
    if (registeredUserIdFilter(principal) !== null) throw new NotInScopeError();

    try {
      const row = await this.db.$transaction(async (tx) => {
        const created = await tx.registeredUser.create({
          data: {
            organizationId: principal.organizationId,
            environment: principal.environment,
            originUserId,
            originUserName: input.origin_user_name as string,
            userType,
            ...groupColumns(input.shared_credential_group as SharedCredentialGroupInput),
          },
        });
        await emitAudit(tx, principal, {
          eventType: 'registered_user.created',
          resourceType: 'registered_user',
          resourceId: created.id,
          userId: created.id,
          details: { origin_user_id: created.originUserId, user_type: created.userType, origin_company_id: created.originCompanyId },
        });
        return created;
      });
      return { record: toRecord(row, []), created: true };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const winner = await this.existing(principal, originUserId);
      if (!winner) throw err;
      return { record: await this.record(winner), created: false };
    }
  }

  async list(principal: KeyPrincipal, filters: ListRegisteredUsersFilters, page: PageParams): Promise<{ count: number; results: RegisteredUserRecord[] }> {
    const environments = listedEnvironments(principal, filters);
    if (environments.length === 0) return { count: 0, results: [] };
    const allowed = registeredUserIdFilter(principal);
    const where: Prisma.RegisteredUserWhereInput = {
      organizationId: principal.organizationId,
      environment: { in: environments },
      ...(allowed ? { id: { in: allowed } } : {}),
      ...(filters.originUserId !== undefined ? { originUserId: filters.originUserId } : {}),
      ...(filters.search !== undefined
        ? { OR: [{ originUserId: { startsWith: filters.search, mode: 'insensitive' as const } }, { originUserName: { contains: filters.search, mode: 'insensitive' as const } }] }
        : {}),
    };
    const [count, rows] = await Promise.all([
      this.db.registeredUser.count({ where }),
      this.db.registeredUser.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: page.offset, take: page.pageSize }),
    ]);
    const connectors = await authenticatedConnectors(this.db, principal.organizationId, principal.environment, rows);
    return { count, results: rows.map((r) => toRecord(r, connectors.get(r.id) ?? [])) };
  }

  async get(principal: KeyPrincipal, id: string): Promise<RegisteredUserRecord> {
    return this.record(await findRegisteredUser(this.db, principal, id));
  }

  /**
   * Partial update: omitted fields stay; `shared_credential_group` replaces the whole group;
   * `user_type: null` resets to HUMAN; `origin_user_id` may change if no other user of the
   * organization and environment has it (409 otherwise).
   */
  async update(principal: KeyPrincipal, id: string, input: UpdateRegisteredUserInput): Promise<RegisteredUserRecord> {
    const current = await findRegisteredUser(this.db, principal, id);
    const errors: FieldError[] = [];
    if (input.origin_user_id !== undefined) checkText(input.origin_user_id, 'body.origin_user_id', errors);
    if (input.origin_user_name !== undefined) checkText(input.origin_user_name, 'body.origin_user_name', errors);
    if (input.shared_credential_group !== undefined) validateGroup(input.shared_credential_group, errors);
    const userType = parseUserType(input.user_type, errors);
    if (errors.length > 0) throw new ValidationError(errors);

    const data: Prisma.RegisteredUserUncheckedUpdateInput = {
      ...(input.origin_user_id !== undefined ? { originUserId: input.origin_user_id } : {}),
      ...(input.origin_user_name !== undefined ? { originUserName: input.origin_user_name } : {}),
      ...(input.shared_credential_group !== undefined ? groupColumns(input.shared_credential_group) : {}),
      ...(userType !== undefined ? { userType } : {}),
    };
    // An empty body changes nothing: no write, no audit event.
    if (Object.keys(data).length === 0) return this.record(current);
    try {
      const row = await this.db.$transaction(async (tx) => {
        const updated = await tx.registeredUser.update({ where: { id }, data: { ...data, updatedAt: new Date() } });
        await emitAudit(tx, principal, {
          eventType: 'registered_user.updated',
          resourceType: 'registered_user',
          resourceId: id,
          userId: id,
          details: { changed: Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined).sort() },
        });
        return updated;
      });
      return this.record(row);
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(`Another registered user already has origin_user_id "${input.origin_user_id ?? ''}".`, { field: 'origin_user_id' });
      throw err;
    }
  }

  /**
   * Irreversible: deletes the user's own credentials (INDIVIDUAL connections; SHARED and ORGANIZATION
   * ones belong to the company or organization and stay), its link tokens and its profile, and tells
   * mcp-runtime (through the outbox, in the same transaction) to delete its tool-call records.
   */
  async delete(principal: KeyPrincipal, id: string): Promise<void> {
    const user = await findRegisteredUser(this.db, principal, id);
    const scope = { organizationId: principal.organizationId, environment: principal.environment };
    await this.db.$transaction(async (tx) => {
      const connections = await tx.connection.deleteMany({ where: { ...scope, authScope: 'INDIVIDUAL', registeredUserId: id } });
      const linkTokens = await tx.linkToken.deleteMany({ where: { ...scope, registeredUserId: id } });
      await tx.registeredUser.delete({ where: { id } });
      const eventId = randomUUID();
      await addToOutbox(tx, {
        queue: QUEUE_NAMES.registeredUserDeletions,
        payload: {
          event_id: eventId,
          organization_id: principal.organizationId,
          environment: principal.environment,
          registered_user_id: id,
          deleted_at: new Date().toISOString(),
        },
      });
      await emitAudit(tx, principal, {
        eventType: 'registered_user.deleted',
        resourceType: 'registered_user',
        resourceId: id,
        userId: id,
        details: { origin_user_id: user.originUserId, credentials_deleted: connections.count, link_tokens_deleted: linkTokens.count },
      });
    });
  }
}
