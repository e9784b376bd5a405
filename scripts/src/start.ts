import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { ensureDatabase } from '@patchbay/db';
import { encryptionKeys, firstRun } from './first-run';
import { redactUrl, resolveDatabase, resolveRedis, type LocalService } from './local-services';
import { DATA_DIR, RUNTIME_FILE, appEntry, installedApps, installedWorkers, portOf, type SuiteApp } from './suite';

const say = (message: string) => process.stdout.write(`[patchbay] ${message}\n`);

async function waitHealthy(name: string, port: number, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 1200; i += 1) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode} while starting`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${name} did not become healthy on port ${port} within a minute`);
}

/**
 * `pnpm start`: the whole suite on one machine. PostgreSQL and Redis come from the environment, the
 * standard local ports, or servers of its own (see local-services.ts); every app starts at once and
 * applies its migrations; the edge router is the one public port. Ctrl-C stops everything it started.
 */
async function main(): Promise<void> {
  const started = Date.now();
  const owned: LocalService[] = [];
  const children: Array<{ name: string; child: ChildProcess }> = [];
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say('stopping...');
    await Promise.all(
      children.map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    // Servers this run started go last, after the apps have closed their connections.
    for (const service of owned.reverse()) await service.stop().catch((err: unknown) => process.stderr.write(`[patchbay] ${(err as Error).message}\n`));
    say('stopped.');
    process.exit(code);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stopAll(0));

  try {
    mkdirSync(DATA_DIR, { recursive: true });
    // Both at once; whichever started must be stopped even when the other failed.
    const [redisResult, databaseResult] = await Promise.allSettled([resolveRedis({ env: process.env, say }), resolveDatabase({ env: process.env, dataDir: DATA_DIR, say })]);
    for (const result of [databaseResult, redisResult]) if (result.status === 'fulfilled') owned.push(result.value);
    if (redisResult.status === 'rejected') throw redisResult.reason;
    if (databaseResult.status === 'rejected') throw databaseResult.reason;
    const redis = redisResult.value;
    const database = databaseResult.value;
    await ensureDatabase(database.url);
    writeFileSync(RUNTIME_FILE, `${JSON.stringify({ DATABASE_URL: database.url, REDIS_URL: redis.url }, null, 2)}\n`, { mode: 0o600 });

    const encryption = encryptionKeys(process.env, DATA_DIR);
    if (encryption.created) say(`Created an encryption key for secrets at rest in ${encryption.file}; keep it with the database.`);
    const baseEnv: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      // One token per run unless given: the services share it for /internal routes.
      PATCHBAY_SERVICE_TOKEN: process.env.PATCHBAY_SERVICE_TOKEN ?? randomBytes(24).toString('base64url'),
      PATCHBAY_ENCRYPTION_KEYS: encryption.keys,
    };
    const apps = installedApps();
    for (const app of apps) if (app.edgeVariable) baseEnv[app.edgeVariable] ??= `http://127.0.0.1:${portOf(app)}`;
    // Links sent to end users (magic links) come from configuration, never from a request's Host header.
    baseEnv.PATCHBAY_PUBLIC_URL ||= `http://localhost:${portOf({ name: 'edge-router', port: 8080 })}`;

    const startProcess = (name: string, entry: string, port: number) => {
      // An app's workers start after it is healthy; when another app failed meanwhile, the suite is stopping
      // and a process started now would outlive it (holding its port for the next run).
      if (stopping) return Promise.resolve();
      const child = spawn(process.execPath, [entry], { env: { ...baseEnv, PORT: String(port) }, stdio: 'inherit' });
      children.push({ name, child });
      child.once('exit', (code) => {
        if (!stopping) {
          process.stderr.write(`[patchbay] ${name} exited with code ${code}; stopping the suite.\n`);
          void stopAll(1);
        }
      });
      return waitHealthy(name, port, child).then(() => say(`${name} is up on port ${port}`));
    };
    const startApp = async (app: SuiteApp) => {
      await startProcess(app.name, appEntry(app), portOf(app));
      // Workers after their app: the app has applied the schema's migrations by then.
      await Promise.all(installedWorkers(app).map((w) => startProcess(`${app.name} (${w.entry})`, appEntry(app, w.entry), w.port)));
    };
    // The services do not need each other to boot (each migrates its own schema), so they start together.
    await Promise.all(apps.map(startApp));
    await firstRun({ env: baseEnv, dataDir: DATA_DIR, encryption, say });
    const edgePort = portOf({ name: 'edge-router', port: 8080 });
    say(`PostgreSQL: ${redactUrl(database.url)} (${database.origin}); Redis: ${redis.url} (${redis.origin}).`);
    say(`Patchbay is running at http://localhost:${edgePort} (API docs: http://localhost:${edgePort}/docs), healthy ${((Date.now() - started) / 1000).toFixed(1)} s after launch. Ctrl-C stops it.`);
  } catch (err) {
    process.stderr.write(`[patchbay] failed to start: ${(err as Error).message}\n`);
    await stopAll(1);
  }
}

void main();
