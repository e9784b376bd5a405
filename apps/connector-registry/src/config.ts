import path from 'node:path';
import { booleanFromEnv, commonEnv, loadEnv } from '@patchbay/service-kit';
import { z } from 'zod';

export const SERVICE_NAME = 'connector-registry';
export const DB_SCHEMA = 'connector_registry';
export const MIGRATIONS_DIR = path.resolve(__dirname, '..', 'prisma', 'migrations');
/** Static assets of the magic-link page. */
export const PUBLIC_DIR = path.resolve(__dirname, '..', 'public');

const schema = z.object({
  ...commonEnv,
  PORT: z.coerce.number().int().min(0).max(65535).default(8082),
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/patchbay'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).default(10),
  PATCHBAY_MIGRATE_ON_START: booleanFromEnv.default(true),
  /** Where keys are verified. */
  ACCESS_KEYS_URL: z.string().url().default('http://127.0.0.1:8081'),
  /** Sealing keys for secrets at rest: "<id>:<base64 32 bytes>,..." (see @patchbay/secrets). */
  PATCHBAY_ENCRYPTION_KEYS: z.string().min(1, 'is required: one or more "<id>:<base64 of 32 random bytes>"'),
  PATCHBAY_ENCRYPTION_ACTIVE_KEY: z.string().optional(),
  /** Local development only: lets custom MCP servers and OAuth providers live on http and private addresses. */
  PATCHBAY_ALLOW_PRIVATE_NETWORK: booleanFromEnv.default(false),
  /** How long a link token (magic link) stays valid. */
  LINK_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(7 * 86_400).default(3600),
  /** Time limit of the MCP handshake when registering or refreshing a custom connector. */
  MCP_HANDSHAKE_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  /**
   * OAuth endpoints by connector slug, for tests and self-hosted providers (JSON):
   * {"github": {"authorize_url": "https://...", "token_url": "https://..."}}.
   */
  PATCHBAY_OAUTH_OVERRIDES: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === '') return {};
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON: {"<slug>": {"authorize_url": "...", "token_url": "..."}}' });
        return z.NEVER;
      }
    })
    .pipe(z.record(z.string(), z.object({ authorize_url: z.string().url(), token_url: z.string().url() }))),
});

export type Config = z.infer<typeof schema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadEnv(SERVICE_NAME, schema, env);
}
