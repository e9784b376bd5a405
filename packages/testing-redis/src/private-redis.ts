import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, type NetConnectOpts } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EPHEMERAL_PORTS, freeRestartablePort } from './free-port';

export interface PrivateRedisOptions {
  /**
   * Left out, it listens on a Unix socket in its folder (`socket`), which nothing else can take. A
   * TCP port on 127.0.0.1 is for a client that needs a `redis://` URL (a service started as a child
   * process, a TCP proxy): 0 picks a free one in 16000-16999 at the first start, kept across restarts
   * (one the OS picked would lie in Linux's ephemeral range, 32768-60999, where an outgoing connection
   * of another test could take it while the server is down); a fixed one must lie outside that range.
   */
  port?: number;
  /** Keep an append-only file, so stop() and start() keep the data. Default: no persistence, a restart starts empty. */
  appendOnly?: boolean;
  /** Its folder (`--dir`). Default: a temporary folder of its own, removed by close(). */
  dir?: string;
  /** More `redis-server` arguments (a cluster node's settings). */
  args?: string[];
  /** `redis-server` binary; default REDIS_SERVER_BIN or `redis-server` on the PATH. */
  serverBin?: string;
}

const START_TIMEOUT_MS = 10_000;

/** However a test ends (a failed hook, an uncaught error), its servers do not outlive it, nor their folders. */
const running = new Set<ChildProcess>();
const folders = new Set<string>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/**
 * A redis-server of the test's own, for a test that stops, kills, restarts or empties Redis, which the
 * shared server must not suffer. start() resolves once this server (not another on a taken port)
 * answers and has loaded its append-only file.
 */
export class PrivateRedis {
  readonly dir: string;
  private readonly ownDir: boolean;
  private chosenPort: number | null;
  private child: ChildProcess | null = null;

  constructor(private readonly options: PrivateRedisOptions = {}) {
    const { port } = options;
    if (port !== undefined && port >= EPHEMERAL_PORTS.first && port <= EPHEMERAL_PORTS.last) {
      throw new Error(`port ${port} lies in Linux's ephemeral range (${EPHEMERAL_PORTS.first}-${EPHEMERAL_PORTS.last}), where an outgoing connection may hold it: pass port 0 (a free one below that range is picked) or leave port out (a Unix socket)`);
    }
    this.chosenPort = port || null;
    this.ownDir = options.dir === undefined;
    this.dir = options.dir ?? mkdtempSync(path.join(tmpdir(), 'patchbay-redis-'));
    if (this.ownDir) folders.add(this.dir);
  }

  /** The Unix socket it listens on, for ioredis `{ path }`. */
  get socket(): string {
    if (this.options.port !== undefined) throw new Error('this private redis-server listens on TCP: use its url or port');
    return path.join(this.dir, 'redis.sock');
  }

  /** Its TCP port; one picked for port 0 is known from the first start() on. */
  get port(): number {
    if (this.options.port === undefined) throw new Error('this private redis-server listens on a Unix socket: use its socket');
    if (this.chosenPort === null) throw new Error('the private redis-server picks its port when it first starts: call start() first');
    return this.chosenPort;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.child) throw new Error('the private redis-server is running already: stop() or kill() it first');
    if (this.options.port === 0 && this.chosenPort === null) this.chosenPort = await freeRestartablePort();
    const bin = this.options.serverBin ?? process.env.REDIS_SERVER_BIN ?? 'redis-server';
    const tcp = this.options.port !== undefined;
    const listen = tcp ? ['--port', String(this.port), '--bind', '127.0.0.1'] : ['--port', '0', '--unixsocket', this.socket];
    const persistence = ['--save', '', '--appendonly', this.options.appendOnly ? 'yes' : 'no'];
    const child = spawn(bin, [...listen, '--dir', this.dir, ...persistence, ...(this.options.args ?? [])], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    running.add(child);
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let failure: string | null = null;
    child.once('error', (err) => (failure = `: ${bin} could not run (${err.message})`));
    child.once('exit', (code, signal) => {
      running.delete(child);
      failure ??= `: it exited (${signal ?? `code ${code}`})`;
    });

    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await this.ready(child))) {
      if (failure === null && Date.now() <= deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        continue;
      }
      await this.kill();
      const where = tcp ? `127.0.0.1:${this.port}` : this.socket;
      const hint = tcp ? 'is the port taken? set REDIS_SERVER_BIN' : 'set REDIS_SERVER_BIN';
      throw new Error(`the private redis-server on ${where} did not start${failure ?? ` within ${START_TIMEOUT_MS / 1000} s`} (${hint}); it printed: ${output.trim() || 'nothing'}`);
    }
  }

  /**
   * SIGTERM: Redis shuts down as SHUTDOWN does, flushing its append-only file when it keeps one;
   * without persistence it keeps nothing, as SHUTDOWN NOSAVE. Resolves once it has exited.
   */
  stop(): Promise<void> {
    return this.end('SIGTERM');
  }

  /** SIGKILL, as a crash: whatever it held in memory alone is gone. Resolves once it has exited. */
  kill(): Promise<void> {
    return this.end('SIGKILL');
  }

  /** stop(), then start() on the same socket or port. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Kills it and removes its folder (unless the folder was given). */
  async close(): Promise<void> {
    await this.kill();
    if (!this.ownDir) return;
    rmSync(this.dir, { recursive: true, force: true });
    folders.delete(this.dir);
  }

  private async end(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  }

  /** This very process answers (the port is not another server's) and is done loading its data. */
  private async ready(child: ChildProcess): Promise<boolean> {
    const address: NetConnectOpts = this.options.port === undefined ? { path: this.socket } : { host: '127.0.0.1', port: this.port };
    const info = await reply(address, 'INFO').catch(() => '');
    return info.includes(`process_id:${child.pid}\r\n`) && info.includes('loading:0\r\n');
  }
}

/** One inline command's reply: a status or error line, or a bulk string read to its announced length. */
function reply(address: NetConnectOpts, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(address);
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const headerEnd = received.indexOf('\r\n');
      if (headerEnd < 0) return;
      // `$<length>` starts a bulk string (-1: none); anything else is one line.
      const length = received[0] === 0x24 ? Number(received.subarray(1, headerEnd).toString()) : -1;
      if (received.length < headerEnd + 2 + (length >= 0 ? length + 2 : 0)) return;
      socket.destroy();
      resolve(received.toString());
    });
    socket.once('error', reject);
    socket.once('close', () => resolve(received.toString()));
    socket.write(`${command}\r\n`);
  });
}
