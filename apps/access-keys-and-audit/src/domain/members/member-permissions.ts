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
