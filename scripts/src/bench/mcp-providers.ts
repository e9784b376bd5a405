import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeGithub } from '@patchbay/provider-fakes';
import { createPagedMcpServer } from './registry-mcp-server';

/**
 * The two providers `pnpm bench mcp` calls, in a child process of their own so their work does not
 * share an event loop with the load generator: the fake GitHub of @patchbay/provider-fakes, and the
 * SDK MCP server of registry-mcp-server.ts with one tool (it echoes its arguments) behind a bearer
 * secret. Each listens on a port of its own. PORT answers /healthz with where they are and how many
 * calls each got, from the benchmark itself (its User-Agent) and from anyone else (the runtime), so
 * the benchmark can check that every tool call it counted really reached the provider.
 *
 * Env: PORT; SECRET, the MCP server's bearer secret; LATENCY_MS, how long both take to answer each
 * call (a real API's network and server time; default 0, at once).
 */

/** The User-Agent of the benchmark's own requests to the providers (direct runs, checks, samples). */
export const BENCH_USER_AGENT = 'patchbay-bench';

export interface CallCounts {
  /** Requests the benchmark sent itself. */
  bench: number;
  /** Every other request: the runtime's. */
  others: number;
}

/** What /healthz of the providers process answers. */
export interface ProvidersStatus {
  github: { url: string; calls: CallCounts };
  mcp: { url: string; calls: CallCounts };
}

/** Adds a request to the counts by who sent it. */
export function countCaller(counts: CallCounts, userAgent: string | undefined): void {
  if (userAgent === BENCH_USER_AGENT) counts.bench += 1;
  else counts.others += 1;
}

async function listen(server: http.Server): Promise<string> {
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function main(): Promise<void> {
  // The control port first: it was picked free by the benchmark, and the fakes' own ports (any free
  // port) could otherwise take it between that pick and this listen. 503 until both fakes listen.
  let status: (() => ProvidersStatus) | null = null;
  const control = http.createServer((req, res) => {
    if (req.url !== '/healthz') {
      res.writeHead(404).end();
      return;
    }
    if (!status) {
      res.writeHead(503).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(status()));
  });
  control.listen(Number(process.env.PORT), '127.0.0.1');

  const latencyMs = Number(process.env.LATENCY_MS ?? 0);
  const latency = latencyMs > 0 ? () => new Promise<void>((resolve) => setTimeout(resolve, latencyMs)) : undefined;
  const github = await startFakeGithub({ owner: 'octo-org', repo: 'hello', issues: 5 }, { latency });
  const githubCalls: CallCounts = { bench: 0, others: 0 };
  // The fake keeps every request for tests to read; here they are only counted, and dropped so memory stays flat under load.
  const sweep = () => {
    for (const request of github.requests) countCaller(githubCalls, request.headers['user-agent']);
    github.requests.length = 0;
  };
  const sweeper = setInterval(sweep, 200);

  const mcp = createPagedMcpServer({ toolCount: 1, pageSize: 0, secret: process.env.SECRET || null, latency });
  const mcpCalls: CallCounts = { bench: 0, others: 0 };
  mcp.prependListener('request', (req: http.IncomingMessage) => {
    if (req.method === 'POST') countCaller(mcpCalls, req.headers['user-agent']);
  });
  const mcpUrl = `${await listen(mcp)}/mcp`;
  status = () => {
    sweep();
    return { github: { url: github.url, calls: githubCalls }, mcp: { url: mcpUrl, calls: mcpCalls } };
  };

  process.once('SIGTERM', () => {
    clearInterval(sweeper);
    mcp.closeAllConnections();
    control.closeAllConnections();
    void Promise.all([github.close(), new Promise((r) => mcp.close(r)), new Promise((r) => control.close(r))]).then(() => process.exit(0));
  });
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`bench providers failed to start: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
