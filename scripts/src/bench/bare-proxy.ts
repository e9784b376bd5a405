import http from 'node:http';

/**
 * The least a Node reverse proxy can do: keep-alive to the service, pipe both ways, nothing else.
 * Benchmarked beside the edge router it separates the cost of any Node HTTP hop on this machine
 * from the cost of the edge's own work (routing, path checks, header rules, request ids).
 * Run as a child process: PORT to listen on (127.0.0.1), TARGET the service's base URL. It answers
 * /__bare-proxy/healthz itself, for a target that has no open health path (a fake provider).
 */
function main(): void {
  const target = new URL(process.env.TARGET ?? '');
  const agent = new http.Agent({ keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo' });
  const server = http.createServer((req, res) => {
    if (req.url === '/__bare-proxy/healthz') {
      res.writeHead(200).end('ok');
      return;
    }
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502).end();
    });
    req.pipe(upstream);
  });
  server.listen(Number(process.env.PORT), '127.0.0.1');
  process.once('SIGTERM', () => {
    agent.destroy();
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}

main();
