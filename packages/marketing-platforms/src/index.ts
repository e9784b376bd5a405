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
export { PLATFORMS, runSync, supportedFieldsFor, verifyCredentials } from './sync';
export { PlatformError } from './errors';
export type { PlatformErrorKind } from './errors';
