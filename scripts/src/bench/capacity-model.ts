/**
 * The capacity model of infra/README.md: what one request of a kind costs (pnpm bench capacity) turned
 * into what a rate of such requests needs. Linear on purpose: pods, Redis shards and PostgreSQL cores
 * are sized for the measured cost per request times the rate, at the assumptions below, and the "first
 * limit" is the one resource that cannot be scaled out by adding more of it (the PostgreSQL primary:
 * one machine takes every write) or, below that, the busiest of the others.
 */

export interface Assumptions {
  /** CPU a pod may use at its HPA target: a Node process is one thread of JavaScript, so about one core at 60%. */
  podCpuUs: number;
  /** Commands a second one Redis shard (one primary) is given, well below what it can do, for headroom. */
  redisOpsPerShard: number;
  /** CPU a Redis shard may use: Redis runs commands on one thread. */
  redisShardCpuUs: number;
  /** The largest PostgreSQL primary considered (vCPU), and the rows it is given to write a second. */
  pgMaxCores: number;
  pgRowsWrittenPerSecond: number;
  /** The most data one primary holds (tables and indexes over the retention), before partitions must move elsewhere. */
  pgMaxBytes: number;
  /** Days records are kept (the spec's default for tool-call records and audit events). */
  retentionDays: number;
}

export const DEFAULT_ASSUMPTIONS: Assumptions = {
  podCpuUs: 600_000,
  redisOpsPerShard: 80_000,
  redisShardCpuUs: 600_000,
  pgMaxCores: 64,
  pgRowsWrittenPerSecond: 50_000,
  pgMaxBytes: 16e12,
  retentionDays: 90,
};

/** What pnpm bench capacity measured for one unit of a kind. */
export interface KindCost {
  label: string;
  /** CPU µs per unit by process name (the bench's names). */
  cpuUsPerUnit: Map<string, number>;
  redisCommandsPerUnit: number;
  pgRowsWrittenPerUnit: number;
  /** Bytes on disk per unit (bytes per record × records per unit); 0 for reads. */
  bytesPerUnit: number;
}

/** Processes that are the bench's stand-ins for third parties, not part of a deployment. */
const NOT_DEPLOYED = /fake|providers|searxng|server-everything/i;
export const REDIS_PROCESS = 'redis';
export const POSTGRES_PROCESS = /^postgres/;

export interface Sizing {
  rate: number;
  /** Pods per deployment (process name), at least one each for the deployments the kind uses. */
  pods: Array<[string, number]>;
  redisShards: number;
  /** Why that many shards: commands or CPU. */
  redisBound: 'commands' | 'CPU';
  pgCores: number;
  pgRowsPerSecond: number;
  /** Bytes a day, and over the retention. */
  bytesPerDay: number;
  bytesRetained: number;
  firstLimit: string;
}

export function size(cost: KindCost, rate: number, a: Assumptions = DEFAULT_ASSUMPTIONS): Sizing {
  const pods: Array<[string, number]> = [];
  let redisCpuUs = 0;
  let pgCpuUs = 0;
  for (const [name, us] of cost.cpuUsPerUnit) {
    if (name === REDIS_PROCESS) redisCpuUs = us;
    else if (POSTGRES_PROCESS.test(name)) pgCpuUs = us;
    else if (!NOT_DEPLOYED.test(name) && us >= 1) pods.push([name, Math.max(1, Math.ceil((us * rate) / a.podCpuUs))]);
  }
  const byCommands = Math.ceil((cost.redisCommandsPerUnit * rate) / a.redisOpsPerShard);
  const byCpu = Math.ceil((redisCpuUs * rate) / a.redisShardCpuUs);
  const redisShards = Math.max(1, byCommands, byCpu);
  const pgCores = (pgCpuUs * rate) / 1e6;
  const pgRowsPerSecond = cost.pgRowsWrittenPerUnit * rate;
  const bytesPerDay = cost.bytesPerUnit * rate * 86_400;
  const bytesRetained = bytesPerDay * a.retentionDays;
  const pgLimits: Array<[string, number]> = [
    ['CPU', pgCores / a.pgMaxCores],
    ['writes', pgRowsPerSecond / a.pgRowsWrittenPerSecond],
    ['storage', bytesRetained / a.pgMaxBytes],
  ];
  const [pgBound, pgShare] = pgLimits.reduce((worst, next) => (next[1] > worst[1] ? next : worst));
  const firstLimit =
    pgShare >= 1
      ? `PostgreSQL primary ${pgBound} (${Math.round(pgShare * 100)}% of one)`
      : pgShare >= 0.5
        ? `PostgreSQL primary ${pgBound} (${Math.round(pgShare * 100)}%)`
        : `none: pods and Redis shards scale out (PostgreSQL ${pgBound} ${Math.round(pgShare * 100)}%)`;
  return {
    rate,
    pods: pods.sort((x, y) => y[1] - x[1]),
    redisShards,
    redisBound: byCpu > byCommands ? 'CPU' : 'commands',
    pgCores,
    pgRowsPerSecond,
    bytesPerDay,
    bytesRetained,
    firstLimit,
  };
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value >= 100 || unit === 0 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}
