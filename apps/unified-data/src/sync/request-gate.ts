import { createHash, randomBytes } from 'node:crypto';
import { luaScript, runLua } from '@patchbay/metering';
import type { Platform, RequestGate } from '@patchbay/marketing-platforms';
import type { Cluster, Redis } from 'ioredis';

/**
 * One request against a bucket, atomically, on the Redis server's clock (workers' clocks may drift):
 * a sliding log of the bucket's requests over its window, so no window of that length ever holds more
 * than the limit, whichever worker or replica sent them. A bucket whose size is not known yet counts
 * the request and lets it go.
 *
 * KEYS[1] the bucket's log (sorted set, score = ms), KEYS[2] the known sizes (hash: bucket -> "limit/windowMs")
 * ARGV    bucket name, default window ms, unique member
 * Returns 0 (counted, go) or the ms until the oldest request leaves the window.
 */
const TAKE = luaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local size = redis.call('HGET', KEYS[2], ARGV[1])
local limit, window = nil, tonumber(ARGV[2])
if size then
  local l, w = string.match(size, '^(%d+)/(%d+)$')
  limit, window = tonumber(l), tonumber(w)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if limit and redis.call('ZCARD', KEYS[1]) >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return math.max(1, tonumber(oldest[2]) + window - now)
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return 0`);

/** Sizes are kept a day after they were last stated (a tier change shows in the next answer anyway). */
const SIZE_TTL_MS = 86_400_000;

/**
 * Whose allowance a connection uses, as the platform counts it: HubSpot per token (its ten-secondly
 * window is per app and account), Zoom per account (shared by every app on it), Eventbrite per token.
 * Linked accounts that share credentials share the budget. Only a hash of the credential is kept.
 */
export function allowanceOf(platform: Platform, credentials: Record<string, string>): string {
  const who = platform === 'zoom' && credentials.account_id ? `account:${credentials.account_id}` : `token:${credentials.access_token ?? ''}`;
  return createHash('sha256').update(`${platform}\u0000${who}`).digest('hex').slice(0, 32);
}

/**
 * The RequestGate of the sync workers: an account's requests are paced to the platform's limits in Redis,
 * so two workers (or replicas) syncing accounts with the same credentials never exceed them together.
 * One round trip per request.
 */
export class RedisRequestGate implements RequestGate {
  private readonly base: string;
  /** Members of the log must be unique across workers: this gate's random id and a counter. */
  private readonly id = randomBytes(8).toString('hex');
  private seq = 0;

  constructor(
    private readonly redis: Redis | Cluster,
    prefix: string,
    allowance: string,
  ) {
    // One hash tag per allowance: the script's two keys share a cluster slot.
    this.base = `${prefix}:mktg-rate:{${allowance}}`;
  }

  async take(bucket: string, windowMs: number): Promise<number> {
    this.seq += 1;
    const member = `${this.id}:${this.seq}`;
    // One round trip: EVALSHA, with EVAL once where Redis does not know the script yet.
    const wait = await runLua(this.redis, TAKE, [`${this.base}:${bucket}`, `${this.base}:sizes`], [bucket, windowMs, member]);
    return Number(wait);
  }

  async learn(bucket: string, limit: number, windowMs: number): Promise<void> {
    await this.redis.multi().hset(`${this.base}:sizes`, bucket, `${limit}/${windowMs}`).pexpire(`${this.base}:sizes`, SIZE_TTL_MS).exec();
  }
}
