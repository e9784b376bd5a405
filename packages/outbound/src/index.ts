export { BlockedDestinationError } from './blocked-destination-error';
export type { BlockedReason } from './blocked-destination-error';
export { checkUrl, resolvePublicHost } from './check-url';
export type { CheckUrlOptions, HostLookup, ResolvedAddress } from './check-url';
export { createGuardedFetch } from './guarded-fetch';
export type { GuardedFetchOptions } from './guarded-fetch';
export { isPublicAddress } from './ip-address';
export { outboundPolicyFromEnv } from './policy';
export type { OutboundPolicy } from './policy';
