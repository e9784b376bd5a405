import { parseArgs } from 'node:util';

/** Flags every HTTP benchmark understands, so `pnpm bench <name> --duration 5` means the same everywhere. */
export interface LoadOptions {
  /** Seconds of measured load per target. */
  durationS: number;
  /** Measured time is split into this many rounds, interleaved across targets; figures are medians over rounds. */
  rounds: number;
  /** Seconds of load before each measured run, discarded, so JIT and connection pools are warm. */
  warmupS: number;
  connections: number;
  /** wrk threads; autocannon always runs on one. */
  threads: number;
  /** Force a load generator instead of picking wrk when it is installed. */
  tool: 'wrk' | 'autocannon' | undefined;
  /** Record a CPU profile of the service under test and print where its time goes. */
  profile: boolean;
  /** Also measure a minimal Node proxy in the same place, as the floor for one HTTP hop. */
  bareProxy: boolean;
  help: boolean;
}

export const LOAD_OPTIONS_USAGE = `  --duration <s>       measured seconds per target, whole (default 10)
  --rounds <n>         split them into n rounds, alternating between targets; latency figures are
                       medians over rounds, so a burst of other work on the machine does not skew one side (default 5)
  --warmup <s>         warm-up seconds before each measured run (default 3)
  --connections <n>    concurrent connections (default 32)
  --threads <n>        wrk threads (default 1: on a small machine the generator competes with the services)
  --tool wrk|autocannon  load generator (default: wrk when installed, else autocannon)
  --profile            record a CPU profile of the router under test and print where its time goes
  --bare-proxy         also measure a minimal node:http keep-alive proxy in the router's place:
                       the floor for one Node hop on this machine, to tell it from the router's own work
  --help`;

export class UsageError extends Error {}

/** A whole-number flag value (positive unless zero is allowed), or the fallback when absent. */
export function positiveInteger(flag: string, value: string | undefined, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < (allowZero ? 0 : 1)) throw new UsageError(`--${flag} must be a ${allowZero ? '' : 'positive '}whole number, got "${value}"`);
  return n;
}

export function parseLoadOptions(args: string[]): LoadOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        duration: { type: 'string' },
        rounds: { type: 'string' },
        warmup: { type: 'string' },
        connections: { type: 'string' },
        threads: { type: 'string' },
        tool: { type: 'string' },
        profile: { type: 'boolean' },
        'bare-proxy': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const tool = values.tool as string | undefined;
  if (tool !== undefined && tool !== 'wrk' && tool !== 'autocannon') throw new UsageError(`--tool must be wrk or autocannon, got "${tool}"`);
  const connections = positiveInteger('connections', values.connections as string | undefined, 32);
  const threads = positiveInteger('threads', values.threads as string | undefined, 1);
  // A zero warm-up is allowed: it is the one flag where "none" makes sense. Whole seconds: wrk accepts nothing finer.
  const warmupRaw = values.warmup as string | undefined;
  const warmupS = warmupRaw === '0' ? 0 : positiveInteger('warmup', warmupRaw, 3);
  return {
    durationS: positiveInteger('duration', values.duration as string | undefined, 10),
    rounds: positiveInteger('rounds', values.rounds as string | undefined, 5),
    warmupS,
    connections,
    threads: Math.min(threads, connections),
    tool,
    profile: values.profile === true,
    bareProxy: values['bare-proxy'] === true,
    help: values.help === true,
  };
}
