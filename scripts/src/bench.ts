import { authBenchmark } from './bench/auth';
import { capacityBenchmark } from './bench/capacity';
import { consoleBenchmark } from './bench/console';
import { failoverBenchmark } from './bench/failover';
import type { Benchmark } from './bench/benchmark';
import { gatewayBenchmark } from './bench/gateway';
import { mcpBenchmark } from './bench/mcp';
import { meterBenchmark } from './bench/meter';
import { UsageError } from './bench/options';
import { promptInjectionBenchmark } from './bench/prompt-injection';
import { proxyFloorBenchmark } from './bench/proxy-floor';
import { registryBenchmark } from './bench/registry';
import { scanBenchmark } from './bench/scan';
import { searchBenchmark } from './bench/search';
import { unifiedBenchmark } from './bench/unified';
import { wasInterrupted } from './bench/services';
import { wireBenchmark } from './bench/wire';

/** Every `pnpm bench <name>`. */
const BENCHMARKS: Benchmark[] = [authBenchmark, meterBenchmark, searchBenchmark, registryBenchmark, scanBenchmark, mcpBenchmark, proxyFloorBenchmark, wireBenchmark, promptInjectionBenchmark, gatewayBenchmark, unifiedBenchmark, failoverBenchmark, consoleBenchmark, capacityBenchmark];

function listBenchmarks(): string {
  const width = Math.max(...BENCHMARKS.map((b) => b.name.length));
  return `usage: pnpm bench <name> [options]   (pnpm bench <name> --help for its options)\n\nbenchmarks:\n${BENCHMARKS.map((b) => `  ${b.name.padEnd(width)}  ${b.summary}`).join('\n')}\n`;
}

async function main(): Promise<number> {
  const [name, ...args] = process.argv.slice(2);
  const benchmark = BENCHMARKS.find((b) => b.name === name);
  if (!benchmark) {
    if (name !== undefined) process.stderr.write(`unknown benchmark "${name}"\n\n`);
    process.stderr.write(listBenchmarks());
    return 2;
  }
  try {
    return await benchmark.run(args);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n(pnpm bench ${benchmark.name} --help lists the options)\n`);
      return 2;
    }
    throw err;
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    // Interrupted: the signal handler is stopping the services and exits when they are gone.
    if (wasInterrupted()) return;
    process.stderr.write(`pnpm bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
