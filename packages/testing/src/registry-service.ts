import { randomBytes } from 'node:crypto';
import { freePort } from '@patchbay/testing-redis';
import { TEST_DATABASE_URL, TEST_REDIS_URL, TEST_SERVICE_TOKEN } from './env';
import { startServiceProcess } from './service-process';

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
    // Magic links come from configuration only: the registry's own address stands for the public one.
    PATCHBAY_PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...options.env,
  };
  return startServiceProcess('connector-registry', dir, env);
}
