import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { SpanKind } from '@opentelemetry/api';

/*
 * These tests run services in child processes: the instrumentations patch http, express, pg and
 * ioredis through Node's own module loader, which jest replaces with its registry, so inside a jest
 * worker only fetch (diagnostics channels) would be traced. The children load the built package
 * (dist), exactly what a service preloads or imports.
 */

const PACKAGE_DIR = join(__dirname, '..');
const FIXTURES = join(PACKAGE_DIR, 'test', 'fixtures');

interface PlainSpan {
  name: string;
  kind: SpanKind;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  scope: string;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes?: Record<string, unknown> }>;
  resource: Record<string, unknown>;
}

type Message = { type: string; [key: string]: unknown };

/** A forked fixture with its IPC messages queued, so the test can await them in order. */
class Fixture {
  private readonly queue: Message[] = [];
  private readonly waiters: Array<(m: Message) => void> = [];
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcess) {
    child.on('message', (m: Message) => {
      const waiter = this.waiters.shift();
      if (waiter) waiter(m);
      else this.queue.push(m);
    });
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  next(): Promise<Message> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async request(message: Message): Promise<Message> {
    this.child.send(message);
    return this.next();
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill();
  }
}

/** The environment of the test without any OTEL_* variable, so only what a test sets applies. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('OTEL_')) env[k] = v;
  return { ...env, ...extra };
}

function startFixture(script: string, options: { env?: Record<string, string>; execArgv?: string[] } = {}): Fixture {
  const child = fork(join(FIXTURES, script), [], {
    cwd: PACKAGE_DIR,
    env: cleanEnv(options.env),
    execArgv: options.execArgv ?? [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Fixture(child);
}

/** Fails early with a clear message instead of testing a missing or outdated build. */
function assertFreshBuild(): void {
  const dist = join(PACKAGE_DIR, 'dist');
  if (!existsSync(join(dist, 'register.js'))) throw new Error('packages/telemetry/dist is missing: run `pnpm build` first');
  for (const file of readdirSync(join(PACKAGE_DIR, 'src'))) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
    const built = join(dist, file.replace(/\.ts$/, '.js'));
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(PACKAGE_DIR, 'src', file)).mtimeMs) {
      throw new Error(`packages/telemetry/dist is older than src/${file}: run \`pnpm build\` first`);
    }
  }
}

beforeAll(assertFreshBuild);

const running: Fixture[] = [];
afterEach(() => {
  for (const fixture of running.splice(0)) fixture.kill();
});

describe('tracing across services (built package in real Node processes)', () => {
  test('a request through an express service into PostgreSQL, Redis and a second service over fetch yields one trace continuing the edge trace id', async () => {
    const fixture = startFixture('traced-services.js');
    running.push(fixture);
    const ready = await fixture.next();
    expect(ready).toMatchObject({ type: 'ready', enabled: true });
    const base = `http://127.0.0.1:${String(ready.port)}`;

    // What the edge router sends: its traceparent, the caller's key and body.
    const edgeTraceId = randomBytes(16).toString('hex');
    const edgeSpanId = randomBytes(8).toString('hex');
    const response = await fetch(`${base}/orders/7?token=query-secret`, {
      method: 'POST',
      headers: {
        traceparent: `00-${edgeTraceId}-${edgeSpanId}-01`,
        authorization: 'Bearer sk_edge_secret',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ note: 'body-secret' }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ next_id: 8, price: 42 });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);

    // The server span ends when the response is finished; ask until both servers' spans are in.
    let spans: PlainSpan[] = [];
    const serverSpans = () => spans.filter((s) => s.kind === SpanKind.SERVER && s.scope === '@opentelemetry/instrumentation-http');
    while (serverSpans().length < 2) {
      spans = (await fixture.request({ type: 'spans' })).spans as PlainSpan[];
    }

    const ordersServer = serverSpans().find((s) => JSON.stringify(s.attributes).includes('/orders/7'));
    const pricingServer = serverSpans().find((s) => JSON.stringify(s.attributes).includes('/prices/7'));
    const fetchClient = spans.find((s) => s.scope === '@opentelemetry/instrumentation-undici' && s.kind === SpanKind.CLIENT);
    const pgQuery = spans.find((s) => s.scope === '@opentelemetry/instrumentation-pg' && s.attributes['db.query.text'] === 'select $1::int + 1 as next_id');
    const redisSpans = spans.filter((s) => s.scope === '@opentelemetry/instrumentation-ioredis');
    const expressHandler = spans.find((s) => s.scope === '@opentelemetry/instrumentation-express');
    for (const span of [ordersServer, pricingServer, fetchClient, pgQuery, expressHandler]) expect(span).toBeDefined();
    expect(redisSpans.map((s) => s.name).sort()).toEqual(['get', 'set']);

    // One trace: every span of the request, in both services, carries the edge's trace id.
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([edgeTraceId]));
    expect(ordersServer?.parentSpanId).toBe(edgeSpanId);
    expect(pricingServer?.parentSpanId).toBe(fetchClient?.spanId);
    expect(ordersServer?.attributes['http.route']).toBe('/orders/:id');
    expect(ordersServer?.resource['service.name']).toBe('traced-fixture');
    expect(ordersServer?.resource['service.version']).toBe('1.2.3');

    // Health checks are not traced.
    expect(JSON.stringify(spans)).not.toContain('/healthz');

    // No body, Authorization header, secret query value or Redis value reaches a span.
    const everything = JSON.stringify(spans);
    for (const secret of ['sk_edge_secret', 'sk_downstream_secret', 'body-secret', 'query-secret', 'client-query-secret']) {
      expect(everything).not.toContain(secret);
    }
    expect(redisSpans.find((s) => s.name === 'set')?.attributes['db.query.text']).toBe('set telemetry-test:order:7 [3 other arguments]');

    // A request without a traceparent starts its own trace, rooted at the server span.
    await fetch(`${base}/orders/8`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    while (serverSpans().length < 4) {
      spans = (await fixture.request({ type: 'spans' })).spans as PlainSpan[];
    }
    const secondServer = serverSpans().find((s) => JSON.stringify(s.attributes).includes('/orders/8'));
    expect(secondServer?.parentSpanId).toBeUndefined();
    expect(secondServer?.traceId).not.toBe(edgeTraceId);
    const secondTrace = spans.filter((s) => s.traceId === secondServer?.traceId);
    expect(secondTrace.some((s) => s.scope === '@opentelemetry/instrumentation-pg')).toBe(true);
    expect(secondTrace.some((s) => JSON.stringify(s.attributes).includes('/prices/8'))).toBe(true);

    // Shutdown flushes and completes; the child then exits on its own (no handle left open).
    expect(await fixture.request({ type: 'shutdown' })).toEqual({ type: 'shut-down' });
    expect(await fixture.exited).toBe(0);
  });

  test('preloaded with -r @patchbay/telemetry/register and OTEL_TRACES_EXPORTER=otlp, spans reach the collector as OTLP http/protobuf when the service shuts down', async () => {
    const received: Array<{ path: string | undefined; contentType: string | undefined; body: Buffer }> = [];
    const collector: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ path: req.url, contentType: req.headers['content-type'], body: Buffer.concat(chunks) });
        res.writeHead(200, { 'content-type': 'application/x-protobuf' });
        res.end();
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const address = collector.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const fixture = startFixture('preloaded-service.js', {
        execArgv: ['-r', '@patchbay/telemetry/register'],
        env: {
          OTEL_TRACES_EXPORTER: 'otlp',
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
          OTEL_SERVICE_NAME: 'otlp-fixture',
          // Nothing leaves on the batch timer during the test: only shutdown's flush can deliver.
          OTEL_BSP_SCHEDULE_DELAY: '600000',
        },
      });
      running.push(fixture);
      const ready = await fixture.next();
      expect(ready).toMatchObject({ type: 'ready', enabled: true });

      const response = await fetch(`http://127.0.0.1:${String(ready.port)}/widgets/w1`);
      expect(await response.json()).toEqual({ id: 'w1' });

      expect(await fixture.request({ type: 'shutdown' })).toEqual({ type: 'shut-down' });
      // shutdown() resolved only after the export: the collector already has the spans.
      const traces = received.filter((r) => r.path === '/v1/traces');
      expect(traces.length).toBeGreaterThan(0);
      expect(traces[0]?.contentType).toBe('application/x-protobuf');
      const body = Buffer.concat(traces.map((t) => t.body));
      // Protobuf keeps strings as UTF-8 bytes: the service name and the express route are readable.
      expect(body.includes('otlp-fixture')).toBe(true);
      expect(body.includes('name-from-main')).toBe(false);
      // express was required before the main could start anything: only the preload explains the route.
      expect(body.includes('/widgets/:id')).toBe(true);
      // Metrics and logs stay off unless their own variables ask for them.
      expect(received.every((r) => r.path === '/v1/traces')).toBe(true);
      expect(await fixture.exited).toBe(0);
    } finally {
      collector.closeAllConnections();
      await new Promise((resolve) => collector.close(resolve));
    }
  });

  test('without OTEL_* variables a service loads no SDK, patches nothing and registers no tracer provider', async () => {
    const fixture = startFixture('disabled-service.js');
    running.push(fixture);
    const report = await fixture.next();
    expect(report.enabled).toBe(false);
    expect(report.providerClass).toBe('NoopTracerProvider');
    expect(report.httpPatched).toBe(false);
    expect((report.openTelemetryModules as string[]).filter((p) => /sdk-node|instrumentation/.test(p))).toEqual([]);
    expect(await fixture.exited).toBe(0);
  });
});
