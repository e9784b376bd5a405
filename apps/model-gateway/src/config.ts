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
  /**
   * A read replica of DATABASE_URL's database (streaming replication), for GET /v1/usage and
   * /v1/usage/daily: usage records are stored after the answer anyway, and a replica's lag only adds
   * to that delay. Keys, projects, customers, spend and every write read the primary, so what a caller
   * has just created or changed reads back at once. Unset: everything reads DATABASE_URL.
   */
  DATABASE_READ_URL: z.string().url().optional(),
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
  /** Characters of a streamed answer DLP holds back, so a secret split across chunks is scanned whole (only with DLP rules). */
  GATEWAY_DLP_STREAM_HOLDBACK_CHARS: z.coerce.number().int().min(16).max(65_536).default(256),
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
  /** Successes of a healthy route are written to route health once per this many ms (0: each at once); failures always at once. */
  GATEWAY_ROUTE_HEALTH_SUCCESS_FLUSH_MS: z.coerce.number().int().min(0).max(10_000).default(100),
  /** Redis key prefix of route health (breaker and latency); tests give each run its own. */
  GATEWAY_ROUTE_HEALTH_PREFIX: z.string().default('patchbay:routing:'),
  /**
   * Leased admission (packages/gateway-spend, LeasedSpendControl): each replica admits requests
   * far from every limit against a grant it took from Redis, without a Redis call per request; near a
   * limit, and for free-plan model requests and customer keys with an rpm, per request. false: every
   * request per request. GATEWAY_SPEND_GRANT_MS is how long a grant admits (Redis time): how soon a
   * changed limit, budget or key reaches every replica.
   */
  GATEWAY_SPEND_LEASES: booleanFromEnv.default(true),
  GATEWAY_SPEND_GRANT_MS: z.coerce.number().int().min(200).max(1000).default(1000),
  /**
   * Whether a replica stores its usage records in PostgreSQL itself (one INSERT per flush window),
   * with the queue (or the outbox) only when PostgreSQL does not answer within
   * GATEWAY_USAGE_DIRECT_TIMEOUT_MS. false: every batch through the queue and the worker.
   */
  GATEWAY_USAGE_DIRECT: booleanFromEnv.default(true),
  GATEWAY_USAGE_DIRECT_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(2_000),
  GATEWAY_USAGE_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(20),
  /**
   * How long a replica gathers usage records before handing them to the queue as one job: what a
   * replica that crashes (not a shutdown) loses. Longer saves the worker, Redis and PostgreSQL CPU
   * per request (README, "The hot path"); 20 ms keeps the loss small.
   */
  GATEWAY_USAGE_FLUSH_MS: z.coerce.number().int().min(1).max(1000).default(20),
  /**
   * Batches (OpenAI-compatible /v1/files and /v1/batches): largest input file (under the edge's 64 MB
   * body limit, so the gateway's own 413 file_too_large is what a client sees), most lines in one,
   * open batches per organization.
   */
  GATEWAY_BATCH_FILE_MAX_BYTES: z.coerce.number().int().min(1024).max(512 * 1024 * 1024).default(50 * 1024 * 1024),
  GATEWAY_BATCH_MAX_LINES: z.coerce.number().int().min(1).default(50_000),
  GATEWAY_BATCH_MAX_OPEN: z.coerce.number().int().min(1).default(25),
  /** Stored responses kept per organization (both environments); past it the least recently used go first. */
  GATEWAY_RESPONSE_STORE_MAX_PER_ORG: z.coerce.number().int().min(1).default(10_000),
  /** Batch creations of one organization in progress at once, across replicas (429 batch_submit_busy beyond). */
  GATEWAY_BATCH_SUBMIT_CONCURRENCY: z.coerce.number().int().min(1).default(2),
  /** Batch lines one worker process runs at once. */
  GATEWAY_BATCH_CONCURRENCY: z.coerce.number().int().min(1).max(200).default(8),
  /**
   * How long a batch worker holds a line's job without renewing its lock (BullMQ lockDuration; the
   * stalled check runs as often): how soon the lines of a worker that died are taken over.
   */
  GATEWAY_BATCH_LOCK_MS: z.coerce.number().int().min(200).default(30_000),
  /** Whether this process also runs the batch workers (the worker process, src/worker.ts, always does). */
  GATEWAY_BATCH_WORKERS: booleanFromEnv.default(false),
  /** Redis key prefix of the batch submit slots. */
  GATEWAY_BATCH_KEY_PREFIX: z.string().default('patchbay:gateway:'),
});

export type Config = z.infer<typeof schema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadEnv(SERVICE_NAME, schema, env);
}
