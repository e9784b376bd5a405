import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PrivateRedis } from '@patchbay/testing-redis';
import calculateSlot from 'cluster-key-slot';
import { waitFor } from './wait';

const run = promisify(execFile);

export interface ClusterNodeInfo {
  port: number;
  role: 'master' | 'replica';
  /** For a replica, the port of its master. */
  masterPort: number | null;
}

/** A real six-node Redis Cluster (three masters, three replicas) on 127.0.0.1, for tests. */
export interface LocalRedisCluster {
  /** The cluster form of REDIS_URL, every node as a seed: `redis+cluster://127.0.0.1:p1,...`. */
  readonly url: string;
  readonly ports: number[];
  /** Who is master of whom now, as the cluster says. */
  nodes(): Promise<ClusterNodeInfo[]>;
  /**
   * The master serving a key's slot. Tests aim a failover at the shard their keys live on.
   */
  masterOf(key: string): Promise<number>;
  /**
   * A planned failover (`CLUSTER FAILOVER` on a replica of the master): the replica catches up with
   * its master, then takes its slots; no acknowledged write is lost. Resolves once the replica is
   * master and the cluster is ok again.
   */
  failover(masterPort: number): Promise<number>;
  /**
   * Kills one node (SIGKILL, as a crash). When it was a master, its replica takes over after the node
   * timeout; resolves once the remaining nodes report `cluster_state:ok`.
   */
  kill(port: number): Promise<void>;
  /** Kills every node and removes their folder. */
  stop(): Promise<void>;
}

export interface LocalRedisClusterOptions {
  /** Six consecutive ports from here (a test's private range). */
  firstPort: number;
  /** `redis-server` binary; default REDIS_SERVER_BIN or `redis-server` on the PATH. */
  serverBin?: string;
  /** `redis-cli` binary; default REDIS_CLI_BIN or `redis-cli` on the PATH. */
  cliBin?: string;
}

/**
 * Starts six `redis-server --cluster-enabled yes` processes without persistence (PrivateRedis nodes
 * on the given ports, in one temporary folder) and joins them with `redis-cli --cluster create
 * --cluster-replicas 1`, then waits until every node reports `cluster_state:ok` and every replica is
 * in sync with its master.
 */
export async function startLocalRedisCluster(options: LocalRedisClusterOptions): Promise<LocalRedisCluster> {
  const serverBin = options.serverBin ?? process.env.REDIS_SERVER_BIN ?? 'redis-server';
  const cliBin = options.cliBin ?? process.env.REDIS_CLI_BIN ?? 'redis-cli';
  const ports = Array.from({ length: 6 }, (_, i) => options.firstPort + i);
  const dir = mkdtempSync(path.join(tmpdir(), 'patchbay-redis-cluster-'));
  const nodes = ports.map(
    (port) =>
      new PrivateRedis({
        port,
        dir,
        serverBin,
        // A short node timeout, so a failover completes quickly; this is a loopback cluster.
        args: ['--cluster-enabled', 'yes', '--cluster-config-file', path.join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', '2000'],
      }),
  );
  const cli = async (port: number, ...args: string[]): Promise<string> => (await run(cliBin, ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 30_000 })).stdout;

  const stop = async (): Promise<void> => {
    await Promise.all(nodes.map((node) => node.kill()));
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await Promise.all(nodes.map((node) => node.start()));
    await cli(ports[0]!, '--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes');
    const cluster: LocalRedisCluster = {
      url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
      ports,
      nodes: () => readNodes(cli, ports),
      async masterOf(key) {
        const slot = Number((await cli(ports[0]!, 'CLUSTER', 'KEYSLOT', key)).trim());
        const owner = await masterOfSlot(cli, ports[0]!, slot);
        if (owner !== null) return owner;
        throw new Error(`no master serves slot ${slot}`);
      },
      async failover(masterPort) {
        // Right after an earlier failover the old master may not yet show as the new one's replica.
        const replicaOf = async () => (await readNodes(cli, ports)).find((n) => n.role === 'replica' && n.masterPort === masterPort);
        await waitFor(async () => (await replicaOf()) !== undefined, 30_000, `a replica of the master on port ${masterPort}`);
        const replica = await replicaOf();
        if (!replica) throw new Error(`no replica of the master on port ${masterPort}`);
        await cli(replica.port, 'CLUSTER', 'FAILOVER');
        await waitFor(async () => (await cli(replica.port, 'ROLE')).startsWith('master'), 30_000, `replica ${replica.port} promoted`);
        await waitFor(() => allOk(cli, ports), 30_000, 'cluster_state:ok after the failover');
        return replica.port;
      },
      async kill(port) {
        const node = nodes[ports.indexOf(port)];
        if (!node) throw new Error(`no node on port ${port}`);
        await node.kill();
        const alive = ports.filter((p) => p !== port);
        await waitFor(() => allOk(cli, alive), 30_000, `cluster_state:ok without the node on port ${port}`);
      },
      stop,
    };
    await waitFor(() => allOk(cli, ports), 30_000, 'cluster_state:ok on every node');
    await waitFor(async () => (await readNodes(cli, ports)).filter((n) => n.role === 'replica').length === 3, 30_000, 'three replicas attached');
    await waitFor(() => replicasInSync(cli, ports), 30_000, 'every replica in sync with its master');
    return cluster;
  } catch (err) {
    await stop();
    throw err;
  }
}

type Cli = (port: number, ...args: string[]) => Promise<string>;

async function allOk(cli: Cli, ports: number[]): Promise<boolean> {
  const infos = await Promise.all(ports.map((port) => cli(port, 'CLUSTER', 'INFO').catch(() => '')));
  return infos.every((info) => info.includes('cluster_state:ok'));
}

async function replicasInSync(cli: Cli, ports: number[]): Promise<boolean> {
  for (const port of ports) {
    const info = await cli(port, 'INFO', 'replication');
    if (info.includes('role:slave') && !info.includes('master_link_status:up')) return false;
  }
  return true;
}

async function readNodes(cli: Cli, ports: number[]): Promise<ClusterNodeInfo[]> {
  // CLUSTER NODES lines: <id> <ip:port@cport> <flags> <master id|-> ...
  const lines = (await cli(ports[0]!, 'CLUSTER', 'NODES')).trim().split('\n');
  const byId = new Map<string, { port: number; flags: string; master: string }>();
  for (const line of lines) {
    const [id, address, flags, master] = line.split(' ');
    const port = Number(/:(\d+)@/.exec(address ?? '')?.[1]);
    if (id && flags && master && Number.isFinite(port)) byId.set(id, { port, flags, master });
  }
  return [...byId.values()]
    .filter((n) => !n.flags.includes('fail') && !n.flags.includes('noaddr'))
    .map((n) => ({
      port: n.port,
      role: n.flags.includes('master') ? 'master' : 'replica',
      masterPort: n.flags.includes('slave') ? (byId.get(n.master)?.port ?? null) : null,
    }));
}

async function masterOfSlot(cli: Cli, port: number, slot: number): Promise<number | null> {
  // A master's CLUSTER NODES line ends with its slot ranges ("0-5460"); importing/migrating marks start with '['.
  const lines = (await cli(port, 'CLUSTER', 'NODES')).trim().split('\n');
  for (const line of lines) {
    const fields = line.split(' ');
    if (!fields[2]?.includes('master') || fields[2].includes('fail')) continue;
    for (const range of fields.slice(8)) {
      if (range.startsWith('[')) continue;
      const [from, to] = range.split('-').map(Number);
      if (from === undefined || Number.isNaN(from)) continue;
      if (slot >= from && slot <= (to ?? from)) return Number(/:(\d+)@/.exec(fields[1] ?? '')?.[1]);
    }
  }
  return null;
}

/** The cluster hash slot of a key (its hash tag's, when it has one), as Redis Cluster computes it. */
export function hashSlot(key: string): number {
  return calculateSlot(key);
}
