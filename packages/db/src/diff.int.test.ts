import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { ensureDatabase } from './database';
import { applyMigrations } from './migrate';

// The schema engine is WebAssembly that keeps timers alive for seconds after it finishes, and its
// JS glue is an ES module: we drive the built CLI in a child process, exactly as developers and CI
// run it, and the child exits on its own. `turbo run test` builds first.
const cli = path.resolve(__dirname, '..', 'dist', 'diff-cli.js');
const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/patchbay_test';
// Generous: each CLI run starts two WebAssembly runtimes, which is slow on a busy machine.
const ENGINE_TIMEOUT = 300_000;

const DATASOURCE = `datasource db {
  provider = "postgresql"
}
`;

const THING_MODEL = `
model Thing {
  id        String   @id @default(uuid()) @db.Uuid
  name      String
  createdAt DateTime @default(now()) @map("created_at") @db.Timestamptz(3)

  @@map("things")
}
`;

// What Prisma generates for THING_MODEL, as it would be committed.
const THING_MIGRATION = `-- CreateTable
CREATE TABLE "things" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "things_pkey" PRIMARY KEY ("id")
);
`;

const GADGET_MODEL = `
model Gadget {
  id      String @id @db.Uuid
  thingId String @map("thing_id") @db.Uuid
  label   String @unique

  @@index([thingId])
  @@map("gadgets")
}
`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runDiff(cwd: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd, env: { ...process.env, DATABASE_URL: databaseUrl } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const projects: string[] = [];

/** A service folder with prisma/schema.prisma and one committed migration that matches it. */
async function makeProject(models = THING_MODEL, initSql = THING_MIGRATION): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'migrate-diff-'));
  projects.push(dir);
  await mkdir(path.join(dir, 'prisma', 'migrations', '20260101000000_init'), { recursive: true });
  await writeFile(path.join(dir, 'prisma', 'schema.prisma'), DATASOURCE + models);
  await writeFile(path.join(dir, 'prisma', 'migrations', '20260101000000_init', 'migration.sql'), initSql);
  return dir;
}

async function migrationFolders(dir: string): Promise<string[]> {
  const entries = await readdir(path.join(dir, 'prisma', 'migrations'), { withFileTypes: true });
  return entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
}

describe('patchbay-migrate-diff', () => {
  beforeAll(() => {
    if (!existsSync(cli)) throw new Error(`${cli} is missing: run "pnpm build" in packages/db first`);
  });
  afterAll(async () => {
    await Promise.all(projects.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it(
    'reports no changes when the committed migrations already produce the schema',
    async () => {
      const dir = await makeProject();
      const generate = await runDiff(dir, ['--schema', 'prisma/schema.prisma', '--migrations', 'prisma/migrations', '--name', 'nothing']);
      expect(generate).toMatchObject({ code: 0, stdout: 'No schema changes.\n' });
      expect(generate.stderr).toContain('shadow database: PGlite (in memory)');
      expect(await migrationFolders(dir)).toEqual(['20260101000000_init']);

      const check = await runDiff(dir, ['--check']);
      expect(check.code).toBe(0);
      expect(check.stdout).toMatch(/^No drift/);
    },
    ENGINE_TIMEOUT,
  );

  it(
    'writes a migration creating the table of a model added to the schema',
    async () => {
      const dir = await makeProject();
      await writeFile(path.join(dir, 'prisma', 'schema.prisma'), DATASOURCE + THING_MODEL + GADGET_MODEL);

      const run = await runDiff(dir, ['--name', 'add gadgets']);

      expect(run.code).toBe(0);
      const written = run.stdout.trim();
      expect(written).toMatch(/^prisma\/migrations\/\d{14}_add_gadgets\/migration\.sql$/);
      const folders = await migrationFolders(dir);
      expect(folders).toEqual(['20260101000000_init', path.basename(path.dirname(written))]);
      const sql = await readFile(path.join(dir, written), 'utf8');
      expect(sql).toContain('-- CreateTable\nCREATE TABLE "gadgets" (');
      expect(sql).toContain('CREATE UNIQUE INDEX "gadgets_label_key" ON "gadgets"("label");');
      expect(sql).toContain('CREATE INDEX "gadgets_thing_id_idx" ON "gadgets"("thing_id");');
      expect(sql).not.toContain('"things"');
      // Prisma's own CLI wants the lock file beside the migrations.
      expect(await readFile(path.join(dir, 'prisma', 'migrations', 'migration_lock.toml'), 'utf8')).toContain('provider = "postgresql"');
    },
    ENGINE_TIMEOUT,
  );

  it(
    '--check exits 1 and prints the missing SQL when the schema and the migrations drift apart',
    async () => {
      // A hand-written migration that forgot the default on created_at.
      const dir = await makeProject(THING_MODEL, THING_MIGRATION.replace(' DEFAULT CURRENT_TIMESTAMP', ''));

      const check = await runDiff(dir, ['--check']);

      expect(check.code).toBe(1);
      expect(check.stderr).toContain('Drift:');
      expect(check.stdout).toBe('-- AlterTable\nALTER TABLE "things" ALTER COLUMN "created_at" SET DEFAULT CURRENT_TIMESTAMP;\n');
      expect(await migrationFolders(dir)).toEqual(['20260101000000_init']);
    },
    ENGINE_TIMEOUT,
  );

  describe('with PostgreSQL', () => {
    const schema = `diff_test_${process.pid}`;
    const client = new Client({ connectionString: databaseUrl });

    beforeAll(async () => {
      await ensureDatabase(databaseUrl);
      await client.connect();
    });
    afterAll(async () => {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    });

    it(
      'a generated migration applied by applyMigrations leaves no drift behind',
      async () => {
        const dir = await makeProject();
        await writeFile(path.join(dir, 'prisma', 'schema.prisma'), DATASOURCE + THING_MODEL + GADGET_MODEL);
        const generated = await runDiff(dir, ['--name', 'add_gadgets']);
        expect(generated.code).toBe(0);

        const applied = await applyMigrations({ databaseUrl, schema, migrationsDir: path.join(dir, 'prisma', 'migrations') });
        expect(applied.applied).toEqual(await migrationFolders(dir));
        const { rows } = await client.query<{ table_name: string }>(
          `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name <> '_prisma_migrations' ORDER BY table_name`,
          [schema],
        );
        expect(rows.map((r) => r.table_name)).toEqual(['gadgets', 'things']);

        const check = await runDiff(dir, ['--check']);
        expect(check).toMatchObject({ code: 0 });
        const again = await runDiff(dir, ['--name', 'again']);
        expect(again.stdout).toBe('No schema changes.\n');
      },
      ENGINE_TIMEOUT,
    );

    it(
      'replays migrations PGlite cannot run in a temporary schema on PostgreSQL, and drops it afterwards',
      async () => {
        // PGlite ships no pg_trgm unless loaded explicitly; the server's contrib has it.
        const dir = await makeProject(THING_MODEL, `CREATE EXTENSION IF NOT EXISTS pg_trgm;\n\n${THING_MIGRATION}`);
        await writeFile(path.join(dir, 'prisma', 'schema.prisma'), DATASOURCE + THING_MODEL + GADGET_MODEL);

        const check = await runDiff(dir, ['--check']);

        expect(check.stderr).toContain('PGlite could not replay the migrations; retrying on PostgreSQL.');
        expect(check.stderr).toContain('extension "pg_trgm" is not available');
        expect(check.code).toBe(1);
        expect(check.stdout).toContain('CREATE TABLE "gadgets"');
        expect(check.stdout).not.toContain('"things"');
        const shadowSchema = /temporary schema "([a-z0-9_]+)"/.exec(check.stderr)?.[1];
        expect(shadowSchema).toBeDefined();
        const { rowCount } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [shadowSchema]);
        expect(rowCount).toBe(0);
      },
      ENGINE_TIMEOUT,
    );

    it(
      '--shadow postgres gives the same SQL as PGlite',
      async () => {
        const dir = await makeProject();
        await writeFile(path.join(dir, 'prisma', 'schema.prisma'), DATASOURCE + THING_MODEL + GADGET_MODEL);

        const [onPglite, onPostgres] = [await runDiff(dir, ['--check', '--shadow', 'pglite']), await runDiff(dir, ['--check', '--shadow', 'postgres'])];

        expect(onPglite.code).toBe(1);
        expect(onPostgres.code).toBe(1);
        expect(onPostgres.stderr).toMatch(/shadow database: temporary schema "patchbay_shadow_/);
        expect(onPostgres.stdout).toBe(onPglite.stdout);
      },
      ENGINE_TIMEOUT,
    );
  });

  it(
    'exits 2 and names the problem when the schema is invalid',
    async () => {
      const dir = await makeProject(`${THING_MODEL}\nmodel Broken {\n  id Strin @id\n}\n`);

      const run = await runDiff(dir, ['--check']);

      expect(run.code).toBe(2);
      expect(run.stderr).toContain('P1012');
      expect(run.stderr).toContain('Strin');
      expect(run.stderr).not.toContain('retrying on PostgreSQL');
    },
    ENGINE_TIMEOUT,
  );
});
