import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { accessLineLogger, createLogger, redactSecretPath, requestContextStorage } from './logger';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      cb();
    },
  });
  return { lines, stream };
}

describe('createLogger', () => {
  it('writes JSON with the service and the request id', () => {
    const { lines, stream } = capture();
    const logger = createLogger('svc', 'info', stream);
    requestContextStorage.run({ requestId: 'req-1' }, () => logger.info('hello'));
    expect(lines[0]).toMatchObject({ service: 'svc', request_id: 'req-1', msg: 'hello', level: 'info' });
  });

  it('never writes keys, secrets or credentials', () => {
    const { lines, stream } = capture();
    const logger = createLogger('svc', 'info', stream);
    logger.info({ req: { headers: { authorization: 'Bearer pb_live_secret' } }, body: { client_secret: 'cs', key: 'k' }, key: 'pb_test_x' }, 'x');
    const text = JSON.stringify(lines[0]);
    expect(text).not.toContain('pb_live_secret');
    expect(text).not.toContain('"cs"');
    expect(text).not.toContain('pb_test_x');
  });
});

describe('redactSecretPath', () => {
  it('masks magic-link tokens and leaves other paths alone', () => {
    expect(redactSecretPath('/link/lt_abc123/oauth/start')).toBe('/link/[REDACTED]/oauth/start');
    expect(redactSecretPath('/link/lt_abc123')).toBe('/link/[REDACTED]');
    expect(redactSecretPath('/link/oauth/callback')).toBe('/link/oauth/callback');
    expect(redactSecretPath('/api/v1/tool-packs/')).toBe('/api/v1/tool-packs/');
  });
});

describe('accessLineLogger', () => {
  it('writes the fields it is given, with the service and the request id, while the logger it comes from still redacts', () => {
    const { lines, stream } = capture();
    const logger = createLogger('svc', 'info', stream);
    const access = accessLineLogger(logger);
    expect(accessLineLogger(logger)).toBe(access);
    requestContextStorage.run({ requestId: 'req-2' }, () => access.info({ method: 'GET', path: '/link/[REDACTED]', status: 200 }, 'request'));
    logger.info({ key: 'pb_live_secret' }, 'after');
    expect(lines[0]).toMatchObject({ service: 'svc', request_id: 'req-2', method: 'GET', path: '/link/[REDACTED]', status: 200, msg: 'request' });
    expect(JSON.stringify(lines[1])).not.toContain('pb_live_secret');
  });
});

describe('createLogger to stdout (buffered)', () => {
  const dist = require.resolve('../dist/index.js');

  function runScript(script: string, untilLine?: string): Promise<{ stdout: string; code: number | null; sawEarly: boolean }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', `const { createLogger } = require(${JSON.stringify(dist)});\n${script}`], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let sawEarly = false;
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (untilLine && stdout.includes(untilLine) && !sawEarly) {
          sawEarly = true;
          child.kill('SIGKILL');
        }
      });
      // A line that waits for the buffer or for exit never shows: after 5 s the child is killed outright (SIGKILL writes nothing).
      const deadline = untilLine ? setTimeout(() => child.kill('SIGKILL'), 5000) : null;
      child.on('error', reject);
      child.on('exit', (code) => {
        if (deadline) clearTimeout(deadline);
        resolve({ stdout, code, sawEarly });
      });
    });
  }

  it('writes what it gathered when the process exits, by process.exit or by an uncaught error', async () => {
    const exited = await runScript(`const l = createLogger('svc', 'info'); l.info('last words'); process.exit(3);`);
    expect(exited.code).toBe(3);
    expect(exited.stdout).toContain('"msg":"last words"');
    const crashed = await runScript(`const l = createLogger('svc', 'info'); l.error('before the crash'); setTimeout(() => { throw new Error('boom'); }, 10);`);
    expect(crashed.code).toBe(1);
    expect(crashed.stdout).toContain('"msg":"before the crash"');
  });

  it('writes nothing while nothing is logged (no empty write every 200 ms)', async () => {
    // fs.write counted in the child: sonic-boom's own periodic flush wrote an empty string five times a second.
    const idle = await runScript(
      `const fs = require('node:fs'); let writes = 0; const write = fs.write; fs.write = function (...args) { writes++; return write.apply(this, args); };
       const l = createLogger('svc', 'warn'); l.info('below the level');
       setTimeout(() => { fs.writeSync(1, 'writes=' + writes + '\\n'); process.exit(0); }, 1200);`,
    );
    expect(idle.stdout).toContain('writes=0');
  }, 15_000);

  it('writes a line of a running process without waiting for the buffer to fill', async () => {
    // The child would run for a minute: the line must show while it runs (it is then killed outright).
    const running = await runScript(`const l = createLogger('svc', 'info'); l.info('early line'); setTimeout(() => undefined, 60000);`, '"msg":"early line"');
    expect(running.sawEarly).toBe(true);
  }, 15_000);
});
