import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A proxy in front of a Patchbay URL that records every request it passes on as `<HTTP method> <JSON-RPC method>`
 * (`POST server/discover`), with its path, so a test can count what an MCP endpoint receives per connect.
 */
export interface CountingProxy {
  url: string;
  seen: string[];
  /** The requests whose path ends with `suffix` (`/mcp`), in order. */
  seenAt(suffix: string): string[];
  close(): Promise<void>;
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const log: Array<{ path: string; entry: string }> = [];
  const seen: string[] = [];
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let method = '';
      try {
        method = (JSON.parse(body.toString('utf8')) as { method?: string }).method ?? 'response';
      } catch {
        // Not JSON.
      }
      const entry = `${req.method} ${method}`.trim();
      seen.push(entry);
      log.push({ path: (req.url ?? '').split('?')[0]!, entry });
      const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.destroy());
      // Only a client that went away early ends the upstream request: destroying a finished one could take the
      // pooled keep-alive socket down with it, and the next request on it would fail.
      res.on('close', () => {
        if (!res.writableFinished) out.destroy();
      });
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    seenAt: (suffix) => log.filter((l) => l.path.endsWith(suffix)).map((l) => l.entry),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
