import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { Meter, type MeterDecision, type MeterRequest } from './meter';
import { CHECK_SCRIPT } from './lua';
import { MemoryLedger } from './test-support/memory-ledger';

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

  /** SIGKILL: Redis dies at once, whatever it held in memory is gone (without persistence). */
  async kill(): Promise<void> {
    const child = this.process;
    this.process = null;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
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
  const [exists] = (await redis.script('EXISTS', CHECK_SCRIPT.lua.sha1)) as number[];
  return exists === 1;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Redis restart', () => {
  it('with appendonly the count survives a Redis restart, and the meter sends its script again when Redis forgot it', async () => {
    await withRedis(true, async (server) => {
      const organizationId = randomUUID();
      const ledger = new MemoryLedger();
      await server.start();
      let redis = server.connect();
      try {
        expect(await scriptKnown(redis)).toBe(false);
        const meter = new Meter(redis, { ledger });
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
        const meter = new Meter(redis, { ledger });
        expect(await meter.usage(organizationId, '2025-06')).toEqual({ cycle: '2025-06', used: 4, overage: 0 });
        expect(await meter.check(request(organizationId))).toMatchObject({ allowed: true, credits: { used: 5 } });
        // Redis kept its data: nothing was rebuilt from the records (there are none).
        expect(ledger.reads).toBe(1);
      } finally {
        await redis.quit();
      }
    });
  });

  it('restarted without persistence in the middle of the load, the free allotment is exact: every allowed call counted once, none beyond the allotment', async () => {
    await withRedis(false, async (server) => {
      const organizationId = randomUUID();
      const allotment = 300;
      const ledger = new MemoryLedger();
      await server.start();
      // Two replicas, each with its own connection.
      const connections = [server.connect(), server.connect()];
      const meters = connections.map((c) => new Meter(c, { ledger, settleDelaysMs: [20, 100, 500] }));
      const allowed: MeterDecision[] = [];
      const inFlight: Array<Promise<void>> = [];
      let refused = 0;
      let failed = 0;
      let restarted = false;

      /** The record pipeline: each allowed call's record commits a little later, some only after Redis is back. */
      const commitLater = (meter: Meter, decision: MeterDecision, registeredUserId: string) => {
        inFlight.push(
          (async () => {
            await sleep(restarted ? 5 : 5 + Math.floor(Math.random() * 400));
            ledger.add(ledger.recordOf(organizationId, registeredUserId, decision, Date.now()));
            await meter.noteRecorded(organizationId, [decision.epoch]);
          })(),
        );
      };

      const worker = async (w: number) => {
        const meter = meters[w % meters.length]!;
        for (let i = 0; i < 130; i++) {
          const registeredUserId = `user-${w}-${i % 20}`;
          try {
            const decision = await meter.check({ organizationId, registeredUserId, plan: 'free', monthlyCredits: allotment, rateLimitPerMinute: 1_000 });
            if (decision.allowed) {
              allowed.push(decision);
              commitLater(meter, decision, registeredUserId);
            } else refused += 1;
          } catch {
            failed += 1; // Redis down: the runtime answers 503 and nothing is counted
            await sleep(20);
          }
        }
      };
      const load = Promise.all([0, 1, 2, 3].map(worker));
      // Restart once a good part of the allotment is used, while calls are in flight.
      while (allowed.length < 120) await sleep(2);
      await server.kill();
      await sleep(300);
      await server.start();
      restarted = true;
      await load;
      await Promise.all(inFlight);

      try {
        expect(allowed).toHaveLength(allotment);
        expect(new Set(allowed.map((d) => d.epoch)).size).toBe(2);
        expect(refused + failed + allowed.length).toBe(4 * 130);
        expect(refused).toBeGreaterThan(0);
        expect(ledger.records).toHaveLength(allotment);
        // Records of the lost epoch that committed after the rebuild have been added: the count converges on the records, exactly.
        const usage = async () => (await meters[0]!.usage(organizationId)).used;
        const deadline = Date.now() + 10_000;
        while ((await usage()) !== allotment && Date.now() < deadline) await sleep(50);
        expect(await usage()).toBe(allotment);
        await sleep(600); // past the last settle delay: still exact, nothing added twice
        expect(await usage()).toBe(allotment);
      } finally {
        for (const meter of meters) meter.close();
        await Promise.all(connections.map((c) => c.quit()));
      }
    });
  });
});
