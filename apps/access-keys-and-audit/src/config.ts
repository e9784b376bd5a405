import path from 'node:path';
import { booleanFromEnv, commonEnv, loadEnv } from '@patchbay/service-kit';
import { z } from 'zod';

export const SERVICE_NAME = 'access-keys-and-audit';
export const DB_SCHEMA = 'access_keys';
/** Committed migrations, applied at start-up: `<package>/prisma/migrations` from both src/ and dist/. */
export const MIGRATIONS_DIR = path.resolve(__dirname, '..', 'prisma', 'migrations');

const schema = z.object({
  ...commonEnv,
  PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/patchbay'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).default(10),
  /** Apply committed migrations at start-up (replicas serialize on an advisory lock). */
  PATCHBAY_MIGRATE_ON_START: booleanFromEnv.default(true),
  /**
   * connector-registry's base URL: the ids a new key is restricted to are checked to exist there.
   * Unset (this service deployed alone), they are checked for form only.
   */
  CONNECTOR_REGISTRY_URL: z.string().url().optional(),
  /** Keys for secrets at rest (@patchbay/secrets): SSO client secrets and TOTP secrets. Without them, SSO and two-factor answer 503. */
  PATCHBAY_ENCRYPTION_KEYS: z.string().optional(),
  /** Console sessions end after this much inactivity (seconds; default 12 hours). */
  PATCHBAY_SESSION_IDLE_TIMEOUT_SECONDS: z.coerce.number().int().min(60).max(30 * 86_400).default(12 * 3600),
  /** Console sessions end this long after sign-in, whatever the activity (seconds; default 7 days). */
  PATCHBAY_SESSION_ABSOLUTE_TIMEOUT_SECONDS: z.coerce.number().int().min(300).max(90 * 86_400).default(7 * 86_400),
  /** Failed sign-ins to one account, within the window, that lock it. */
  PATCHBAY_SIGN_IN_MAX_FAILURES_PER_ACCOUNT: z.coerce.number().int().min(1).default(5),
  /** Failed sign-ins from one client address, within the window, that lock that address out. */
  PATCHBAY_SIGN_IN_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).default(20),
  /** The window failures are counted in (seconds). */
  PATCHBAY_SIGN_IN_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(900),
  /** How long a lock lasts (seconds). */
  PATCHBAY_SIGN_IN_LOCKOUT_SECONDS: z.coerce.number().int().min(1).default(900),
  /** Days audit events stay in the live log before they move to the archive (an organization's audit_retention_days overrides it; the spec's default is 90). */
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /** Days an audit event is kept at all, archive included; unset keeps archived events forever. */
  AUDIT_ARCHIVE_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).optional(),
});

export type Config = z.infer<typeof schema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadEnv(SERVICE_NAME, schema, env);
}
