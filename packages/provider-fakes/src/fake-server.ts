import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the fake saw it, for tests to assert what a connector sent. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  json: unknown;
  /** The body's bytes as sent (multipart uploads are binary; `body` is its UTF-8 reading). */
  raw?: Buffer;
}

export interface FakeRequest extends RecordedRequest {
  /** Path parameters from the matched route (`/repos/:owner/:repo`). */
  params: Record<string, string>;
}

export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  /** Serialized as JSON unless it is a string. */
  body?: unknown;
}

export type FakeHandler = (req: FakeRequest) => FakeReply | Promise<FakeReply>;

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  handler: FakeHandler;
}

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A route table for a fake provider: `route('GET', '/repos/:owner/:repo/issues', handler)`.
 * `:name` matches one path segment; `*name` matches the rest of the path, slashes included
 * (GitHub's `/contents/{path}`).
 */
export class FakeRoutes {
  private readonly routes: Route[] = [];

  route(method: string, path: string, handler: FakeHandler): this {
    const names: string[] = [];
    const source = path.replace(/([:*])(\w+)/g, (_m, kind: string, name: string) => {
      names.push(name);
      return kind === '*' ? '(.*?)' : '([^/]+)';
    });
    const pattern = new RegExp(`^${source}/?$`);
    this.routes.push({ method, pattern, names, handler });
    return this;
  }

  match(method: string, path: string): { handler: FakeHandler; params: Record<string, string> } | { allowed: string[] } | null {
    const allowed: string[] = [];
    for (const r of this.routes) {
      const m = r.pattern.exec(path);
      if (!m) continue;
      if (r.method !== method) {
        allowed.push(r.method);
        continue;
      }
      const params: Record<string, string> = {};
      r.names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1] ?? '')));
      return { handler: r.handler, params };
    }
    return allowed.length > 0 ? { allowed } : null;
  }
}

/** How a fake behaves beyond its routes. */
export interface FakeBehaviour {
  /**
   * Awaited before every answer is sent: the network and server time of a real API, for benchmarks
   * (`() => sleep(20)`). None by default: the fake answers at once.
   */
  latency?: () => Promise<void>;
}

/**
 * Starts a fake third-party API on 127.0.0.1 with a random port. `before` runs first for every
 * request (authentication, rate limits) and may answer on its own.
 */
export async function startFakeServer(options: { routes: FakeRoutes; before?: (req: FakeRequest) => FakeReply | undefined; notFound?: FakeReply } & FakeBehaviour): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://fake');
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        const type = req.headers['content-type'] ?? '';
        if (type.includes('json') && body) {
          try {
            json = JSON.parse(body);
          } catch {
            json = undefined;
          }
        } else if (type.includes('x-www-form-urlencoded')) {
          json = Object.fromEntries(new URLSearchParams(body));
        }
        const recorded: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body, json };
        requests.push(recorded);
        let reply: FakeReply | undefined;
        const found = options.routes.match(recorded.method, recorded.path);
        const fakeReq: FakeRequest = { ...recorded, params: found && 'params' in found ? found.params : {} };
        reply = options.before?.(fakeReq);
        if (!reply) {
          if (!found) reply = options.notFound ?? { status: 404, body: { message: 'Not Found' } };
          else if ('allowed' in found) reply = { status: 405, headers: { allow: found.allowed.join(', ') }, body: { message: 'Method Not Allowed' } };
          else {
            try {
              reply = await found.handler(fakeReq);
            } catch (err) {
              reply = { status: 500, body: { message: (err as Error).message } };
            }
          }
        }
        if (options.latency) await options.latency();
        const isText = typeof reply.body === 'string';
        res.writeHead(reply.status ?? 200, { 'content-type': isText ? 'text/plain' : 'application/json; charset=utf-8', ...reply.headers });
        res.end(reply.body === undefined ? '' : isText ? (reply.body as string) : JSON.stringify(reply.body));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Reads `Authorization: Bearer <token>` (or GitHub's `token <token>`). */
export function bearerToken(req: RecordedRequest): string | undefined {
  const header = req.headers.authorization;
  const match = /^(?:Bearer|token) (.+)$/.exec(header ?? '');
  return match?.[1];
}
