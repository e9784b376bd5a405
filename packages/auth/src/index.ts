export { SCOPES } from './principal';
export type { Environment, GatewayOrganizationSettings, KeyPrincipal, MemberCaller, OrganizationSettings, Scope } from './principal';
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
export { SESSION_VERIFIER_LOCAL, VERIFIER_LOCAL, authenticate, authenticateSessionRequest, expressAuthentication, principalOf } from './express';
export {
  CSRF_HEADER,
  SESSION_COOKIE,
  SESSION_INVALIDATION_CHANNEL,
  SESSION_VERIFY_PATH,
  SessionVerifier,
  assertCsrfToken,
  assertSameOrigin,
  csrfTokenFor,
  httpSessionLoader,
  isStateChanging,
  requirePermission,
  sessionKeyPrincipal,
  sessionTokenOf,
  sessionTouchIntervalMs,
} from './session';
export type { MemberSessionPrincipal, SessionVerifierOptions } from './session';
