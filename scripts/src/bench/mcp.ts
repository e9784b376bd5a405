import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GITHUB_FAKE_TOKENS } from '@patchbay/provider-fakes';
import { REPO_ROOT } from '../suite';
import type { Benchmark } from './benchmark';
import { describeBackends, prepareBackends, type Backends } from './backends';
import { newestProfile, summarizeCpuProfile, type ProfileSummary, type TimeWindow } from './cpu-profile';
import { pickLoadTool, type LoadTool } from './load';
import { ResponseSampler, checkOnce, expectFields, jsonCheck, toolCallBody, toolCallCheck, type SampleTally, type SampledRequest } from './mcp-checks';
import { STAGE_ORDER, runtimeStageOf } from './mcp-profile';
import type { CallCounts, ProvidersStatus } from './mcp-providers';
import { BENCH_ORGANIZATION, BENCH_PROVIDER_HEADERS, CUSTOM_SLUG, CUSTOM_TOOL, EVERYTHING_SLUG, EVERYTHING_TOOL, GITHUB_ISSUE, readProvidersStatus, setUpMcpBench, type McpBenchSetup } from './mcp-setup';
import {
  KINDS,
  KIND_LABEL,
  KIND_TITLE,
  TARGET_ADDED_P50_US,
  TARGET_THROUGHPUT_RATIO,
  countedTwoXx,
  findRun,
  problemsOf,
  verdictOf,
  type Kind,
  type Run,
  type Via,
} from './mcp-verdict';
import { measureInterleaved, medianAdded, roundSeconds, type Target, type TargetResult } from './measure';
import { TARGET_EDGE_CPU_RATIO, TARGET_EDGE_OVER_BARE_P50_US, compareHops, describeHops } from './hop-comparison';
import { LOAD_OPTIONS_USAGE, parseLoadOptions, positiveInteger, type LoadOptions } from './options';
import { formatInt, formatSigned, machineDescription, machineLoad, print, progress, table } from './report';
import { ServiceGroup } from './services';
import { BENCH_LOG_LEVEL } from './suite-services';

/** Pause between two sampled answers: a few requests a second beside thousands. */
const SAMPLE_PAUSE_MS = 100;
const ECHO_QUERY = 'patchbay bench';

const USAGE = `pnpm bench mcp [options]

tools/call throughput and p50/p99 latency through the edge router, beside the same provider called
directly in the same run (interleaved rounds), for:
  (a) a built-in tool, github__get_issue, whose provider is the fake GitHub of @patchbay/provider-fakes;
      direct: GET /repos/${GITHUB_ISSUE.owner}/${GITHUB_ISSUE.repo}/issues/${GITHUB_ISSUE.issue_number} on the fake with the user's token;
  (b) a custom connector's tool, ${CUSTOM_SLUG}__${CUSTOM_TOOL}, registered by URL; its server is the SDK MCP
      server of scripts/src/bench/registry-mcp-server.ts (stateless, bearer secret; tools echo their arguments);
      direct: the same tools/call JSON-RPC POST to that server;
      and ${EVERYTHING_SLUG}__${EVERYTHING_TOOL} on @modelcontextprotocol/server-everything, the reference server (its own
      Streamable HTTP launcher: sessions, an event store, SSE answers opening with a priming event); direct:
      the same tools/call POST within a session the benchmark opened.
Each also straight to mcp-runtime (no edge), so the edge's share shows, and through a bare keep-alive proxy
(scripts/src/bench/bare-proxy.ts) in the edge's place, so the edge's own hop is judged against the least a Node
hop costs: target (issue 24) the edge's p50 within +${formatInt(TARGET_EDGE_OVER_BARE_P50_US)} µs of the bare proxy's on 1 connection, and the
edge's CPU per call within ${TARGET_EDGE_CPU_RATIO}x of the bare proxy's. Through the runtime: a bare
JSON-RPC tools/call POST to /api/v1/tool-packs/{id}/registered-users/{id}/mcp with the master key.
Targets, through the edge: added p50 <= ${formatInt(TARGET_ADDED_P50_US)} µs (1 connection), and at least
${TARGET_THROUGHPUT_RATIO * 100}% of the direct throughput (--connections).

Answers are checked before the load and sampled during it (200, a JSON-RPC result without isError,
the expected issue or echo), and the providers count the calls the runtime made, which must cover
every 2xx counted through it; the run fails (exit 1) when any of that does not hold.

Uses DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/patchbay_bench, created if missing)
and REDIS_URL (default redis://127.0.0.1:6379/1). Each run creates one organization there: paid plan,
${formatInt(BENCH_ORGANIZATION.monthlyCredits ?? 0)} credits, ${formatInt(BENCH_ORGANIZATION.mcpRateLimitPerMinute ?? 0)} tool calls a minute per registered user (the most the
admin CLI allows; one registered user per path to the runtime).
mcp-runtime runs with PATCHBAY_CONNECTOR_BASE_URL_GITHUB=<the fake>, PATCHBAY_ALLOW_PRIVATE_NETWORK=true
(the providers are plain http on 127.0.0.1), DATABASE_URL and REDIS_URL as above, LOG_LEVEL=${BENCH_LOG_LEVEL},
NODE_ENV=production; everything else (PACK_CACHE_TTL_MS, TOOL_CALL_TIMEOUT_MS...) at its default.
PATCHBAY_BENCH_RECORD_WORKER=separate runs the runtime with TOOL_CALL_RECORD_WORKERS=false and its record
workers as their own process (node dist/worker.js), the deployment that keeps storing records off the
replicas answering agents; its CPU shows in its own column.
PATCHBAY_BENCH_REFERENCE_RUNTIME=<path to another build's apps/mcp-runtime/dist/main.js> runs that build beside this
one, on the same services, database and Redis (the two must share the mcp_runtime schema), as one more path,
"reference mcp-runtime (no edge)", interleaved with the others: an A/B of two runtimes in the same run, each with its
own CPU column.
PATCHBAY_BENCH_PROFILE_HOPS=1 runs the edge router and the bare proxy under node --cpu-prof and prints, for the
measured rounds through each, its busy time per call and the functions with the most self time per call, side by
side: where the edge's hop spends what a bare hop does not (the profiler's own cost is in both).
PATCHBAY_BENCH_PROVIDER_LATENCY_MS=<ms> makes both providers take that long to answer each call (default 0:
at once), on the direct path and through the runtime alike. At 0 the providers cost a few dozen µs of CPU a call,
far less than any real API takes, so the throughput ratio is the gateway's CPU against theirs on the same
cores; a realistic latency shows the ratio an agent would see.

${LOAD_OPTIONS_USAGE.replace('record a CPU profile of the router under test and print where its time goes', 'record a CPU profile of mcp-runtime; print its time by stage of a tool call').replace(
  /  --bare-proxy[^\n]*\n[^\n]*\n[^\n]*\n/,
  '  --bare-proxy         (always on here: the bare proxy is one of the paths)\n',
)}
`;

const VIA_LABEL: Record<Via, string> = {
  direct: 'direct',
  runtime: 'mcp-runtime (no edge)',
  edge: 'edge-router -> mcp-runtime',
  bare: 'bare proxy -> mcp-runtime',
  reference: 'reference mcp-runtime (no edge)',
};
const SHORT_NAMES: Record<string, string> = {
  'edge-router': 'edge',
  'bare-proxy': 'bare proxy',
  'mcp-runtime': 'runtime',
  'mcp-runtime-worker': 'record worker',
  'mcp-runtime-reference': 'reference runtime',
  'connector-registry': 'registry',
  'server-everything': 'everything',
  'access-keys-and-audit': 'access-keys',
  providers: 'providers',
};

interface Planned {
  kind: Kind;
  via: Via;
  target: Target;
  sample: SampledRequest;
}

interface HopProfile {
  summary: ProfileSummary;
  /** Calls answered in the measured rounds through this hop. */
  calls: number;
}

interface Figures {
  backends: Backends;
  setup: McpBenchSetup;
  runs: Run[];
  watched: string[];
  samples: SampleTally[];
  /** Calls each provider got during the measurement, by who sent them. */
  providerCalls: Record<Kind, CallCounts>;
  /** How long the providers took to answer each call, on purpose. */
  providerLatencyMs: number;
  loadBefore: string;
  loadAfter: string;
  /** Reference paths left out because the reference build failed them. */
  referenceSkipped: string[];
  /** Per kind, and both together (for the time in our own code). */
  profile: Record<Kind | 'both', ProfileSummary> | null;
  profileFile: string | null;
  /** PATCHBAY_BENCH_PROFILE_HOPS: the edge router's and the bare proxy's profiles over the rounds through each. */
  hops: { edge: HopProfile; bare: HopProfile } | null;
}

/** The two requests of a kind, direct to the provider and to the runtime's MCP endpoint, with their checks. */
function requestsOf(kind: Kind, setup: McpBenchSetup): { direct: Omit<SampledRequest, 'label'>; mcp: (baseUrl: string, userId: string) => Omit<SampledRequest, 'label'> } {
  const auth = { Authorization: `Bearer ${setup.organization.masterKey}` };
  const mcpUrl = (baseUrl: string, userId: string) => `${baseUrl}/api/v1/tool-packs/${setup.toolPackId}/registered-users/${userId}/mcp`;
  if (kind === 'builtin') {
    const issue = { number: GITHUB_ISSUE.issue_number, title: GITHUB_ISSUE.title };
    const { owner, repo, issue_number } = GITHUB_ISSUE;
    return {
      direct: {
        url: `${setup.status.github.url}/repos/${owner}/${repo}/issues/${issue_number}`,
        headers: { ...BENCH_PROVIDER_HEADERS, Authorization: `Bearer ${GITHUB_FAKE_TOKENS.valid}`, Accept: 'application/vnd.github+json' },
        check: jsonCheck(expectFields('the issue', issue)),
      },
      mcp: (baseUrl, userId) => ({
        url: mcpUrl(baseUrl, userId),
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: toolCallBody('github__get_issue', { input: { owner, repo, issue_number } }),
        check: toolCallCheck((result) => expectFields('structuredContent', issue)(result.structuredContent)),
      }),
    };
  }
  if (kind === 'everything') {
    const check = toolCallCheck((result) => expectFields('content[0]', { type: 'text', text: `Echo: ${ECHO_QUERY}` })((result.content as unknown[] | undefined)?.[0]));
    return {
      direct: {
        url: setup.everything.url,
        method: 'POST',
        headers: { ...BENCH_PROVIDER_HEADERS, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'mcp-session-id': setup.everything.sessionId, 'mcp-protocol-version': '2025-11-25' },
        body: toolCallBody(EVERYTHING_TOOL, { message: ECHO_QUERY }),
        check,
      },
      mcp: (baseUrl, userId) => ({
        url: mcpUrl(baseUrl, userId),
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: toolCallBody(`${EVERYTHING_SLUG}__${EVERYTHING_TOOL}`, { message: ECHO_QUERY }),
        check,
      }),
    };
  }
  const echo = { tool: CUSTOM_TOOL, arguments: { query: ECHO_QUERY } };
  const check = toolCallCheck((result) => expectFields('structuredContent', echo)(result.structuredContent));
  return {
    direct: {
      url: setup.status.mcp.url,
      method: 'POST',
      // The SDK's Streamable HTTP transport refuses a POST that does not accept both answers.
      headers: { ...BENCH_PROVIDER_HEADERS, Authorization: `Bearer ${setup.mcpSecret}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: toolCallBody(CUSTOM_TOOL, { query: ECHO_QUERY }),
      check,
    },
    mcp: (baseUrl, userId) => ({
      url: mcpUrl(baseUrl, userId),
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: toolCallBody(`${CUSTOM_SLUG}__${CUSTOM_TOOL}`, { query: ECHO_QUERY }),
      check,
    }),
  };
}

function plan(setup: McpBenchSetup, connections: number): Planned[] {
  const planned: Planned[] = [];
  // Loaded first, then one connection: under load the difference includes queueing for the CPUs; with one connection it is the hops themselves.
  for (const conns of new Set([connections, 1])) {
    for (const kind of KINDS) {
      const requests = requestsOf(kind, setup);
      const add = (via: Via, request: Omit<SampledRequest, 'label'>) => {
        const label = `${KIND_LABEL[kind]} ${VIA_LABEL[via]}`;
        const target: Target = { label, url: request.url, method: request.method, headers: request.headers, body: request.body, connections: conns };
        planned.push({ kind, via, target, sample: { ...request, label } });
      };
      add('direct', requests.direct);
      for (const p of setup.paths) add(p.via, requests.mcp(p.baseUrl, p.registeredUserId));
    }
  }
  return planned;
}

const delta = (after: CallCounts, before: CallCounts): CallCounts => ({ bench: after.bench - before.bench, others: after.others - before.others });

async function measure(tool: LoadTool, options: LoadOptions, profileDir: string | null, providerLatencyMs: number, hopProfileDir: string | null): Promise<Figures> {
  const backends = await prepareBackends();
  progress(`backends: ${describeBackends(backends)}`);
  const group = new ServiceGroup(progress);
  let setupDone: McpBenchSetup | null = null;
  const referenceSkipped: string[] = [];
  let figures: Omit<Figures, 'profile' | 'profileFile' | 'hops'>;
  let windows: Record<Kind | 'both', TimeWindow[]>;
  let hopRounds: Record<'edge' | 'bare', { windows: TimeWindow[]; calls: number }> | null = null;
  const hopArgs = (hop: string) => (hopProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(hopProfileDir, hop)}`] : []);
  try {
    const setup = await setUpMcpBench(group, backends, {
      runtimeNodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
      // Always: the edge's hop is judged against a bare proxy's in the same place (issue 24).
      bareProxy: true,
      edgeNodeArgs: hopArgs('edge'),
      bareNodeArgs: hopArgs('bare'),
      // The deployment that keeps storing records off the replicas answering agents (see the runtime's README).
      separateRecordWorker: process.env.PATCHBAY_BENCH_RECORD_WORKER === 'separate',
      providerLatencyMs,
      referenceRuntime: process.env.PATCHBAY_BENCH_REFERENCE_RUNTIME || undefined,
    });
    setupDone = setup;
    progress(`organization ${setup.organization.organizationId}, tool pack ${setup.toolPackId}`);
    let planned = plan(setup, options.connections);
    // Every path once before any load: a broken one fails here, with its answer in the message. The
    // reference build may not handle every kind (an older runtime and server-everything): that kind is
    // measured without it, and the report says why.
    for (const p of planned.filter((q) => q.target.connections === options.connections)) {
      const problem = await checkOnce(p.sample);
      if (problem === null) continue;
      if (p.via !== 'reference') throw new Error(`${p.sample.label}: ${p.sample.method ?? 'GET'} ${p.sample.url}: ${problem}`);
      referenceSkipped.push(`${p.sample.label}: left out, its first answer failed: ${problem}`);
      planned = planned.filter((q) => !(q.kind === p.kind && q.via === 'reference'));
    }
    const distinct = planned.filter((p) => p.target.connections === options.connections);
    const watchedServices = [setup.edge, ...(setup.bare ? [setup.bare] : []), setup.runtime, ...(setup.reference ? [setup.reference] : []), ...(setup.recordWorker ? [setup.recordWorker] : []), setup.registry, setup.accessKeys, setup.providers, setup.everything.service];

    const before = await readProvidersStatus(setup.providers);
    const everythingBefore = setup.everything.posts();
    const sampler = new ResponseSampler(
      distinct.map((p) => p.sample),
      SAMPLE_PAUSE_MS,
    );
    const loadBefore = machineLoad().text;
    sampler.start();
    let results: TargetResult[];
    let samples: SampleTally[];
    try {
      results = await measureInterleaved(
        tool,
        options,
        planned.map((p) => p.target),
        watchedServices,
      );
    } finally {
      samples = await sampler.stop();
    }
    const after: ProvidersStatus = await readProvidersStatus(setup.providers);
    const runs = planned.map((p, i) => ({ kind: p.kind, via: p.via, result: results[i]! }));
    // Only the measured rounds through the runtime: start-up, warm-ups and the direct rounds would blur the picture.
    const windowsOf = (kinds: Kind[]) => runs.filter((r) => kinds.includes(r.kind) && r.via !== 'direct' && r.via !== 'reference').flatMap((r) => r.result.rounds.map((round) => round.window));
    const roundsThrough = (via: Via) => {
      const through = runs.filter((r) => r.via === via);
      return { windows: through.flatMap((r) => r.result.rounds.map((round) => round.window)), calls: through.reduce((sum, r) => sum + r.result.requests, 0) };
    };
    if (hopProfileDir) hopRounds = { edge: roundsThrough('edge'), bare: roundsThrough('bare') };
    windows = { builtin: windowsOf(['builtin']), custom: windowsOf(['custom']), everything: windowsOf(['everything']), both: windowsOf(KINDS) };
    figures = {
      backends,
      setup,
      runs,
      watched: watchedServices.map((s) => s.name),
      samples,
      // server-everything cannot tell who called: every POST it logged, checked against all the 2xx together.
      providerCalls: { builtin: delta(after.github.calls, before.github.calls), custom: delta(after.mcp.calls, before.mcp.calls), everything: { bench: 0, others: setup.everything.posts() - everythingBefore } },
      providerLatencyMs,
      loadBefore,
      loadAfter: machineLoad().text,
      referenceSkipped,
    };
  } finally {
    // The runtime writes its CPU profile as it exits, so stop before reading it.
    await group.stopAll();
    await setupDone?.everything.stop();
  }
  const file = profileDir ? newestProfile(profileDir) : null;
  if (profileDir && !file) progress('mcp-runtime wrote no CPU profile (did it exit cleanly?)');
  const summarize = (kind: Kind | 'both') => summarizeCpuProfile(file!, REPO_ROOT, { windows: windows[kind], groupBy: runtimeStageOf, functionsPerGroup: 4 });
  const hopProfile = (hop: 'edge' | 'bare'): HopProfile | null => {
    const hopFile = hopProfileDir && hopRounds ? newestProfile(path.join(hopProfileDir, hop)) : null;
    return hopFile && hopRounds ? { summary: summarizeCpuProfile(hopFile, REPO_ROOT, { windows: hopRounds[hop].windows, limit: 40 }), calls: hopRounds[hop].calls } : null;
  };
  const edgeHop = hopProfile('edge');
  const bareHop = hopProfile('bare');
  if (hopProfileDir && (!edgeHop || !bareHop)) progress('the edge router or the bare proxy wrote no CPU profile (did it exit cleanly?)');
  return {
    ...figures,
    profile: file ? { builtin: summarize('builtin'), custom: summarize('custom'), everything: summarize('everything'), both: summarize('both') } : null,
    profileFile: file,
    hops: edgeHop && bareHop ? { edge: edgeHop, bare: bareHop } : null,
  };
}

const connectionsText = (n: number) => `${n} connection${n === 1 ? '' : 's'}`;
const cpuText = (n: number | null | undefined) => (n == null ? 'n/a' : formatInt(n));
const pct = (share: number) => `${(share * 100).toFixed(1)}%`;

function printProfile(f: Figures): void {
  if (!f.profile) return;
  print(`mcp-runtime CPU profile (${f.profileFile}), measured rounds through the runtime only (no warm-ups, no direct rounds); self time by stage`);
  print('  A sample counts for the innermost frame of ours that names a stage, else for the library it is in; work a library does in');
  print('  its own callbacks (undici reading a response, ioredis a reply) is the library\'s. µs/call: stage time over the calls answered in those rounds.');
  for (const kind of KINDS) {
    const summary = f.profile[kind];
    const calls = f.runs.filter((r) => r.kind === kind && r.via !== 'direct' && r.via !== 'reference').reduce((sum, r) => sum + r.result.requests, 0);
    const perCall = (us: number) => (calls > 0 ? formatInt(us / calls) : 'n/a');
    print();
    print(`  ${KIND_TITLE[kind]}: ${formatInt(summary.busyUs / 1000)} ms busy of ${formatInt(summary.totalUs / 1000)} ms over ${formatInt(calls)} calls = ${perCall(summary.busyUs)} µs of runtime CPU per call`);
    const groups = new Map(summary.selfByGroup.map((g) => [g.name, g]));
    const ordered = STAGE_ORDER.map((name) => groups.get(name)).filter((g) => g !== undefined);
    for (const line of table(
      ['stage (hot-path order)', 'ms', 'of busy', 'µs/call'],
      ordered.map((g) => [g.name, formatInt(g.timeUs / 1000), pct(g.share), perCall(g.timeUs)]),
    )) print(`  ${line}`);
    print('    top self-time functions per stage (ms, share of busy):');
    for (const g of ordered) {
      if (g.share < 0.01) continue;
      print(`    ${g.name}`);
      for (const fn of g.functions) print(`      ${formatInt(fn.timeUs / 1000).padStart(6)}  ${pct(fn.share).padStart(6)}  ${fn.name}`);
    }
  }
  print();
  print('  time in our own code, callees included, (a) and both (b) together:');
  for (const line of table(['', 'ms', 'of busy'], f.profile.both.inclusiveOwnCode.map((e) => [e.name, formatInt(e.timeUs / 1000), pct(e.share)]))) print(`  ${line}`);
  print();
}

/** The edge's and the bare proxy's time per call by function, side by side, largest difference first. */
function printHopProfiles(f: Figures): void {
  if (!f.hops) return;
  const { edge, bare } = f.hops;
  const perCall = (hop: HopProfile, us: number) => (hop.calls > 0 ? us / hop.calls : 0);
  print('CPU profiles of the two hops in front of mcp-runtime (PATCHBAY_BENCH_PROFILE_HOPS; measured rounds through each, all kinds and connection counts):');
  print(`  busy µs per call: edge router ${formatInt(perCall(edge, edge.summary.busyUs))} over ${formatInt(edge.calls)} calls, bare proxy ${formatInt(perCall(bare, bare.summary.busyUs))} over ${formatInt(bare.calls)} calls`);
  const bareByName = new Map(bare.summary.selfByFunction.map((e) => [e.name, e.timeUs]));
  const edgeByName = new Map(edge.summary.selfByFunction.map((e) => [e.name, e.timeUs]));
  const names = [...new Set([...edgeByName.keys(), ...bareByName.keys()])];
  const rows = names
    .map((name) => ({ name, edgeUs: perCall(edge, edgeByName.get(name) ?? 0), bareUs: perCall(bare, bareByName.get(name) ?? 0) }))
    .sort((a, b) => b.edgeUs - b.bareUs - (a.edgeUs - a.bareUs))
    .slice(0, 20);
  for (const line of table(['self time by function (top 40 of each)', 'edge µs/call', 'bare µs/call', 'edge - bare'], rows.map((r) => [r.name, r.edgeUs.toFixed(1), r.bareUs.toFixed(1), formatSigned(r.edgeUs - r.bareUs)]))) print(`  ${line}`);
  print('  (self time in the profiler is wall time between samples: a process waiting for a CPU inside a function, writev above all, is counted in it)');
  print();
}

function printReport(tool: LoadTool, options: LoadOptions, f: Figures): number {
  const { setup } = f;
  const ports = [setup.edge, ...(setup.bare ? [setup.bare] : []), setup.runtime, setup.registry, setup.accessKeys, setup.providers];
  print('pnpm bench mcp: tools/call through the edge router, beside the same provider called directly');
  print(`machine:  ${machineDescription()}`);
  print(`          load average ${f.loadBefore} before the runs, ${f.loadAfter} after`);
  print(
    `load:     ${tool.description}; ${options.connections} connections, then 1; per target ${options.warmupS} s warm-up, then ` +
      `${options.rounds} rounds of ${roundSeconds(options)} s interleaved with the other targets (p50/p99: median of the rounds)`,
  );
  print(`services: ${ports.map((s) => `${s.name} :${s.port}`).join(', ')} on 127.0.0.1; LOG_LEVEL=${BENCH_LOG_LEVEL}, NODE_ENV=production`);
  print(`          mcp-runtime env: ${setup.runtimeEnvReport.join('; ')}`);
  print(
    `          providers (one child process): fake GitHub (@patchbay/provider-fakes) :${new URL(setup.status.github.url).port}, ` +
      `SDK MCP server (registry-mcp-server.ts: stateless, a new server per POST, bearer secret, 1 echo tool) :${new URL(setup.status.mcp.url).port}`,
  );
  print(`          @modelcontextprotocol/server-everything ${setup.everything.version} (its own process, its streamableHttp launcher: sessions, event store) :${setup.everything.service.port}`);
  print(`data:     ${describeBackends(f.backends)}`);
  print(
    `          organization ${setup.organization.organizationId} (admin CLI): paid, ${formatInt(BENCH_ORGANIZATION.monthlyCredits ?? 0)} credits, ` +
      `${formatInt(BENCH_ORGANIZATION.mcpRateLimitPerMinute ?? 0)} tool calls/min per registered user; tool pack ${setup.toolPackId}; one registered user per path, GitHub token stored through the magic-link form`,
  );
  print(`providers: ${f.providerLatencyMs > 0 ? `answer each call after ${formatInt(f.providerLatencyMs)} ms (PATCHBAY_BENCH_PROVIDER_LATENCY_MS)` : 'answer at once (PATCHBAY_BENCH_PROVIDER_LATENCY_MS=0)'}`);
  if (f.profile) print("          mcp-runtime ran under --cpu-prof: its figures include the profiler's overhead");
  for (const note of f.referenceSkipped) print(`reference: ${note}`);
  print();

  for (const kind of KINDS) {
    print(KIND_TITLE[kind]);
    if (kind === 'builtin') {
      print(`  direct: GET /repos/${GITHUB_ISSUE.owner}/${GITHUB_ISSUE.repo}/issues/${GITHUB_ISSUE.issue_number} on the fake, Authorization: Bearer <the user's token>`);
      print(`  runtime paths: POST .../mcp ${toolCallBody('github__get_issue', { input: { owner: GITHUB_ISSUE.owner, repo: GITHUB_ISSUE.repo, issue_number: GITHUB_ISSUE.issue_number } })}`);
    } else if (kind === 'custom') {
      print(`  direct: POST /mcp on the MCP server, Authorization: Bearer <its secret>, ${toolCallBody(CUSTOM_TOOL, { query: ECHO_QUERY })}`);
      print(`  runtime paths: POST .../mcp ${toolCallBody(`${CUSTOM_SLUG}__${CUSTOM_TOOL}`, { query: ECHO_QUERY })}`);
    } else {
      print(`  direct: POST /mcp on server-everything within the benchmark's session (SSE answer), ${toolCallBody(EVERYTHING_TOOL, { message: ECHO_QUERY })}`);
      print(`  runtime paths: POST .../mcp ${toolCallBody(`${EVERYTHING_SLUG}__${EVERYTHING_TOOL}`, { message: ECHO_QUERY })}`);
    }
    const runs = f.runs.filter((r) => r.kind === kind);
    for (const line of table(
      ['path', 'conns', 'req/s', 'p50 µs', 'p99 µs', 'errors', ...f.watched.map((name) => `${SHORT_NAMES[name] ?? name} CPU µs/req`)],
      runs.map(({ via, result: r }) => [
        VIA_LABEL[via],
        String(r.connections),
        formatInt(r.requestsPerSecond),
        formatInt(r.p50Us),
        formatInt(r.p99Us),
        formatInt(r.non2xx + r.socketErrors),
        ...f.watched.map((name) => cpuText(r.cpuUsPerRequest[name])),
      ]),
    )) print(line);
    print('  added: the path minus the other in each round (they ran seconds apart), median over rounds; req/s ratio: path / other');
    const rows: string[][] = [];
    for (const conns of new Set([options.connections, 1])) {
      const direct = findRun(f.runs, kind, 'direct', conns);
      const runtime = findRun(f.runs, kind, 'runtime', conns);
      // A path left out of the run (the reference runtime when none is given) finds no result and is skipped.
      const pairs: Array<[string, TargetResult | undefined, TargetResult | undefined]> = [
        [`${VIA_LABEL.runtime} vs direct`, runtime, direct],
        [`${VIA_LABEL.edge} vs direct`, findRun(f.runs, kind, 'edge', conns), direct],
        [`${VIA_LABEL.bare} vs direct`, findRun(f.runs, kind, 'bare', conns), direct],
        ['the edge alone: edge-router -> mcp-runtime vs mcp-runtime', findRun(f.runs, kind, 'edge', conns), runtime],
        ['the bare proxy alone: bare proxy -> mcp-runtime vs mcp-runtime', findRun(f.runs, kind, 'bare', conns), runtime],
        [`${VIA_LABEL.runtime} vs ${VIA_LABEL.reference}`, runtime, findRun(f.runs, kind, 'reference', conns)],
      ];
      for (const [label, hop, base] of pairs) {
        if (!hop || !base) continue;
        rows.push([
          label,
          String(conns),
          formatSigned(medianAdded(hop, base, (r) => r.p50Us)),
          formatSigned(medianAdded(hop, base, (r) => r.p99Us)),
          (hop.requestsPerSecond / base.requestsPerSecond).toFixed(2),
        ]);
      }
    }
    for (const line of table(['', 'conns', 'added p50 µs', 'added p99 µs', 'req/s ratio'], rows)) print(line);
    for (const conns of new Set([options.connections, 1])) {
      const edge = findRun(f.runs, kind, 'edge', conns);
      const bare = findRun(f.runs, kind, 'bare', conns);
      if (edge && bare) print(`  edge hop vs bare hop, ${connectionsText(conns)}: ${describeHops(compareHops(edge, bare, 'edge-router', 'bare-proxy'), conns === 1)}`);
    }
    print();
  }

  print(`Answers checked while loading (one request at a time, every ${SAMPLE_PAUSE_MS} ms, round robin over the paths): 200, a JSON-RPC result without isError, the expected issue or echo`);
  for (const line of table(
    ['path', 'checked', 'failed', 'first problem'],
    f.samples.map((s) => [s.label, formatInt(s.checked), formatInt(s.failed), s.firstProblem ?? '']),
    ['left', 'right', 'right', 'left'],
  )) print(line);
  const callRow = (kind: Kind) => [f.providerCalls[kind].others, countedTwoXx(f.runs, kind, true), f.providerCalls[kind].bench, countedTwoXx(f.runs, kind, false)].map(formatInt);
  print('Calls the providers got during the measurement (warm-ups and samples included) against the 2xx the load generator counted in the measured rounds');
  for (const line of table(
    ['provider', 'from the runtime', '2xx via the runtime', 'direct', '2xx direct'],
    [
      ['fake GitHub', ...callRow('builtin')],
      ['MCP server (POSTs)', ...callRow('custom')],
      ['server-everything (every POST it logged)', formatInt(f.providerCalls.everything.others), formatInt(countedTwoXx(f.runs, 'everything', true)), '(in the first column)', formatInt(countedTwoXx(f.runs, 'everything', false))],
    ],
  )) print(line);
  print();

  printProfile(f);
  printHopProfiles(f);

  const problems = problemsOf(f.runs, f.samples, f.providerCalls);
  print(`verdict (through the edge router against direct; added p50 on 1 connection, throughput at ${connectionsText(options.connections)}):`);
  for (const kind of KINDS) {
    const v = verdictOf(f.runs, kind, options.connections);
    if (!v) continue;
    print(
      `  ${KIND_TITLE[kind].split(';')[0]}: added p50 ${formatInt(v.addedP50Us)} µs (target <= ${formatInt(TARGET_ADDED_P50_US)}): ${v.latencyMet ? 'PASS' : 'MISS'}; ` +
        `throughput ${v.throughputRatio.toFixed(2)} of direct (target >= ${TARGET_THROUGHPUT_RATIO.toFixed(2)}): ${v.throughputMet ? 'PASS' : 'MISS'}`,
    );
  }
  print(`the edge's own hop against a bare proxy's, both in front of mcp-runtime (1 connection; issue 24: p50 within +${formatInt(TARGET_EDGE_OVER_BARE_P50_US)} µs, CPU within ${TARGET_EDGE_CPU_RATIO}x):`);
  for (const kind of KINDS) {
    const edge = findRun(f.runs, kind, 'edge', 1);
    const bare = findRun(f.runs, kind, 'bare', 1);
    if (edge && bare) print(`  ${KIND_TITLE[kind].split(';')[0]}: ${describeHops(compareHops(edge, bare, 'edge-router', 'bare-proxy'), true)}`);
  }
  if (problems.length > 0) {
    print('  INVALID: these figures do not measure working tool calls:');
    for (const p of problems) print(`    ${p}`);
    return 1;
  }
  return 0;
}

async function run(args: string[]): Promise<number> {
  const options = parseLoadOptions(args);
  if (options.help) {
    print(USAGE);
    return 0;
  }
  const providerLatencyMs = positiveInteger('PATCHBAY_BENCH_PROVIDER_LATENCY_MS', process.env.PATCHBAY_BENCH_PROVIDER_LATENCY_MS, 0, true);
  const tool = pickLoadTool(options.tool, options.threads);
  progress(`load generator: ${tool.description}`);
  const profileDir = options.profile ? mkdtempSync(path.join(tmpdir(), 'patchbay-bench-profile-')) : null;
  const hopProfileDir = process.env.PATCHBAY_BENCH_PROFILE_HOPS === '1' ? mkdtempSync(path.join(tmpdir(), 'patchbay-bench-hops-')) : null;
  try {
    const figures = await measure(tool, options, profileDir, providerLatencyMs, hopProfileDir);
    return printReport(tool, options, figures);
  } finally {
    // Kept on purpose: the file opens in Chrome DevTools (Performance tab) for a closer look.
    if (profileDir) progress(`CPU profile kept in ${profileDir}`);
    if (hopProfileDir) progress(`the edge router's and the bare proxy's CPU profiles kept in ${hopProfileDir}`);
  }
}

export const mcpBenchmark: Benchmark = {
  name: 'mcp',
  summary: 'tools/call req/s and p50/p99 through the edge router vs the provider called directly (built-in tool on a fake, custom MCP server)',
  run,
};
