import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Meter, type MeterDecision, type MeterRequest } from '@patchbay/metering';
import Redis from 'ioredis';
import type { Benchmark } from './benchmark';
import { DEFAULT_REDIS_URL } from './backends';
import { median } from './measure';
import { UsageError, positiveInteger } from './options';
import { formatInt, machineDescription, machineLoad, print, progress, table } from './report';

const USAGE = `pnpm bench meter [options]

Meter.check (the rate limit and credit check mcp-runtime makes on every tools/call) against Redis:
checks per second and p50/p99 latency, one at a time and with many in flight on one connection (as
one replica under load), for an allowed call and for each kind of refusal, beside a bare PING (the
floor for one round trip). Then proves the one round trip: the commands the benchmark's connection
sends per check, read from MONITOR, and what the script runs inside Redis, from INFO commandstats.

Uses REDIS_URL (default ${DEFAULT_REDIS_URL}); every key it writes is under a prefix of its own,
deleted at the end.

  --checks <n>       checks per round and target (default 10000)
  --rounds <n>       rounds, alternating between targets; figures are medians over rounds (default 5)
  --warmup <n>       discarded checks per target before the rounds (default 2000)
  --in-flight <n>    concurrent checks in the loaded runs (default 32)
  --help`;

interface MeterBenchOptions {
  checks: number;
  rounds: number;
  warmup: number;
  inFlight: number;
  help: boolean;
}

function parseOptions(args: string[]): MeterBenchOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        checks: { type: 'string' },
        rounds: { type: 'string' },
        warmup: { type: 'string' },
        'in-flight': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  return {
    checks: positiveInteger('checks', values.checks as string | undefined, 10_000),
    rounds: positiveInteger('rounds', values.rounds as string | undefined, 5),
    warmup: positiveInteger('warmup', values.warmup as string | undefined, 2_000, true),
    inFlight: positiveInteger('in-flight', values['in-flight'] as string | undefined, 32),
    help: values.help === true,
  };
}

/** One kind of call: what it sends, and what every answer must be (a benchmark of the wrong outcome measures nothing). */
interface Scenario {
  label: string;
  /** The i-th call of a run. */
  call: (i: number) => Promise<MeterDecision | string>;
  expect: (answer: MeterDecision | string) => boolean;
}

interface Target {
  scenario: Scenario;
  inFlight: number;
}

interface RoundFigures {
  checksPerSecond: number;
  p50Us: number;
  p99Us: number;
  redisCpuUsPerCheck: number | null;
  unexpected: number;
}

function percentile(sortedNs: BigUint64Array, p: number): number {
  const index = Math.min(sortedNs.length - 1, Math.ceil((p / 100) * sortedNs.length) - 1);
  return Number(sortedNs[Math.max(0, index)]!) / 1000;
}

/** Redis's own CPU time (user + system, µs), to tell the script's cost on the server from the round trip. */
async function redisCpuUs(redis: Redis): Promise<number | null> {
  const info = await redis.info('cpu');
  const read = (name: string) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1]);
  const total = read('used_cpu_user') + read('used_cpu_sys');
  return Number.isFinite(total) ? total * 1e6 : null;
}

/** `calls` calls with `inFlight` of them outstanding at any time; the latency of each, from its send to its answer. */
async function runCalls(target: Target, calls: number, offset: number): Promise<{ latenciesNs: BigUint64Array; elapsedNs: bigint; unexpected: number }> {
  const latenciesNs = new BigUint64Array(calls);
  let next = 0;
  let unexpected = 0;
  const worker = async () => {
    for (let i = next++; i < calls; i = next++) {
      const start = process.hrtime.bigint();
      const answer = await target.scenario.call(offset + i);
      latenciesNs[i] = process.hrtime.bigint() - start;
      if (!target.scenario.expect(answer)) unexpected += 1;
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: Math.min(target.inFlight, calls) }, worker));
  return { latenciesNs, elapsedNs: process.hrtime.bigint() - start, unexpected };
}

async function measureRound(target: Target, calls: number, offset: number, stats: Redis): Promise<RoundFigures> {
  const cpuBefore = await redisCpuUs(stats);
  const { latenciesNs, elapsedNs, unexpected } = await runCalls(target, calls, offset);
  const cpuAfter = await redisCpuUs(stats);
  latenciesNs.sort();
  return {
    checksPerSecond: calls / (Number(elapsedNs) / 1e9),
    p50Us: percentile(latenciesNs, 50),
    p99Us: percentile(latenciesNs, 99),
    redisCpuUsPerCheck: cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / calls,
    unexpected,
  };
}

function scenarios(meter: Meter, redis: Redis, runId: string): Scenario[] {
  const users = Array.from({ length: 1_000 }, (_, i) => `bench-user-${i}`);
  // A paid organization with room to spare: every call is counted, the write path in full.
  const allowed: MeterRequest = {
    organizationId: `bench-paid-${runId}`,
    registeredUserId: '',
    plan: 'paid',
    monthlyCredits: 1_000_000_000,
    rateLimitPerMinute: 1_000_000,
  };
  // One user whose window is full (limit 1): every call is refused before credits are looked at.
  const rateLimited: MeterRequest = { ...allowed, organizationId: `bench-limited-${runId}`, registeredUserId: 'bench-user-limited', rateLimitPerMinute: 1 };
  // A free organization with no credits left.
  const billing: MeterRequest = { ...allowed, organizationId: `bench-free-${runId}`, plan: 'free', monthlyCredits: 0 };
  return [
    { label: 'PING (one round trip, no script)', call: () => redis.ping(), expect: (a) => a === 'PONG' },
    {
      label: 'check: allowed (paid, counted)',
      call: (i) => meter.check({ ...allowed, registeredUserId: users[i % users.length]! }),
      expect: (a) => typeof a !== 'string' && a.allowed,
    },
    {
      label: 'check: refused, rate_limited',
      call: () => meter.check(rateLimited),
      // The one allowed call re-fills the window whenever the previous one has aged out (runs over a minute).
      expect: (a) => typeof a !== 'string' && (a.reason === 'rate_limited' || a.allowed),
    },
    {
      label: 'check: refused, billing_limit_reached',
      call: (i) => meter.check({ ...billing, registeredUserId: users[i % users.length]! }),
      expect: (a) => typeof a !== 'string' && a.reason === 'billing_limit_reached',
    },
  ];
}

interface CommandCount {
  fromClient: Record<string, number>;
  checks: number;
}

/** What the benchmark's own connection sends for `checks` checks, as Redis's MONITOR sees it. */
async function countClientCommands(redis: Redis, monitorFrom: Redis, scenario: Scenario, checks: number): Promise<CommandCount> {
  const address = /addr=(\S+)/.exec((await redis.call('CLIENT', 'INFO')) as string)?.[1];
  if (!address) throw new Error('CLIENT INFO gave no address');
  const marker = `bench-meter-${randomUUID()}`;
  const fromClient: Record<string, number> = {};
  let done = false;
  const monitor = await monitorFrom.monitor();
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source !== address || done) return;
    const name = (args[0] ?? '').toUpperCase();
    if (name === 'ECHO' && args[1] === marker) done = true;
    else fromClient[name] = (fromClient[name] ?? 0) + 1;
  });
  try {
    await runCalls({ scenario, inFlight: 1 }, checks, 0);
    await redis.echo(marker);
    const deadline = Date.now() + 10_000;
    while (!done && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    if (!done) throw new Error('MONITOR did not show the end marker within 10 s');
  } finally {
    monitor.disconnect();
  }
  return { fromClient, checks };
}

/** Calls per command from INFO commandstats, to show what runs inside the script (other clients' commands add noise). */
async function commandStats(redis: Redis): Promise<Map<string, number>> {
  const info = await redis.info('commandstats');
  const stats = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) stats.set(match[1]!, Number(match[2]));
  return stats;
}

async function deleteKeys(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) deleted += await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  return deleted;
}

async function run(args: string[]): Promise<number> {
  const options = parseOptions(args);
  if (options.help) {
    print(USAGE);
    return 0;
  }
  const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, connectionName: 'bench-meter' });
  const stats = new Redis(redisUrl, { maxRetriesPerRequest: 1, connectionName: 'bench-meter-stats' });
  const runId = randomUUID();
  const prefix = `patchbay:bench:meter:${runId}:`;
  try {
    try {
      await redis.ping();
    } catch {
      throw new Error(`Redis does not answer at ${redisUrl}. Start it (redis-server --daemonize yes) or set REDIS_URL.`);
    }
    // Fresh organizations with no records: each one's first check starts its epoch from an empty ledger (in the warm-up).
    const meter = new Meter(redis, { keyPrefix: prefix, ledger: { recorded: async () => ({ credits: [], calls: [] }) } });
    const [ping, allowed, rateLimited, billing] = scenarios(meter, redis, runId);
    // Fill the rate-limited user's window (limit 1) so every measured call is a refusal.
    await rateLimited!.call(0);

    const targets: Target[] = [];
    for (const inFlight of [1, options.inFlight]) for (const scenario of [ping!, allowed!, rateLimited!, billing!]) targets.push({ scenario, inFlight });
    const loadBefore = machineLoad().text;
    const server = await redis.info('server');
    const redisVersion = /^redis_version:(\S+)/m.exec(server)?.[1] ?? 'unknown';

    for (const target of targets) {
      progress(`warm-up: ${target.scenario.label}, ${target.inFlight} in flight`);
      await runCalls(target, options.warmup, 0);
    }
    const rounds = new Map<Target, RoundFigures[]>(targets.map((t) => [t, []]));
    for (let round = 0; round < options.rounds; round++) {
      progress(`round ${round + 1} of ${options.rounds}`);
      for (const target of targets) {
        rounds.get(target)!.push(await measureRound(target, options.checks, options.warmup + round * options.checks, stats));
      }
    }
    const loadAfter = machineLoad().text;

    progress('counting commands per check (MONITOR, then INFO commandstats)');
    const sampleChecks = 1_000;
    const monitored = [];
    for (const scenario of [allowed!, rateLimited!, billing!]) monitored.push({ scenario, count: await countClientCommands(redis, stats, scenario, sampleChecks) });
    const statsBefore = await commandStats(stats);
    await runCalls({ scenario: allowed!, inFlight: 1 }, sampleChecks, 0);
    const statsAfter = await commandStats(stats);

    print('pnpm bench meter: Meter.check (rate limit + credits for one tools/call) against Redis');
    print(`machine:  ${machineDescription()}`);
    print(`          load average ${loadBefore} before, ${loadAfter} after`);
    print(`redis:    ${redisVersion} at ${new URL(redisUrl).host}; one ioredis connection for the checks (calls in flight are pipelined on it, as one replica's are)`);
    print(
      `runs:     per target ${formatInt(options.warmup)} warm-up checks, then ${options.rounds} rounds of ${formatInt(options.checks)} interleaved with the other targets; ` +
        'figures are medians over rounds; latency is send-to-answer of each call, queueing in the client included',
    );
    print();
    const cell = (values: number[]) => formatInt(median(values));
    for (const line of table(
      ['target', 'in flight', 'checks/s', 'p50 µs', 'p99 µs', 'Redis CPU µs/check', 'unexpected'],
      targets.map((t) => {
        const figures = rounds.get(t)!;
        const cpu = figures.map((f) => f.redisCpuUsPerCheck).filter((v): v is number => v !== null);
        return [
          t.scenario.label,
          String(t.inFlight),
          cell(figures.map((f) => f.checksPerSecond)),
          cell(figures.map((f) => f.p50Us)),
          cell(figures.map((f) => f.p99Us)),
          cpu.length > 0 ? median(cpu).toFixed(1) : 'n/a',
          formatInt(figures.reduce((sum, f) => sum + f.unexpected, 0)),
        ];
      }),
    )) print(line);
    print('  (Redis CPU is the whole server\'s over the round: other clients of a shared Redis add to it)');
    print();

    print(`One round trip: commands the benchmark's connection sent for ${formatInt(sampleChecks)} checks (MONITOR, filtered by its address)`);
    for (const line of table(
      ['scenario', 'commands sent', 'per check', 'by name'],
      monitored.map(({ scenario, count }) => {
        const total = Object.values(count.fromClient).reduce((a, b) => a + b, 0);
        return [scenario.label, formatInt(total), (total / count.checks).toFixed(2), Object.entries(count.fromClient).map(([n, c]) => `${n} ${formatInt(c)}`).join(', ')];
      }),
    )) print(line);
    print();

    print(`Inside the script: INFO commandstats calls per check over ${formatInt(sampleChecks)} allowed checks (all clients of this Redis)`);
    const deltas = [...statsAfter]
      .map(([name, calls]) => [name, calls - (statsBefore.get(name) ?? 0)] as const)
      .filter(([name, delta]) => delta > 0 && name !== 'info')
      .sort((a, b) => b[1] - a[1]);
    for (const line of table(['command', 'calls', 'per check'], deltas.map(([name, delta]) => [name, formatInt(delta), (delta / sampleChecks).toFixed(2)]))) print(line);
    print();

    const unexpected = [...rounds.values()].flat().reduce((sum, f) => sum + f.unexpected, 0);
    const perCheck = monitored.map(({ count }) => Object.values(count.fromClient).reduce((a, b) => a + b, 0) / count.checks);
    const oneTrip = monitored.every(({ count }) => (count.fromClient.EVALSHA ?? 0) === count.checks) && perCheck.every((n) => n === 1);
    print(`verdict: ${oneTrip ? 'one round trip per check (one EVALSHA each)' : 'NOT one round trip per check: see the table above'}${unexpected > 0 ? `; ${unexpected} answers were not the expected decision` : ''}`);
    return oneTrip && unexpected === 0 ? 0 : 1;
  } finally {
    const deleted = await deleteKeys(stats, prefix).catch(() => 0);
    progress(`deleted ${formatInt(deleted)} benchmark keys`);
    redis.disconnect();
    stats.disconnect();
  }
}

export const meterBenchmark: Benchmark = {
  name: 'meter',
  summary: 'Meter.check (rate limit + credits) checks/s and p50/p99 against Redis, and proof of one round trip per check',
  run,
};
