import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { waitFor } from './wait';

export interface ServiceProcess {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts a built app (`<dir>/dist/<entry>`, default main.js) on the port in `env.PORT` and waits for
 * its /healthz. If it exits while starting, the error carries what it printed.
 */
export async function startServiceProcess(name: string, dir: string, env: NodeJS.ProcessEnv, entry = 'main.js'): Promise<ServiceProcess> {
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [path.join(dir, 'dist', entry)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const url = `http://127.0.0.1:${env.PORT}`;
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`${name} exited: ${output}`);
        try {
          return (await fetch(`${url}/healthz`)).ok;
        } catch {
          return false;
        }
      },
      30_000,
      `${name} healthy`,
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
