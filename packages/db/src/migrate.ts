import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';
import { ensureDatabase } from './database';

export interface MigrationLogger {
  info(message: string): void;
}

export interface ApplyMigrationsOptions {
  databaseUrl: string;
  /** The app's own PostgreSQL schema (`access_keys`, `connector_registry`...). */
  schema: string;
  /** Folder of `<timestamp>_<name>/migration.sql` folders, as Prisma lays them out. */
  migrationsDir: string;
  logger?: MigrationLogger;
}

export interface ApplyMigrationsResult {
  applied: string[];
  alreadyApplied: string[];
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Applies committed migration SQL in order, like `prisma migrate deploy`, without Prisma's native
 * schema engine (which cannot be downloaded here). It records into the same `_prisma_migrations`
 * table with the same SHA-256 checksums, so the real Prisma CLI agrees with it wherever it runs.
 * Replicas starting together serialize on an advisory lock; each migration runs in its own transaction.
 * A migration whose file changed after it was applied stops the run: edit history by adding a migration.
 */
export async function applyMigrations(options: ApplyMigrationsOptions): Promise<ApplyMigrationsResult> {
  if (!SCHEMA_NAME.test(options.schema)) throw new Error(`Invalid schema name "${options.schema}"`);
  const migrations = await readMigrations(options.migrationsDir);
  const client = new Client({ connectionString: options.databaseUrl, application_name: `migrate:${options.schema}` });
  await client.connect();
  try {
    await client.query(`SELECT pg_advisory_lock(hashtext($1))`, [`patchbay-migrate:${options.schema}`]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`);
      await client.query(`SET search_path TO "${options.schema}"`);
      await client.query(`
        CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
          "id" VARCHAR(36) PRIMARY KEY NOT NULL,
          "checksum" VARCHAR(64) NOT NULL,
          "finished_at" TIMESTAMPTZ,
          "migration_name" VARCHAR(255) NOT NULL,
          "logs" TEXT,
          "rolled_back_at" TIMESTAMPTZ,
          "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
          "applied_steps_count" INTEGER NOT NULL DEFAULT 0
        )`);
      const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
        `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
      );
      const done = new Map(rows.map((r) => [r.migration_name, r]));
      const result: ApplyMigrationsResult = { applied: [], alreadyApplied: [] };
      for (const migration of migrations) {
        const previous = done.get(migration.name);
        if (previous) {
          if (!previous.finished_at) throw new Error(`Migration ${migration.name} started earlier but did not finish; resolve it by hand before continuing.`);
          if (previous.checksum !== migration.checksum) throw new Error(`Migration ${migration.name} was modified after it was applied; add a new migration instead.`);
          result.alreadyApplied.push(migration.name);
          continue;
        }
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query(
            `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, now(), $3, 1)`,
            [randomUUID(), migration.checksum, migration.name],
          );
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw new Error(`Migration ${migration.name} failed: ${(err as Error).message}`);
        }
        options.logger?.info(`applied migration ${options.schema}/${migration.name}`);
        result.applied.push(migration.name);
      }
      return result;
    } finally {
      await client.query(`SELECT pg_advisory_unlock(hashtext($1))`, [`patchbay-migrate:${options.schema}`]);
    }
  } finally {
    await client.end();
  }
}

interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

async function readMigrations(dir: string): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/**
 * What a service does at start-up when PATCHBAY_MIGRATE_ON_START is on: create its database if the
 * server has none of that name yet, then apply its committed migrations.
 */
export async function migrateOnStart(options: ApplyMigrationsOptions): Promise<ApplyMigrationsResult> {
  await ensureDatabase(options.databaseUrl);
  return applyMigrations(options);
}
