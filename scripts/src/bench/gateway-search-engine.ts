import { startFakeSearchEngine } from '@patchbay/provider-fakes';

/**
 * The web search engine of pnpm bench gateway's web-search leg: the fake SearXNG of
 * packages/provider-fakes (keyless, the gateway's first engine in auto order), in a process of its
 * own (PORT), answering at once with a per-minute window too large to trip. Health:
 * GET /search?q=health&format=json.
 */
async function main(): Promise<void> {
  const fake = await startFakeSearchEngine('searxng', { requestsPerMinute: 1e12 });
  // startFakeSearchEngine listens on a random port: forward PORT to it.
  const { createServer, request } = await import('node:http');
  const target = new URL(fake.baseUrl);
  const proxy = createServer((req, res) => {
    const upstream = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  proxy.listen(Number(process.env.PORT), '127.0.0.1');
  process.once('SIGTERM', () => {
    proxy.close();
    void fake.close().then(() => process.exit(0));
  });
  // Requests are kept by the fake for tests: drop them so memory stays flat.
  setInterval(() => {
    fake.requests.length = 0;
    fake.queries.length = 0;
  }, 1000).unref();
}

main().catch((err: unknown) => {
  process.stderr.write(`fake SearXNG could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
