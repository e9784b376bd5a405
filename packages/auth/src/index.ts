export { SCOPES } from './principal';
export type { Environment, KeyPrincipal, OrganizationSettings, Scope } from './principal';
export { generateAccessKey, hashAccessKey, hashesEqual, maskAccessKey } from './keys';
export type { GeneratedKey } from './keys';
export { parseBearer } from './bearer';
export { SERVICE_TOKEN_HEADER, requireServiceToken } from './service-token';
export { KEY_INVALIDATION_CHANNEL, KeyVerifier, publishKeyInvalidation } from './verifier';
export type { KeyInvalidation, KeyLoader, KeyVerifierOptions } from './verifier';
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
