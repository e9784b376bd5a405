import { ConflictError, NotFoundError, ValidationError, type FieldError } from '@patchbay/errors';
import { BUILT_IN_ROLES, PERMISSION_CODENAMES, builtInRole, normalizePermissions } from '@patchbay/permissions';
import { isUuid } from '@patchbay/service-kit';
import type { Db, Tx } from '../../db';
import type { CustomRole } from '../../generated/prisma/client';
import { recordAuditEvent } from '../audit-log';
import { AUDIT_EVENT_TYPES } from '../event-types';
import { assertHoldsAll } from './member-permissions';
import type { SessionPrincipal } from './session-principal';
import type { SessionEvents } from './sessions';

const SOURCE = 'access-keys-and-audit';

export interface RoleRecord {
  /** A built-in role's id (admin, developer, security, read_only) or a custom role's UUID. */
  id: string;
  name: string;
  description: string;
  built_in: boolean;
  /** Permission codenames, in catalog order. */
  permissions: string[];
  created_at: string | null;
  updated_at: string | null;
}

export interface RoleInput {
  name?: string;
  description?: string;
  permissions?: string[];
}

function customRecord(row: CustomRole): RoleRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    built_in: false,
    permissions: PERMISSION_CODENAMES.filter((p) => row.permissions.includes(p)),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function builtInRoleRecords(): RoleRecord[] {
  return BUILT_IN_ROLES.map((r) => ({ id: r.id, name: r.name, description: r.description, built_in: true, permissions: [...r.permissions], created_at: null, updated_at: null }));
}

/** The permissions of a custom role: codenames of the catalog only (legacy aliases are mapped). */
function validatePermissions(names: string[] | undefined, errors: FieldError[]): string[] | undefined {
  if (names === undefined) return undefined;
  const { permissions, unknown } = normalizePermissions(names);
  if (unknown.length > 0) errors.push({ field: 'body.permissions', message: `unknown permissions ${unknown.slice(0, 10).join(', ')}; GET /api/v1/permissions lists the catalog` });
  return permissions;
}

function validateName(name: string | undefined, errors: FieldError[]): string | undefined {
  if (name === undefined) return undefined;
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > 100) errors.push({ field: 'body.name', message: 'must be 1 to 100 characters' });
  else if (BUILT_IN_ROLES.some((r) => r.name.toLowerCase() === trimmed.toLowerCase() || r.id === trimmed.toLowerCase())) {
    errors.push({ field: 'body.name', message: `"${trimmed}" is the name of a built-in role; choose another` });
  }
  return trimmed;
}

export class RoleService {
  constructor(
    private readonly db: Db,
    private readonly events: SessionEvents,
  ) {}

  async list(organizationId: string): Promise<RoleRecord[]> {
    const rows = await this.db.customRole.findMany({ where: { organizationId }, orderBy: { nameNormalized: 'asc' } });
    return [...builtInRoleRecords(), ...rows.map(customRecord)];
  }

  async get(organizationId: string, roleId: string): Promise<RoleRecord> {
    const builtIn = builtInRoleRecords().find((r) => r.id === roleId);
    if (builtIn) return builtIn;
    return customRecord(await this.findCustom(this.db, organizationId, roleId));
  }

  async create(actor: SessionPrincipal, input: RoleInput): Promise<RoleRecord> {
    const errors: FieldError[] = [];
    const name = validateName(input.name, errors);
    if (name === undefined) errors.push({ field: 'body.name', message: 'is required' });
    const permissions = validatePermissions(input.permissions, errors);
    if (permissions === undefined) errors.push({ field: 'body.permissions', message: 'is required (a list of permission codenames; may be empty)' });
    if (input.description !== undefined && input.description.length > 500) errors.push({ field: 'body.description', message: 'must be at most 500 characters' });
    if (errors.length > 0) throw new ValidationError(errors);
    assertHoldsAll(actor, permissions!, 'A role with these permissions');
    const row = await this.db.$transaction(async (tx) => {
      await this.assertNameFree(tx, actor.organizationId, name!);
      const created = await tx.customRole.create({ data: { organizationId: actor.organizationId, name: name!, nameNormalized: name!.toLowerCase(), description: input.description ?? '', permissions: permissions! } });
      await recordAuditEvent(tx, roleEvent(actor, AUDIT_EVENT_TYPES.roleCreated, created.id, { name: created.name, permissions: created.permissions }));
      return created;
    });
    return customRecord(row);
  }

  async update(actor: SessionPrincipal, roleId: string, input: RoleInput): Promise<RoleRecord> {
    if (builtInRole(roleId)) throw ValidationError.forField('path.role_id', 'built-in roles cannot be changed; create a custom role instead');
    const errors: FieldError[] = [];
    const name = validateName(input.name, errors);
    const permissions = validatePermissions(input.permissions, errors);
    if (input.description !== undefined && input.description.length > 500) errors.push({ field: 'body.description', message: 'must be at most 500 characters' });
    if (errors.length > 0) throw new ValidationError(errors);
    const message = { organizationId: actor.organizationId };
    const row = await this.db.$transaction(async (tx) => {
      const current = await this.findCustom(tx, actor.organizationId, roleId);
      // Both what the role grants now and what it will grant: no widening a role beyond your own permissions.
      assertHoldsAll(actor, [...current.permissions, ...(permissions ?? [])], 'Changing this role');
      if (name !== undefined && name.toLowerCase() !== current.nameNormalized) await this.assertNameFree(tx, actor.organizationId, name);
      const updated = await tx.customRole.update({
        where: { id: current.id },
        data: {
          ...(name !== undefined ? { name, nameNormalized: name.toLowerCase() } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(permissions !== undefined ? { permissions } : {}),
        },
      });
      await recordAuditEvent(tx, roleEvent(actor, AUDIT_EVENT_TYPES.roleUpdated, updated.id, { name: updated.name, permissions_before: current.permissions, permissions: updated.permissions }));
      // Members holding the role gain or lose permissions: their cached sessions reload.
      await this.events.stage(tx, message);
      return updated;
    });
    await this.events.published(message);
    return customRecord(row);
  }

  async delete(actor: SessionPrincipal, roleId: string): Promise<void> {
    if (builtInRole(roleId)) throw ValidationError.forField('path.role_id', 'built-in roles cannot be deleted');
    const message = { organizationId: actor.organizationId };
    await this.db.$transaction(async (tx) => {
      const current = await this.findCustom(tx, actor.organizationId, roleId);
      assertHoldsAll(actor, current.permissions, 'Deleting this role');
      await tx.$executeRaw`UPDATE "memberships" SET "custom_role_ids" = array_remove("custom_role_ids", ${current.id}::uuid), "updated_at" = now() WHERE "organization_id" = ${actor.organizationId}::uuid AND ${current.id}::uuid = ANY("custom_role_ids")`;
      await tx.customRole.delete({ where: { id: current.id } });
      await recordAuditEvent(tx, roleEvent(actor, AUDIT_EVENT_TYPES.roleDeleted, current.id, { name: current.name }));
      await this.events.stage(tx, message);
    });
    await this.events.published(message);
  }

  private async findCustom(tx: Tx, organizationId: string, roleId: string): Promise<CustomRole> {
    const row = isUuid(roleId) ? await tx.customRole.findFirst({ where: { id: roleId, organizationId } }) : null;
    if (!row) throw new NotFoundError('No such role in this organization.');
    return row;
  }

  private async assertNameFree(tx: Tx, organizationId: string, name: string): Promise<void> {
    const existing = await tx.customRole.findFirst({ where: { organizationId, nameNormalized: name.toLowerCase() }, select: { id: true } });
    if (existing) throw new ConflictError(`A role named "${name}" already exists in this organization.`);
  }
}

function roleEvent(actor: SessionPrincipal, eventType: string, roleId: string, details: Record<string, unknown>) {
  return {
    organizationId: actor.organizationId,
    environment: 'production' as const,
    eventType,
    actorType: 'member' as const,
    actorMemberId: actor.memberId,
    resourceType: 'role',
    resourceId: roleId,
    sourceService: SOURCE,
    details,
  };
}

/** Checks role ids given for a member: built-in ids or this organization's custom roles. */
export async function resolveRoleIds(tx: Tx, organizationId: string, roleIds: string[] | undefined, field = 'body.role_ids'): Promise<{ roleIds: string[]; customRoleIds: string[] }> {
  if (roleIds === undefined) throw ValidationError.forField(field, 'is required: give at least one role id (GET /api/v1/roles lists them)');
  if (roleIds.length === 0) throw ValidationError.forField(field, 'must list at least one role (GET /api/v1/roles lists them)');
  const builtIns = [...new Set(roleIds.filter((id) => builtInRole(id)))];
  const others = [...new Set(roleIds.filter((id) => !builtInRole(id)))];
  const notIds = others.filter((id) => !isUuid(id));
  const found = others.length - notIds.length === 0 ? [] : await tx.customRole.findMany({ where: { organizationId, id: { in: others.filter(isUuid) } }, select: { id: true } });
  const unknown = others.filter((id) => !found.some((f) => f.id === id));
  if (unknown.length > 0) {
    throw ValidationError.forField(field, `unknown roles ${unknown.slice(0, 10).join(', ')}; built-in roles are ${BUILT_IN_ROLES.map((r) => r.id).join(', ')}, custom roles are given by id`);
  }
  return { roleIds: builtIns, customRoleIds: found.map((f) => f.id) };
}
