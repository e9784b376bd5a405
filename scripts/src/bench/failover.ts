import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startFakeAnthropic, startFakeOpenAI, startFakeOpenAICompatible, type FakeFault, type FakeVendor } from '@patchbay/provider-fakes';
import Redis from 'ioredis';
import { Client } from 'pg';
import { REPO_ROOT } from '../suite';
import { describeBackends, prepareBackends } from './backends';
import type { Benchmark } from './benchmark';
import { machineDescription, machineLoad, print, progress, table } from './report';
import { ROUTING_DECISION_TARGET_US, routingDecisionCost } from './routing-decision';
import { ServiceGroup } from './services';
import { BENCH_LOG_LEVEL, appEntryOf, benchServiceToken, startAccessKeys } from './suite-services';

const execFileAsync = promisify(execFile);

const USAGE = `pnpm bench failover

Every upstream fault of issue 10 §2 against the real model gateway (built: apps/model-gateway/dist)
with the vendor fakes of @patchbay/provider-fakes behind it, under one routing policy:
openai/gpt-4o on the OpenAI fake, then on a second vendor (the Groq fake serving the same model),
then anthropic/claude-sonnet-4. For each fault: what the client saw (status, frames), the time to a
good answer, the vendor calls made and the attempts billed (from the usage records the gateway
wrote). A first row without a fault is the reference. Then the routing decision's cost in µs, in
process, next to model-wire's parse of the same body.

Needs PostgreSQL and Redis (DATABASE_URL, REDIS_URL; defaults: the bench database and Redis db 1).
`;

const TIMEOUTS = { first: 1000, between: 1000, total: 6000 };

interface Fault {
  name: string;
  /** Native /v1/responses stream, or a non-streaming chat completion. */
  stream: boolean;
  setup(v: Vendors): void;
  /** Requests to send (the flapping primary sends several). */
  requests?: number;
}

interface Vendors {
  openai: FakeVendor;
  groq: FakeVendor;
  anthropic: FakeVendor;
}

const TEXT = 'one two three four five six seven eight nine ten eleven twelve';

const FAULTS: Fault[] = [
  { name: 'reference: no fault', stream: false, setup: (v) => v.openai.script({ text: TEXT }) },
  { name: 'reference: no fault (stream)', stream: true, setup: (v) => v.openai.script({ text: TEXT }) },
  { name: '429 with Retry-After', stream: false, setup: (v) => v.openai.script({ fault: { kind: 'rate_limit', retryAfterSeconds: 30 } }) },
  { name: 'persistent 503', stream: false, setup: (v) => v.openai.setFault({ kind: 'overloaded' }) },
  { name: 'TCP reset', stream: false, setup: (v) => v.openai.script({ fault: { kind: 'reset' } }) },
  { name: 'no response at all', stream: true, setup: (v) => v.openai.script({ fault: { kind: 'hang' } }) },
  { name: 'first token after a long delay', stream: true, setup: (v) => v.openai.script({ fault: { kind: 'slow_first_token', delayMs: 3000 } }) },
  { name: 'stream cut after tokens', stream: true, setup: (v) => v.openai.script({ text: TEXT, fault: { kind: 'stream_cut', afterTokens: 3 } }) },
  { name: 'stall mid-stream', stream: true, setup: (v) => v.openai.script({ text: TEXT, fault: { kind: 'stall', afterTokens: 3 } }) },
  { name: 'malformed chunk (first frame)', stream: true, setup: (v) => v.openai.script({ text: TEXT, fault: { kind: 'malformed_chunk', afterTokens: 0 } }) },
  { name: 'malformed chunk (after tokens)', stream: true, setup: (v) => v.openai.script({ text: TEXT, fault: { kind: 'malformed_chunk', afterTokens: 3 } }) },
  { name: 'missing terminal frame', stream: true, setup: (v) => v.openai.script({ text: TEXT, fault: { kind: 'missing_terminal' } }) },
  { name: 'context-length 400', stream: false, setup: (v) => v.openai.script({ fault: { kind: 'context_length' } }) },
  { name: 'content-filter refusal (400)', stream: false, setup: (v) => v.openai.script({ fault: { kind: 'content_filter', form: 'error' } as FakeFault }) },
  { name: 'content-filter refusal (200)', stream: false, setup: (v) => v.openai.script({ fault: { kind: 'content_filter' } }) },
  { name: 'flapping primary (10 requests)', stream: false, requests: 10, setup: (v) => v.openai.setFault({ kind: 'server_error' }, { fraction: 0.5 }) },
  { name: 'failed attempt not billed (503)', stream: false, setup: (v) => v.openai.script({ fault: { kind: 'overloaded' } }) },
];

function catalogFile(): string {
  const price = (input: number, output: number) => ({ input_per_million: input, output_per_million: output });
  const caps = { input: ['text'], output: ['text', 'tool_use'], supports_tool_calling: true, supports_tool_choice: true, supports_structured_outputs: true, streaming: true };
  const file = {
    vendors: {
      openai: { name: 'OpenAI', dialect: 'openai', default_base_url: 'https://api.openai.com/v1', supports_byok: true },
      anthropic: { name: 'Anthropic', dialect: 'anthropic', default_base_url: 'https://api.anthropic.com', supports_byok: true },
      groq: { name: 'Groq', dialect: 'openai-compatible', default_base_url: 'https://api.groq.com/openai/v1', supports_byok: true },
    },
    models: [
      { id: 'openai/gpt-4o', display_name: 'GPT-4o', type: 'chat', context_window: 128000, max_output_tokens: 16384, capabilities: caps, created_at: '2024-05-13', vendors: [{ vendor: 'openai', vendor_model: 'gpt-4o', pricing: { standard: price(2.5, 10) } }, { vendor: 'groq', vendor_model: 'gpt-4o', pricing: { standard: price(3, 12) } }] },
      { id: 'anthropic/claude-sonnet-4', display_name: 'Claude Sonnet 4', type: 'chat', context_window: 200000, max_output_tokens: 8192, capabilities: caps, created_at: '2025-05-22', vendors: [{ vendor: 'anthropic', vendor_model: 'claude-sonnet-4', pricing: { standard: price(3, 15) } }] },
    ],
  };
  const dir = mkdtempSync(path.join(tmpdir(), 'patchbay-bench-failover-'));
  const target = path.join(dir, 'catalog.json');
  writeFileSync(target, JSON.stringify(file));
  return target;
}

async function json(url: string, key: string, method: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

interface Seen {
  status: number;
  summary: string;
  good: boolean;
  ms: number;
}

/** One request as a client sees it: status and body, or the frames of a stream. */
async function send(gateway: string, key: string, stream: boolean): Promise<Seen> {
  const started = performance.now();
  if (!stream) {
    const res = await fetch(`${gateway}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }) });
    const body = (await res.json()) as any;
    const ms = performance.now() - started;
    if (res.status === 200) {
      const text: string = body.choices?.[0]?.message?.content ?? '';
      return { status: 200, summary: `200 ${body.model} finish=${body.choices?.[0]?.finish_reason}`, good: text.length > 0 && body.choices?.[0]?.finish_reason === 'stop', ms };
    }
    return { status: res.status, summary: `${res.status} ${body.error?.code ?? body.error?.type}`, good: false, ms };
  }
  const res = await fetch(`${gateway}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ input: 'hi', stream: true }) });
  if (res.status !== 200) {
    const body = (await res.json()) as any;
    return { status: res.status, summary: `${res.status} ${body.error?.code ?? ''} (no stream)`, good: false, ms: performance.now() - started };
  }
  const frames = (await res.text()).split('\n\n').filter((f) => f.startsWith('data: ')).map((f) => JSON.parse(f.slice(6)) as Record<string, any>);
  const ms = performance.now() - started;
  const kinds = frames.map((f) => (f.fallback_restart ? 'restart' : String(f.object).replace('response.', '')));
  const last = frames.at(-1);
  const counts = kinds.reduce<Record<string, number>>((acc, k) => ({ ...acc, [k]: (acc[k] ?? 0) + 1 }), {});
  const summary = `200 ${Object.entries(counts).map(([k, n]) => `${n} ${k}`).join(', ')}${last?.object === 'response.error' ? ` (${last.error?.code})` : ''}`;
  return { status: 200, summary, good: last?.object === 'response.done', ms };
}

async function billed(db: Client, keyHash: string, expected: number): Promise<Array<{ vendor: string; outcome: string; cost: number }>> {
  // The usage records travel through the queue: wait for the ones this fault produced.
  for (let i = 0; i < 100; i++) {
    const { rows } = await db.query<{ vendor: string; outcome: string; cost_micros: string }>('SELECT vendor, outcome, cost_micros FROM model_gateway.usage_records WHERE key_hash = $1 ORDER BY created_at', [keyHash]);
    if (rows.length >= expected) return rows.map((r) => ({ vendor: r.vendor, outcome: r.outcome, cost: Number(r.cost_micros) }));
    await new Promise((r) => setTimeout(r, 50));
  }
  return [];
}

async function run(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    print(USAGE);
    return 0;
  }
  const backends = await prepareBackends();
  const group = new ServiceGroup(progress);
  const vendors: Vendors = { openai: await startFakeOpenAI(), groq: await startFakeOpenAICompatible({ flavour: 'groq' }), anthropic: await startFakeAnthropic() };
  const db = new Client({ connectionString: backends.databaseUrl });
  const redis = new Redis(backends.redisUrl);
  const healthPrefix = `patchbay:bench:routing:${randomBytes(6).toString('hex')}:`;
  try {
    const token = benchServiceToken();
    progress(`backends: ${describeBackends(backends)}`);
    const accessKeys = await startAccessKeys(group, backends, token);
    const gateway = await group.start({
      name: 'model-gateway',
      entry: appEntryOf('model-gateway'),
      env: {
        DATABASE_URL: backends.databaseUrl,
        REDIS_URL: backends.redisUrl,
        ACCESS_KEYS_URL: accessKeys.baseUrl,
        PATCHBAY_SERVICE_TOKEN: token,
        PATCHBAY_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
        PATCHBAY_ENCRYPTION_ACTIVE_KEY: 'bench',
        PATCHBAY_MODEL_CATALOG_FILE: catalogFile(),
        PATCHBAY_VENDOR_OPENAI_API_KEY: vendors.openai.apiKeys.valid,
        PATCHBAY_VENDOR_OPENAI_BASE_URL: vendors.openai.baseUrl,
        PATCHBAY_VENDOR_GROQ_API_KEY: vendors.groq.apiKeys.valid,
        PATCHBAY_VENDOR_GROQ_BASE_URL: vendors.groq.baseUrl,
        PATCHBAY_VENDOR_ANTHROPIC_API_KEY: vendors.anthropic.apiKeys.valid,
        PATCHBAY_VENDOR_ANTHROPIC_BASE_URL: vendors.anthropic.baseUrl,
        GATEWAY_FIRST_TOKEN_TIMEOUT_MS: String(TIMEOUTS.first),
        GATEWAY_BETWEEN_TOKENS_TIMEOUT_MS: String(TIMEOUTS.between),
        GATEWAY_TOTAL_TIMEOUT_MS: String(TIMEOUTS.total),
        GATEWAY_ROUTE_HEALTH_PREFIX: healthPrefix,
        QUEUE_PREFIX: process.env.QUEUE_PREFIX ?? 'patchbay-bench',
        LOG_LEVEL: BENCH_LOG_LEVEL,
        NODE_ENV: 'production',
      },
    });
    const cli = path.join(REPO_ROOT, 'apps', 'access-keys-and-audit', 'dist', 'cli', 'main.js');
    const admin = async (argv: string[]) => JSON.parse((await execFileAsync(process.execPath, [cli, ...argv], { env: { ...process.env, DATABASE_URL: backends.databaseUrl, REDIS_URL: backends.redisUrl, LOG_LEVEL: BENCH_LOG_LEVEL } })).stdout) as Record<string, any>;
    const org = await admin(['org', 'create', '--name', `bench failover ${new Date().toISOString()}`, '--plan', 'paid', '--gateway-credit-usd', '1000']);
    const mgmt = await admin(['mgmt-key', 'create', '--org', org.organization_id]);
    const policy = await json(`${gateway.baseUrl}/v1/routing-policies`, mgmt.key, 'POST', { name: 'Fallback', strategy: 'priority', targets: [{ model: 'openai/gpt-4o', vendors: ['openai', 'groq'] }, { model: 'anthropic/claude-sonnet-4' }] });
    if (policy.status !== 201) throw new Error(`creating the routing policy: ${policy.status} ${JSON.stringify(policy.body)}`);
    await db.connect();

    // Warm-up (connections, JIT) outside the table, so the reference rows are steady-state.
    const warm = await json(`${gateway.baseUrl}/v1/keys`, mgmt.key, 'POST', { name: 'warm-up' });
    for (let i = 0; i < 20; i++) {
      vendors.openai.script({ text: TEXT });
      await send(gateway.baseUrl, warm.body.key, i % 2 === 1);
    }
    const rows: string[][] = [];
    for (const fault of FAULTS) {
      progress(fault.name);
      for (const v of Object.values(vendors)) v.reset();
      // Each fault starts with every circuit closed (the flapping primary shows the breaker opening).
      const healthKeys = await redis.keys(`${healthPrefix}*`);
      if (healthKeys.length > 0) await redis.del(...healthKeys);
      fault.setup(vendors);
      // A key per fault: its usage records are this fault's alone.
      const key = await json(`${gateway.baseUrl}/v1/keys`, mgmt.key, 'POST', { name: fault.name });
      const seen: Seen[] = [];
      for (let i = 0; i < (fault.requests ?? 1); i++) seen.push(await send(gateway.baseUrl, key.body.key, fault.stream));
      const calls = vendors.openai.requests.length + vendors.groq.requests.length + vendors.anthropic.requests.length;
      const records = await billed(db, key.body.hash, calls);
      const charged = records.filter((r) => r.cost > 0);
      const good = seen.filter((s) => s.good);
      const client = fault.requests ? `${good.length}/${seen.length} good; ${[...new Set(seen.map((s) => s.summary))].join(' | ')}` : seen[0]!.summary;
      const ttg = good.length === 0 ? 'none' : fault.requests ? `max ${Math.max(...good.map((s) => s.ms)).toFixed(0)}` : good[0]!.ms.toFixed(0);
      const groups = new Map<string, { n: number; cost: number }>();
      for (const r of records) {
        const g = groups.get(`${r.vendor} ${r.outcome}`) ?? { n: 0, cost: 0 };
        groups.set(`${r.vendor} ${r.outcome}`, { n: g.n + 1, cost: g.cost + r.cost });
      }
      const detail = [...groups].map(([k, g]) => `${g.n > 1 ? `${g.n}x ` : ''}${k} $${(g.cost / 1e6).toFixed(6)}`).join(', ');
      rows.push([fault.name, fault.stream ? 'native stream' : 'chat', client, ttg, `${vendors.openai.requests.length}/${vendors.groq.requests.length}/${vendors.anthropic.requests.length}`, `${charged.length} of ${records.length}: ${detail}`]);
    }

    progress('routing decision cost');
    const decision = routingDecisionCost();

    print('pnpm bench failover: every upstream fault of issue 10 §2 through the real gateway, one routing policy (gpt-4o on openai, then groq; then claude-sonnet-4 on anthropic)');
    print(`machine: ${machineDescription()}; load average ${machineLoad().text}`);
    print(`gateway timeouts: first token ${TIMEOUTS.first} ms, between tokens ${TIMEOUTS.between} ms, total ${TIMEOUTS.total} ms; circuit breaker: 3 failures in 30 s`);
    print('vendor calls = OpenAI/Groq/Anthropic fake requests; billed = usage records with a cost (each attempt at its route)');
    print();
    for (const line of table(['fault', 'surface', 'what the client saw', 'ms to a good answer', 'vendor calls', 'attempts billed'], rows)) print(line);
    print();
    print(`routing decision (resolveRoutes, in process): µs per request, next to model-wire parsing the same body; target <= ${ROUTING_DECISION_TARGET_US} µs`);
    for (const line of table(['case', 'routing µs', 'parse µs', 'target'], decision)) print(line);
    return 0;
  } finally {
    await db.end().catch(() => undefined);
    redis.disconnect();
    await group.stopAll();
    await Promise.all(Object.values(vendors).map((v) => v.close()));
  }
}

export const failoverBenchmark: Benchmark = {
  name: 'failover',
  summary: 'each upstream fault through the real gateway under a routing policy: what the client saw, time to a good answer, attempts billed; routing decision µs',
  run,
};
