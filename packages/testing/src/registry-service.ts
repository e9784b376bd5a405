import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { freePort } from './access-keys-service';
import { TEST_DATABASE_URL, TEST_REDIS_URL, TEST_SERVICE_TOKEN } from './env';
import { waitFor } from './wait';

export interface RunningRegistry {
  url: string;
  stop(): Promise<void>;
}

/**
 * Runs the real connector-registry (its built dist) as a child process, for services that call it
 * over HTTP (mcp-runtime). The caller declares `@patchbay/connector-registry` as a devDependency (so turbo
 * builds it first) and passes its folder: `path.dirname(require.resolve('@patchbay/connector-registry/package.json'))`.
 * (This package cannot depend on it: the registry's own tests use this package.)
 */
export async function startConnectorRegistryService(options: { registryDir: string; accessKeysUrl: string; env?: Record<string, string> }): Promise<RunningRegistry> {
  const port = await freePort();
  const dir = options.registryDir;
  const env = {
    ...process.env,
    PORT: String(port),
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_URL: TEST_REDIS_URL,
    PATCHBAY_SERVICE_TOKEN: TEST_SERVICE_TOKEN,
    ACCESS_KEYS_URL: options.accessKeysUrl,
    PATCHBAY_ENCRYPTION_KEYS: `test:${randomBytes(32).toString('base64')}`,
    PATCHBAY_ALLOW_PRIVATE_NETWORK: 'true',
    LOG_LEVEL: 'warn',
    OTEL_SDK_DISABLED: 'true',
    ...options.env,
  };
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [path.join(dir, 'dist', 'main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`connector-registry exited: ${output}`);
        try {
          return (await fetch(`${url}/healthz`)).ok;
        } catch {
          return false;
        }
      },
      30_000,
      'connector-registry healthy',
    );
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
