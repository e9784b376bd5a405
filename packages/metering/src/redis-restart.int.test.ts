import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { Meter, type MeterRequest } from './meter';
import { CHECK_SCRIPT } from './lua';

/**
 * A private redis-server (the same binary as the shared one) on a Unix socket in a temporary folder,
 * because these tests restart Redis and empty its script cache, which the shared server must not suffer.
 */
class PrivateRedis {
  private process: ChildProcess | null = null;
  readonly socket: string;

  constructor(
    private readonly dir: string,
    private readonly appendOnly: boolean,
  ) {
    this.socket = path.join(dir, 'redis.sock');
  }

  async start(): Promise<void> {
    const args = ['--port', '0', '--unixsocket', this.socket, '--dir', this.dir, '--save', '', '--appendonly', this.appendOnly ? 'yes' : 'no'];
    rmSync(this.socket, { force: true });
    const child = spawn(process.env.REDIS_SERVER_BIN ?? 'redis-server', args, { stdio: 'ignore' });
    this.process = child;
    const state: { failure: Error | null } = { failure: null };
    child.once('error', (err) => (state.failure = new Error(`redis-server could not start (${err.message}); set REDIS_SERVER_BIN`)));
    child.once('exit', (code) => (state.failure ??= new Error(`redis-server exited with code ${code}`)));
    // Redis creates its socket once it accepts connections (after loading the append-only file).
    const deadline = Date.now() + 10_000;
    while (!existsSync(this.socket)) {
      if (state.failure) throw state.failure;
      if (Date.now() > deadline) throw new Error('redis-server did not open its socket within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** SIGTERM: Redis shuts down cleanly, flushing its append-only file when it keeps one. */
  async stop(): Promise<void> {
    const child = this.process;
    this.process = null;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }

  connect(): Redis {
    return new Redis({ path: this.socket, maxRetriesPerRequest: 1 });
  }
}

const now = Date.parse('2025-06-10T12:00:00Z');
const request = (organizationId: string): MeterRequest => ({
  organizationId,
  registeredUserId: 'user-1',
  plan: 'free',
  monthlyCredits: 10,
  rateLimitPerMinute: 30,
  now,
});

async function withRedis(appendOnly: boolean, test: (server: PrivateRedis) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'patchbay-metering-redis-'));
  const server = new PrivateRedis(dir, appendOnly);
  try {
    await test(server);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function scriptKnown(redis: Redis): Promise<boolean> {
  const [exists] = (await redis.script('EXISTS', CHECK_SCRIPT.sha1)) as number[];
  return exists === 1;
}

describe('Redis restart', () => {
  it('with appendonly the count survives a Redis restart, and the meter sends its script again when Redis forgot it', async () => {
    await withRedis(true, async (server) => {
      const organizationId = randomUUID();
      await server.start();
      let redis = server.connect();
      try {
        expect(await scriptKnown(redis)).toBe(false);
        const meter = new Meter(redis);
        for (let i = 0; i < 4; i++) expect((await meter.check(request(organizationId))).allowed).toBe(true);
        expect(await scriptKnown(redis)).toBe(true);
      } finally {
        await redis.quit();
      }

      await server.stop();
      await server.start();
      redis = server.connect();
      try {
        // A restart empties the script cache: the first check falls back from EVALSHA to EVAL.
        expect(await scriptKnown(redis)).toBe(false);
        const meter = new Meter(redis);
        expect(await meter.usage(organizationId, '2025-06')).toEqual({ cycle: '2025-06', used: 4, overage: 0 });
        expect(await meter.check(request(organizationId))).toMatchObject({ allowed: true, credits: { used: 5 } });
      } finally {
        await redis.quit();
      }
    });
  });

  it('without persistence Redis loses the count on restart, and seedCycle restores it from the durable records', async () => {
    await withRedis(false, async (server) => {
      const organizationId = randomUUID();
      await server.start();
      let redis = server.connect();
      try {
        const meter = new Meter(redis);
        for (let i = 0; i < 10; i++) await meter.check(request(organizationId));
        expect((await meter.check(request(organizationId))).reason).toBe('billing_limit_reached');
      } finally {
        await redis.quit();
      }

      await server.stop();
      await server.start();
      redis = server.connect();
      try {
        const meter = new Meter(redis);
        expect(await meter.usage(organizationId, '2025-06')).toEqual({ cycle: '2025-06', used: 0, overage: 0 });
        // mcp-runtime rebuilds the figure from its tool-call records (10 credits this cycle) before serving.
        expect(await meter.seedCycle(organizationId, '2025-06', 10)).toBe(true);
        expect((await meter.check(request(organizationId))).reason).toBe('billing_limit_reached');
      } finally {
        await redis.quit();
      }
    });
  });
});
