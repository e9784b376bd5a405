import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

const RENEW = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

/**
 * "One sync at a time per linked account", across every worker and replica: a Redis key taken with
 * SET NX and kept alive while its holder works. If the holder dies the key expires after `ttlMs` and
 * another worker may resume the run from its checkpoint. `lost` fires when a renewal finds the key
 * gone or someone else's (the holder must stop writing: the sink checks its run id in the database too).
 */
export class SyncLease {
  private timer: NodeJS.Timeout | undefined;
  private readonly controller = new AbortController();

  private constructor(
    private readonly redis: Redis | Cluster,
    readonly key: string,
    private readonly token: string,
    private readonly ttlMs: number,
  ) {}

  /** The lease, or null when another worker holds it. */
  static async acquire(redis: Redis | Cluster, key: string, ttlMs: number): Promise<SyncLease | null> {
    const token = randomBytes(16).toString('hex');
    const ok = await redis.set(key, token, 'PX', ttlMs, 'NX');
    if (ok !== 'OK') return null;
    const lease = new SyncLease(redis, key, token, ttlMs);
    lease.timer = setInterval(() => void lease.renew(), Math.max(50, Math.floor(ttlMs / 3)));
    lease.timer.unref();
    return lease;
  }

  /** Aborted when the lease is lost. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  private async renew(): Promise<void> {
    try {
      const ok = (await this.redis.eval(RENEW, 1, this.key, this.token, String(this.ttlMs))) as number;
      if (ok !== 1) this.lose('the sync lease was taken over');
    } catch {
      // Redis briefly unreachable: the key still expires on its own; the next renewal decides.
    }
  }

  private lose(reason: string): void {
    clearInterval(this.timer);
    if (!this.controller.signal.aborted) this.controller.abort(new Error(reason));
  }

  async release(): Promise<void> {
    clearInterval(this.timer);
    await this.redis.eval(RELEASE, 1, this.key, this.token).catch(() => undefined);
  }
}
