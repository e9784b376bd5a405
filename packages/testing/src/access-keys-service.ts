import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@patchbay/testing-redis';
import { TEST_DATABASE_URL, TEST_REDIS_URL, TEST_SERVICE_TOKEN } from './env';
import { startServiceProcess } from './service-process';

const run = promisify(execFile);

export interface TestOrganization {
  organization_id: string;
  master_key: string;
  master_key_id: string;
  test_key: string;
  test_key_id: string;
  [setting: string]: unknown;
}

export interface RunningAccessKeys {
  url: string;
  serviceToken: string;
  /** Creates an organization with the real admin CLI. */
  createOrganization(options?: { plan?: 'free' | 'paid'; credits?: number; callbackOrigins?: string[]; name?: string }): Promise<TestOrganization>;
  /** Runs any admin CLI command (`pnpm patchbay ...`) and returns its JSON output. */
  cli(args: string[]): Promise<unknown>;
  /** Changes organization settings with the real admin CLI (`org update`). */
  updateOrganization(organizationId: string, args: string[]): Promise<Record<string, unknown>>;
  /** Creates an access key through the public API. */
  createKey(callerKey: string, body: Record<string, unknown>): Promise<{ id: string; key: string } & Record<string, unknown>>;
  stop(): Promise<void>;
}

function accessKeysDir(): string {
  return path.dirname(require.resolve('@patchbay/access-keys-and-audit/package.json'));
}

let orgCounter = 0;

/**
 * Runs the real access-keys-and-audit service (its built dist) as a child process, so a service under
 * test verifies keys over HTTP exactly as in production. Add `@patchbay/access-keys-and-audit` as a
 * devDependency so turbo builds it before your tests.
 */
export async function startAccessKeysService(options: { databaseUrl?: string; redisUrl?: string; serviceToken?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RunningAccessKeys> {
  const port = await freePort();
  const dir = accessKeysDir();
  const env = {
    ...process.env,
    PORT: String(port),
    DATABASE_URL: options.databaseUrl ?? TEST_DATABASE_URL,
    REDIS_URL: options.redisUrl ?? TEST_REDIS_URL,
    PATCHBAY_SERVICE_TOKEN: options.serviceToken ?? TEST_SERVICE_TOKEN,
    LOG_LEVEL: 'warn',
    OTEL_SDK_DISABLED: 'true',
    ...options.env,
  };
  const service = await startServiceProcess('access-keys-and-audit', dir, env);
  const url = service.url;
  const cli = async (args: string[]) => {
    const { stdout } = await run(process.execPath, [path.join(dir, 'dist', 'cli', 'main.js'), ...args], { env });
    return JSON.parse(stdout) as Record<string, unknown>;
  };
  return {
    url,
    serviceToken: env.PATCHBAY_SERVICE_TOKEN,
    async createOrganization(o = {}) {
      orgCounter += 1;
      const args = ['org', 'create', '--name', o.name ?? `Test org ${process.pid}-${orgCounter}`];
      if (o.plan) args.push('--plan', o.plan);
      if (o.credits !== undefined) args.push('--credits', String(o.credits));
      for (const origin of o.callbackOrigins ?? []) args.push('--callback-origin', origin);
      return (await cli(args)) as TestOrganization;
    },
    cli,
    updateOrganization: (organizationId, args) => cli(['org', 'update', organizationId, ...args]),
    async createKey(callerKey, body) {
      const res = await fetch(`${url}/api/v1/access-keys/`, { method: 'POST', headers: { authorization: `Bearer ${callerKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (res.status !== 201) throw new Error(`createKey failed: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: string; key: string };
    },
    stop: service.stop,
  };
}
