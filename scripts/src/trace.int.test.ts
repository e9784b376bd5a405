import { execFile, fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SpanKind } from '@opentelemetry/api';
import { GITHUB_FAKE_TOKENS, startFakeGithub } from '@patchbay/provider-fakes';
import type { RecordedSpan } from '@patchbay/telemetry/span-recorder';
import { TEST_DATABASE_URL, TEST_REDIS_URL, freePort, waitFor } from '@patchbay/testing';
import { REPO_ROOT } from './suite';

/*
 * One MCP tools/call through the real suite yields one trace. Every service runs as its own Node
 * process (its built dist/main.js, the record worker its dist/worker.js), preloaded with
 * @patchbay/telemetry/span-recorder: telemetry with an in-memory exporter, read back over IPC. The
 * call goes through the edge router to mcp-runtime, which asks connector-registry for the pack and the
 * credential, calls the (fake) GitHub API, and queues the call's record; the worker stores it. The
 * trace context crosses HTTP (traceparent) and BullMQ (the job's carrier).
 */

const RECORDER = require.resolve('@patchbay/telemetry/span-recorder');
const run = promisify(execFile);
const CLASS_METHOD = /^[A-Z][A-Za-z0-9]*\.[a-z][A-Za-z0-9]*$/;
/** Scopes of the spans our own code names (the rest come from the http, express, undici, pg and ioredis instrumentations). */
const OUR_SCOPES = ['@patchbay/telemetry', '@patchbay/queues', '@patchbay/edge-router'];

class TracedProcess {
  output = '';
  private waiting: Array<(spans: RecordedSpan[]) => void> = [];

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    child.stdout?.on('data', (c: Buffer) => (this.output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (this.output += c.toString()));
    child.on('message', (m: { type?: string; spans?: RecordedSpan[] }) => {
      if (m.type === 'patchbay:spans') this.waiting.shift()?.(m.spans ?? []);
    });
  }

  spans(): Promise<RecordedSpan[]> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.child.send({ type: 'patchbay:spans' });
    });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return resolve();
      this.child.once('exit', () => resolve());
      this.child.kill('SIGTERM');
    });
  }
}

const processes: TracedProcess[] = [];
let github: Awaited<ReturnType<typeof startFakeGithub>>;

async function startTraced(name: string, app: string, entry: string, env: Record<string, string>): Promise<TracedProcess> {
  const dir = path.join(REPO_ROOT, 'apps', app);
  const port = env.PORT!;
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(OTEL_|PATCHBAY_|PORT$)/.test(k)) base[k] = v;
  const child = fork(path.join(dir, 'dist', entry), [], {
    cwd: dir,
    execArgv: ['-r', RECORDER],
    env: { ...base, LOG_LEVEL: 'warn', OTEL_SERVICE_NAME: name, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const traced = new TracedProcess(name, child);
  processes.push(traced);
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`${name} exited: ${traced.output}`);
      try {
        return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
      } catch {
        return false;
      }
    },
    60_000,
    `${name} healthy`,
  );
  return traced;
}

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await github?.close();
});

test('one MCP tools/call is one trace: edge router, runtime, registry lookups, the provider call, and the record job with its consumer, spans named Class.method', async () => {
  github = await startFakeGithub({ owner: 'octo-org', repo: 'hello', issues: 3 });
  const [accessKeysPort, registryPort, runtimePort, workerPort, edgePort] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  const shared = {
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_URL: TEST_REDIS_URL,
    // Queues of this test only: the worker takes no one else's jobs.
    QUEUE_PREFIX: `trace-test-${process.pid}-${randomBytes(3).toString('hex')}`,
    PATCHBAY_SERVICE_TOKEN: randomBytes(24).toString('base64url'),
    ACCESS_KEYS_URL: `http://127.0.0.1:${accessKeysPort}`,
    CONNECTOR_REGISTRY_URL: `http://127.0.0.1:${registryPort}`,
    // The fake GitHub listens on 127.0.0.1.
    PATCHBAY_ALLOW_PRIVATE_NETWORK: 'true',
  };
  await startTraced('access-keys-and-audit', 'access-keys-and-audit', 'main.js', { ...shared, PORT: String(accessKeysPort) });
  await startTraced('connector-registry', 'connector-registry', 'main.js', { ...shared, PORT: String(registryPort), PATCHBAY_PUBLIC_URL: `http://127.0.0.1:${edgePort}`, PATCHBAY_ENCRYPTION_KEYS: `t1:${randomBytes(32).toString('base64')}` });
  const runtimeEnv = {
    ...shared,
    // Every lookup of the call goes to the registry (no cache), and records go to the worker process.
    PACK_CACHE_TTL_MS: '0',
    CREDENTIAL_CACHE_TTL_MS: '0',
    TOOL_CALL_RECORD_WORKERS: 'false',
    TOOL_CALL_RECORD_STORE: 'queue',
    PATCHBAY_CONNECTOR_BASE_URL_GITHUB: github.url,
  };
  await startTraced('mcp-runtime', 'mcp-runtime', 'main.js', { ...runtimeEnv, PORT: String(runtimePort) });
  await startTraced('mcp-runtime-worker', 'mcp-runtime', 'worker.js', { ...runtimeEnv, PORT: String(workerPort) });
  await startTraced('edge-router', 'edge-router', 'main.js', {
    PORT: String(edgePort),
    ACCESS_KEYS_URL: shared.ACCESS_KEYS_URL,
    CONNECTOR_REGISTRY_URL: shared.CONNECTOR_REGISTRY_URL,
    MCP_RUNTIME_URL: `http://127.0.0.1:${runtimePort}`,
  });
  const all = processes;

  // An organization (admin CLI), then what the README does, through the edge router.
  const cli = path.join(REPO_ROOT, 'apps', 'access-keys-and-audit', 'dist', 'cli', 'main.js');
  const { stdout } = await run(process.execPath, [cli, 'org', 'create', '--name', 'Trace test'], { env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL, REDIS_URL: TEST_REDIS_URL } });
  const key = (JSON.parse(stdout) as { master_key: string }).master_key;
  const edgeUrl = `http://127.0.0.1:${edgePort}`;
  const api = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${edgeUrl}${url}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, any>;
  };
  const user = await api('POST', '/api/v1/registered-users', { origin_user_id: 'u-trace', origin_user_name: 'Ada', shared_credential_group: { origin_company_id: 'acme', origin_company_name: 'Acme', custom_groupings: {} } });
  const connectors = await api('GET', '/api/v1/connectors/?search=github');
  const pack = await api('POST', '/api/v1/tool-packs/', { name: 'Triage', description: 'Issues', connectors: [{ connector_id: connectors.results[0].id, auth_scope: 'INDIVIDUAL', tool_names: ['list_issues'] }] });
  const link = await api('POST', `/api/v1/registered-users/${user.id}/link-token/`, { connector: 'github' });
  const connected = await fetch(`${edgeUrl}/link/${link.link_token}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: GITHUB_FAKE_TOKENS.valid }), redirect: 'manual' });
  expect(connected.status).toBeLessThan(400);

  const client = new Client({ name: 'trace-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${edgeUrl}/api/v1/tool-packs/${pack.id}/registered-users/${user.id}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  const result = await client.callTool({ name: 'github__list_issues', arguments: { input: { owner: 'octo-org', repo: 'hello' } } });
  await client.close();
  expect(result.isError).toBeFalsy();

  // The call's trace is the one holding ToolExecutor.call; wait until the worker has consumed the record.
  let spans: RecordedSpan[] = [];
  let traceId = '';
  await waitFor(
    async () => {
      await new Promise((r) => setTimeout(r, 250));
      spans = (await Promise.all(all.map((p) => p.spans()))).flat();
      traceId = spans.find((s) => s.name === 'ToolExecutor.call')?.traceId ?? '';
      return traceId !== '' && spans.some((s) => s.traceId === traceId && s.name === 'ToolCallRecordBatchesConsumer.process');
    },
    30_000,
    'the record consumer span in the call trace',
  );
  const inTrace = spans.filter((s) => s.traceId === traceId);
  const one = (name: string, service: string) => {
    const found = inTrace.filter((s) => s.name === name && s.service === service);
    expect({ name, service, count: found.length }).toEqual({ name, service, count: 1 });
    return found[0]!;
  };
  const byId = new Map(inTrace.map((s) => [s.spanId, s]));
  const isUnder = (child: RecordedSpan, ancestor: RecordedSpan) => {
    for (let s: RecordedSpan | undefined = child; s; s = s.parentSpanId ? byId.get(s.parentSpanId) : undefined) if (s.spanId === ancestor.spanId) return true;
    return false;
  };

  // Edge router, first: its server span is the root, its own span forwards to the runtime.
  const root = inTrace.filter((s) => s.parentSpanId === undefined);
  expect(root.map((s) => [s.service, s.kind])).toEqual([['edge-router', SpanKind.SERVER]]);
  const forward = one('EdgeRouter.forward', 'edge-router');
  expect(forward.attributes['patchbay.service']).toBe('mcp-runtime');
  const runtimeServer = inTrace.find((s) => s.service === 'mcp-runtime' && s.kind === SpanKind.SERVER)!;
  expect(isUnder(runtimeServer, forward)).toBe(true);

  // The runtime, its registry lookups (and the registry's side of them), the provider call.
  const call = one('ToolExecutor.call', 'mcp-runtime');
  expect(isUnder(call, runtimeServer)).toBe(true);
  for (const lookup of [one('RegistryClient.packTools', 'mcp-runtime'), one('RegistryClient.credential', 'mcp-runtime')]) {
    const registrySide = inTrace.filter((s) => s.service === 'connector-registry' && isUnder(s, lookup));
    expect(registrySide.some((s) => s.kind === SpanKind.SERVER)).toBe(true);
  }
  expect(isUnder(one('PackTools.resolve', 'connector-registry'), runtimeServer)).toBe(true);
  expect(isUnder(one('CredentialResolver.resolve', 'connector-registry'), call)).toBe(true);
  const provider = one('ToolExecutor.callProvider', 'mcp-runtime');
  expect(isUnder(provider, call)).toBe(true);
  const outbound = inTrace.filter((s) => s.kind === SpanKind.CLIENT && isUnder(s, provider));
  expect(outbound.map((s) => String(s.attributes['url.full'] ?? ''))).toEqual([expect.stringContaining(`${github.url}/repos/octo-org/hello/issues`)]);

  // The record: produced in the call's trace, consumed by the worker process in the same trace, linked to its producer.
  const produce = one('DirectProducer.sendMany', 'mcp-runtime');
  expect(produce.kind).toBe(SpanKind.PRODUCER);
  const consume = one('ToolCallRecordBatchesConsumer.process', 'mcp-runtime-worker');
  expect(consume.kind).toBe(SpanKind.CONSUMER);
  expect(consume.parentSpanId).toBe(produce.spanId);
  expect(consume.links).toEqual([{ traceId, spanId: produce.spanId }]);
  // The worker stored it in PostgreSQL inside the consumer span.
  expect(inTrace.some((s) => s.service === 'mcp-runtime-worker' && s.scope.includes('pg') && isUnder(s, consume))).toBe(true);

  // One trace: every span is connected to the root, and every span our code names reads Class.method.
  for (const s of inTrace) expect({ span: s.name, connected: isUnder(s, root[0]!) }).toEqual({ span: s.name, connected: true });
  const named = inTrace.filter((s) => OUR_SCOPES.includes(s.scope));
  expect(named.length).toBeGreaterThanOrEqual(9);
  for (const s of named) expect(s.name).toMatch(CLASS_METHOD);
  expect(new Set(inTrace.map((s) => s.service))).toEqual(new Set(['edge-router', 'mcp-runtime', 'connector-registry', 'mcp-runtime-worker', ...(inTrace.some((s) => s.service === 'access-keys-and-audit') ? ['access-keys-and-audit'] : [])]));
}, 240_000);
