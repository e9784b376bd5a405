export type {
  AccountInfo,
  Checkpoint,
  ContactFields,
  CountryCode,
  EventContactLink,
  EventFields,
  FetchedContact,
  FetchedEvent,
  FieldMapping,
  FieldMappingsValue,
  HttpClient,
  HttpRequestInit,
  HttpResponseLike,
  Platform,
  RequestGate,
  PlatformConnection,
  RemoteData,
  RunSyncOptions,
  SyncModel,
  SyncOutcome,
  SyncPage,
  SyncSink,
  SyncTuning,
  TokenCache,
} from './types';
export { PLATFORMS, checkFieldMapping, runSync, supportedFieldsFor, verifyCredentials } from './sync';
export { NONSTANDARD_COUNTRY, isoCountryCodes, toCountryCode } from './countries';
export { canonicalJson, recordHash } from './records';
export { PlatformError } from './errors';
export { nodeHttpClient } from './node-http';
export type { PlatformErrorKind } from './errors';
