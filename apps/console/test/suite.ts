import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';

/**
 * The whole suite as `pnpm start` runs it (every service, their workers, the edge router and this console
 * under /console/), for the console's browser tests of every area: its own database, Redis database index
 * and ports (`slot` picks a port range, so test files running side by side do not collide). Third-party
 * services are the provider fakes the caller starts and passes in `env` (PATCHBAY_VENDOR_OPENAI_BASE_URL,
 * PATCHBAY_MKTG_HUBSPOT_BASE_URL, ...).
 */
export interface RunningSuite {
  /** The edge router, as browsers reach it: every API and the console at /console/. */
  publicUrl: string;
  /** The admin CLI (`pnpm patchbay …`) against this suite's database; its JSON answer. */
  cli(args: string[]): Promise<Record<string, unknown>>;
  /** What the suite printed so far (its first-run keys and owner link among it). */
  output(): string;
  stop(): Promise<void>;
}

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
const run = promisify(execFile);

export async function startSuite(options: { slot: number; env?: NodeJS.ProcessEnv }): Promise<RunningSuite> {
  const admin = new URL(process.env.PATCHBAY_TEST_BASE_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/patchbay_test');
  const database = `patchbay_test_console_suite_${options.slot}_${process.pid}`;
  const databaseUrl = new URL(admin);
  databaseUrl.pathname = `/${database}`;
  const redis = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  redis.pathname = `/${2 + ((process.pid + options.slot) % 14)}`;
  // Ports 8080-8095 shifted by 10_000 + slot * 1_000 (+ a spread by pid): below Linux's ephemeral range (32768 and up),
  // where freePort() and outgoing connections of tests running beside this one take theirs, and apart from the catalog
  // walk's 23_000 offset and from other slots.
  const offset = 10_000 + options.slot * 1_000 + (process.pid % 45) * 20;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'patchbay-console-suite-'));
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env, DATABASE_URL: databaseUrl.toString(), REDIS_URL: redis.toString(), PATCHBAY_PORT_OFFSET: String(offset), PATCHBAY_DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '' };
  const child: ChildProcess = spawn(process.execPath, [path.join(REPO_ROOT, 'scripts', 'dist', 'start.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 420_000;
  while (!output.includes('Patchbay is running')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`the suite did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const publicUrl = `http://localhost:${8080 + offset}`;
  return {
    publicUrl,
    output: () => output,
    async cli(args) {
      const cliEnv: NodeJS.ProcessEnv = { ...process.env, PATCHBAY_DATA_DIR: dataDir, REDIS_URL: redis.toString() };
      delete cliEnv.DATABASE_URL;
      const { stdout } = await run(process.execPath, [path.join(REPO_ROOT, 'apps', 'access-keys-and-audit', 'dist', 'cli', 'main.js'), ...args], { env: cliEnv });
      return JSON.parse(stdout) as Record<string, unknown>;
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
      const pg = new Client({ connectionString: Object.assign(new URL(admin), { pathname: '/postgres' }).toString() });
      await pg.connect();
      await pg.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await pg.end();
    },
  };
}
