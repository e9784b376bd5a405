import type { AccountInfo, Platform, PlatformConnection, RunSyncOptions, SyncModel, SyncOutcome } from './types';

export const PLATFORMS: readonly Platform[] = ['hubspot', 'zoom', 'eventbrite'];

/** Checks a connection's credentials with one cheap call; throws `PlatformError` (`credentials_invalid` for 401/403). */
export async function verifyCredentials(_conn: PlatformConnection): Promise<AccountInfo> {
  throw new Error('verifyCredentials: in progress on branch i11-platforms');
}

/** Walks a platform's events and each event's contacts, handing every page to the sink with its checkpoint. */
export async function runSync(_opts: RunSyncOptions): Promise<SyncOutcome> {
  throw new Error('runSync: in progress on branch i11-platforms');
}

/** The platform field paths a field mapping may name for a model. */
export function supportedFieldsFor(_platform: Platform, _model: SyncModel): string[] {
  throw new Error('supportedFieldsFor: in progress on branch i11-platforms');
}
