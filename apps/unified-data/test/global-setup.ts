import { applyMigrations, ensureDatabase } from '@patchbay/db';
import { TEST_DATABASE_URL } from '@patchbay/testing';
import { DB_SCHEMA, MIGRATIONS_DIR } from '../src/config';

export default async function globalSetup(): Promise<void> {
  await ensureDatabase(TEST_DATABASE_URL);
  await applyMigrations({ databaseUrl: TEST_DATABASE_URL, schema: DB_SCHEMA, migrationsDir: MIGRATIONS_DIR });
}
