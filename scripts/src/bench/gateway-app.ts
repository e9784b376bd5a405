import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { OPENAI_FAKE_KEYS } from '@patchbay/provider-fakes';
import { REPO_ROOT } from '../suite';
import type { Backends } from './backends';
import { exactnessUnderLoad } from './gateway-exactness';
import { chatBody, type Leg } from './gateway-legs';
import { formatInt, formatSigned, progress } from './report';
import type { RunningService, ServiceGroup } from './services';
import { BENCH_LOG_LEVEL, benchServiceToken, startAccessKeys, startEdgeRouter } from './suite-services';

const execFileAsync = promisify(execFile);

export interface GatewayLegs {
  direct: Leg;
  viaEdge: Leg;
  /** The gateway under a routing policy of three routes whose first fails half the time. */
  policy: Leg;
  /**
   * A reference, not the gateway: a second edge router whose model-gateway upstream is the fake
   * itself, so the edge's own hop can be set beside one bare proxy's.
   */
  edgeAlone: Leg;
  services: RunningService[];
  /** N concurrent requests against a new key with a small limit; lines to print. */
  budgetExactness(requests: number): Promise<string[]>;
  /** Three replicas with leases and three without, 300 requests against limits that fit 100 (gateway-exactness.ts); lines to print. */
  exactnessUnderLoad(): Promise<string[]>;
  /** The web-search leg: the gateway's own time per searched request beside a plain one (X-Gateway-Overhead-Ms); lines to print. */
  webSearch(samples: number): Promise<string[]>;
}

/** A request the fake model answers by calling the gateway's search function once, then reporting the results. */
const SEARCH_PROMPT = 'svc_web_search kubernetes pods smallest deployable';

const GATEWAY_MODEL = 'openai/gpt-4o-mini';
/** The model the reference legs ask the fake for, as the vendor names it. */
export const UPSTREAM_MODEL = 'gpt-4o-mini';
export const EDGE_ALONE = 'edge router alone (to the fake)';
export const EDGE_ALONE_SERVICE = 'edge-router-to-fake';

/**
 * The routing-policy leg: three routes in priority order on the fake OpenAI; the first (gpt-4o) fails
 * with a 500 on every other request (the fake's fault rule, fraction 0.5), so half the requests pay a
 * failed attempt before the second route answers. The direct legs ask for gpt-4o-mini, which the
 * fault leaves alone.
 */
export const POLICY_ROUTES = ['openai/gpt-4o', 'openai/gpt-4o-mini', 'openai/gpt-4.1'];
const FAILING_VENDOR_MODEL = 'gpt-4o';

/**
 * apps/model-gateway as its README runs it, with the fake OpenAI as the platform's OpenAI vendor,
 * access-keys-and-audit beside it (management keys, organization settings) and the edge router in
 * front; an organization on the paid plan with a payment method and credit, made with the admin CLI,
 * and a gateway key made through the management API.
 */
export async function startGatewayLegs(
  group: ServiceGroup,
  backends: Backends,
  upstream: RunningService,
  gatewayEntry: string,
  nodeArgs: { gateway?: string[]; worker?: string[] } = {},
): Promise<GatewayLegs> {
  const serviceToken = benchServiceToken();
  const accessKeys = await startAccessKeys(group, backends, serviceToken);
  const cli = path.join(REPO_ROOT, 'apps', 'access-keys-and-audit', 'dist', 'cli', 'main.js');
  const admin = async (args: string[]) => {
    const { stdout } = await execFileAsync(process.execPath, [cli, ...args], { env: { ...process.env, DATABASE_URL: backends.databaseUrl, REDIS_URL: backends.redisUrl, LOG_LEVEL: BENCH_LOG_LEVEL } });
    return JSON.parse(stdout) as Record<string, unknown>;
  };
  const org = await admin(['org', 'create', '--name', `gateway bench ${new Date().toISOString()}`, '--plan', 'paid', '--payment-method', 'true', '--gateway-credit-usd', '1000000']);
  const organizationId = String(org.organization_id);
  const management = await admin(['mgmt-key', 'create', '--org', organizationId, '--name', 'gateway bench']);
  const mgmtKey = String(management.key);

  // The web-search leg's engine: the fake SearXNG (keyless), the first engine of auto order.
  const searchEngine = await group.start({ name: 'fake-searxng', entry: path.join(__dirname, 'gateway-search-engine.js'), env: {}, healthPath: '/search?q=health&format=json' });
  const env = {
    PATCHBAY_SEARCH_SEARXNG_BASE_URL: searchEngine.baseUrl,
    DATABASE_URL: backends.databaseUrl,
    REDIS_URL: backends.redisUrl,
    ACCESS_KEYS_URL: accessKeys.baseUrl,
    PATCHBAY_SERVICE_TOKEN: serviceToken,
    // A new key each run: nothing sealed (BYOK vendor keys) needs to open in another one.
    PATCHBAY_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    PATCHBAY_ENCRYPTION_ACTIVE_KEY: 'bench',
    PATCHBAY_VENDOR_OPENAI_API_KEY: OPENAI_FAKE_KEYS.valid,
    PATCHBAY_VENDOR_OPENAI_BASE_URL: `${upstream.baseUrl}/v1`,
    LOG_LEVEL: BENCH_LOG_LEVEL,
    NODE_ENV: 'production',
    // The policy leg measures a first route failing half the time: with the breaker on (3 failures in
    // 30 s) it would be skipped after the first few, and the leg would measure the second route alone.
    GATEWAY_BREAKER_FAILURES: '1000000000',
  };
  // As docker-compose and the Helm chart deploy it: the replicas answering model requests store their
  // usage records themselves (GATEWAY_USAGE_DIRECT, one INSERT per 20 ms) and admit against grants
  // (GATEWAY_SPEND_LEASES); the worker process of its own stores what goes through the queue when
  // PostgreSQL does not answer (GATEWAY_USAGE_WORKERS=false on the replica).
  const gateway = await group.start({ name: 'model-gateway', entry: gatewayEntry, nodeArgs: nodeArgs.gateway ?? [], env: { ...env, GATEWAY_USAGE_WORKERS: 'false' } });
  const worker = await group.start({ name: 'model-gateway-worker', entry: path.join(path.dirname(gatewayEntry), 'worker.js'), nodeArgs: nodeArgs.worker ?? [], env: { ...env, PATCHBAY_MIGRATE_ON_START: 'false' } });
  const edge = await startEdgeRouter(group, { accessKeys, MODEL_GATEWAY_URL: gateway });
  const edgeToFake = await startEdgeRouter(group, { accessKeys, MODEL_GATEWAY_URL: upstream }, [], { name: EDGE_ALONE_SERVICE, healthPath: '/docs' });

  const createKey = async (body: Record<string, unknown>): Promise<{ key: string; hash: string }> => {
    const res = await fetch(`${gateway.baseUrl}/v1/keys`, { method: 'POST', headers: { authorization: `Bearer ${mgmtKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`POST /v1/keys answered ${res.status}: ${text.slice(0, 300)}`);
    const parsed = JSON.parse(text) as { key?: string; hash?: string; data?: { key?: string; hash?: string } };
    const created = parsed.data ?? parsed;
    if (!created.key || !created.hash) throw new Error(`POST /v1/keys gave no key and hash: ${text.slice(0, 300)}`);
    return { key: created.key, hash: created.hash };
  };
  const readKey = async (hash: string): Promise<{ usage: number; limit: number | null }> => {
    const res = await fetch(`${gateway.baseUrl}/v1/keys/${hash}`, { headers: { authorization: `Bearer ${mgmtKey}` } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`GET /v1/keys/{hash} answered ${res.status}: ${text.slice(0, 300)}`);
    const parsed = JSON.parse(text) as { data?: { usage: number; limit: number | null }; usage?: number; limit?: number | null };
    const key = parsed.data ?? (parsed as { usage: number; limit: number | null });
    return { usage: key.usage, limit: key.limit };
  };

  const { key } = await createKey({ name: 'gateway bench' });
  const auth = { Authorization: `Bearer ${key}` };
  const policyRes = await fetch(`${gateway.baseUrl}/v1/routing-policies`, {
    method: 'POST',
    headers: { authorization: `Bearer ${mgmtKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench three routes', strategy: 'priority', targets: POLICY_ROUTES.map((model) => ({ model, vendors: ['openai'] })) }),
  });
  const policyText = await policyRes.text();
  if (policyRes.status !== 201) throw new Error(`POST /v1/routing-policies answered ${policyRes.status}: ${policyText.slice(0, 300)}`);
  const alias = (JSON.parse(policyText) as { model: string }).model;
  const fault = await fetch(`${upstream.baseUrl}/__fake/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fault: { kind: 'server_error' }, model: FAILING_VENDOR_MODEL, fraction: 0.5 }),
  });
  if (fault.status !== 200) throw new Error(`the fake's fault rule: ${fault.status} ${await fault.text()}`);
  progress(`model gateway on ${gateway.baseUrl}, edge router on ${edge.baseUrl}; organization ${organizationId}`);
  return {
    direct: { label: 'gateway direct', url: `${gateway.baseUrl}/v1/chat/completions`, headers: auth, model: GATEWAY_MODEL },
    viaEdge: { label: 'gateway via edge router', url: `${edge.baseUrl}/v1/chat/completions`, headers: auth, model: GATEWAY_MODEL },
    policy: { label: 'gateway, policy: 3 routes, 1st fails 1/2', url: `${gateway.baseUrl}/v1/chat/completions`, headers: auth, model: alias },
    edgeAlone: { label: EDGE_ALONE, url: `${edgeToFake.baseUrl}/v1/chat/completions`, headers: { Authorization: `Bearer ${OPENAI_FAKE_KEYS.valid}` }, model: UPSTREAM_MODEL },
    services: [accessKeys, gateway, worker, edge, edgeToFake, searchEngine],
    exactnessUnderLoad: () => exactnessUnderLoad({ group, gatewayEntry, env, admin }),
    async webSearch(samples: number): Promise<string[]> {
      const searched = JSON.stringify({ model: GATEWAY_MODEL, messages: [{ role: 'user', content: SEARCH_PROMPT }], tools: [{ type: 'svc:web_search', parameters: { max_results: 5 } }], max_tokens: 64 });
      const plain = chatBody(GATEWAY_MODEL);
      const once = async (body: string, check: boolean): Promise<{ overheadMs: number; wallMs: number }> => {
        const start = performance.now();
        const res = await fetch(`${gateway.baseUrl}/v1/chat/completions`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(10_000) });
        const text = await res.text();
        const wallMs = performance.now() - start;
        if (res.status !== 200) throw new Error(`web-search leg: ${res.status} ${text.slice(0, 300)}`);
        if (check) {
          const answer = JSON.parse(text) as { choices: Array<{ message: { content: string; annotations?: unknown[] } }>; usage: { server_tool_use?: { web_search_requests: number } } };
          const message = answer.choices[0]!.message;
          if (!message.content.includes('Tool svc_web_search returned') || !message.annotations?.length || answer.usage.server_tool_use?.web_search_requests !== 1) {
            throw new Error(`web-search leg: the answer is not a searched one: ${text.slice(0, 400)}`);
          }
        }
        return { overheadMs: Number(res.headers.get('x-gateway-overhead-ms')), wallMs };
      };
      for (let i = 0; i < 20; i++) {
        await once(searched, i === 0);
        await once(plain, false);
      }
      const s: Array<{ overheadMs: number; wallMs: number }> = [];
      const p: Array<{ overheadMs: number; wallMs: number }> = [];
      for (let i = 0; i < samples; i++) {
        s.push(await once(searched, false));
        p.push(await once(plain, false));
      }
      const q = (values: number[], at: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(at * values.length) - 1)] ?? 0;
      const us = (ms: number) => formatInt(ms * 1000);
      const row = (label: string, xs: Array<{ overheadMs: number; wallMs: number }>) =>
        `    ${label}: gateway's own time p50 ${us(q(xs.map((x) => x.overheadMs), 0.5))} µs, p99 ${us(q(xs.map((x) => x.overheadMs), 0.99))} µs; whole request p50 ${us(q(xs.map((x) => x.wallMs), 0.5))} µs`;
      return [
        `  web search (${samples} requests each, one at a time, taken in turn; POST /v1/chat/completions direct; X-Gateway-Overhead-Ms: the gateway's time with the vendor's and the engine's excluded):`,
        row('searched (svc:web_search: 2 model calls + 1 SearXNG search, 5 results screened, cited)', s),
        row('plain (no tool)', p),
        `    added by web search, p50: ${formatSigned((q(s.map((x) => x.overheadMs), 0.5) - q(p.map((x) => x.overheadMs), 0.5)) * 1000)} µs of gateway time per request`,
      ];
    },
    async budgetExactness(requests: number): Promise<string[]> {
      // A small limit, a few requests' worth: the worst case reserved per request is the prompt plus
      // max_tokens at the model's price, the real cost is what the fake's usage says.
      const limitUsd = 0.0002;
      const limited = await createKey({ name: 'gateway bench budget', limit: limitUsd, limit_reset: 'daily' });
      const statuses = new Map<number, number>();
      await Promise.all(
        Array.from({ length: requests }, async () => {
          const res = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${limited.key}`, 'content-type': 'application/json' },
            body: chatBody(GATEWAY_MODEL, false, 256),
          });
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }),
      );
      // The usage records travel through the queue: give them a moment to land.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const after = await readKey(limited.hash);
      const byStatus = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`).join(', ');
      const microsOver = Math.round((after.usage - limitUsd) * 1e6);
      const refused = statuses.get(402) ?? 0;
      const verdict =
        microsOver <= 0 ? 'not over' : refused === 0 ? `over by ${formatInt(microsOver)} µ$ and no request refused: the limit was NOT enforced` : `over by ${formatInt(microsOver)} µ$: what was reserved in flight when the limit was reached`;
      return [
        `  through the gateway, ${requests} concurrent requests (max_tokens 256) against a key with limit ${limitUsd} USD (daily):`,
        `    answers ${byStatus}; the key's usage after settlement ${after.usage} USD against the limit ${after.limit ?? limitUsd} USD (${verdict})`,
      ];
    },
  };
}
