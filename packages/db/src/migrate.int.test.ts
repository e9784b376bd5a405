import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { ensureDatabase } from './database';
import { applyMigrations } from './migrate';

const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/patchbay_test';
const schema = `migrate_test_${process.pid}`;

async function writeMigration(dir: string, name: string, sql: string) {
  await mkdir(path.join(dir, name), { recursive: true });
  await writeFile(path.join(dir, name, 'migration.sql'), sql);
}

describe('applyMigrations', () => {
  let dir: string;
  const client = new Client({ connectionString: databaseUrl });

  beforeAll(async () => {
    await ensureDatabase(databaseUrl);
    await client.connect();
    dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
  });
  afterAll(async () => {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  it('applies pending migrations in order once, recording them like prisma migrate deploy', async () => {
    await writeMigration(dir, '20260101000000_init', 'CREATE TABLE "thing" ("id" TEXT PRIMARY KEY);');
    await writeMigration(dir, '20260102000000_add', 'ALTER TABLE "thing" ADD COLUMN "name" TEXT;');
    const first = await applyMigrations({ databaseUrl, schema, migrationsDir: dir });
    expect(first.applied).toEqual(['20260101000000_init', '20260102000000_add']);
    const second = await applyMigrations({ databaseUrl, schema, migrationsDir: dir });
    expect(second).toEqual({ applied: [], alreadyApplied: ['20260101000000_init', '20260102000000_add'] });
    const { rows } = await client.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'thing' ORDER BY column_name`, [schema]);
    expect(rows.map((r: { column_name: string }) => r.column_name)).toEqual(['id', 'name']);
  });

  it('runs concurrent starts without applying anything twice', async () => {
    await writeMigration(dir, '20260103000000_more', 'CREATE TABLE "other" ("id" TEXT PRIMARY KEY);');
    const results = await Promise.all([1, 2, 3].map(() => applyMigrations({ databaseUrl, schema, migrationsDir: dir })));
    expect(results.flatMap((r) => r.applied)).toEqual(['20260103000000_more']);
  });

  it('rolls back a failing migration entirely and says which one failed', async () => {
    await writeMigration(dir, '20260104000000_bad', 'CREATE TABLE "half" ("id" TEXT); SELECT no_such_function();');
    await expect(applyMigrations({ databaseUrl, schema, migrationsDir: dir })).rejects.toThrow(/20260104000000_bad failed/);
    const { rowCount } = await client.query(`SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'half'`, [schema]);
    expect(rowCount).toBe(0);
  });

  it('refuses a migration edited after it was applied', async () => {
    const other = await mkdtemp(path.join(tmpdir(), 'migrations-'));
    const editedSchema = `${schema}_edit`;
    await writeMigration(other, '20260101000000_init', 'CREATE TABLE "t" ("id" TEXT);');
    await applyMigrations({ databaseUrl, schema: editedSchema, migrationsDir: other });
    await writeMigration(other, '20260101000000_init', 'CREATE TABLE "t" ("id" TEXT, "x" TEXT);');
    await expect(applyMigrations({ databaseUrl, schema: editedSchema, migrationsDir: other })).rejects.toThrow(/was modified after it was applied/);
    await client.query(`DROP SCHEMA "${editedSchema}" CASCADE`);
  });
});
