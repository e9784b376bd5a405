export { SCOPES } from './principal';
export type { Environment, GatewayOrganizationSettings, KeyPrincipal, OrganizationSettings, Scope } from './principal';
export { generateAccessKey, hashAccessKey, hashesEqual, maskAccessKey } from './keys';
export type { GeneratedKey } from './keys';
export { parseBearer } from './bearer';
export { SERVICE_TOKEN_HEADER, requireServiceToken } from './service-token';
export { KEY_INVALIDATION_CHANNEL, KeyVerifier, addKeyInvalidationToOutbox, parseKeyInvalidation, publishKeyInvalidation } from './verifier';
export type { CacheablePrincipal, KeyInvalidation, KeyLoader, KeyVerifierOptions } from './verifier';
export {
  LEGACY_MANAGEMENT_SCOPES,
  MANAGEMENT_KEY_PREFIX,
  MANAGEMENT_SCOPES,
  MANAGEMENT_VERIFY_PATH,
  ORGANIZATION_SETTINGS_PATH,
  httpManagementKeyLoader,
  httpOrganizationLoader,
  normalizeManagementScopes,
} from './management';
export type { ManagementPrincipal, ManagementScope } from './management';
export { VERIFY_PATH, httpKeyLoader } from './http-loader';
export {
  assertRegisteredUserInScope,
  assertSameEnvironment,
  assertToolPackInScope,
  isUnrestricted,
  registeredUserIdFilter,
  requireScope,
  toolPackIdFilter,
} from './scope';
export { VERIFIER_LOCAL, authenticate, expressAuthentication, principalOf } from './express';
