import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { RecordedRequest } from '../fake-server';
import { DELIVERY_FAULTS, ERROR_FAULTS, parseFault, parseModelFault, takesShare } from './faults';
import type { FakeFault, FakeFaultRule, FakeMatch, FakeOperation, FakeScript, FakeStreamErrorKind, FakeVendor, FakeVendorName, FakeVendorOptions } from './types';

/** A JSON answer (or error) a vendor renders. */
export interface JsonResult {
  type: 'json';
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** One SSE frame, already serialised. `tokens` counts the content tokens it carries (0 for structure). */
export interface StreamFrame {
  text: string;
  tokens: number;
  /** Part of the stream's ending (`[DONE]`, `message_stop`, the final chunk): dropped by `missing_terminal`. */
  terminal?: boolean;
}

export interface StreamResult {
  type: 'stream';
  frames: StreamFrame[];
  headers?: Record<string, string>;
  /** The vendor's mid-stream error frames for this stream (default: the dialect's). */
  errorFrames?: (error: FakeStreamErrorKind | undefined, ctx: FaultContext, written: number) => StreamFrame[];
}

export type VendorResult = JsonResult | StreamResult;

/** Prompt-cache entries a fake keeps before it forgets them all (a real cache expires too). */
export const PROMPT_CACHE_ENTRIES = 10_000;

/** Shared, resettable state of one fake (prompt caches, counters). */
export interface VendorState {
  /** Prompt-cache prefixes already seen (key → tokens), at most PROMPT_CACHE_ENTRIES. */
  cache: Map<string, number>;
  /** A counter for ids that are unique within this fake. */
  nextId(): number;
  now(): number;
}

export interface RespondContext {
  /** The requested model without any `@fault` suffix. */
  model: string;
  scripted?: FakeScript;
  /** The fault in effect, when it shapes the answer or its delivery. */
  fault?: FakeFault;
  state: VendorState;
}

/** A request the vendor recognised. */
export interface VendorCall {
  operation: FakeOperation;
  /** The model as the request named it (path or body), fault suffix included. */
  model: string;
  stream: boolean;
  /** The service tier the request asked for (`default` when it named none). */
  serviceTier?: string;
  /** The request's input tokens as the fake counts them (for token rate limits and context checks). */
  inputTokens: number;
  respond(ctx: RespondContext): VendorResult;
}

export interface RateInfo {
  limitRequests: number;
  remainingRequests: number;
  limitTokens: number;
  remainingTokens: number;
  /** Milliseconds until the key's window resets. */
  resetMs: number;
  /** The window's reset as an absolute time (ms since the epoch). */
  resetAt: number;
  /** Which limit a rejected request hit. */
  exceeded?: 'requests' | 'tokens';
  usedRequests: number;
  usedTokens: number;
}

export interface FaultContext {
  model: string;
  operation: FakeOperation;
  inputTokens: number;
  stream: boolean;
  key: string;
  rate?: RateInfo;
  state: VendorState;
}

/** What each vendor module supplies to the shared engine. */
export interface VendorDialect {
  name: FakeVendorName;
  /** Appended to the server URL to make `baseUrl`. */
  basePath: string;
  keys: { valid: string; secondary: string };
  defaultModels: string[];
  /** Returns the key the request authenticated with, or the vendor's authentication error. */
  authenticate(req: RecordedRequest, accepted: ReadonlySet<string>): string | JsonResult;
  /** Recognises the request (undefined: the vendor's 404 for an unknown path). May answer a validation error itself. */
  route(req: RecordedRequest, ctx: { state: VendorState; models: string[] }): VendorCall | JsonResult | undefined;
  notFound(req: RecordedRequest): JsonResult;
  invalidJson(req: RecordedRequest): JsonResult;
  /** The vendor's error answer for an error fault; undefined when this vendor answers the fault with content instead. */
  errorFor(fault: FakeFault, ctx: FaultContext): JsonResult | undefined;
  /** The vendor's own mid-stream error frames, for the error kind asked for (undefined: the vendor's usual one). */
  streamErrorFrames(ctx: FaultContext, error: FakeStreamErrorKind | undefined): StreamFrame[];
  /** A frame that is not valid JSON, in the vendor's framing. */
  malformedFrame(): string;
  /** Rate-limit headers on every answer (none for vendors that send none). */
  rateLimitHeaders(rate: RateInfo): Record<string, string>;
  /** Headers every answer carries (request ids and the like). */
  commonHeaders(state: VendorState): Record<string, string>;
}

interface ScriptEntry {
  script: FakeScript;
  remaining: number;
}

interface RuleEntry {
  rule: FakeFaultRule;
  seen: number;
}

const DEFAULT_RATE = { requestsPerMinute: 10_000, tokensPerMinute: 30_000_000 };
const WINDOW_MS = 60_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function matchesModel(pattern: string | RegExp | undefined, model: string, base: string): boolean {
  if (pattern === undefined) return true;
  if (typeof pattern === 'string') return pattern === model || pattern === base;
  pattern.lastIndex = 0;
  return pattern.test(model) || pattern.test(base);
}

function matches(match: FakeMatch | undefined, call: VendorCall, base: string): boolean {
  if (!match) return true;
  if (match.operation !== undefined && match.operation !== call.operation) return false;
  if (match.stream !== undefined && match.stream !== call.stream) return false;
  if (match.serviceTier !== undefined && match.serviceTier !== (call.serviceTier ?? 'default')) return false;
  return matchesModel(match.model, call.model, base);
}

/** Over HTTP a RegExp travels as the string `/pattern/flags`. */
function reviveModelPattern(value: unknown): string | RegExp | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^\/(.*)\/([a-z]*)$/.exec(value);
  return m ? new RegExp(m[1] ?? '', m[2]) : value;
}

function reviveScript(raw: unknown): FakeScript {
  if (!raw || typeof raw !== 'object') throw new Error('A script entry is an object, e.g. {"text":"Hello"}');
  const entry = { ...(raw as FakeScript) };
  if (entry.match) entry.match = { ...entry.match, model: reviveModelPattern(entry.match.model) };
  if (entry.fault) entry.fault = parseFault(entry.fault);
  if ((entry.times as unknown) === null || (entry.times as unknown) === 'Infinity') entry.times = Infinity;
  return entry;
}

/**
 * Starts a model-vendor fake: authentication, per-key rate limits, scripted answers and faults,
 * frame-by-frame streaming with the delivery faults, the HTTP control, and request recording,
 * around the vendor's own routes, bodies and errors.
 */
export async function startVendorFake(dialect: VendorDialect, options: FakeVendorOptions = {}): Promise<FakeVendor> {
  const now = options.now ?? Date.now;
  const record = options.recordRequests !== false;
  const limits = { ...DEFAULT_RATE, ...options.rateLimits };
  const accepted = new Set<string>([dialect.keys.valid, dialect.keys.secondary, ...(options.apiKeys ?? [])]);
  const models = options.models ?? dialect.defaultModels;
  const requests: RecordedRequest[] = [];
  let scripts: ScriptEntry[] = [];
  let rules: RuleEntry[] = [];
  const modelFaultSeen = new Map<string, number>();
  const windows = new Map<string, { start: number; requests: number; tokens: number }>();
  let idCounter = 0;
  const state: VendorState = { cache: new Map(), nextId: () => ++idCounter, now };
  const held = new Set<Socket>();

  const api = {
    script(...entries: FakeScript[]): void {
      for (const e of entries) scripts.push({ script: e, remaining: e.times ?? 1 });
    },
    setFault(fault: FakeFault, rule: Omit<FakeFaultRule, 'fault'> = {}): void {
      rules.push({ rule: { ...rule, fault: parseFault(fault) }, seen: 0 });
    },
    clearFaults(): void {
      rules = [];
    },
    reset(): void {
      scripts = [];
      rules = [];
      requests.length = 0;
      windows.clear();
      modelFaultSeen.clear();
      state.cache.clear();
    },
  };

  function rateCheck(key: string, tokens: number): RateInfo {
    const t = now();
    let w = windows.get(key);
    if (!w || t - w.start >= WINDOW_MS) {
      w = { start: t, requests: 0, tokens: 0 };
      windows.set(key, w);
    }
    let exceeded: RateInfo['exceeded'];
    if (w.requests + 1 > limits.requestsPerMinute) exceeded = 'requests';
    else if (w.tokens + tokens > limits.tokensPerMinute) exceeded = 'tokens';
    else {
      w.requests += 1;
      w.tokens += tokens;
    }
    const resetAt = w.start + WINDOW_MS;
    return {
      limitRequests: limits.requestsPerMinute,
      remainingRequests: Math.max(0, limits.requestsPerMinute - w.requests),
      limitTokens: limits.tokensPerMinute,
      remainingTokens: Math.max(0, limits.tokensPerMinute - w.tokens),
      resetMs: Math.max(0, resetAt - t),
      resetAt,
      exceeded,
      usedRequests: w.requests,
      usedTokens: w.tokens,
    };
  }

  /** The scripted entry and fault for a call: scripts first, then persistent rules, then the model name. */
  function decide(call: VendorCall, base: string): { scripted?: FakeScript; fault?: FakeFault } {
    const index = scripts.findIndex((e) => matches(e.script.match, call, base));
    if (index !== -1) {
      const entry = scripts[index]!;
      entry.remaining -= 1;
      if (entry.remaining <= 0) scripts.splice(index, 1);
      if (entry.script.fault) return { scripted: entry.script, fault: entry.script.fault };
      return { scripted: entry.script };
    }
    for (const r of rules) {
      if (!matchesModel(r.rule.model, call.model, base)) continue;
      if (r.rule.operation !== undefined && r.rule.operation !== call.operation) continue;
      if (r.rule.serviceTier !== undefined && r.rule.serviceTier !== (call.serviceTier ?? 'default')) continue;
      const n = r.seen++;
      if (takesShare(n, r.rule.fraction ?? 1)) return { fault: r.rule.fault };
      return {};
    }
    const fromName = parseModelFault(call.model);
    if (fromName.fault) {
      const n = modelFaultSeen.get(call.model) ?? 0;
      modelFaultSeen.set(call.model, n + 1);
      if (takesShare(n, fromName.fraction)) return { fault: fromName.fault };
    }
    return {};
  }

  function sendJson(res: ServerResponse, result: JsonResult, extra: Record<string, string>): void {
    // Raw bytes (audio) go as they are; the result's headers name their content type.
    const body = typeof result.body === 'string' || Buffer.isBuffer(result.body) ? result.body : JSON.stringify(result.body);
    res.writeHead(result.status ?? 200, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      ...extra,
      ...result.headers,
    });
    res.end(body);
  }

  function hold(res: ServerResponse): void {
    const socket = res.socket;
    if (!socket) return;
    held.add(socket);
    socket.once('close', () => held.delete(socket));
  }

  /** A JSON body delivered with a delivery fault (the non-streaming forms the README describes). */
  async function sendJsonWithFault(res: ServerResponse, result: JsonResult, extra: Record<string, string>, fault: FakeFault, ctx: FaultContext): Promise<void> {
    const body = JSON.stringify(result.body);
    const half = body.slice(0, Math.max(1, Math.floor(body.length / 2)));
    switch (fault.kind) {
      case 'slow_first_token':
        await sleep(fault.delayMs);
        sendJson(res, result, extra);
        return;
      case 'stream_cut':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...extra });
        res.write(half, () => res.socket?.destroy());
        return;
      case 'stall':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...extra });
        res.write(half);
        hold(res);
        return;
      case 'malformed_chunk':
      case 'missing_terminal':
        sendJson(res, { type: 'json', status: 200, body: fault.kind === 'malformed_chunk' ? `${half}\u0000{"error` : half }, extra);
        return;
      case 'stream_error':
        sendJson(res, dialect.errorFor({ kind: 'server_error' }, ctx)!, extra);
        return;
      default:
        sendJson(res, result, extra);
    }
  }

  async function sendStream(res: ServerResponse, result: StreamResult, extra: Record<string, string>, fault: FakeFault | undefined, ctx: FaultContext): Promise<void> {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      ...extra,
      ...result.headers,
    });
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    let closed = false;
    res.once('close', () => (closed = true));
    if (fault?.kind === 'slow_first_token') await sleep(fault.delayMs);
    const interval = options.tokenIntervalMs ?? 0;
    const stopAt = fault?.kind === 'stream_cut' || fault?.kind === 'stall' ? fault.afterTokens : fault?.kind === 'stream_error' ? (fault.afterTokens ?? 0) : undefined;
    const malformedAt = fault?.kind === 'malformed_chunk' ? (fault.afterTokens ?? 1) : undefined;
    let tokens = 0;
    let written = 0;
    let malformedSent = false;
    for (const frame of result.frames) {
      if (closed) return;
      if (fault?.kind === 'missing_terminal' && frame.terminal) continue;
      const atLimit = (limit: number) => (frame.tokens > 0 && tokens >= limit) || frame.terminal === true;
      if (stopAt !== undefined && atLimit(stopAt)) {
        if (fault?.kind === 'stream_cut') {
          res.socket?.destroy();
        } else if (fault?.kind === 'stall') {
          hold(res);
        } else {
          const kind = fault?.kind === 'stream_error' ? fault.error : undefined;
          for (const f of result.errorFrames?.(kind, ctx, written) ?? dialect.streamErrorFrames(ctx, kind)) res.write(f.text);
          res.end();
        }
        return;
      }
      if (malformedAt !== undefined && !malformedSent && atLimit(malformedAt)) {
        malformedSent = true;
        res.write(dialect.malformedFrame());
      }
      res.write(frame.text);
      written += 1;
      tokens += frame.tokens;
      if (interval > 0) await sleep(interval);
      else await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (!closed) res.end();
  }

  async function handleControl(req: RecordedRequest, res: ServerResponse): Promise<void> {
    const path = req.path.slice('/__fake'.length);
    const reply = (status: number, body: unknown) => sendJson(res, { type: 'json', status, body }, {});
    try {
      if (req.method === 'GET' && path === '/health') return reply(200, { vendor: dialect.name, baseUrl: fake.baseUrl, requests: requests.length, apiKeys: dialect.keys });
      if (req.method === 'GET' && path === '/requests') return reply(200, { requests: requests.map((r) => ({ method: r.method, path: r.path, query: Object.fromEntries(r.query), headers: r.headers, json: r.json })) });
      if (req.method === 'DELETE' && path === '/requests') {
        requests.length = 0;
        return reply(200, { cleared: true });
      }
      if (req.method === 'POST' && path === '/script') {
        const list = Array.isArray(req.json) ? req.json : [req.json];
        api.script(...list.map(reviveScript));
        return reply(200, { queued: list.length });
      }
      if (req.method === 'POST' && path === '/faults') {
        const body = (req.json ?? {}) as Record<string, unknown>;
        api.setFault(parseFault(body.fault), {
          model: reviveModelPattern(body.model),
          operation: body.operation as FakeOperation | undefined,
          serviceTier: body.serviceTier as string | undefined,
          fraction: body.fraction as number | undefined,
        });
        return reply(200, { faults: rules.length });
      }
      if (req.method === 'DELETE' && path === '/faults') {
        api.clearFaults();
        return reply(200, { faults: 0 });
      }
      if (req.method === 'POST' && path === '/reset') {
        api.reset();
        return reply(200, { reset: true });
      }
      return reply(404, { error: `No control route ${req.method} /__fake${path}` });
    } catch (err) {
      return reply(400, { error: (err as Error).message });
    }
  }

  async function handle(req: RecordedRequest, res: ServerResponse): Promise<void> {
    if (req.path.startsWith('/__fake/')) return handleControl(req, res);
    if (record) requests.push(req);
    const common = dialect.commonHeaders(state);
    const auth = dialect.authenticate(req, accepted);
    if (typeof auth !== 'string') return sendJson(res, auth, common);
    const multipart = /^multipart\/form-data/i.test(req.headers['content-type'] ?? '');
    if (req.body && req.json === undefined && req.method === 'POST' && !multipart) return sendJson(res, dialect.invalidJson(req), common);
    const call = dialect.route(req, { state, models });
    if (!call) return sendJson(res, dialect.notFound(req), common);
    if ('type' in call) return sendJson(res, call, common);

    const rate = rateCheck(auth, call.inputTokens);
    const headers = { ...common, ...dialect.rateLimitHeaders(rate) };
    const { base } = parseModelFault(call.model);
    const ctx: FaultContext = { model: base, operation: call.operation, inputTokens: call.inputTokens, stream: call.stream, key: auth, rate, state };
    if (rate.exceeded) {
      return sendJson(res, dialect.errorFor({ kind: 'rate_limit', retryAfterSeconds: Math.max(1, Math.ceil(rate.resetMs / 1000)) }, ctx)!, headers);
    }
    const decided = decide(call, base);
    const scripted = decided.scripted;
    let fault = decided.fault;
    if (!fault && options.strictModels && call.operation !== 'models' && !models.includes(base)) fault = { kind: 'model_not_found' };

    const delay = (options.latencyMs ?? 0) + (scripted?.delayMs ?? 0);
    if (delay > 0) await sleep(delay);
    if (fault?.kind === 'reset') {
      res.socket?.resetAndDestroy();
      return;
    }
    if (fault?.kind === 'hang') {
      hold(res);
      return;
    }
    if (fault && (ERROR_FAULTS.has(fault.kind) || fault.kind === 'content_filter')) {
      const error = dialect.errorFor(fault, ctx);
      if (error) return sendJson(res, error, headers);
    }
    const result = call.respond({ model: base, scripted, fault, state });
    if (result.type === 'json') {
      if (fault && DELIVERY_FAULTS.has(fault.kind) && (result.status ?? 200) === 200) return sendJsonWithFault(res, result, headers, fault, ctx);
      return sendJson(res, result, headers);
    }
    return sendStream(res, result, headers, fault && DELIVERY_FAULTS.has(fault.kind) ? fault : undefined, ctx);
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const raw = Buffer.concat(chunks);
      const body = chunks.length === 0 ? '' : raw.toString('utf8');
      let json: unknown;
      if (body && !/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) {
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
      }
      const recorded: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body, json, raw };
      handle(recorded, res).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, { type: 'json', status: 500, body: { error: { message: `fake ${dialect.name} failed: ${(err as Error).message}` } } }, {});
        else res.destroy();
      });
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  const fake: FakeVendor = {
    vendor: dialect.name,
    url,
    baseUrl: `${url}${dialect.basePath}`,
    apiKeys: { ...dialect.keys },
    requests,
    control: { url: `${url}/__fake` },
    ...api,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of held) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}
