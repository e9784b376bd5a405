import path from 'node:path';
import { booleanFromEnv, commonEnv, loadEnv } from '@patchbay/service-kit';
import { z } from 'zod';

export const SERVICE_NAME = 'mcp-runtime';
export const DB_SCHEMA = 'mcp_runtime';
export const MIGRATIONS_DIR = path.resolve(__dirname, '..', 'prisma', 'migrations');

const schema = z.object({
  ...commonEnv,
  PORT: z.coerce.number().int().min(0).max(65535).default(8083),
  /** Security rules, their overrides and the tool-call records (schema mcp_runtime). */
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/patchbay'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).default(10),
  /**
   * A read replica of DATABASE_URL's database (streaming replication), for the tool-call record list
   * and the daily usage, which the API already documents as filled asynchronously. A record by id,
   * the credits of a cycle and every write read the primary. Unset: everything reads DATABASE_URL.
   */
  DATABASE_READ_URL: z.string().url().optional(),
  PATCHBAY_MIGRATE_ON_START: booleanFromEnv.default(true),
  /** Where keys are verified. */
  ACCESS_KEYS_URL: z.string().url().default('http://127.0.0.1:8081'),
  /** Where tool packs, registered users and credentials are resolved. */
  CONNECTOR_REGISTRY_URL: z.string().url().default('http://127.0.0.1:8082'),
  /** Local development only: user-supplied hosts (generic HTTP, PostgreSQL, custom MCP servers) may be private. */
  PATCHBAY_ALLOW_PRIVATE_NETWORK: booleanFromEnv.default(false),
  /** Longest a tool call may take before the agent gets a timeout result. */
  TOOL_CALL_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** Most rows a SQL tool returns; largest provider response read. */
  TOOL_MAX_ROWS: z.coerce.number().int().min(1).max(100_000).default(500),
  TOOL_MAX_RESPONSE_BYTES: z.coerce.number().int().min(1024).default(5 * 1024 * 1024),
  /** How long the tools of a (tool pack, registered user) pair are reused before asking the registry again. */
  PACK_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /**
   * How long a resolved credential is reused (never past its own expiry minus a minute). Registry
   * changes drop both caches on every replica at once; the TTLs bound a change message that was lost.
   */
  CREDENTIAL_CACHE_TTL_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
  /** How long a tool pack's compiled security rules are reused; rule changes also reach every replica over Redis at once. */
  SECURITY_RULES_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /**
   * Days tool-call records stay live before they move to the archive (the spec's default retention is
   * 90 days), for organizations without their own: an organization's audit_retention_days (set in
   * access-keys-and-audit, the spec's one "audit/tool-call retention" setting) overrides it.
   */
  TOOL_CALL_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /** Days a tool-call record is kept at all, archive included. Unset: archived records stay until their registered user is deleted. */
  TOOL_CALL_ARCHIVE_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).optional(),
  /** How long the organizations' own retention, asked of access-keys-and-audit, is reused by the sweep. */
  RETENTION_CACHE_TTL_MS: z.coerce.number().int().min(0).max(86_400_000).default(300_000),
  /**
   * Whether this replica also stores tool-call records from the queue. Set false on the replicas that
   * answer agents and run `node dist/worker.js` (the same image) as a separate deployment, so storing
   * records never competes with tool calls for CPU.
   */
  TOOL_CALL_RECORD_WORKERS: booleanFromEnv.default(true),
  /**
   * How the replica that answers a call stores its record: `direct` writes each batch to PostgreSQL
   * itself, with the queue only as a fallback (a record survives Redis losing its data); `queue` hands
   * every batch to the record workers (no database writes on the answering replicas, but a record
   * still waiting in Redis when Redis loses its data is lost).
   */
  TOOL_CALL_RECORD_STORE: z.enum(['direct', 'queue']).default('direct'),
  /** Tool-call records written to the database at once by this replica's queue consumer. */
  TOOL_CALL_RECORD_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(50),
});

export type Config = z.infer<typeof schema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadEnv(SERVICE_NAME, schema, env);
}
