import { applyMigrations, ensureDatabase } from '@patchbay/db';
import { DB_SCHEMA, MIGRATIONS_DIR } from '../src/config';
import { TEST_DATABASE_URL } from './env';

export default async function globalSetup(): Promise<void> {
  await ensureDatabase(TEST_DATABASE_URL);
  await applyMigrations({ databaseUrl: TEST_DATABASE_URL, schema: DB_SCHEMA, migrationsDir: MIGRATIONS_DIR });
}
