import { Cluster } from 'ioredis';
import { commonEnv, loadEnv, redisUrls } from './env';
import { z } from 'zod';
import { createRedis, parseRedisUrl } from './redis';

describe('parseRedisUrl', () => {
  it('reads one server from redis:// and rediss:// URLs as they are', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379')).toEqual({ kind: 'single', url: 'redis://127.0.0.1:6379' });
    expect(parseRedisUrl('rediss://:secret@redis.example:6380/2')).toEqual({ kind: 'single', url: 'rediss://:secret@redis.example:6380/2' });
  });

  it('reads the cluster form as seed nodes, with credentials and TLS', () => {
    expect(parseRedisUrl('redis+cluster://10.0.0.1:7000,10.0.0.2:7001,redis-2.internal:7002')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: 'redis-2.internal', port: 7002 },
      ],
      username: undefined,
      password: undefined,
      tls: false,
    });
    expect(parseRedisUrl('rediss+cluster://app:p%40ss@[::1]:7000')).toEqual({ kind: 'cluster', nodes: [{ host: '::1', port: 7000 }], username: 'app', password: 'p@ss', tls: true });
    expect(parseRedisUrl('redis+cluster://:only-a-password@h:1')).toMatchObject({ username: undefined, password: 'only-a-password' });
  });

  it('refuses what it cannot read, naming the problem and never the password', () => {
    expect(() => parseRedisUrl('http://h:1')).toThrow(/must start with redis:\/\//);
    expect(() => parseRedisUrl('redis+cluster://h1:7000,h2')).toThrow("lists a seed node 'h2' that is not host:port");
    expect(() => parseRedisUrl('redis+cluster://:hunter2@h1:7000/1')).toThrow(/no database number/);
    expect(() => parseRedisUrl('redis+cluster://:hunter2@h1:7000/1')).not.toThrow(/hunter2/);
  });
});

describe('the environment', () => {
  const schema = z.object({ REDIS_URL: commonEnv.REDIS_URL, REDIS_QUEUE_URL: commonEnv.REDIS_QUEUE_URL, REDIS_COUNTERS_URL: commonEnv.REDIS_COUNTERS_URL, REDIS_CACHE_URL: commonEnv.REDIS_CACHE_URL });

  it('gives every concern REDIS_URL unless it has a URL of its own', () => {
    const config = loadEnv('svc', schema, { REDIS_URL: 'redis+cluster://a:7000,b:7000', REDIS_QUEUE_URL: 'redis://queues:6379' });
    expect(redisUrls(config)).toEqual({ queues: 'redis://queues:6379', counters: 'redis+cluster://a:7000,b:7000', caches: 'redis+cluster://a:7000,b:7000' });
    // docker-compose passes an unset `${REDIS_CACHE_URL:-}` as an empty string.
    expect(redisUrls(loadEnv('svc', schema, { REDIS_CACHE_URL: '' })).caches).toBe('redis://127.0.0.1:6379');
  });

  it('refuses a Redis URL it cannot read, naming the variable', () => {
    expect(() => loadEnv('svc', schema, { REDIS_COUNTERS_URL: 'redis+cluster://nohost' })).toThrow(/REDIS_COUNTERS_URL: lists a seed node/);
  });
});

describe('createRedis', () => {
  it('opens a Cluster client for the cluster form, a plain one otherwise', () => {
    const cluster = createRedis('redis+cluster://127.0.0.1:1,127.0.0.1:2', { lazyConnect: true });
    const single = createRedis('redis://127.0.0.1:1', { lazyConnect: true });
    try {
      expect(cluster).toBeInstanceOf(Cluster);
      expect(single).not.toBeInstanceOf(Cluster);
    } finally {
      cluster.disconnect();
      single.disconnect();
    }
  });
});
