import Redis, { Cluster, type ClusterNode, type RedisOptions } from 'ioredis';

/**
 * A connection to either topology: one Redis server (`redis://`, `rediss://`) or a Redis Cluster
 * (`redis+cluster://`, `rediss+cluster://`). Code that takes one uses only commands both accept:
 * every script and MULTI keeps its keys in one hash slot (see the README, "Redis").
 */
export type RedisClient = Redis | Cluster;

export interface ClusterAddress {
  kind: 'cluster';
  /** The seed nodes; the client learns the rest of the cluster from any one of them. */
  nodes: Array<{ host: string; port: number }>;
  username?: string;
  password?: string;
  tls: boolean;
}

export type RedisAddress = { kind: 'single'; url: string } | ClusterAddress;

const CLUSTER_SCHEMES = new Map([
  ['redis+cluster:', false],
  ['rediss+cluster:', true],
]);

/**
 * Reads a Redis URL. The cluster form lists seed nodes after the scheme, comma-separated:
 * `redis+cluster://[user:password@]host1:6379,host2:6379` (`rediss+cluster://` for TLS). Throws a
 * RangeError naming what is wrong, never the password.
 */
export function parseRedisUrl(url: string): RedisAddress {
  const scheme = /^[a-z+]+:/.exec(url)?.[0] ?? '';
  const tls = CLUSTER_SCHEMES.get(scheme);
  if (tls === undefined) {
    if (scheme !== 'redis:' && scheme !== 'rediss:') throw new RangeError('must start with redis://, rediss://, redis+cluster:// or rediss+cluster://');
    try {
      new URL(url);
    } catch {
      throw new RangeError('is not a valid URL');
    }
    return { kind: 'single', url };
  }
  let rest = url.slice(scheme.length);
  if (!rest.startsWith('//')) throw new RangeError(`must be ${scheme}//host:port,host:port`);
  rest = rest.slice(2).replace(/\/+$/, '');
  let username: string | undefined;
  let password: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    const credentials = rest.slice(0, at);
    rest = rest.slice(at + 1);
    const colon = credentials.indexOf(':');
    const user = decodeURIComponent(colon >= 0 ? credentials.slice(0, colon) : credentials);
    if (colon >= 0) password = decodeURIComponent(credentials.slice(colon + 1));
    if (user) username = user;
  }
  if (rest.includes('/') || rest.includes('?')) throw new RangeError('the cluster form takes no database number or options (a cluster has database 0 only)');
  const nodes = rest.split(',').map((node) => {
    const match = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$/.exec(node.trim());
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65535) throw new RangeError(`lists a seed node '${node}' that is not host:port`);
    return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
  });
  return { kind: 'cluster', nodes, username, password, tls };
}

/** For env schemas: undefined when the URL reads, else what is wrong with it. */
export function redisUrlProblem(url: string): string | undefined {
  try {
    parseRedisUrl(url);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

export type CreateRedisOptions = { forQueue?: boolean; name?: string } & RedisOptions;

/**
 * One way to open Redis for every service, either topology. BullMQ needs `maxRetriesPerRequest:
 * null` on its connections; request-path connections keep a bound so a Redis outage fails fast
 * instead of hanging. On a cluster the options apply to each node's connection, and the client
 * follows MOVED/ASK redirections and failovers by itself.
 */
export function createRedis(url: string, options: CreateRedisOptions = {}): RedisClient {
  const { forQueue, name, ...rest } = options;
  const nodeOptions: RedisOptions = {
    connectionName: name,
    maxRetriesPerRequest: forQueue ? null : 2,
    enableReadyCheck: true,
    lazyConnect: false,
    ...rest,
  };
  const address = parseRedisUrl(url);
  if (address.kind === 'single') return new Redis(url, nodeOptions);
  const { lazyConnect, enableOfflineQueue, enableReadyCheck, ...perNode } = nodeOptions;
  return new Cluster(address.nodes as ClusterNode[], {
    lazyConnect,
    enableOfflineQueue,
    enableReadyCheck,
    // Reads go to masters: counters and locks must read what was just written.
    scaleReads: 'master',
    redisOptions: { ...perNode, username: address.username, password: address.password, ...(address.tls ? { tls: {} } : {}) },
  });
}

/**
 * A connection for SUBSCRIBE, either topology: always one plain connection, so its `close` and
 * `ready` events tell exactly when a subscription may have missed messages (the KeyVerifier trusts
 * its cache only between a confirmed SUBSCRIBE and the next close). On a cluster, a PUBLISH reaches
 * the subscribers of every node, so any node serves; when the node goes away the connection moves
 * to the next seed node on its next retry, and subscribes again there.
 */
export function createRedisSubscriber(url: string, options: CreateRedisOptions = {}): Redis {
  const address = parseRedisUrl(url);
  if (address.kind === 'single') return createRedis(url, options) as Redis;
  const { forQueue: _forQueue, name, ...rest } = options;
  const seeds = address.nodes;
  let next = 0;
  const first = seeds[0]!;
  const connection: Redis = new Redis({
    host: first.host,
    port: first.port,
    username: address.username,
    password: address.password,
    ...(address.tls ? { tls: {} } : {}),
    connectionName: name,
    maxRetriesPerRequest: 2,
    enableReadyCheck: true,
    ...rest,
    retryStrategy: (times) => {
      // ioredis reconnects with these options, so the next attempt goes to the next seed.
      next = (next + 1) % seeds.length;
      const seed = seeds[next]!;
      connection.options.host = seed.host;
      connection.options.port = seed.port;
      return Math.min(times * 50, 1_000);
    },
  });
  return connection;
}

export async function pingRedis(redis: RedisClient): Promise<void> {
  // A cluster answers PING from one node; the client's status says whether it knows the cluster.
  const answer = await redis.ping();
  if (answer !== 'PONG') throw new Error('unexpected PING answer');
}

export function isCluster(redis: RedisClient): redis is Cluster {
  return redis instanceof Cluster;
}
