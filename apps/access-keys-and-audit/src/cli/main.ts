import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { applyMigrations, canConnect, ensureDatabase } from '@patchbay/db';
import { AppError } from '@patchbay/errors';
import { OutboxRelay, type QueueLogger } from '@patchbay/queues';
import { createRedis } from '@patchbay/service-kit';
import { DB_SCHEMA, MIGRATIONS_DIR } from '../config';
import { createPrisma } from '../db';
import { USAGE, UsageError, runCommand } from './commands';

/**
 * Where `pnpm start` recorded the database it uses (an embedded PostgreSQL when none was running),
 * so the CLI talks to the same one without the user exporting anything.
 */
function lastRuntime(): { DATABASE_URL?: string; REDIS_URL?: string } {
  const dataDir = process.env.PATCHBAY_DATA_DIR ? path.resolve(process.env.PATCHBAY_DATA_DIR) : path.resolve(__dirname, '..', '..', '..', '..', '.data');
  const runtimeFile = path.join(dataDir, 'runtime.json');
  return existsSync(runtimeFile) ? (JSON.parse(readFileSync(runtimeFile, 'utf8')) as { DATABASE_URL?: string; REDIS_URL?: string }) : {};
}

function databaseUrl(): { url: string; source: string } {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, source: 'DATABASE_URL' };
  const runtime = lastRuntime();
  if (runtime.DATABASE_URL) return { url: runtime.DATABASE_URL, source: 'the database pnpm start last used (.data/runtime.json)' };
  return { url: 'postgresql://postgres@127.0.0.1:5432/patchbay', source: 'the default local PostgreSQL' };
}

/** The same Redis as the running suite (possibly one pnpm start started), for cache invalidation. */
function redisUrl(): string {
  return process.env.REDIS_URL ?? lastRuntime().REDIS_URL ?? 'redis://127.0.0.1:6379';
}

/** The relay's reports, for an operator: only a failed publish is worth a line. */
const stderrLogger: QueueLogger = {
  info: () => undefined,
  warn: (_fields, message) => {
    process.stderr.write(`warning: cache invalidation not published yet (${message}); the running service publishes it once Redis answers\n`);
  },
  error: (_fields, message) => {
    process.stderr.write(`warning: ${message}\n`);
  },
};

function redactPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const { url, source } = databaseUrl();
  if (!(await canConnect(url))) {
    process.stderr.write(`error: no PostgreSQL answers at ${redactPassword(url)} (${source}). Start Patchbay with pnpm start, or set DATABASE_URL.\n`);
    return 1;
  }
  await ensureDatabase(url);
  await applyMigrations({ databaseUrl: url, schema: DB_SCHEMA, migrationsDir: MIGRATIONS_DIR });
  const db = createPrisma(url, 2);
  const redis = createRedis(redisUrl(), { name: 'patchbay-cli', lazyConnect: true });
  redis.on('error', () => undefined);
  // One drain per command, no polling: what Redis does not take now, the running service's relay publishes.
  const relay = new OutboxRelay({ executor: db, queues: {}, publisher: redis, logger: stderrLogger, enqueueTimeoutMs: 3000, leaseMs: 5000 });
  try {
    const publicBaseUrl = process.env.PATCHBAY_PUBLIC_URL ?? 'http://localhost:8080';
    const result = await runCommand(argv, { db, publishInvalidations: () => relay.kick(), publicBaseUrl });
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message ? `error: ${err.message}\n\n` : ''}${USAGE}`);
      return 2;
    }
    if (err instanceof AppError) {
      const fields = err.fieldErrors?.map((f) => `  --${f.field}: ${f.message}`).join('\n');
      process.stderr.write(`error: ${fields ? `invalid options\n${fields}` : err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await db.$disconnect();
    redis.disconnect();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`error: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
