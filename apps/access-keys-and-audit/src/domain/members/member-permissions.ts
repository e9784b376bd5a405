import { PermissionDeniedError } from '@patchbay/errors';
import { PERMISSION_CODENAMES, builtInRole } from '@patchbay/permissions';

export interface RoleGrant {
  isOwner: boolean;
  roleIds: readonly string[];
  /** The permissions of each custom role the member holds. */
  customRolePermissions: readonly (readonly string[])[];
}

/** What a member may do: everything for the owner, else the union of their roles, in catalog order. */
export function permissionsOf(grant: RoleGrant): string[] {
  if (grant.isOwner) return [...PERMISSION_CODENAMES];
  const held = new Set<string>();
  for (const id of grant.roleIds) for (const p of builtInRole(id)?.permissions ?? []) held.add(p);
  for (const list of grant.customRolePermissions) for (const p of list) held.add(p);
  return PERMISSION_CODENAMES.filter((p) => held.has(p));
}

/**
 * No escalation: a member grants only permissions they hold themselves, and acts only on members whose
 * permissions they hold (else a member manager could make themselves, or a second account, an admin).
 */
export function assertHoldsAll(actor: { permissions: readonly string[] }, permissions: readonly string[], what: string): void {
  const missing = permissions.filter((p) => !actor.permissions.includes(p));
  if (missing.length > 0) {
    throw new PermissionDeniedError(`${what} needs permissions your roles do not grant: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}. Ask a member who holds them.`);
  }
}
