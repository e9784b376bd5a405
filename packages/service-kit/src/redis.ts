import Redis, { type RedisOptions } from 'ioredis';

/**
 * One way to open Redis for every service. BullMQ needs `maxRetriesPerRequest: null` on its
 * connections; request-path connections keep a bound so a Redis outage fails fast instead of hanging.
 */
export function createRedis(url: string, options: { forQueue?: boolean; name?: string } & RedisOptions = {}): Redis {
  const { forQueue, name, ...rest } = options;
  return new Redis(url, {
    connectionName: name,
    maxRetriesPerRequest: forQueue ? null : 2,
    enableReadyCheck: true,
    lazyConnect: false,
    ...rest,
  });
}

export async function pingRedis(redis: Redis): Promise<void> {
  const answer = await redis.ping();
  if (answer !== 'PONG') throw new Error('unexpected PING answer');
}
