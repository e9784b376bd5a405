import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger, startHttpService, type RunningService } from '@patchbay/service-kit';
import { loadConfig } from '../src/config';
import { createEdgeServer, type EdgeHandler } from '../src/server';

/** What a stand-in service saw of one request. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
}

type Handler = (req: IncomingMessage, res: ServerResponse, seen: SeenRequest) => void;

/**
 * A small HTTP server standing in for one Patchbay service. By default it answers every request with
 * JSON describing what it received; tests replace the answer per path.
 */
export class FakeService {
  readonly requests: SeenRequest[] = [];
  private readonly handlers = new Map<string, Handler>();
  private readonly server: http.Server;
  port = 0;

  /** Handlers that read the body themselves (streaming tests) are registered with `streaming`. */
  private readonly streaming = new Set<string>();

  constructor(readonly name: string) {
    this.server = http.createServer((req, res) => this.handle(req, res));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** Answer requests to `path` (without query string) with `handler`, after the body has been read. */
  on(path: string, handler: Handler): this {
    this.handlers.set(path, handler);
    return this;
  }

  /** Answer requests to `path` with `handler` as soon as the headers arrive, leaving the body unread. */
  onStreaming(path: string, handler: Handler): this {
    this.streaming.add(path);
    return this.on(path, handler);
  }

  reset(): void {
    this.requests.length = 0;
    this.handlers.clear();
    this.streaming.clear();
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '/';
    const path = url.split('?')[0]!;
    const seen: SeenRequest = { method: req.method ?? '', url, headers: req.headers, rawHeaders: req.rawHeaders, body: Buffer.alloc(0) };
    this.requests.push(seen);
    const handler = this.handlers.get(path) ?? ((_req: IncomingMessage, response: ServerResponse, s: SeenRequest) => echo(this.name, response, s));
    if (this.streaming.has(path)) {
      handler(req, res, seen);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.body = Buffer.concat(chunks);
      handler(req, res, seen);
    });
  }
}

function echo(service: string, res: ServerResponse, seen: SeenRequest): void {
  const body = JSON.stringify({ service, method: seen.method, url: seen.url, headers: seen.headers, body_length: seen.body.length });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export interface RunningEdge {
  port: number;
  handler: EdgeHandler;
  /** Parsed JSON log lines the edge wrote. */
  logs: Array<Record<string, unknown>>;
  /** Resolves with the first log line (already written or still to come) that matches. */
  waitForLog: (predicate: (line: Record<string, unknown>) => boolean) => Promise<Record<string, unknown>>;
  stop: () => Promise<void>;
}

/**
 * Starts the real edge router on an ephemeral port with the given environment. `tracing` and
 * `logLevel` as main.ts sets them (default: spans on, access lines at info).
 */
export async function startEdge(env: Record<string, string>, options: { tracing?: boolean; logLevel?: string } = {}): Promise<RunningEdge> {
  const logs: Array<Record<string, unknown>> = [];
  const waiters: Array<{ predicate: (line: Record<string, unknown>) => boolean; resolve: (line: Record<string, unknown>) => void }> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const text of chunk.toString('utf8').split('\n')) {
        if (text.trim() === '') continue;
        const line = JSON.parse(text) as Record<string, unknown>;
        logs.push(line);
        for (const waiter of [...waiters]) {
          if (waiter.predicate(line)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(line);
          }
        }
      }
      callback();
    },
  });
  const waitForLog = (predicate: (line: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const existing = logs.find(predicate);
      if (existing) resolve(existing);
      else waiters.push({ predicate, resolve });
    });
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', ...env });
  const logger = createLogger('edge-router', options.logLevel ?? 'info', destination);
  const handler = createEdgeServer(config, { logger, ...(options.tracing === undefined ? {} : { tracing: options.tracing }) });
  const running: RunningService = await startHttpService({
    name: 'edge-router',
    app: handler,
    port: 0,
    host: '127.0.0.1',
    logger,
    handleSignals: false,
    drainMs: 100,
    onShutdown: [async () => handler.close()],
  });
  return { port: running.port, handler, logs, waitForLog, stop: () => running.stop() };
}

/** A port on which nothing listens: a deployed service that is down. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  text: string;
  json: () => any;
}

/**
 * Sends one request with the path exactly as given: no URL parsing on the way, so disguised paths
 * (`/./internal`, `%2F`, backslashes) reach the edge as a client could send them.
 */
export function send(port: number, path: string, options: { method?: string; headers?: Record<string, string | string[]>; body?: string | Buffer } = {}): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, text, json: () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A promise with its resolve function, for handshakes between a test and a stand-in service. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
