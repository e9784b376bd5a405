import type { OutboxRelay, QueueLogger } from '@patchbay/queues';
import type { SecretBox } from '@patchbay/secrets';
import type { Request } from 'express';
import type { Cluster, Redis } from 'ioredis';
import type { Config } from './config';
import type { Db } from './db';
import type { AccountActivity } from './domain/account-activity';
import type { AccountTokens } from './domain/account-tokens';
import type { SyncScheduler } from './sync/scheduler';

/** What controllers need, set once on `app.locals.services` at boot (tests pass real instances too). */
export interface AppServices {
  db: Db;
  /** Where the event lists read: a read replica (DATABASE_READ_URL) or, without one, `db`. */
  readDb?: Db;
  redis: Redis | Cluster;
  box: SecretBox;
  config: PlatformConfig &
    Pick<Config, 'PATCHBAY_PUBLIC_URL' | 'PATCHBAY_SERVICE_TOKEN' | 'LINK_TOKEN_TTL_SECONDS' | 'PUBLIC_TOKEN_TTL_SECONDS' | 'MKTG_SYNC_FREQUENCY_SECONDS' | 'PATCHBAY_REGION'>;
  /** Delivers outbox rows (audit events, initial sync jobs) now instead of at the next poll. */
  relay: Pick<OutboxRelay, 'kick' | 'kickWithin'>;
  /** Per-account schedules and on-demand sync jobs. */
  scheduler: SyncScheduler;
  logger: Pick<QueueLogger, 'warn' | 'info'>;
  /** Account tokens from an in-process cache, invalidated over pub/sub (domain/account-tokens.ts). */
  accountTokens: AccountTokens;
  /** Last-request times for the idle pause (domain/account-activity.ts). */
  activity: AccountActivity;
}

/** Where each platform's API is (the operator's settings, trusted). */
export type PlatformConfig = Pick<
  Config,
  | 'PATCHBAY_MKTG_HUBSPOT_BASE_URL'
  | 'PATCHBAY_MKTG_ZOOM_BASE_URL'
  | 'PATCHBAY_MKTG_ZOOM_TOKEN_URL'
  | 'PATCHBAY_MKTG_EVENTBRITE_BASE_URL'
  | 'PATCHBAY_MKTG_HUBSPOT_CLIENT_ID'
  | 'PATCHBAY_MKTG_HUBSPOT_CLIENT_SECRET'
  | 'PATCHBAY_MKTG_HUBSPOT_AUTHORIZE_URL'
  | 'PATCHBAY_MKTG_HUBSPOT_TOKEN_URL'
  | 'PATCHBAY_MKTG_HUBSPOT_SCOPES'
  | 'PATCHBAY_MKTG_ZOOM_CLIENT_ID'
  | 'PATCHBAY_MKTG_ZOOM_CLIENT_SECRET'
  | 'PATCHBAY_MKTG_ZOOM_AUTHORIZE_URL'
  | 'PATCHBAY_MKTG_ZOOM_SCOPES'
  | 'PATCHBAY_MKTG_EVENTBRITE_CLIENT_ID'
  | 'PATCHBAY_MKTG_EVENTBRITE_CLIENT_SECRET'
  | 'PATCHBAY_MKTG_EVENTBRITE_AUTHORIZE_URL'
  | 'PATCHBAY_MKTG_EVENTBRITE_TOKEN_URL'
>;

export function servicesOf(req: Request): AppServices {
  return req.app.locals.services as AppServices;
}
