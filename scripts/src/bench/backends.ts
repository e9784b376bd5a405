import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { ensureDatabase } from '@patchbay/db';
import Redis from 'ioredis';

/** Benchmarks get their own database, so their organizations and keys never mix with `pnpm start`'s. */
export const DEFAULT_BENCH_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/patchbay_bench';
/**
 * And their own Redis database: services find their queues by name, so a benchmark's services and a
 * test run's on the same Redis would otherwise take (and store) each other's jobs.
 */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379/1';

export interface Backends {
  databaseUrl: string;
  redisUrl: string;
}

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

export function describeBackends(backends: Backends): string {
  return `PostgreSQL ${redact(backends.databaseUrl)}, Redis ${redact(backends.redisUrl)}`;
}

/** DATABASE_URL and REDIS_URL or the local defaults; creates the database when missing, and fails early with a message when either is down. */
export async function prepareBackends(env: NodeJS.ProcessEnv = process.env): Promise<Backends> {
  const databaseUrl = env.DATABASE_URL ?? DEFAULT_BENCH_DATABASE_URL;
  const redisUrl = env.REDIS_URL ?? DEFAULT_REDIS_URL;
  try {
    await ensureDatabase(databaseUrl);
  } catch (err) {
    throw new Error(`PostgreSQL at ${redact(databaseUrl)} is not usable (${(err as Error).message}). Start it or set DATABASE_URL.`);
  }
  const redis = probeConnection(redisUrl);
  try {
    await redis.connect();
    await redis.ping();
  } catch {
    throw new Error(`Redis does not answer at ${redact(redisUrl)}. Start it (redis-server --daemonize yes) or set REDIS_URL.`);
  } finally {
    redis.disconnect();
  }
  return { databaseUrl, redisUrl };
}

/** A one-off Redis connection that fails at once instead of retrying: connect() it, then disconnect(). */
function probeConnection(redisUrl: string): Redis {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1500 });
  redis.on('error', () => undefined);
  return redis;
}

/**
 * The Redis server's process when it runs on this machine (its pid from INFO server, readable in
 * /proc), so a benchmark can show the CPU each request costs Redis beside the services' own; null
 * for a remote Redis or without /proc.
 */
export async function localRedisProcess(redisUrl: string): Promise<{ name: string; pid: number } | null> {
  const redis = probeConnection(redisUrl);
  try {
    await redis.connect();
    const pid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]);
    return Number.isSafeInteger(pid) && pid > 0 && existsSync(`/proc/${pid}/stat`) ? { name: 'redis', pid } : null;
  } catch {
    return null;
  } finally {
    redis.disconnect();
  }
}

/**
 * PostgreSQL's processes (the server and its backends, the writers and autovacuum) when the database
 * runs on this machine, found again at every call (backends come and go with connection pools): what
 * the requests' INSERTs cost the database. null for a remote database or without /proc.
 */
export function localPostgresProcesses(databaseUrl: string): { name: string; pids: () => number[] } | null {
  const host = new URL(databaseUrl).hostname;
  if (!['127.0.0.1', 'localhost', '[::1]', '::1', ''].includes(host) || !existsSync('/proc')) return null;
  return {
    name: 'postgres',
    pids: () => {
      const found: number[] = [];
      for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') found.push(Number(entry));
        } catch {
          // exited meanwhile
        }
      }
      return found;
    },
  };
}
