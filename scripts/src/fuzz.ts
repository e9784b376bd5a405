import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runFuzz } from './fuzz/run';
import { DATA_DIR } from './suite';

/**
 * `pnpm fuzz [--requests N] [--seed S] [--concurrency C] [--base URL] [--key KEY] [--management-key MGMT]`: a bounded, seeded
 * fuzzer of the running suite, driven by the merged OpenAPI document the edge router serves (every
 * operation of every service). Exits 1 on any 5xx (but a documented bad_gateway/gateway_timeout about a
 * third party the request named), any error body that is not the error envelope, or any request left
 * unanswered (a stalled connection).
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '10000' },
      seed: { type: 'string', default: '1' },
      concurrency: { type: 'string', default: '8' },
      base: { type: 'string' },
      key: { type: 'string' },
      'test-key': { type: 'string' },
      'management-key': { type: 'string' },
    },
  });
  const offset = Number(process.env.PATCHBAY_PORT_OFFSET ?? 0) || 0;
  const baseUrl = values.base ?? process.env.PATCHBAY_FUZZ_BASE ?? `http://127.0.0.1:${process.env.PORT || 8080 + offset}`;
  const firstRun = path.join(DATA_DIR, 'first-run-keys.json');
  const saved = existsSync(firstRun) ? (JSON.parse(readFileSync(firstRun, 'utf8')) as { master_key?: string; test_key?: string }) : {};
  const key = values.key ?? process.env.PATCHBAY_FUZZ_KEY ?? saved.master_key;
  if (!key) throw new Error(`No key: pass --key (or PATCHBAY_FUZZ_KEY), or start the suite once so ${firstRun} holds its first-run keys.`);
  const requests = Number(values.requests);
  const report = await runFuzz({
    baseUrl,
    requests,
    seed: Number(values.seed),
    concurrency: Number(values.concurrency),
    credentials: { key, testKey: values['test-key'] ?? saved.test_key, managementKey: values['management-key'] ?? process.env.PATCHBAY_FUZZ_MANAGEMENT_KEY },
    log: (line) => process.stderr.write(`[fuzz] ${line}\n`),
  });
  process.stdout.write(`${JSON.stringify({ ...report, failures: report.failures.slice(0, 20) }, null, 2)}\n`);
  process.stdout.write(
    `fuzz: ${report.requests} requests over ${report.operations} operations in ${report.seconds.toFixed(1)} s, seed ${values.seed}; 5xx: ${report.fiveHundreds} (${report.upstreamErrors} documented upstream errors); failures: ${report.failureCount}\n`,
  );
  process.exitCode = report.failureCount === 0 ? 0 : 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`fuzz: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
});
