/** How a micro-benchmark is run: a discarded warm-up (so V8 has optimized the code), then measured rounds. */
export interface MicroOptions {
  warmupIterations: number;
  rounds: number;
  iterationsPerRound: number;
}

export const DEFAULT_MICRO: MicroOptions = { warmupIterations: 100_000, rounds: 5, iterationsPerRound: 200_000 };

export interface MicroResult {
  /** Median of the rounds' ns per call: one round hit by a GC or a scheduler hiccup does not move it. */
  nsPerOp: number;
  minNsPerOp: number;
  maxNsPerOp: number;
  iterations: number;
}

function summarize(perRound: number[], options: MicroOptions): MicroResult {
  const sorted = [...perRound].sort((a, b) => a - b);
  return {
    nsPerOp: sorted[Math.floor(sorted.length / 2)]!,
    minNsPerOp: sorted[0]!,
    maxNsPerOp: sorted[sorted.length - 1]!,
    iterations: options.rounds * options.iterationsPerRound,
  };
}

/**
 * ns per call of a synchronous function. What it returns is folded into a value kept alive,
 * so the optimizer cannot drop the call as dead code.
 */
export function measureSync(fn: () => unknown, options: MicroOptions = DEFAULT_MICRO): MicroResult {
  let sink = 0;
  const consume = (value: unknown) => {
    sink ^= typeof value === 'string' ? value.length : value === undefined ? 0 : 1;
  };
  for (let i = 0; i < options.warmupIterations; i++) consume(fn());
  const perRound: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < options.iterationsPerRound; i++) consume(fn());
    perRound.push(Number(process.hrtime.bigint() - start) / options.iterationsPerRound);
  }
  if (sink === -1) process.stderr.write('');
  return summarize(perRound, options);
}

/** ns per awaited call of an async function, one call at a time, as a request handler makes it. */
export async function measureAsync(fn: () => Promise<unknown>, options: MicroOptions = DEFAULT_MICRO): Promise<MicroResult> {
  let sink = 0;
  for (let i = 0; i < options.warmupIterations; i++) sink ^= (await fn()) === undefined ? 0 : 1;
  const perRound: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < options.iterationsPerRound; i++) sink ^= (await fn()) === undefined ? 0 : 1;
    perRound.push(Number(process.hrtime.bigint() - start) / options.iterationsPerRound);
  }
  if (sink === -1) process.stderr.write('');
  return summarize(perRound, options);
}
