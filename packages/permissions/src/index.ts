export {
  LEGACY_PERMISSION_ALIASES,
  PERMISSIONS,
  PERMISSION_CODENAMES,
  isPermission,
  normalizePermissions,
  permissionDefinition,
  type Permission,
  type PermissionArea,
  type PermissionDefinition,
} from './catalog';
export { BUILT_IN_ROLES, builtInRole, type BuiltInRole } from './roles';
