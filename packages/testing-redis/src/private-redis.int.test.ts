import { existsSync } from 'node:fs';
import Redis from 'ioredis';
import { PrivateRedis } from './private-redis';

async function withConnection<T>(options: { path: string } | { port: number }, use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({ ...options, maxRetriesPerRequest: 1 });
  try {
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

describe('PrivateRedis', () => {
  it('on a Unix socket without persistence, a restart starts empty, and close removes its folder', async () => {
    const server = new PrivateRedis();
    try {
      await server.start();
      await withConnection({ path: server.socket }, (redis) => redis.set('k', 'v'));
      await server.restart();
      expect(await withConnection({ path: server.socket }, (redis) => redis.get('k'))).toBeNull();
    } finally {
      await server.close();
    }
    expect(existsSync(server.dir)).toBe(false);
  });

  it('with appendOnly, stop and start keep the data', async () => {
    const server = new PrivateRedis({ appendOnly: true });
    try {
      await server.start();
      await withConnection({ path: server.socket }, (redis) => redis.set('k', 'kept'));
      await server.stop();
      await server.start();
      expect(await withConnection({ path: server.socket }, (redis) => redis.get('k'))).toBe('kept');
    } finally {
      await server.close();
    }
  });

  it('on port 0 it picks a free port below the ephemeral range, kept when it is killed and started again', async () => {
    const server = new PrivateRedis({ port: 0 });
    try {
      await server.start();
      const port = server.port;
      expect(port).toBeGreaterThanOrEqual(16000);
      expect(port).toBeLessThanOrEqual(16999);
      expect(server.url).toBe(`redis://127.0.0.1:${port}`);
      await server.kill();
      await server.start();
      expect(server.port).toBe(port);
      expect(await withConnection({ port }, (redis) => redis.ping())).toBe('PONG');
    } finally {
      await server.close();
    }
  });

  it('a fixed port in the ephemeral range is refused, and a missing binary is named with what to set', async () => {
    expect(() => new PrivateRedis({ port: 45760 })).toThrow(/ephemeral range/);
    const server = new PrivateRedis({ serverBin: '/nonexistent/redis-server' });
    try {
      await expect(server.start()).rejects.toThrow(/did not start: \/nonexistent\/redis-server could not run .*set REDIS_SERVER_BIN/);
    } finally {
      await server.close();
    }
  });
});
