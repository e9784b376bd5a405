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
});

export type Config = z.infer<typeof schema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadEnv(SERVICE_NAME, schema, env);
}
