import { DETECTOR_KINDS, Scanner, type SecurityRule } from '@patchbay/security-scanner';
import type { Benchmark } from './benchmark';
import { measureSync, type MicroOptions, type MicroResult } from './micro';
import { formatInt, machineDescription, machineLoad, print, progress, table } from './report';

const USAGE = `pnpm bench scan

µs per Scanner.scan of security scanning, with every built-in detector on (action redact, both
directions), over: a small tool argument object with no findings, the same with findings, and a
100 KB and a 1 MB tool result, each both as MCP text content (one JSON string) and as structured JSON,
and text built to make the detectors work hard (256 KB and 1 MB: the cost should grow linearly).
In process, no services needed.
`;

/** Deterministic data: the same figures come from the same code. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the tool pack list drops page_size when following the next link so clients fetch every page twice ' +
  'expected behaviour is that the cursor keeps the original filters and sort order steps to reproduce ' +
  'call the endpoint with a small page then follow next and compare the counts across pages release ' +
  'notes mention the fix for version 2.14.1 deployed on 2024-05-02T10:31:00Z to all regions'
).split(' ');

function sentence(next: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(next() * WORDS.length)]!);
  return out.join(' ');
}

// Roughly one record in forty carries something a detector should find, as support and CRM data do.
const FINDINGS = ['reach me at dana.reyes@example.com', 'from 203.0.113.42', 'call +1 (415) 555-0134', 'card 4111 1111 1111 1111', 'ssn 123-45-6789'];

/** A list-issues style tool result of about `bytes` bytes of JSON. */
function toolResult(bytes: number, seed: number): unknown[] {
  const next = random(seed);
  const records: unknown[] = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const body = sentence(next, 20 + Math.floor(next() * 40)) + (i % 40 === 17 ? ` ${FINDINGS[i % FINDINGS.length]}` : '');
    const record = {
      id: 1_900_000_000 + i,
      number: 4000 + i,
      title: sentence(next, 6),
      state: next() < 0.7 ? 'open' : 'closed',
      user: { login: `user${Math.floor(next() * 5000)}`, id: 10_000 + i, type: 'User', site_admin: false },
      labels: [{ name: 'bug', color: 'd73a4a' }, { name: 'api', color: '0e8a16' }],
      comments: Math.floor(next() * 20),
      created_at: '2024-05-02T10:31:00Z',
      updated_at: '2024-05-03T08:00:12Z',
      html_url: `https://github.com/patchbay/api/issues/${4000 + i}`,
      body,
    };
    size += JSON.stringify(record).length + 1;
    records.push(record);
  }
  return records;
}

const SMALL_CLEAN = {
  owner: 'patchbay',
  repo: 'api',
  title: 'Tool pack list drops page_size on the next link',
  body: 'Following next from GET /api/v1/tool-packs/?page_size=5 returns 10 results per page. Seen on v2.14.1 since 2024-05-02.',
  labels: ['bug', 'api'],
  assignees: ['octocat'],
  milestone: 3,
  draft: false,
};

const SMALL_FINDINGS = {
  ...SMALL_CLEAN,
  body: 'Customer dana.reyes@example.com (+1 415 555 0134) hit it from 203.0.113.42 with key AKIAIOSFODNN7EXAMPLE, v2.14.1.',
};

/**
 * Text built to make detectors work hard: long runs of digits and separators, '@'s, colons, key prefixes,
 * PEM headers without an END line. Shows that the cost stays linear, not that it is typical.
 */
function adversarialText(bytes: number): string {
  const units = ['1', '1 ', '4111 ', '123-45-', '+1 ', 'eyJ', 'DE89 ', 'a@', '1:', 'fe80:', 'sk-', '-----BEGIN PRIVATE KEY-----', 'QUJD\\n'];
  const chunk = Math.ceil(bytes / units.length);
  // Buffer round trip: a flat string, as JSON.parse would give, not a rope of repeats.
  return Buffer.from(units.map((u) => u.repeat(Math.ceil(chunk / u.length)).slice(0, chunk) + ' | ').join('')).toString();
}

interface Case {
  name: string;
  value: unknown;
  options: MicroOptions;
}

function cases(): Case[] {
  const small: MicroOptions = { warmupIterations: 20_000, rounds: 5, iterationsPerRound: 20_000 };
  const medium: MicroOptions = { warmupIterations: 50, rounds: 5, iterationsPerRound: 100 };
  const large: MicroOptions = { warmupIterations: 5, rounds: 5, iterationsPerRound: 10 };
  const r100k = toolResult(100_000, 1);
  const r1m = toolResult(1_000_000, 2);
  const asText = (records: unknown[]) => ({ content: [{ type: 'text', text: JSON.stringify(records) }], isError: false });
  const asStructured = (records: unknown[]) => ({ content: [{ type: 'text', text: 'see structuredContent' }], structuredContent: { items: records }, isError: false });
  return [
    { name: 'small arguments, no findings', value: SMALL_CLEAN, options: small },
    { name: 'small arguments, 4 findings', value: SMALL_FINDINGS, options: small },
    { name: '100 KB result, MCP text', value: asText(r100k), options: medium },
    { name: '100 KB result, structured', value: asStructured(r100k), options: medium },
    { name: '1 MB result, MCP text', value: asText(r1m), options: large },
    { name: '1 MB result, structured', value: asStructured(r1m), options: large },
    { name: '256 KB adversarial text', value: adversarialText(256_000), options: medium },
    { name: '1 MB adversarial text', value: adversarialText(1_000_000), options: large },
  ];
}

async function run(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    print(USAGE);
    return 0;
  }
  if (args.length > 0) {
    process.stderr.write(`pnpm bench scan takes no options, got ${args.join(' ')}\n`);
    return 2;
  }
  const rules: SecurityRule[] = DETECTOR_KINDS.map((kind) => ({ id: kind, name: kind, detector: kind, direction: 'both', action: 'redact', enabled: true }));
  const scanner = new Scanner(rules);
  const rows: string[][] = [];
  for (const c of cases()) {
    const bytes = JSON.stringify(c.value).length;
    const once = scanner.scan(c.value, 'outbound');
    const findings = once.detections.reduce((sum, d) => sum + d.count, 0);
    progress(`${c.name}: ${formatInt(bytes)} bytes, ${findings} findings`);
    const result: MicroResult = measureSync(() => scanner.scan(c.value, 'outbound'), c.options);
    const us = result.nsPerOp / 1000;
    rows.push([
      c.name,
      formatInt(bytes),
      String(findings),
      us < 100 ? us.toFixed(1) : formatInt(us),
      `${(result.minNsPerOp / 1000).toFixed(1)}-${(result.maxNsPerOp / 1000).toFixed(1)}`,
      formatInt(bytes / us),
    ]);
  }
  print('pnpm bench scan: security scanning Scanner.scan, all built-in detectors on (redact, both directions)');
  print(`machine: ${machineDescription()}; load average ${machineLoad().text}`);
  print('each row: warm-up, then 5 rounds; µs/scan is the median round');
  print();
  for (const line of table(['payload', 'bytes', 'findings', 'µs/scan', 'rounds range µs', 'MB/s'], rows)) print(line);
  return 0;
}

export const scanBenchmark: Benchmark = {
  name: 'scan',
  summary: 'µs per security scan: small tool arguments, 100 KB and 1 MB results, all built-in detectors on',
  run,
};
