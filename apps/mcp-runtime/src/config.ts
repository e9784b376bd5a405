import { booleanFromEnv, commonEnv, loadEnv } from '@patchbay/service-kit';
import { z } from 'zod';

export const SERVICE_NAME = 'mcp-runtime';

const schema = z.object({
  ...commonEnv,
  PORT: z.coerce.number().int().min(0).max(65535).default(8083),
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
  PACK_CACHE_TTL_MS: z.coerce.number().int().min(0).max(300_000).default(5_000),
});

export type Config = z.infer<typeof schema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadEnv(SERVICE_NAME, schema, env);
}
