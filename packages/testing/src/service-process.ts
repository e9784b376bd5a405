import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { waitFor } from './wait';

export interface ServiceProcess {
  url: string;
  /**
   * SIGTERM, as an orchestrator stops a service. A service still running `stopTimeoutMs` later is
   * killed (SIGKILL) and stop() rejects with what it printed: a shutdown that hangs fails the test,
   * and leaves no process behind.
   */
  stop(): Promise<void>;
}

/** Children still running when the test process exits (a failed or interrupted test) are killed. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts a built app (`<dir>/dist/<entry>`, default main.js) on the port in `env.PORT` and waits for
 * its /healthz. If it exits while starting, the error carries what it printed.
 */
export async function startServiceProcess(name: string, dir: string, env: NodeJS.ProcessEnv, entry = 'main.js', stopTimeoutMs = 20_000): Promise<ServiceProcess> {
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [path.join(dir, 'dist', entry)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
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
      new Promise<void>((resolve, reject) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const deadline = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`${name} did not exit within ${stopTimeoutMs} ms of SIGTERM and was killed; it printed: ${output.slice(-4_000)}`));
        }, stopTimeoutMs);
        child.once('exit', () => {
          clearTimeout(deadline);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
