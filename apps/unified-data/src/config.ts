import path from 'node:path';
import { booleanFromEnv, commonEnv, loadEnv } from '@patchbay/service-kit';
import { z } from 'zod';

export const SERVICE_NAME = 'unified-data';
export const DB_SCHEMA = 'unified_data';
export const MIGRATIONS_DIR = path.resolve(__dirname, '..', 'prisma', 'migrations');

export const REGIONS = ['US', 'EU', 'APAC'] as const;
export type Region = (typeof REGIONS)[number];


/** An optional setting; empty counts as unset (compose passes `${X:-}`). */
const optionalSetting = z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).optional());

const schema = z.object({
  ...commonEnv,
  PORT: z.coerce.number().int().min(0).max(65535).default(8085),
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/patchbay'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).default(10),
  /**
   * A read replica of DATABASE_URL's database (streaming replication), for the API's event lists
   * (GET /events and an event's contacts): their records come from syncs, which are asynchronous
   * anyway, and a replica's lag only adds to that. An event by id, linked accounts, sync status and
   * every write read the primary. The sync worker never reads it. Unset: everything reads DATABASE_URL.
   */
  DATABASE_READ_URL: z.string().url().optional(),
  PATCHBAY_MIGRATE_ON_START: booleanFromEnv.default(true),
  ACCESS_KEYS_URL: z.string().url().default('http://127.0.0.1:8081'),
  PATCHBAY_ENCRYPTION_KEYS: z.string().min(1, 'is required: one or more "<id>:<base64 of 32 random bytes>"'),
  PATCHBAY_ENCRYPTION_ACTIVE_KEY: z.string().optional(),
  /** The region this installation serves (deployment configuration; see README "Regions"). */
  PATCHBAY_REGION: z.enum(REGIONS).default('US'),
  /** Platform API bases (the operator's, trusted): real hosts by default, local fakes in tests. */
  PATCHBAY_MKTG_HUBSPOT_BASE_URL: z.string().url().default('https://api.hubapi.com'),
  PATCHBAY_MKTG_ZOOM_BASE_URL: z.string().url().default('https://api.zoom.us/v2'),
  PATCHBAY_MKTG_ZOOM_TOKEN_URL: z.string().url().default('https://zoom.us/oauth/token'),
  PATCHBAY_MKTG_EVENTBRITE_BASE_URL: z.string().url().default('https://www.eventbriteapi.com/v3'),
  /**
   * OAuth apps of the platforms (the operator's, registered with each platform with the redirect URI
   * <public URL>/api/mktg/v1/link/oauth/callback). A platform whose client id and secret are set is
   * offered as "Sign in with ..." on the magic-link page; its tokens are refreshed by the sync.
   */
  PATCHBAY_MKTG_HUBSPOT_CLIENT_ID: optionalSetting,
  PATCHBAY_MKTG_HUBSPOT_CLIENT_SECRET: optionalSetting,
  PATCHBAY_MKTG_HUBSPOT_AUTHORIZE_URL: z.string().url().default('https://app.hubspot.com/oauth/authorize'),
  PATCHBAY_MKTG_HUBSPOT_TOKEN_URL: z.string().url().default('https://api.hubapi.com/oauth/v1/token'),
  PATCHBAY_MKTG_HUBSPOT_SCOPES: z.string().default('crm.objects.marketing_events.read crm.objects.contacts.read'),
  PATCHBAY_MKTG_ZOOM_CLIENT_ID: optionalSetting,
  PATCHBAY_MKTG_ZOOM_CLIENT_SECRET: optionalSetting,
  PATCHBAY_MKTG_ZOOM_AUTHORIZE_URL: z.string().url().default('https://zoom.us/oauth/authorize'),
  PATCHBAY_MKTG_ZOOM_SCOPES: z.string().default(''),
  PATCHBAY_MKTG_EVENTBRITE_CLIENT_ID: optionalSetting,
  PATCHBAY_MKTG_EVENTBRITE_CLIENT_SECRET: optionalSetting,
  PATCHBAY_MKTG_EVENTBRITE_AUTHORIZE_URL: z.string().url().default('https://www.eventbrite.com/oauth/authorize'),
  PATCHBAY_MKTG_EVENTBRITE_TOKEN_URL: z.string().url().default('https://www.eventbrite.com/oauth/token'),
  /** Default interval of a linked account's incremental sync; each account may set its own. */
  MKTG_SYNC_FREQUENCY_SECONDS: z.coerce.number().int().min(10).max(7 * 86_400).default(3600),
  /**
   * Scheduled syncs of an account whose token has made no request for this many days are PAUSED, as
   * Merge pauses idle accounts; the next request resumes them. 0 never pauses.
   */
  MKTG_PAUSE_IDLE_DAYS: z.coerce.number().int().min(0).max(3650).default(14),
  /** How long a link token (magic link) stays valid, and the public token after it. */
  LINK_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(7 * 86_400).default(1800),
  PUBLIC_TOKEN_TTL_SECONDS: z.coerce.number().int().min(30).max(86_400).default(600),
  /** Sync jobs one worker runs at once (each for a different linked account). */
  MKTG_SYNC_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /**
   * Requests one sync keeps in flight to its platform (the next page, and the contacts of the events
   * after the current one), paced to the platform's limits across workers.
   */
  MKTG_SYNC_FETCH_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(4),
  /**
   * Lifetime of a running sync's per-account lease (renewed every third of it). A worker that dies
   * holds its accounts this long at most before another worker resumes them from their checkpoints.
   */
  MKTG_SYNC_LEASE_TTL_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
});

export type Config = z.infer<typeof schema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadEnv(SERVICE_NAME, schema, env);
}
