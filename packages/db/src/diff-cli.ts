#!/usr/bin/env node
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_SHADOW_DATABASE_URL, diffMigrationsToSchema, generateMigration } from './diff';
import type { ShadowKind } from './diff';

const USAGE = `usage: patchbay-migrate-diff [--schema prisma/schema.prisma] [--migrations prisma/migrations] [--name <name>] [--check] [--shadow auto|pglite|postgres]

Computes the SQL taking a database with every committed migration applied to the datamodel in the schema.
  without --check  writes <migrations>/<UTC timestamp>_<name>/migration.sql when there is any, and prints its path
  --check          prints the SQL and exits 1 when migrations and schema differ (drift), exits 0 when they match
Errors exit 2. The migrations are replayed in PGlite (in memory); with --shadow auto (the default) a
temporary schema on the PostgreSQL at DATABASE_URL (default ${DEFAULT_SHADOW_DATABASE_URL}) is used when PGlite cannot replay them.
`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      schema: { type: 'string', default: 'prisma/schema.prisma' },
      migrations: { type: 'string', default: 'prisma/migrations' },
      name: { type: 'string' },
      check: { type: 'boolean', default: false },
      shadow: { type: 'string', default: 'auto' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!['auto', 'pglite', 'postgres'].includes(values.shadow)) throw new UsageError(`--shadow must be auto, pglite or postgres, not "${values.shadow}"`);
  const options = {
    schemaPath: values.schema,
    migrationsDir: values.migrations,
    shadow: values.shadow as ShadowKind | 'auto',
    databaseUrl: process.env.DATABASE_URL ?? DEFAULT_SHADOW_DATABASE_URL,
    onNotice: (message: string) => process.stderr.write(`${message}\n`),
  };

  if (values.check) {
    const { sql } = await diffMigrationsToSchema(options);
    if (!sql) {
      process.stdout.write(`No drift: ${values.migrations} produces the schema in ${values.schema}.\n`);
      return 0;
    }
    process.stderr.write(`Drift: ${values.migrations} does not produce the schema in ${values.schema}. This SQL is missing from the migrations:\n`);
    process.stdout.write(sql.endsWith('\n') ? sql : `${sql}\n`);
    return 1;
  }

  const { migrationPath } = await generateMigration({ ...options, name: values.name });
  process.stdout.write(migrationPath ? `${displayPath(migrationPath)}\n` : 'No schema changes.\n');
  return 0;
}

function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith('..') ? path.resolve(file) : relative;
}

class UsageError extends Error {}

main().then(
  // The schema engine leaves timers behind that would keep the process alive for seconds.
  (code) => process.exit(code),
  (error: unknown) => {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`patchbay-migrate-diff: ${(error as Error).message}\n${usage ? `\n${USAGE}` : ''}`);
    process.exit(2);
  },
);
