import type { IncomingMessage, ServerResponse } from 'node:http';
import { SERVICE_NAME } from './config';
import type { StaticSite } from './static-site';

/** The console's HTTP handler: /healthz for the edge router's probe, the single-page app for the rest. */
export function createConsoleHandler(site: StaticSite): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.url === '/healthz') {
      res.setHeader('content-type', 'application/json');
      res.setHeader('cache-control', 'no-store');
      res.end(JSON.stringify({ status: 'ok', service: SERVICE_NAME, checks: {} }));
      return;
    }
    site.handle(req, res);
  };
}
