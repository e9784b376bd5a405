import http from 'node:http';
import { generateRequest, rememberIds, type Credentials, type FuzzRequest, type IdPool } from './generate';
import { type OpenApiDocument, operationsOf } from './operations';
import { randomFor } from './random';

export interface FuzzOptions {
  /** The edge router's base URL, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  requests: number;
  seed: number;
  concurrency: number;
  credentials: Credentials;
  /** A request not answered within this long is a stall, and a failure. */
  timeoutMs?: number;
  log?: (line: string) => void;
}

export interface Failure {
  index: number;
  method: string;
  path: string;
  kind: string;
  status: number;
  reason: string;
  body: string;
}

export interface FuzzReport {
  operations: number;
  requests: number;
  byStatus: Record<string, number>;
  /** 502/504 that name a third party the request pointed at (an unreachable custom MCP server): documented, not failures. */
  upstreamErrors: number;
  fiveHundreds: number;
  failures: Failure[];
  failureCount: number;
  seconds: number;
}

/** An error body in one of the platform's envelopes (ARCHITECTURE.md, Wire conventions). */
export function isErrorEnvelope(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const b = body as Record<string, unknown>;
  // Tool-connector and management APIs: {detail, code}.
  if (typeof b.detail === 'string' && typeof b.code === 'string') return true;
  // Native /v1/responses schema failures: 422 {detail: [...]}.
  if (Array.isArray(b.detail)) return true;
  // The model gateway's management API: {detail: "..."} or {detail: {code, message}}.
  if (typeof b.detail === 'string' && Object.keys(b).length === 1) return true;
  const detail = b.detail as Record<string, unknown> | undefined;
  if (typeof detail === 'object' && detail !== null && typeof detail.code === 'string' && typeof detail.message === 'string') return true;
  const error = b.error as Record<string, unknown> | undefined;
  if (typeof error !== 'object' || error === null) return false;
  // Model endpoints: {error: {type, message, ...}}.
  if (typeof error.type === 'string' && typeof error.message === 'string') return true;
  // The MCP endpoint's JSON-RPC errors.
  return b.jsonrpc === '2.0' && typeof error.code === 'number' && typeof error.message === 'string';
}

/** What is wrong with an answer, or null. */
export function judge(req: Pick<FuzzRequest, 'method' | 'path'>, status: number, contentType: string | undefined, text: string): string | null {
  let body: unknown;
  const json = /json/.test(contentType ?? '');
  if (json && text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      return 'the body says JSON but does not parse';
    }
  }
  if (status >= 500) {
    const code = (body as { code?: unknown; error?: { code?: unknown } } | undefined)?.code ?? (body as { error?: { code?: unknown } } | undefined)?.error?.code;
    if ((status === 502 && code === 'bad_gateway') || (status === 504 && code === 'gateway_timeout')) return null;
    return `${status}: a server error`;
  }
  if (status < 400 || req.method === 'HEAD') return null;
  // Browser pages (the magic link) answer in HTML.
  if (/^\/link\//.test(req.path) && /text\/html/.test(contentType ?? '')) return null;
  if (!json) return `${status} without a JSON body (${contentType ?? 'no content type'})`;
  if (!isErrorEnvelope(body)) return `${status} whose body is not the error envelope`;
  return null;
}

function send(agent: http.Agent, base: URL, req: FuzzRequest, timeoutMs: number): Promise<{ status: number; contentType: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined && !req.chunked) headers['content-length'] = String(req.body.length);
    if (req.chunked) headers['transfer-encoding'] = 'chunked';
    const outgoing = http.request({ host: base.hostname, port: base.port, method: req.method, path: req.path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms (a stalled connection)`)));
    outgoing.on('error', reject);
    if (req.body === undefined) outgoing.end();
    else if (req.chunked) {
      const half = Math.floor(req.body.length / 2);
      outgoing.write(req.body.subarray(0, half));
      outgoing.end(req.body.subarray(half));
    } else outgoing.end(req.body);
  });
}

/** The ids of the access keys the fuzzer calls with (matched by their last four characters). */
async function ownKeyIds(base: URL, keys: Array<string | undefined>): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const key of keys) {
    if (!key) continue;
    const res = await fetch(new URL('/api/v1/access-keys/?page_size=100', base), { headers: { authorization: `Bearer ${key}` } });
    if (!res.ok) continue;
    const list = (await res.json()) as { results?: Array<{ id: string; key_masked?: string }> };
    for (const row of list.results ?? []) if (row.key_masked?.endsWith(key.slice(-4))) ids.add(row.id);
  }
  return ids;
}

/**
 * Sends `requests` generated requests, spread over every operation of the merged OpenAPI document
 * the edge serves, through keep-alive connections (`concurrency` of them), and judges every answer.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const base = new URL(options.baseUrl);
  const docRes = await fetch(new URL('/openapi.json', base));
  if (!docRes.ok) throw new Error(`GET /openapi.json answered ${docRes.status}`);
  const doc = (await docRes.json()) as OpenApiDocument;
  const operations = operationsOf(doc);
  if (operations.length === 0) throw new Error('the merged OpenAPI document has no operations');
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const pool: IdPool = new Map();
  // The fuzzer's own keys must survive it: their ids never go into the pool (no revoke or regenerate of them).
  const protectedIds = await ownKeyIds(base, [options.credentials.key, options.credentials.testKey]);
  const byStatus: Record<string, number> = {};
  const failures: Failure[] = [];
  let failureCount = 0;
  let upstreamErrors = 0;
  let fiveHundreds = 0;
  let next = 0;
  const timeoutMs = options.timeoutMs ?? 15_000;

  const worker = async () => {
    for (;;) {
      const index = next++;
      if (index >= options.requests) return;
      const random = randomFor(options.seed, index);
      // Every operation is visited in turn, so each gets requests/operations of them.
      const op = operations[index % operations.length]!;
      const req = generateRequest(doc, op, random, options.credentials, pool);
      let status = 0;
      let reason: string | null;
      let text = '';
      try {
        const answer = await send(agent, base, req, timeoutMs);
        status = answer.status;
        text = answer.text;
        reason = judge(req, status, answer.contentType, text);
        if (status >= 500) fiveHundreds += 1;
        if (status >= 500 && reason === null) upstreamErrors += 1;
        if (status >= 200 && status < 300 && /json/.test(answer.contentType ?? '')) {
          try {
            rememberIds(pool, req.path, JSON.parse(text), protectedIds);
          } catch {
            /* judged above */
          }
        }
      } catch (err) {
        reason = `no answer: ${err instanceof Error ? err.message : String(err)}`;
      }
      byStatus[String(status)] = (byStatus[String(status)] ?? 0) + 1;
      if (reason !== null) {
        failureCount += 1;
        if (failures.length < 50) failures.push({ index, method: req.method, path: req.path.slice(0, 200), kind: req.kind, status, reason, body: text.slice(0, 300) });
      }
      if (options.log && (index + 1) % 10_000 === 0) options.log(`${index + 1} requests sent`);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  agent.destroy();
  return { operations: operations.length, requests: options.requests, byStatus, upstreamErrors, fiveHundreds, failures, failureCount, seconds: (Date.now() - started) / 1000 };
}
