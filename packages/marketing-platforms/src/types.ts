/**
 * The seam between the platform clients of this package and the unified-data app that stores what they
 * fetch (see /work/wt/CONTRACT-unified-data.md). Nothing here touches a database: `runSync` walks a
 * platform and hands each page to the app's `SyncSink`, which commits the records and the checkpoint
 * together.
 */

/** The event platforms a linked account can belong to. */
export type Platform = 'hubspot' | 'zoom' | 'eventbrite';

/** The unified models a sync writes. A page carries records of one model only. */
export type SyncModel = 'events' | 'contacts';

/** One original payload a record was built from, as Merge keeps it. */
export interface RemoteData {
  /** The platform path that was called, without base URL or query string (`/marketing/v3/marketing-events/123`). */
  path: string;
  /** The item exactly as the platform returned it (one list element, not the whole page). */
  data: unknown;
}

/**
 * The spec's Marketing Event minus what the app owns (id, remote_id, created_at, modified_at,
 * remote_was_deleted, field_mappings, remote_data). Datetimes are ISO 8601 strings in UTC with
 * milliseconds (`2026-11-24T09:00:00.000Z`), so the record hashes and serialises the same way everywhere.
 */
export interface EventFields {
  /** The event's title (HubSpot `eventName`, Zoom `topic`, Eventbrite `name.text`). */
  name: string | null;
  /** Its description (HubSpot `eventDescription`, Zoom `agenda`, Eventbrite `description.text`). */
  description: string | null;
  /** When the platform created it. */
  remote_created_at: string | null;
  /** When it starts. */
  start_time: string | null;
  /** When it ends (Zoom: start_time + duration minutes). */
  end_time: string | null;
  /** Merge ids of marketing emails about the event. No platform synced here has them: always `[]`. */
  emails: string[];
  /** Merge ids of messages about the event. Always `[]`, as `emails`. */
  messages: string[];
}

/**
 * ISO 3166-1 alpha-2 code (`US`, `GB`, ...) or Merge's `MERGE_NONSTANDARD_VALUE` for a country the
 * platform sent that maps to no code. `null` when the platform sent none.
 */
export type CountryCode = string;

/**
 * The Contact of the facts file (Merge mktg Contact) minus what the app owns (id, created_at,
 * modified_at, remote_was_deleted, field_mappings, remote_data). Datetimes as in `EventFields`.
 */
export interface ContactFields {
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  /** State, province or region as the platform sent it. */
  state: string | null;
  /** ISO alpha-2, see `CountryCode`. */
  country: CountryCode | null;
  postal_code: string | null;
  /** When the platform created the contact (HubSpot contact createdAt, Zoom create_time, Eventbrite created). */
  remote_created_at: string | null;
  /** When the platform last changed it, where the platform says (Zoom registrants: null). */
  remote_updated_at: string | null;
}

/**
 * Merge's `field_mappings` object: `{organization_defined_targets: {...}, linked_account_defined_targets: {...}}`,
 * each target key holding the value found at the mapping's remote field path (null when absent).
 */
export type FieldMappingsValue = Record<string, unknown>;

/** An event as fetched from a platform and mapped. */
export interface FetchedEvent {
  /** The platform's id of the event (HubSpot objectId, Zoom webinar id, Eventbrite event id), as a string. */
  remoteId: string;
  fields: EventFields;
  /** `fields.remote_created_at` as a Date (null when unknown). */
  remoteCreatedAt: Date | null;
  /** When the platform last changed the event (HubSpot updatedAt, Eventbrite changed; Zoom: null). */
  remoteUpdatedAt: Date | null;
  /** The original payloads: the list item (and any item fetched for this record). */
  remoteData: RemoteData[];
  /** See `FieldMappingsValue`; `{}` targets when the account has no mappings for events. */
  fieldMappings: FieldMappingsValue;
  /**
   * Stable content hash (sha256 hex of the canonical JSON of fields + field mappings + remote data).
   * The same remote record fetched twice without a real change gives the same hash, so the app moves
   * `modified_at` only when it differs.
   */
  hash: string;
}

/** A contact as fetched from a platform and mapped. Contacts are walked per event. */
export interface FetchedContact {
  /**
   * The platform's id of the person: HubSpot CRM contactId, Zoom registrant id (participants who did
   * not register: their participant id, else `email:<address>`), Eventbrite attendee id.
   */
  remoteId: string;
  fields: ContactFields;
  remoteData: RemoteData[];
  fieldMappings: FieldMappingsValue;
  /** As `FetchedEvent.hash`. */
  hash: string;
}

/** "This contact takes part in this event" (the rows behind `GET /events/{parent_id}/contacts`). */
export interface EventContactLink {
  eventRemoteId: string;
  contactRemoteId: string;
}

/**
 * Where a sync stands: JSON-serialisable and opaque to the app, which stores the latest one it was
 * given (with the page it came with, atomically) and passes it back to resume. `null` starts over.
 */
export type Checkpoint = unknown;

/** One page of work: records of one model, plus the checkpoint that is valid once they are stored. */
export interface SyncPage {
  model: SyncModel;
  /** Set when `model` is `events`, otherwise `[]`. */
  events: FetchedEvent[];
  /** Set when `model` is `contacts`, otherwise `[]`. */
  contacts: FetchedContact[];
  /** With `contacts`: which event each contact of the page belongs to (the event is always written before). */
  links: EventContactLink[];
  /** Resuming from this checkpoint continues after this page. */
  checkpoint: Checkpoint;
  /**
   * Identifies the pass (a walk from the top to the end, across resumes): every page of one pass carries
   * the same id. With a `done` full pass, records not written during pass `passId` are missing remotely.
   */
  passId: string;
}

/**
 * Where the pages go. The app commits the records and the checkpoint in one transaction, upserting by
 * remote_id (so a page written again after a crash between commit and acknowledgement changes nothing).
 * A throw stops the sync with `failed` (the checkpoint of the previous page stays valid).
 */
export interface SyncSink {
  writePage(page: SyncPage): Promise<void>;
}

/** How a `runSync` call ended. */
export type SyncOutcome =
  /**
   * Walked to the end. `completeFullPass` is true only for a `full` sync that saw every event and
   * every event's contacts in this pass (resumes included): only then may the app mark records missing
   * from the pass `remote_was_deleted`.
   */
  | {
      kind: 'done';
      completeFullPass: boolean;
      passId: string;
      /**
       * Contact listings (one event's registrants, attendees, ...) the platform refused with an
       * unexpected error and that were skipped; absent when none. Such a pass is not complete.
       */
      skippedListings?: number;
    }
  /** The platform said "slow down": run again from `checkpoint` at `retryAt`. Returned promptly, never a long sleep. */
  | { kind: 'rate_limited'; retryAt: Date; checkpoint: Checkpoint; message: string }
  /** 401/403: the token was revoked, expired or lacks a scope. Nothing more will work until the account is relinked. */
  | { kind: 'credentials_invalid'; message: string }
  /** 5xx, timeouts, connection cuts that outlasted the short in-run retries: run again from `checkpoint` later. */
  | { kind: 'transient'; message: string; checkpoint: Checkpoint }
  /** Anything else (an unexpected 4xx, a malformed response, the sink threw, aborted): needs a look, not a retry loop. */
  | { kind: 'failed'; message: string };

/** A response as far as this package reads it (what `fetch` returns). */
export interface HttpResponseLike {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/** What this package passes to the HTTP client. */
export interface HttpRequestInit {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

/** A fetch-like HTTP client (the global `fetch` fits). Injected so tests and the app can wrap it. */
export type HttpClient = (url: string, init: HttpRequestInit) => Promise<HttpResponseLike>;

/** Caches OAuth access tokens (Zoom Server-to-Server) until they expire. */
export interface TokenCache {
  get(key: string): { token: string; expiresAt: number } | undefined;
  set(key: string, value: { token: string; expiresAt: number }): void;
  delete(key: string): void;
}

/**
 * A linked account's platform connection.
 *
 * Credentials by platform:
 * - hubspot: `access_token` (private-app token or OAuth access token).
 * - zoom: `access_token`, or `account_id` + `client_id` + `client_secret` (Server-to-Server OAuth,
 *   exchanged at `tokenUrl`); optional `user_id` whose webinars to list (default `me`).
 * - eventbrite: `access_token` (private token or OAuth); optional `organization_id` (default: every
 *   organization of `/users/me/organizations/`).
 */
export interface PlatformConnection {
  platform: Platform;
  credentials: Record<string, string>;
  /** The operator's base URL for the platform's API (trusted), e.g. `https://api.zoom.us/v2`. */
  baseUrl: string;
  /** Zoom only: the OAuth token URL (`https://zoom.us/oauth/token`), a separate setting from `baseUrl`. */
  tokenUrl?: string;
  /** Default: the global `fetch`. */
  http?: HttpClient;
  /** Per-request timeout (default 30 000 ms). A timeout counts as a transient error. */
  timeoutMs?: number;
  /** Where Zoom tokens are cached (default: one in-memory cache per process). */
  tokenCache?: TokenCache;
  /**
   * OAuth 2.0 user tokens (credentials with `access_token`, `refresh_token` and `expires_at`, epoch
   * ms): called for a new access token when the current one is about to expire or a request was
   * refused with 401. The caller runs the platform's refresh grant and stores the new tokens (Zoom
   * replaces the refresh token on every refresh). It throws `PlatformError` `credentials_invalid` when
   * the platform refuses the refresh token (invalid_grant), `transient` when it could not be asked.
   */
  refreshAccessToken?: (signal: AbortSignal) => Promise<{ accessToken: string; expiresAt: number | null }>;
}

/** A platform field path mapped onto a key of `field_mappings`. */
export interface FieldMapping {
  model: SyncModel;
  /** The key it appears under in `field_mappings`. */
  target: string;
  /**
   * Dot path into the platform's original item (the `data` of the record's first RemoteData), one of
   * `supportedFieldsFor(platform, model)` or a path below one of them; array items by index
   * (`custom_questions.0.value`) or HubSpot custom properties by name (`customProperties.<name>`).
   */
  remotePath: string;
  /** Which part of `field_mappings` it goes to (default `linked_account`). */
  scope?: 'organization' | 'linked_account';
}

/** Tunables for `runSync`; the defaults suit production. */
export interface SyncTuning {
  /** Page size asked of the platform (clamped to each platform's maximum; default: the maximum). */
  pageSize?: number;
  /** In-run attempts of a request on 5xx / timeouts / connection cuts before `transient` (default 4). */
  retries?: number;
  /** First backoff before a retry (default 200 ms), doubled each time with full jitter, capped at `maxBackoffMs`. */
  baseBackoffMs?: number;
  /** Cap of one in-run backoff (default 5 000 ms). */
  maxBackoffMs?: number;
  /** A 429 asking to wait at most this long is waited in-run (default 1 000 ms); anything longer returns `rate_limited`. */
  maxInlineWaitMs?: number;
  /**
   * Requests in flight at once (default 2): the next page, and the first contact page of the events
   * after the current one. Pages are still written one at a time, in order. 1: one request at a time.
   * More helps against a distant platform; each one in flight when a rate limit hits meets a 429 too.
   */
  concurrency?: number;
  /** Waits (injected for tests; default setTimeout honouring the signal). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The clock (default `() => new Date()`). */
  now?: () => Date;
}

/**
 * Paces an account's requests to the platform's own limits, shared by every worker and replica (the app
 * backs it with Redis). A bucket is one limit of the platform (HubSpot's ten-secondly window, a Zoom
 * API category's per-second rate); the client learns its size from the platform's answers.
 */
export interface RequestGate {
  /**
   * Counts one request in `bucket` (window `windowMs`) and returns 0 when it may go now; else the
   * milliseconds until the bucket has room (nothing counted). A bucket of unknown size always lets it go.
   */
  take(bucket: string, windowMs: number): Promise<number>;
  /** Records the size of a bucket, as the platform stated it. */
  learn(bucket: string, limit: number, windowMs: number): Promise<void>;
}

export interface RunSyncOptions {
  conn: PlatformConnection;
  /** Paces requests to the platform's limits across workers (default: none; 429s are still honoured). */
  gate?: RequestGate;
  /** `full` walks everything (required for delete detection); `incremental` fetches what changed since `modifiedSince`. */
  kind: 'full' | 'incremental';
  /**
   * Incremental syncs: the start of the previous successful sync. Platforms with a filter use it
   * (Eventbrite attendees `changed_since`); elsewhere everything is fetched and the app's hash comparison
   * keeps `modified_at` still for what did not change.
   */
  modifiedSince: Date | null;
  /** The last checkpoint stored for this account (null: start over). A checkpoint of another kind or platform is ignored. */
  checkpoint: Checkpoint | null;
  fieldMappings: FieldMapping[];
  /** The models to sync (default both). Without `contacts`, no contact listing is asked for; events are always walked. */
  models?: readonly SyncModel[];
  sink: SyncSink;
  signal?: AbortSignal;
  tuning?: SyncTuning;
}

/** What `verifyCredentials` learns about the account. */
export interface AccountInfo {
  /** The platform's id for the account (HubSpot portalId, Zoom account_id, Eventbrite user id). */
  remoteAccountId: string | null;
  /** A human name for it (portal's domain, Zoom user's email, Eventbrite user's name). */
  name: string | null;
}
