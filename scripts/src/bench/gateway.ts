import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RedisSpendControl, type SpendSubject } from '@patchbay/gateway-spend';
import { OPENAI_FAKE_KEYS } from '@patchbay/provider-fakes';
import Redis from 'ioredis';
import { NO_RECORDS } from './admission-floor';
import { newestProfile, summarizeCpuProfile, type TimeWindow } from './cpu-profile';
import { describeBackends, localPostgresProcesses, localRedisProcess, prepareBackends, type Backends } from './backends';
import type { Benchmark } from './benchmark';
import { EDGE_ALONE, EDGE_ALONE_SERVICE, UPSTREAM_MODEL, startGatewayLegs, type GatewayLegs } from './gateway-app';
import { chatBody, EXPECTED_ANSWER, type Leg } from './gateway-legs';
import { compareHops, describeHops } from './hop-comparison';
import { REPO_ROOT } from '../suite';
import { pickLoadTool } from './load';
import { median, medianAdded, measureInterleaved, type Target, type TargetResult, type Watched } from './measure';
import { LOAD_OPTIONS_USAGE, parseLoadOptions } from './options';
import { formatInt, formatSigned, machineDescription, machineLoad, print, progress, table } from './report';
import { ServiceGroup, type RunningService } from './services';
import { ROUTING_DECISION_TARGET_US, routingDecisionCost } from './routing-decision';
import { mediaUploadLeg } from './gateway-media';

const USAGE = `pnpm bench gateway [options]

The model gateway against its references, from one run, with the same fake OpenAI upstream
(packages/provider-fakes) behind every path:
- the fake OpenAI API called directly;
- @portkey-ai/gateway (run locally, headless) routing to it (x-portkey-provider: openai, x-portkey-custom-host);
- one and two do-nothing Node keep-alive proxies in a row (bare-proxy.ts): the floor of any hop;
- the admission floor (admission-floor.ts): one such proxy that also reserves each request's worst case
  through gateway-spend on the same Redis and settles its real cost, and does nothing else: the floor of
  any gateway whose budgets are exact (one Redis round trip per request);
- apps/model-gateway directly, and through the edge router (when the app is built);
- the edge router alone, a second one whose model-gateway upstream is the fake itself: its own hop
  beside one bare proxy's.
POST /v1/chat/completions at --connections (default 10) and at 1 connection, with wrk; p50/p99 are
percentiles of the raw latencies (a wrk done callback undoes the coordinated-omission correction
of wrk's own p99, which inflates fast legs far more than slow ones); wrk's p99 is printed beside.
CPU per request comes from /proc for each process, and for all of them together (what a request of
the path costs the machine, steadier than req/s when other tenants load it). Every path's answer is checked against the fake's own before the load. Then: time to first token
added on a stream, and budget exactness (N concurrent requests against a key with a small limit:
spend after settlement against the limit), through the gateway and in the spend library alone;
and exactness under load (gateway-exactness.ts): three gateway replicas with leased admission and
three without, on a redis-server of the leg's own (port 19511), 300 requests over about a second
against a key limit, the organization's credit and a project budget that fit 100 at their real
cost, and the key limit again with that Redis restarted mid-run: admitted and spent, with leases
and per request, from the usage records after settlement.

The routing policy leg (issue 10 §5): the gateway under a policy of three routes (openai/gpt-4o,
gpt-4o-mini, gpt-4.1 on the fake OpenAI) whose first answers 500 to every other request (the fake's
fault rule, fraction 0.5; the circuit breaker is set not to open, so the leg keeps paying the failed
attempts), side by side with the gateway direct. Then the routing decision's cost in µs per request,
in process (resolveRoutes over many iterations; target <= 50 µs).

The web-search leg (issue 27 §1): the gateway direct with a fake SearXNG (gateway-search-engine.ts)
as its engine, 200 chat completions that carry svc:web_search (the fake model calls the search
function once, then answers from the results: two model calls and one search, five results screened
and cited) taken in turn with 200 plain ones, one at a time: the gateway's own time per request from
X-Gateway-Overhead-Ms (the time waiting on the vendor and the engine excluded), searched against plain.

The target (issue 9 §8): the gateway at least 5 times Portkey's throughput, through the edge router
at least 0.8 of two do-nothing proxies, added p99 at most 2 ms (at most 1 ms at one connection, issue 24 §4). Ratios matter, absolute numbers do
not: the machine is shared.

${LOAD_OPTIONS_USAGE.split('\n')
  .filter((line) => !line.includes('--profile') && !line.includes('--bare-proxy') && !line.includes('the floor for one Node hop') && !line.includes('record a CPU profile'))
  .join('\n')
  .replace('(default 32)', '(default 10)')}
`;

/** The reference leg of admission-floor.ts. */
const ADMISSION_FLOOR = 'admission floor (proxy + Redis admission)';
const TTFT_SAMPLES = 200;

/** One request per path before any load: the answer must be the fake's, word for word. */
async function checkAnswer(leg: Leg): Promise<string> {
  const res = await fetch(leg.url, { method: 'POST', headers: { 'content-type': 'application/json', ...leg.headers }, body: chatBody(leg.model), signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${leg.label}: ${leg.url} answered ${res.status}:\n${text.slice(0, 500)}`);
  const body = JSON.parse(text) as { choices?: Array<{ message?: { content?: string } }>; usage?: { prompt_tokens?: number; completion_tokens?: number } };
  const content = body.choices?.[0]?.message?.content;
  if (content !== EXPECTED_ANSWER) throw new Error(`${leg.label}: the answer is ${JSON.stringify(content)}, expected ${JSON.stringify(EXPECTED_ANSWER)}`);
  if (!body.usage?.prompt_tokens || !body.usage.completion_tokens) throw new Error(`${leg.label}: the answer has no usage: ${text.slice(0, 300)}`);
  // The gateway tells its own overhead on every answer.
  const overhead = res.headers.get('x-gateway-overhead-ms');
  return `${JSON.stringify(content)}, ${body.usage.prompt_tokens} + ${body.usage.completion_tokens} tokens${overhead === null ? '' : `; X-Gateway-Overhead-Ms: ${overhead}`}`;
}

/** Time to the first content token of a streamed chat completion, and the whole text, which must be the fake's. */
async function streamOnce(leg: Leg): Promise<number> {
  const start = performance.now();
  const res = await fetch(leg.url, { method: 'POST', headers: { 'content-type': 'application/json', ...leg.headers }, body: chatBody(leg.model, true), signal: AbortSignal.timeout(10_000) });
  if (res.status !== 200 || !res.body) throw new Error(`${leg.label}: the stream answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const decoder = new TextDecoder();
  let buffer = '';
  let text = '';
  let firstTokenMs: number | null = null;
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, end).trim();
      buffer = buffer.slice(end + 1);
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '[DONE]') continue;
      const frame = JSON.parse(data) as { choices?: Array<{ delta?: { content?: string | null } }> };
      const piece = frame.choices?.[0]?.delta?.content;
      if (piece) {
        firstTokenMs ??= performance.now() - start;
        text += piece;
      }
    }
  }
  if (text !== EXPECTED_ANSWER) throw new Error(`${leg.label}: the stream's text is ${JSON.stringify(text)}, expected ${JSON.stringify(EXPECTED_ANSWER)}`);
  if (firstTokenMs === null) throw new Error(`${leg.label}: the stream had no content`);
  return firstTokenMs;
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)] ?? 0;
}

/** Streams taken in turn on every path (A B C, A B C, ...), so the machine's other work hits them alike. */
async function measureTtft(legs: Leg[]): Promise<Array<{ leg: Leg; samples: number[] }>> {
  const results = legs.map((leg) => ({ leg, samples: [] as number[] }));
  for (const r of results) for (let i = 0; i < 10; i++) await streamOnce(r.leg); // warm-up
  for (let i = 0; i < TTFT_SAMPLES; i++) for (const r of results) r.samples.push(await streamOnce(r.leg));
  return results;
}

/** In the spend library alone, on the benchmark's Redis: N concurrent requests against a small key limit. */
async function libraryBudgetExactness(backends: Backends, requests: number): Promise<string[]> {
  const redis = new Redis(backends.redisUrl);
  const prefix = `patchbay:bench:gateway-spend:${randomUUID()}:`;
  const replicas = [new RedisSpendControl(redis, { ledger: NO_RECORDS, keyPrefix: prefix }), new RedisSpendControl(redis.duplicate(), { ledger: NO_RECORDS, keyPrefix: prefix })];
  try {
    const limit = 20_000;
    const reserve = 1_000;
    const subject: SpendSubject = {
      organizationId: randomUUID(),
      environment: 'production',
      plan: 'paid',
      paymentMethodOnFile: true,
      creditMicros: 1_000_000_000,
      key: { hash: randomUUID().replaceAll('-', '').padEnd(64, '0'), limitMicros: limit, limitReset: 'daily', byok: false },
      project: null,
      customer: null,
    };
    let admitted = 0;
    let refused = 0;
    let settled = 0;
    await Promise.all(
      Array.from({ length: requests }, async (_, i) => {
        const admission = await replicas[i % 2]!.admit({ subject, reserveMicros: reserve, countsAsModelRequest: true });
        if (!admission.ok) {
          refused += 1;
          return;
        }
        admitted += 1;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
        const cost = i % 7 === 0 ? 0 : 500 + (i % 500);
        if (cost === 0) await replicas[(i + 1) % 2]!.release(admission.reservation);
        else await replicas[(i + 1) % 2]!.settle(admission.reservation, cost);
        settled += cost;
      }),
    );
    const usage = await replicas[0]!.keyUsage(subject.organizationId, subject.key.hash);
    return [
      `  spend library, ${requests} concurrent requests from two replicas, reserve ${reserve} µ$ each, key limit ${formatInt(limit)} µ$ (daily):`,
      `    admitted ${admitted}, refused 402 api_key_limit_exceeded ${refused}; real cost of the admitted ${formatInt(settled)} µ$; the key's usage after settlement ${formatInt(usage.daily)} µ$ (${usage.daily === settled ? 'equal' : 'DIFFERENT'}); over the limit by at most what was in flight: ${usage.daily <= limit + reserve ? 'yes' : 'NO'}`,
    ];
  } finally {
    for (const r of replicas) r.close();
    await deleteKeys(redis, prefix);
    redis.disconnect();
  }
}

async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

const cpuText = (n: number | null | undefined) => (n == null ? 'n/a' : formatInt(n));

/** The watched process whose CPU a path's row shows: the process answering on that path. */
function cpuServiceOf(label: string, gateway: GatewayLegs | null): string {
  if (label === 'fake OpenAI direct') return 'fake-openai';
  if (label === 'Portkey') return 'portkey';
  if (label === 'one bare proxy') return 'bare-proxy-1';
  if (label === 'two bare proxies') return 'bare-proxy-2';
  if (label === ADMISSION_FLOOR) return 'admission-floor';
  if (label === EDGE_ALONE) return EDGE_ALONE_SERVICE;
  return gateway ? 'model-gateway' : '';
}

/** CPU per request of every watched process together, or null when one could not be read. */
function machineCpuPerRequest(r: TargetResult): number | null {
  let sum = 0;
  for (const used of Object.values(r.cpuUsPerRequest)) {
    if (used === null) return null;
    sum += used;
  }
  return sum;
}

function ratio(a: number, b: number): string {
  return b > 0 ? (a / b).toFixed(2) : 'n/a';
}

async function run(args: string[]): Promise<number> {
  const options = parseLoadOptions(args);
  if (options.help) {
    print(USAGE);
    return 0;
  }
  if (!args.some((a) => a === '--connections' || a.startsWith('--connections='))) options.connections = 10;
  const tool = pickLoadTool(options.tool, options.threads);
  progress(`load generator: ${tool.description}`);
  const backends = await prepareBackends();
  const group = new ServiceGroup(progress);
  const profileDir = options.profile ? mkdtempSync(path.join(os.tmpdir(), 'gateway-profile-')) : null;
  let gatewayWindows: TimeWindow[] = [];
  try {
    const upstream = await group.start({ name: 'fake-openai', entry: path.join(__dirname, 'gateway-upstream.js'), env: {}, healthPath: '/__fake/health' });
    const portkey = await group.start({
      name: 'portkey',
      entry: require.resolve('@portkey-ai/gateway/build/start-server.js'),
      args: ['--port=<PORT>', '--headless'],
      env: {},
      healthPath: '/',
    });
    const proxyOne = await group.start({ name: 'bare-proxy-1', entry: path.join(__dirname, 'bare-proxy.js'), env: { TARGET: upstream.baseUrl }, healthPath: '/__bare-proxy/healthz' });
    const proxyTwo = await group.start({ name: 'bare-proxy-2', entry: path.join(__dirname, 'bare-proxy.js'), env: { TARGET: proxyOne.baseUrl }, healthPath: '/__bare-proxy/healthz' });
    const floor = await group.start({ name: 'admission-floor', entry: path.join(__dirname, 'admission-floor.js'), env: { TARGET: upstream.baseUrl, REDIS_URL: backends.redisUrl }, healthPath: '/__admission-floor/healthz' });
    const vendorAuth = { Authorization: `Bearer ${OPENAI_FAKE_KEYS.valid}` };
    const completions = (service: RunningService) => `${service.baseUrl}/v1/chat/completions`;
    const legs: Leg[] = [
      { label: 'fake OpenAI direct', url: completions(upstream), headers: vendorAuth, model: UPSTREAM_MODEL },
      { label: 'Portkey', url: completions(portkey), headers: { ...vendorAuth, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${upstream.baseUrl}/v1` }, model: UPSTREAM_MODEL },
      { label: 'one bare proxy', url: completions(proxyOne), headers: vendorAuth, model: UPSTREAM_MODEL },
      { label: 'two bare proxies', url: completions(proxyTwo), headers: vendorAuth, model: UPSTREAM_MODEL },
      { label: ADMISSION_FLOOR, url: completions(floor), headers: vendorAuth, model: UPSTREAM_MODEL },
    ];
    let gateway: GatewayLegs | null = null;
    let gatewaySkipped: string | null = null;
    const gatewayEntry = path.resolve(__dirname, '..', '..', '..', 'apps', 'model-gateway', 'dist', 'main.js');
    if (existsSync(gatewayEntry)) {
      const profiled = (name: string) => (profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, name)}`] : []);
      gateway = await startGatewayLegs(group, backends, upstream, gatewayEntry, { gateway: profiled('gateway'), worker: profiled('worker') });
      legs.push(gateway.direct, gateway.viaEdge, gateway.policy, gateway.edgeAlone);
    } else {
      gatewaySkipped = `apps/model-gateway/dist/main.js is missing (the app is not merged or not built): the gateway legs are skipped`;
      progress(gatewaySkipped);
    }

    const checks: string[][] = [];
    for (const leg of legs) checks.push([leg.label, await checkAnswer(leg)]);

    const connectionCounts = [...new Set([options.connections, 1])];
    const body = (leg: Leg) => chatBody(leg.model);
    const targets: Target[] = connectionCounts.flatMap((connections) =>
      legs.map((leg) => ({ label: leg.label, url: leg.url, method: 'POST' as const, headers: { 'content-type': 'application/json', ...leg.headers }, body: body(leg), connections, expectStatus: 200, rawLatency: true })),
    );
    const loadBefore = machineLoad().text;
    const redisProcess = await localRedisProcess(backends.redisUrl);
    const postgresProcesses = localPostgresProcesses(backends.databaseUrl);
    const watched: Watched[] = [upstream, portkey, proxyOne, proxyTwo, floor, ...(gateway ? gateway.services : []), ...(redisProcess ? [redisProcess] : []), ...(postgresProcesses ? [postgresProcesses] : [])];
    const results = await measureInterleaved(tool, options, targets, watched);
    gatewayWindows = results.filter((r) => r.label === 'gateway direct').flatMap((r) => r.rounds.map((round) => round.window));
    progress(`time to first token: ${TTFT_SAMPLES} streams per path`);
    // Portkey 1.15.2 answers every stream with 500 "Something went wrong" on this Node (its log: TypeError: immutable): left out.
    // The admission floor reads the whole answer for its usage: it does not stream.
    // The edge alone streams beside one bare proxy: its hop on time to first token against a bare hop's.
    const ttftLegs = legs.filter((l) => l.label !== 'Portkey' && l.label !== ADMISSION_FLOOR);
    const ttft = await measureTtft(ttftLegs);
    progress('routing decision cost, in process');
    const decision = routingDecisionCost();
    const requests = 100;
    const budgetLines = await libraryBudgetExactness(backends, requests);
    const gatewayBudget = gateway ? await gateway.budgetExactness(requests) : null;
    const underLoad = gateway ? await gateway.exactnessUnderLoad() : null;
    progress('web search: searched and plain requests, one at a time');
    const webSearch = gateway ? await gateway.webSearch(200) : null;
    progress('media: 20 MB uploads and a refused 30 MB one, the gateway\'s peak memory');
    const mediaGateway = gateway?.services.find((s) => s.name === 'model-gateway');
    const media = gateway && mediaGateway ? await mediaUploadLeg(mediaGateway, gateway.direct) : null;

    print(`pnpm bench gateway: ${machineDescription()}; load average ${loadBefore} before, ${machineLoad().text} after`);
    print(`${tool.description}; ${describeBackends(backends)}; upstream: the fake OpenAI API, answering at once; POST /v1/chat/completions, max_tokens 32`);
    if (gatewaySkipped) print(`NOTE: ${gatewaySkipped}`);
    print('');
    print('Answers (one request per path before the load; each must be the fake\'s own):');
    for (const line of table(['path', 'answer'], checks, ['left', 'left'])) print(`  ${line}`);
    print('');
    const rows: string[][] = [];
    for (const connections of connectionCounts) {
      const atCount = results.filter((r) => r.connections === connections);
      const direct = atCount.find((r) => r.label === 'fake OpenAI direct')!;
      for (const r of atCount) {
        const addedP99 = r === direct ? '' : formatSigned(medianAdded(r, direct, (round) => round.rawP99Us ?? round.p99Us));
        rows.push([
          r.label,
          String(connections),
          formatInt(r.requestsPerSecond),
          r === direct ? '' : ratio(r.requestsPerSecond, direct.requestsPerSecond),
          formatInt(r.rawP50Us ?? r.p50Us),
          formatInt(r.rawP99Us ?? r.p99Us),
          formatInt(r.p99Us),
          addedP99,
          String(r.non2xx + r.socketErrors),
          cpuText(r.cpuUsPerRequest[cpuServiceOf(r.label, gateway)]),
          r.label.startsWith('gateway') ? cpuText(r.cpuUsPerRequest['model-gateway-worker']) : '',
          r.label === 'gateway via edge router' ? cpuText(r.cpuUsPerRequest['edge-router']) : '',
          r.label.startsWith('gateway') || r.label === ADMISSION_FLOOR ? cpuText(r.cpuUsPerRequest.redis) : '',
          r.label.startsWith('gateway') ? cpuText(r.cpuUsPerRequest.postgres) : '',
          cpuText(machineCpuPerRequest(r)),
        ]);
      }
    }
    print('Throughput and latency (medians over rounds; p50/p99 from raw latencies, wrk p99 with its correction):');
    for (const line of table(['path', 'conns', 'req/s', 'vs direct', 'p50 µs', 'p99 µs', 'wrk p99 µs', 'added p99 µs', 'errors', 'CPU µs/req', 'worker µs/req', 'edge µs/req', 'Redis µs/req', 'PostgreSQL µs/req', 'all µs/req'], rows, ['left'])) print(`  ${line}`);
    print('  (CPU µs/req: CPU time from /proc of the process serving the path (the gateway itself on the gateway legs), per request; steadier than wall times on a loaded machine;');
    print('   worker µs/req: the usage-record worker process beside it, storing each request\'s record, as docker-compose and the Helm chart deploy it;');
    print(`   edge µs/req: the edge router in front of the gateway; Redis µs/req: the Redis server (admission, settles, the usage queue)${redisProcess ? '' : ', not shown: Redis is not a local process'};`);
    print(`   PostgreSQL µs/req: every postgres process on the machine (storing the usage records)${postgresProcesses ? '' : ', not shown: the database is not local'};`);
    print('   all µs/req: every watched process together (the fake, Portkey, the proxies, the floor, the gateway, its worker, the edge routers, access-keys, Redis, PostgreSQL; not wrk):');
    print('   what a request of the path costs the machine, the figure that moves least when other tenants load it)');
    print('');
    print('Ratios:');
    for (const connections of connectionCounts) {
      const at = (label: string) => results.find((r) => r.connections === connections && r.label === label);
      const direct = at('fake OpenAI direct')!;
      const portkeyResult = at('Portkey')!;
      const one = at('one bare proxy')!;
      const two = at('two bare proxies')!;
      print(`  ${connections} connection(s): Portkey / direct ${ratio(portkeyResult.requestsPerSecond, direct.requestsPerSecond)}; one proxy / Portkey ${ratio(one.requestsPerSecond, portkeyResult.requestsPerSecond)}; two proxies / Portkey ${ratio(two.requestsPerSecond, portkeyResult.requestsPerSecond)}; Portkey added p99 ${formatSigned(medianAdded(portkeyResult, direct, (round) => round.rawP99Us ?? round.p99Us))} µs`);
      const gw = at('gateway direct');
      const edge = at('gateway via edge router');
      if (gw && edge) {
        const addedP99 = medianAdded(gw, direct, (round) => round.rawP99Us ?? round.p99Us);
        // Issue 24 §4 asks for at most 1 ms at one connection (the caller most requests come from); issue 9's 2 ms stays for the loaded legs.
        const p99Target = connections === 1 ? 1_000 : 2_000;
        const gwRatio = gw.requestsPerSecond / portkeyResult.requestsPerSecond;
        const edgeRatio = edge.requestsPerSecond / two.requestsPerSecond;
        const policyLeg = at('gateway, policy: 3 routes, 1st fails 1/2');
        if (policyLeg) {
          print(`    policy of 3 routes (1st fails 1/2) / gateway direct ${ratio(policyLeg.requestsPerSecond, gw.requestsPerSecond)}; added p50 over gateway direct ${formatSigned(medianAdded(policyLeg, gw, (round) => round.rawP50Us ?? round.p50Us))} µs, added p99 ${formatSigned(medianAdded(policyLeg, gw, (round) => round.rawP99Us ?? round.p99Us))} µs`);
        }
        print(`    gateway / Portkey ${gwRatio.toFixed(2)} (target >= 5: ${gwRatio >= 5 ? 'met' : 'NOT met'}); edge path / two proxies ${edgeRatio.toFixed(2)} (target >= 0.8: ${edgeRatio >= 0.8 ? 'met' : 'NOT met'}); gateway added p99 ${formatSigned(addedP99)} µs (target <= ${formatInt(p99Target)}: ${addedP99 <= p99Target ? 'met' : 'NOT met'}; a do-nothing proxy added ${formatSigned(medianAdded(one, direct, (round) => round.rawP99Us ?? round.p99Us))} µs in this run, the floor of any Node hop here); edge path added p99 ${formatSigned(medianAdded(edge, direct, (round) => round.rawP99Us ?? round.p99Us))} µs`);
        // Portkey's throughput moves from run to run far more than a bare proxy's: this ratio is the one to compare across runs.
        print(`    gateway / one bare proxy ${ratio(gw.requestsPerSecond, one.requestsPerSecond)} (steadier across runs than Portkey; in the spec's figures, where one proxy made 8.4 times Portkey's throughput, the 5x target is ${(5 / 8.4).toFixed(2)} of one proxy)`);
        const edgeAlone = at(EDGE_ALONE);
        if (edgeAlone) {
          print(`    edge router alone / one bare proxy ${ratio(edgeAlone.requestsPerSecond, one.requestsPerSecond)} (the edge's own hop against a bare one, both in front of the fake)`);
          print(`    edge hop vs bare hop: ${describeHops(compareHops(edgeAlone, one, EDGE_ALONE_SERVICE, 'bare-proxy-1'), connections === 1)}`);
        }
        const floorLeg = at(ADMISSION_FLOOR);
        if (floorLeg) {
          print(`    admission floor / one bare proxy ${ratio(floorLeg.requestsPerSecond, one.requestsPerSecond)} (what one Redis admission per request leaves of a proxy); gateway / admission floor ${ratio(gw.requestsPerSecond, floorLeg.requestsPerSecond)} (what the gateway's own work leaves of the floor)`);
        }
      }
    }
    print('');
    print(`Time to first token on a stream (${TTFT_SAMPLES} streams per path, taken in turn, one at a time):`);
    const directTtft = ttft[0]!;
    const ttftRows = ttft.map((r) => [
      r.leg.label,
      formatInt(median(r.samples) * 1000),
      formatInt(p99(r.samples) * 1000),
      r === directTtft ? '' : formatSigned((median(r.samples) - median(directTtft.samples)) * 1000),
    ]);
    for (const line of table(['path', 'p50 µs', 'p99 µs', 'added p50 µs'], ttftRows, ['left'])) print(`  ${line}`);
    print('  (Portkey is left out: @portkey-ai/gateway 1.15.2 answers every stream with 500 on this Node, "TypeError: immutable" in its log)');
    print('');
    print(`Routing decision (resolveRoutes, in process, median of 5 rounds of 50,000): µs per request, next to model-wire parsing the same body; target <= ${ROUTING_DECISION_TARGET_US} µs:`);
    for (const line of table(['case', 'routing µs', 'parse µs', 'target'], decision, ['left'])) print(`  ${line}`);
    print('');
    print('Budget exactness:');
    for (const line of budgetLines) print(line);
    if (gatewayBudget) for (const line of gatewayBudget) print(line);
    if (underLoad) for (const line of underLoad) print(line);
    else print('  through the gateway: skipped (the app is not built)');
    print('');
    print('Web search (issue 27 §1):');
    if (webSearch) for (const line of webSearch) print(line);
    else print('  skipped (the app is not built)');
    print('');
    print('Media uploads (issue 27 §2):');
    if (media) for (const line of media) print(line);
    else print('  skipped (the app is not built)');

    const failed = results.some((r) => r.non2xx + r.socketErrors > 0);
    return failed ? 1 : 0;
  } finally {
    await group.stopAll();
    // The gateway and its usage worker write their CPU profiles as they exit.
    for (const [name, title] of [['gateway', 'Gateway'], ['worker', 'Usage worker']] as const) {
      const file = profileDir && existsSync(path.join(profileDir, name)) ? newestProfile(path.join(profileDir, name)) : null;
      if (file) printGatewayProfile(title, summarizeCpuProfile(file, REPO_ROOT, { windows: gatewayWindows }));
    }
  }
}

function printGatewayProfile(title: string, profile: ReturnType<typeof summarizeCpuProfile>): void {
  const ms = (n: number) => formatInt(n / 1000);
  const pct = (share: number) => `${(share * 100).toFixed(1)}%`;
  print('');
  print(`${title} CPU profile, ${profile.windowed ? 'the measured "gateway direct" rounds only' : 'whole run'} (${profile.file}; the figures above ran under --cpu-prof): ${ms(profile.busyUs)} ms busy of ${ms(profile.totalUs)} ms`);
  const section = (title: string, entries: ReturnType<typeof summarizeCpuProfile>['selfByOrigin']) => {
    print(`  ${title}`);
    for (const line of table(['', 'ms', 'of busy'], entries.map((e) => [e.name, ms(e.timeUs), pct(e.share)]))) print(`  ${line}`);
  };
  section('self time by origin', profile.selfByOrigin);
  section('self time by function', profile.selfByFunction);
  section('time in our own code, callees included', profile.inclusiveOwnCode);
}

export const gatewayBenchmark: Benchmark = {
  name: 'gateway',
  summary: 'the model gateway against the fake OpenAI direct, Portkey, and one and two bare proxies; a routing policy of three routes whose first fails half the time; routing decision µs; time to first token; budget exactness; the gateway\'s own time per web-searched request; the gateway\'s peak memory on 20 MB uploads',
  run,
};
