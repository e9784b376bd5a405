#!/usr/bin/env node
import path from 'node:path';
import { ensureDatabase } from './database';
import { applyMigrations } from './migrate';

/** `patchbay-migrate --schema <name> [--dir prisma/migrations]`, reading DATABASE_URL. */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const valueOf = (flag: string) => {
    const i = args.indexOf(flag);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const schema = valueOf('--schema');
  const dir = path.resolve(valueOf('--dir') ?? 'prisma/migrations');
  const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/patchbay';
  if (!schema) {
    process.stderr.write('usage: patchbay-migrate --schema <schema> [--dir prisma/migrations]\n');
    process.exit(2);
  }
  await ensureDatabase(databaseUrl);
  const result = await applyMigrations({ databaseUrl, schema, migrationsDir: dir, logger: { info: (m) => process.stdout.write(`${m}\n`) } });
  process.stdout.write(`${schema}: ${result.applied.length} applied, ${result.alreadyApplied.length} already applied\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`migration failed: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
