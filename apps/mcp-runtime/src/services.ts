import type { Request } from 'express';
import type { Meter } from '@patchbay/metering';
import type { Db } from './db';
import type { SecurityRuleService } from './domain/security-rules';
import type { ToolCallRecordService } from './domain/tool-call-records';

/** What the management controllers need, set once on `app.locals.services` at boot (tests pass real instances too). */
export interface AppServices {
  db: Db;
  /** Where list and daily-usage reads go: a read replica (DATABASE_READ_URL) or, without one, `db`. */
  readDb?: Db;
  meter: Meter;
  securityRules: SecurityRuleService;
  toolCallRecords: ToolCallRecordService;
  /** Public base URL for absolute links in lists (optional: X-Forwarded-* headers are used otherwise). */
  publicBaseUrl?: string;
  /** Delivers audit events written to the outbox; kicked after each change commits. */
  relay: { kick(): Promise<void> | void };
}

export function servicesOf(req: Request): AppServices {
  return req.app.locals.services as AppServices;
}

/** Run after a change committed: send its audit events now instead of at the next poll. */
export function afterCommit(services: AppServices): void {
  void services.relay.kick();
}
