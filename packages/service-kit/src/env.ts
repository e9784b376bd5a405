import { z } from 'zod';
import { redisUrlProblem } from './redis';

/** Thrown at boot when the environment does not satisfy a service's schema; lists every problem at once. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(service: string, problems: string[]) {
    super(`${service} cannot start; fix these environment variables:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/**
 * Parses the environment once at boot. Each service passes its own small zod schema;
 * the error names every missing or invalid variable, never its value (values may be secrets).
 */
export function loadEnv<S extends z.ZodType>(service: string, schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || '(environment)';
    return `${name}: ${issue.message}`;
  });
  throw new ConfigError(service, problems);
}

const redisUrl = z.string().superRefine((value, ctx) => {
  const problem = redisUrlProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** An optional Redis URL; empty counts as unset (compose passes `${X:-}` through as ''). */
const optionalRedisUrl = z.preprocess((value) => (value === '' ? undefined : value), redisUrl.optional());

/** Variables every service reads, for reuse inside service schemas. */
export const commonEnv = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Redis, one server (`redis://host:6379`) or a cluster (`redis+cluster://host1:6379,host2:6379`):
   * everything below defaults to it.
   */
  REDIS_URL: redisUrl.default('redis://127.0.0.1:6379'),
  /** BullMQ queues (jobs, records, usage, audit events), when they should not share REDIS_URL. */
  REDIS_QUEUE_URL: optionalRedisUrl,
  /** Counters: credits, budgets, spend limits, rate limits and route health, when they should not share REDIS_URL. */
  REDIS_COUNTERS_URL: optionalRedisUrl,
  /** Caches, sessions, locks and pub/sub invalidation, when they should not share REDIS_URL. */
  REDIS_CACHE_URL: optionalRedisUrl,
  /**
   * BullMQ's key prefix for every queue. All services of one installation must use the same one; two
   * installations sharing a Redis database must not, or each would take the other's jobs.
   */
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "-" or "_" (BullMQ joins its keys with ":")')
    .default('bull'),
  /** Shared secret on /internal/v1 routes between services. */
  PATCHBAY_SERVICE_TOKEN: z.string().min(16, 'must be at least 16 characters'),
  /** Public base URL as clients see it (the edge router), for absolute links. Optional: X-Forwarded-* headers are used otherwise. */
  PATCHBAY_PUBLIC_URL: z.string().url().optional(),
};

export const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/**
 * Runs a service's async main: a configuration problem prints its list of variables to fix, any
 * other start-up failure one line; both exit 1 without a stack trace.
 */
export function runService(service: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(err instanceof ConfigError ? `${err.message}\n` : `${service} failed to start: ${(err as Error).message}\n`);
    process.exit(1);
  });
}

/** Where each concern's Redis is: its own URL when set, REDIS_URL otherwise. */
export interface RedisUrls {
  queues: string;
  counters: string;
  caches: string;
}

export function redisUrls(config: { REDIS_URL: string; REDIS_QUEUE_URL?: string; REDIS_COUNTERS_URL?: string; REDIS_CACHE_URL?: string }): RedisUrls {
  return {
    queues: config.REDIS_QUEUE_URL ?? config.REDIS_URL,
    counters: config.REDIS_COUNTERS_URL ?? config.REDIS_URL,
    caches: config.REDIS_CACHE_URL ?? config.REDIS_URL,
  };
}
