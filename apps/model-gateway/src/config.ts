import path from 'node:path';
import { booleanFromEnv, commonEnv, loadEnv } from '@patchbay/service-kit';
import { z } from 'zod';

export const SERVICE_NAME = 'model-gateway';
export const DB_SCHEMA = 'model_gateway';
export const MIGRATIONS_DIR = path.resolve(__dirname, '..', 'prisma', 'migrations');

const schema = z.object({
  ...commonEnv,
  PORT: z.coerce.number().int().min(0).max(65535).default(8084),
  /** Keys, projects, customers, BYOK keys, tags, blocklist and usage records (schema model_gateway). */
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/patchbay'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).default(10),
  PATCHBAY_MIGRATE_ON_START: booleanFromEnv.default(true),
  /** Where management keys are verified and organization settings (plan, payment method, credit) read. */
  ACCESS_KEYS_URL: z.string().url().default('http://127.0.0.1:8081'),
  /** Largest request body a model endpoint reads (inline media over 20 / 25 MB is refused with 413 before this). */
  GATEWAY_MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(64 * 1024 * 1024),
  /** A different catalog file (same shape as src/catalog/models.json) for this deployment. */
  PATCHBAY_MODEL_CATALOG_FILE: z.string().optional(),
  /** Stream timeouts: time to first token, time between tokens, total time of a call. */
  GATEWAY_FIRST_TOKEN_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  GATEWAY_BETWEEN_TOKENS_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  GATEWAY_TOTAL_TIMEOUT_MS: z.coerce.number().int().min(100).default(600_000),
  /** How long a key (and its organization's gateway data) is reused; pub/sub invalidation makes changes immediate. */
  GATEWAY_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).default(60_000),
  /** Local development only: BYOK base URLs may point at private addresses. */
  PATCHBAY_ALLOW_PRIVATE_NETWORK: booleanFromEnv.default(false),
  /** Whether this replica also stores usage records from the queue (see README: a separate worker deployment). */
  GATEWAY_USAGE_WORKERS: booleanFromEnv.default(true),
  /** Circuit breaker of each (model, vendor) route, shared by replicas in Redis: failures within the window that open it, and for how long. */
  GATEWAY_BREAKER_FAILURES: z.coerce.number().int().min(1).default(3),
  GATEWAY_BREAKER_WINDOW_MS: z.coerce.number().int().min(100).default(30_000),
  GATEWAY_BREAKER_COOLDOWN_MS: z.coerce.number().int().min(100).default(30_000),
  /** Redis key prefix of route health (breaker and latency); tests give each run its own. */
  GATEWAY_ROUTE_HEALTH_PREFIX: z.string().default('patchbay:routing:'),
  GATEWAY_USAGE_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(20),
});

export type Config = z.infer<typeof schema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadEnv(SERVICE_NAME, schema, env);
}
