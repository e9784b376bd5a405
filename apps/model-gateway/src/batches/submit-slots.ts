import type { Cluster, Redis } from 'ioredis';

/** The Redis key counting an organization's batch submits in progress (shared by every replica). */
export function submitSlotKey(prefix: string, organizationId: string): string {
  return `${prefix}batch-submits:${organizationId}`;
}

// Take a slot if fewer than ARGV[1] are taken; the TTL frees the slots of a replica that died mid-submit.
const TAKE = `
local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if n > tonumber(ARGV[1]) then
  redis.call('DECR', KEYS[1])
  return 0
end
return 1`;

const GIVE = `
local n = redis.call('DECR', KEYS[1])
if n <= 0 then redis.call('DEL', KEYS[1]) end
return n`;

/**
 * The short cap on concurrent batch submits of an organization (429 batch_submit_busy): a counter in
 * Redis, taken and given back in one round trip each, so the cap holds across replicas.
 */
export class SubmitSlots {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly options: { cap: number; keyPrefix: string; ttlMs?: number },
  ) {}

  key(organizationId: string): string {
    return submitSlotKey(this.options.keyPrefix, organizationId);
  }

  /** A release function when a slot was free, null when the organization is at its cap. */
  async take(organizationId: string): Promise<(() => Promise<void>) | null> {
    const key = this.key(organizationId);
    const taken = (await this.redis.eval(TAKE, 1, key, String(this.options.cap), String(this.options.ttlMs ?? 60_000))) as number;
    if (taken !== 1) return null;
    let given = false;
    return async () => {
      if (given) return;
      given = true;
      await this.redis.eval(GIVE, 1, key);
    };
  }
}
