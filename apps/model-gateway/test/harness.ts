import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { generateEncryptionKey } from '@patchbay/secrets';
import { startFakeAnthropic, startFakeGemini, startFakeOpenAI, startFakeOpenAICompatible, type FakeVendor } from '@patchbay/provider-fakes';
import { createLogger } from '@patchbay/service-kit';
import { TEST_DATABASE_URL, TEST_REDIS_URL, TEST_SERVICE_TOKEN, freePort, startAccessKeysService, startServiceProcess, type RunningAccessKeys, type ServiceProcess } from '@patchbay/testing';
import { loadConfig } from '../src/config';
import { createRuntime, type Runtime, type RuntimeOptions } from '../src/runtime';

export interface Harness {
  /** The gateway app itself. */
  gatewayUrl: string;
  /** The edge router in front of it: `{gateway_url}`. */
  edgeUrl: string;
  runtime: Runtime;
  accessKeys: RunningAccessKeys;
  openai: FakeVendor;
  anthropic: FakeVendor;
  gemini: FakeVendor;
  groq: FakeVendor;
  /** Starts one more gateway replica on the same database and Redis. */
  startReplica(): Promise<string>;
  close(): Promise<void>;
}

export interface TestOrg {
  organizationId: string;
  mgmtKey: string;
}

/**
 * The gateway in-process on a real port, wired as main.ts wires it (its schema, Redis, queue and
 * usage consumer), the real access-keys-and-audit and edge router as child processes, and the
 * vendor fakes as the only third parties.
 */
export async function startHarness(env: NodeJS.ProcessEnv = {}, options: Omit<RuntimeOptions, 'env'> = {}): Promise<Harness> {
  const [accessKeys, openai, anthropic, gemini, groq] = await Promise.all([startAccessKeysService(), startFakeOpenAI(), startFakeAnthropic(), startFakeGemini(), startFakeOpenAICompatible({ flavour: 'groq' })]);
  const gatewayEnv: NodeJS.ProcessEnv = {
    PATCHBAY_VENDOR_OPENAI_API_KEY: openai.apiKeys.valid,
    PATCHBAY_VENDOR_OPENAI_BASE_URL: openai.baseUrl,
    PATCHBAY_VENDOR_ANTHROPIC_API_KEY: anthropic.apiKeys.valid,
    PATCHBAY_VENDOR_ANTHROPIC_BASE_URL: anthropic.baseUrl,
    PATCHBAY_VENDOR_GOOGLE_API_KEY: gemini.apiKeys.valid,
    PATCHBAY_VENDOR_GOOGLE_BASE_URL: gemini.baseUrl,
    PATCHBAY_VENDOR_GROQ_API_KEY: groq.apiKeys.valid,
    PATCHBAY_VENDOR_GROQ_BASE_URL: groq.baseUrl,
    PATCHBAY_ENCRYPTION_KEYS: generateEncryptionKey('test'),
    ...env,
  };
  const config = loadConfig({
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_URL: TEST_REDIS_URL,
    ACCESS_KEYS_URL: accessKeys.url,
    PATCHBAY_SERVICE_TOKEN: TEST_SERVICE_TOKEN,
    PATCHBAY_MIGRATE_ON_START: 'false',
    PATCHBAY_ALLOW_PRIVATE_NETWORK: 'true',
    GATEWAY_FIRST_TOKEN_TIMEOUT_MS: '3000',
    GATEWAY_BETWEEN_TOKENS_TIMEOUT_MS: '2000',
    GATEWAY_TOTAL_TIMEOUT_MS: '10000',
    ...(process.env.QUEUE_PREFIX ? { QUEUE_PREFIX: process.env.QUEUE_PREFIX } : {}),
    ...env,
  });
  const replicas: Array<{ server: Server; runtime: Runtime }> = [];
  const startReplica = async (): Promise<string> => {
    const runtime = await createRuntime(config, createLogger('test', 'silent'), { ...options, env: gatewayEnv });
    const server: Server = await new Promise((resolve) => {
      const s = createServer(runtime.listener).listen(0, '127.0.0.1', () => resolve(s));
    });
    replicas.push({ server, runtime });
    return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  };
  const gatewayUrl = await startReplica();
  const port = await freePort();
  const edge: ServiceProcess = await startServiceProcess('edge-router', path.dirname(require.resolve('@patchbay/edge-router/package.json')), {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    ACCESS_KEYS_URL: accessKeys.url,
    MODEL_GATEWAY_URL: gatewayUrl,
    LOG_LEVEL: 'warn',
    OTEL_SDK_DISABLED: 'true',
    ...(env.EDGE_GATEWAY_BODY_LIMIT_BYTES ? { EDGE_GATEWAY_BODY_LIMIT_BYTES: env.EDGE_GATEWAY_BODY_LIMIT_BYTES } : {}),
  });
  return {
    gatewayUrl,
    edgeUrl: edge.url,
    runtime: replicas[0]!.runtime,
    accessKeys,
    openai,
    anthropic,
    gemini,
    groq,
    startReplica,
    async close() {
      await edge.stop();
      for (const { server, runtime } of replicas) {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
        await runtime.close();
      }
      await Promise.all([openai.close(), anthropic.close(), gemini.close(), groq.close()]);
      await accessKeys.stop();
    },
  };
}

/** A new organization (admin CLI) and a management key for it with the given scopes (default all). */
export async function createOrg(h: Harness, options: { plan?: 'free' | 'paid'; paymentMethod?: boolean; creditUsd?: number; scopes?: string[] } = {}): Promise<TestOrg> {
  const args = ['org', 'create', '--name', `Gateway test ${process.pid}-${Math.random().toString(36).slice(2, 8)}`];
  // Paid by default: the free plan's 15 model requests a day would trip tests that are not about it.
  args.push('--plan', options.plan ?? 'paid');
  if (options.paymentMethod !== undefined) args.push('--payment-method', String(options.paymentMethod));
  if (options.creditUsd !== undefined) args.push('--gateway-credit-usd', String(options.creditUsd));
  const org = (await h.accessKeys.cli(args)) as { organization_id: string };
  const mgmt = (await h.accessKeys.cli(['mgmt-key', 'create', '--org', org.organization_id, ...(options.scopes ?? []).flatMap((s) => ['--scope', s])])) as { key: string };
  return { organizationId: org.organization_id, mgmtKey: mgmt.key };
}

export interface Reply {
  status: number;
  body: any;
  headers: Headers;
}

/** A JSON request that returns status, parsed body and headers whatever the outcome. */
export async function call(baseUrl: string, key: string | null, method: string, pathname: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(`${baseUrl}${pathname}`, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* a stream or plain text */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** A gateway API key made through the management API. */
export async function createKey(h: Harness, org: TestOrg, body: Record<string, unknown> = {}): Promise<{ key: string; hash: string } & Record<string, any>> {
  const res = await call(h.edgeUrl, org.mgmtKey, 'POST', '/v1/keys', body);
  if (res.status !== 201) throw new Error(`POST /v1/keys: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Retries an assertion until it holds or the time is up (then throws its last failure). */
export async function eventually(assertion: () => Promise<void>, timeoutMs = 1000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

export interface GatewayProcess {
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

/**
 * One more gateway replica as a real process (dist/main.js, built before the tests run) on the
 * harness's database, Redis, access-keys service and fake OpenAI; it stores no queued usage records.
 * The caller kills it.
 */
export async function startGatewayProcess(h: Harness, extraEnv: Record<string, string> = {}): Promise<GatewayProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'dist', 'main.js')], {
    stdio: process.env.GATEWAY_TEST_CHILD_OUTPUT ? 'inherit' : 'ignore',
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: TEST_DATABASE_URL,
      REDIS_URL: TEST_REDIS_URL,
      ACCESS_KEYS_URL: h.accessKeys.url,
      PATCHBAY_SERVICE_TOKEN: TEST_SERVICE_TOKEN,
      PATCHBAY_MIGRATE_ON_START: 'false',
      PATCHBAY_ALLOW_PRIVATE_NETWORK: 'true',
      PATCHBAY_ENCRYPTION_KEYS: generateEncryptionKey('replica'),
      PATCHBAY_VENDOR_OPENAI_API_KEY: h.openai.apiKeys.valid,
      PATCHBAY_VENDOR_OPENAI_BASE_URL: h.openai.baseUrl,
      GATEWAY_USAGE_WORKERS: 'false',
      LOG_LEVEL: process.env.GATEWAY_TEST_CHILD_OUTPUT ? 'warn' : 'silent',
      OTEL_SDK_DISABLED: 'true',
      ...(process.env.QUEUE_PREFIX ? { QUEUE_PREFIX: process.env.QUEUE_PREFIX } : {}),
      ...extraEnv,
    },
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  await eventually(async () => {
    expect((await fetch(`${url}/healthz`)).ok).toBe(true);
  }, 30_000);
  return { url, child, exited };
}
