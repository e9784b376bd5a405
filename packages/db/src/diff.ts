import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { MigrationList, SchemaContainer } from '@prisma/schema-engine-wasm';
import { openSchemaEngine } from './schema-engine';
import { pgliteShadow, postgresSchemaShadow } from './shadow-database';
import type { ShadowDatabase, ShadowKind } from './shadow-database';

export type { ShadowKind } from './shadow-database';

export interface DiffMigrationsOptions {
  /** `schema.prisma`, or a folder of `.prisma` files. */
  schemaPath: string;
  /** Folder of `<timestamp>_<name>/migration.sql` folders. */
  migrationsDir: string;
  /**
   * Where to replay the migrations. `auto` (the default) uses PGlite and falls back to a temporary
   * schema on the PostgreSQL at `databaseUrl` when PGlite cannot replay them.
   */
  shadow?: ShadowKind | 'auto';
  /** Only used by the `postgres` shadow. */
  databaseUrl?: string;
  /** Progress a developer wants to see (which shadow database was used, fallbacks). */
  onNotice?: (message: string) => void;
}

export interface DiffMigrationsResult {
  /** SQL taking a database with every committed migration applied to the datamodel; empty when there is nothing to do. */
  sql: string;
  shadow: ShadowKind;
  shadowDescription: string;
}

export const DEFAULT_SHADOW_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/patchbay_test';

/**
 * What `prisma migrate diff --from-migrations <dir> --to-schema <schema> --script` computes, and
 * what `prisma migrate dev` writes as the next migration: the committed migrations are replayed
 * into a throwaway shadow database, introspected, and compared with the datamodel.
 */
export async function diffMigrationsToSchema(options: DiffMigrationsOptions): Promise<DiffMigrationsResult> {
  const [schemaFiles, migrations] = await Promise.all([readSchemaFiles(options.schemaPath), readMigrationList(options.migrationsDir)]);
  const notice = options.onNotice ?? (() => undefined);
  const databaseUrl = options.databaseUrl ?? DEFAULT_SHADOW_DATABASE_URL;
  const mode = options.shadow ?? 'auto';

  if (mode === 'postgres') return diffOn(await postgresSchemaShadow(databaseUrl), schemaFiles, migrations, notice);
  try {
    return await diffOn(pgliteShadow(), schemaFiles, migrations, notice);
  } catch (error) {
    if (mode === 'pglite' || isSchemaFileError(error)) throw error;
    notice(`PGlite could not replay the migrations; retrying on PostgreSQL.\n  ${(error as Error).message.replace(/\n/g, '\n  ')}`);
    let shadow: ShadowDatabase;
    try {
      shadow = await postgresSchemaShadow(databaseUrl);
    } catch (connectError) {
      const url = new URL(databaseUrl);
      throw new Error(`${(error as Error).message}\n\nFalling back to PostgreSQL at ${url.host}${url.pathname} failed too: ${firstLine(connectError)}`);
    }
    return diffOn(shadow, schemaFiles, migrations, notice);
  }
}

async function diffOn(shadow: ShadowDatabase, schemaFiles: SchemaContainer[], migrations: MigrationList, notice: (message: string) => void): Promise<DiffMigrationsResult> {
  notice(`shadow database: ${shadow.description}`);
  try {
    const opened = await openSchemaEngine(shadow.factory);
    try {
      const result = await opened.engine
        .diff({
          from: { tag: 'migrations', ...migrations },
          to: { tag: 'schemaDatamodel', files: schemaFiles },
          script: true,
          // Makes the engine say whether the diff is empty (0) or not (2), instead of us parsing its comments.
          exitCode: true,
          filters: { externalTables: [], externalEnums: [] },
        })
        .catch((error: unknown) => {
          throw opened.explain(error);
        });
      const sql = result.exitCode === 0 ? '' : (result.stdout ?? '');
      return { sql, shadow: shadow.kind, shadowDescription: shadow.description };
    } finally {
      opened.close();
    }
  } finally {
    await shadow.close();
  }
}

export interface GenerateMigrationOptions extends DiffMigrationsOptions {
  /** Becomes the folder's suffix, like `prisma migrate dev --name`. */
  name?: string;
  /** The clock, for the folder's timestamp. */
  now?: Date;
}

export interface GenerateMigrationResult extends DiffMigrationsResult {
  /** The `migration.sql` written, or null when the schema needed no change. */
  migrationPath: string | null;
}

/** The `prisma migrate dev --create-only` step: writes the next migration when the datamodel moved on from the committed ones. */
export async function generateMigration(options: GenerateMigrationOptions): Promise<GenerateMigrationResult> {
  const diff = await diffMigrationsToSchema(options);
  if (!diff.sql) return { ...diff, migrationPath: null };
  const existing = await listMigrationNames(options.migrationsDir);
  const folder = `${migrationTimestamp(options.now ?? new Date(), existing)}_${migrationSlug(options.name)}`;
  const migrationPath = path.join(options.migrationsDir, folder, 'migration.sql');
  await mkdir(path.dirname(migrationPath), { recursive: true });
  await writeFile(migrationPath, diff.sql, { flag: 'wx' });
  // Prisma's own CLI refuses a migrations folder without its lock file; write it the way `migrate dev` does.
  await writeFile(path.join(options.migrationsDir, LOCKFILE), LOCKFILE_CONTENT, { flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  return { ...diff, migrationPath };
}

const LOCKFILE = 'migration_lock.toml';
const LOCKFILE_CONTENT = '# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "postgresql"\n';

/** Migrations sort by folder name, so a new one must sort after every existing one even when a committed timestamp lies ahead of the clock. */
export function migrationTimestamp(now: Date, existingNames: string[]): string {
  let stamp = formatTimestamp(now);
  const latest = existingNames
    .map((name) => name.slice(0, 14))
    .filter((prefix) => /^\d{14}$/.test(prefix))
    .sort()
    .at(-1);
  if (latest && stamp <= latest) stamp = formatTimestamp(new Date(parseTimestamp(latest).getTime() + 1000));
  return stamp;
}

export function migrationSlug(name: string | undefined): string {
  const slug = (name ?? '').trim().replace(/[^A-Za-z0-9_]+/g, '_').replace(/^_+|_+$/g, '');
  return slug || 'migration';
}

function formatTimestamp(date: Date): string {
  return date.toISOString().replace(/\D/g, '').slice(0, 14);
}

function parseTimestamp(stamp: string): Date {
  const [y, mo, d, h, mi, s] = [stamp.slice(0, 4), stamp.slice(4, 6), stamp.slice(6, 8), stamp.slice(8, 10), stamp.slice(10, 12), stamp.slice(12, 14)];
  return new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}Z`);
}

async function readSchemaFiles(schemaPath: string): Promise<SchemaContainer[]> {
  const absolute = path.resolve(schemaPath);
  const info = await stat(absolute);
  const files = info.isDirectory() ? await findPrismaFiles(absolute) : [absolute];
  if (files.length === 0) throw new Error(`No .prisma files in ${schemaPath}`);
  return Promise.all(files.map(async (file) => ({ path: file, content: await readFile(file, 'utf8') })));
}

async function findPrismaFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'migrations' ? [] : findPrismaFiles(full);
      return entry.name.endsWith('.prisma') ? [full] : [];
    }),
  );
  return nested.flat().sort();
}

async function listMigrationNames(migrationsDir: string): Promise<string[]> {
  const entries = await readdir(migrationsDir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
}

/** The migrations folder as the engine wants it: each script's content, or why it could not be read. */
async function readMigrationList(migrationsDir: string): Promise<MigrationList> {
  const baseDir = path.resolve(migrationsDir);
  const names = await listMigrationNames(baseDir);
  const lockfile = await readFile(path.join(baseDir, LOCKFILE), 'utf8').catch(() => null);
  const migrationDirectories = await Promise.all(
    names.map(async (name) => {
      const content = await readFile(path.join(baseDir, name, 'migration.sql'), 'utf8').then(
        (value) => ({ tag: 'ok' as const, value }),
        (error: Error) => ({ tag: 'error' as const, value: error.message }),
      );
      return { path: name, migrationFile: { path: 'migration.sql', content } };
    }),
  );
  return {
    baseDir,
    // Without a lock file the engine cannot tell the provider; our migrations are PostgreSQL only.
    lockfile: { path: LOCKFILE, content: lockfile ?? LOCKFILE_CONTENT },
    shadowDbInitScript: '',
    migrationDirectories,
  };
}

/** Errors in the datamodel itself would fail the same way on any shadow database. */
function isSchemaFileError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && /^P1012|^P1013/.test(code);
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n').find((line) => line.trim()) ?? message;
}
