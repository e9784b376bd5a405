import path from 'node:path';
import { GITHUB_FAKE_TOKENS } from '@patchbay/provider-fakes';
import type { Benchmark } from './benchmark';
import { pickLoadTool } from './load';
import { BENCH_PROVIDER_HEADERS, GITHUB_ISSUE, readProvidersStatus } from './mcp-setup';
import { medianAdded, measureInterleaved, type Target } from './measure';
import { LOAD_OPTIONS_USAGE, parseLoadOptions, positiveInteger } from './options';
import { formatInt, formatSigned, machineDescription, machineLoad, print, progress, table } from './report';
import { ServiceGroup } from './services';

const USAGE = `pnpm bench proxy-floor [options]

What any chain of Node HTTP hops costs on this machine, with no gateway work at all: the fake GitHub of
pnpm bench mcp called directly, through one bare keep-alive proxy (scripts/src/bench/bare-proxy.ts), and
through two in a row (the edge router and mcp-runtime are two hops). Run at --connections and at 1
connection; prints req/s, p50, and what each chain adds against direct. It is the floor under
pnpm bench mcp's figures for (a): no edge router and runtime can do better than two do-nothing hops.
PATCHBAY_BENCH_PROVIDER_LATENCY_MS=<ms> makes the fake answer after that long, as in pnpm bench mcp.

${LOAD_OPTIONS_USAGE.split('\n')
  .filter((line) => !line.includes('--profile') && !line.includes('--bare-proxy') && !line.includes("the floor for one Node hop") && !line.includes("record a CPU profile"))
  .join('\n')}
`;

const HEALTH_PATH = '/__bare-proxy/healthz';

async function run(args: string[]): Promise<number> {
  const options = parseLoadOptions(args);
  if (options.help) {
    print(USAGE);
    return 0;
  }
  const latencyMs = positiveInteger('PATCHBAY_BENCH_PROVIDER_LATENCY_MS', process.env.PATCHBAY_BENCH_PROVIDER_LATENCY_MS, 0, true);
  const tool = pickLoadTool(options.tool, options.threads);
  progress(`load generator: ${tool.description}`);
  const group = new ServiceGroup(progress);
  try {
    const providers = await group.start({ name: 'providers', entry: path.join(__dirname, 'mcp-providers.js'), env: { SECRET: 'unused', LATENCY_MS: String(latencyMs) } });
    const github = (await readProvidersStatus(providers)).github.url;
    const first = await group.start({ name: 'bare-proxy-1', entry: path.join(__dirname, 'bare-proxy.js'), env: { TARGET: github }, healthPath: HEALTH_PATH });
    const second = await group.start({ name: 'bare-proxy-2', entry: path.join(__dirname, 'bare-proxy.js'), env: { TARGET: first.baseUrl }, healthPath: HEALTH_PATH });
    const issuePath = `/repos/${GITHUB_ISSUE.owner}/${GITHUB_ISSUE.repo}/issues/${GITHUB_ISSUE.issue_number}`;
    const headers = { ...BENCH_PROVIDER_HEADERS, Authorization: `Bearer ${GITHUB_FAKE_TOKENS.valid}` };
    const chains = [
      { label: 'direct', base: github },
      { label: 'one bare proxy', base: first.baseUrl },
      { label: 'two bare proxies', base: second.baseUrl },
    ];
    const connectionCounts = [...new Set([options.connections, 1])];
    const targets: Target[] = connectionCounts.flatMap((connections) => chains.map((c) => ({ label: c.label, url: `${c.base}${issuePath}`, headers, connections, expectStatus: 200 })));
    const loadBefore = machineLoad().text;
    const results = await measureInterleaved(tool, options, targets, [providers, first, second]);

    print(`pnpm bench proxy-floor: ${machineDescription()}; load average ${loadBefore} before, ${machineLoad().text} after`);
    print(`providers: ${latencyMs > 0 ? `the fake answers each call after ${formatInt(latencyMs)} ms` : 'the fake answers at once'}; ${tool.description}`);
    const rows: string[][] = [];
    for (const connections of connectionCounts) {
      const atCount = results.filter((r) => r.connections === connections);
      const direct = atCount.find((r) => r.label === 'direct')!;
      for (const r of atCount) {
        const added = r === direct ? '' : formatSigned(medianAdded(r, direct, (round) => round.p50Us));
        rows.push([r.label, String(connections), formatInt(r.requestsPerSecond), formatInt(r.p50Us), added, r === direct ? '' : (r.requestsPerSecond / direct.requestsPerSecond).toFixed(2), String(r.non2xx + r.socketErrors)]);
      }
    }
    for (const line of table(['path', 'conns', 'req/s', 'p50 µs', 'added p50 µs', 'req/s ratio', 'errors'], rows, ['left'])) print(`  ${line}`);
    return results.some((r) => r.non2xx + r.socketErrors > 0) ? 1 : 0;
  } finally {
    await group.stopAll();
  }
}

export const proxyFloorBenchmark: Benchmark = {
  name: 'proxy-floor',
  summary: 'what one and two bare Node proxies in a row cost against the fake GitHub called directly (the floor under pnpm bench mcp)',
  run,
};
