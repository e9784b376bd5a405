import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { MOUNT_PATH } from './config';

/**
 * Serves the built single-page app (Vite's output) from memory: hashed assets cached for a year, and
 * index.html, with the base paths of this installation written into it, for every other path under the
 * console, so a reload on /console/members/… lands on the same page. The page holds no configuration
 * script: the paths travel in <meta> tags and a <base> element, which the strict Content-Security-Policy
 * below allows (no inline script anywhere).
 */

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/** Headers on every answer: the console runs only its own scripts and calls only its own origin. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
});

interface Asset {
  body: Buffer;
  type: string;
}

export interface StaticSite {
  handle(req: IncomingMessage, res: ServerResponse): void;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** index.html with this installation's paths: `<base href>` for relative asset URLs, and two meta tags the app reads. */
export function renderIndex(template: string, paths: { basePath: string; apiBasePath: string }): string {
  const head = [
    `<base href="${escapeAttribute(paths.basePath)}">`,
    `<meta name="patchbay-console-base" content="${escapeAttribute(paths.basePath)}">`,
    `<meta name="patchbay-api-base" content="${escapeAttribute(paths.apiBasePath)}">`,
  ].join('');
  if (!template.includes('<head>')) throw new Error('the console build has no <head> in index.html');
  return template.replace('<head>', `<head>${head}`);
}

function loadAssets(dir: string, base = dir, out = new Map<string, Asset>()): Map<string, Asset> {
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) loadAssets(full, base, out);
    else out.set(path.relative(base, full).split(path.sep).join('/'), { body: readFileSync(full), type: CONTENT_TYPES[path.extname(entry)] ?? 'application/octet-stream' });
  }
  return out;
}

/**
 * `webDir`: Vite's output (index.html and assets/). Requests are accepted under the edge router's mount
 * (/console/) and under the public base path, so a reverse proxy may strip its prefix or pass it on.
 */
export function createStaticSite(webDir: string, paths: { basePath: string; apiBasePath: string }): StaticSite {
  const files = loadAssets(webDir);
  const index = files.get('index.html');
  if (!index) throw new Error(`no index.html in ${webDir}: build the console first (pnpm --filter @patchbay/console build)`);
  const indexBody = Buffer.from(renderIndex(index.body.toString('utf8'), paths));
  const prefixes = [...new Set([paths.basePath, MOUNT_PATH])].sort((a, b) => b.length - a.length);

  const send = (res: ServerResponse, status: number, type: string, body: Buffer | string, cache: string, head: boolean): void => {
    res.statusCode = status;
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    res.setHeader('content-type', type);
    res.setHeader('cache-control', cache);
    res.setHeader('content-length', Buffer.byteLength(body));
    res.end(head ? undefined : body);
  };

  return {
    handle(req, res) {
      const url = new URL(req.url ?? '/', 'http://console.invalid');
      const head = req.method === 'HEAD';
      if (req.method !== 'GET' && !head) {
        res.setHeader('allow', 'GET, HEAD');
        send(res, 405, 'text/plain; charset=utf-8', 'The console serves pages only: GET or HEAD.\n', 'no-store', false);
        return;
      }
      // /console (no slash) → /console/: relative asset URLs need the trailing slash.
      const bare = prefixes.find((p) => url.pathname === p.slice(0, -1));
      if (bare) {
        res.statusCode = 308;
        res.setHeader('location', paths.basePath + url.search);
        res.end();
        return;
      }
      const prefix = prefixes.find((p) => url.pathname.startsWith(p));
      if (!prefix) {
        send(res, 404, 'text/plain; charset=utf-8', `Not found: the console is at ${paths.basePath}\n`, 'no-store', head);
        return;
      }
      let relative: string;
      try {
        relative = decodeURIComponent(url.pathname.slice(prefix.length));
      } catch {
        send(res, 400, 'text/plain; charset=utf-8', 'The path is not valid percent-encoding.\n', 'no-store', head);
        return;
      }
      if (relative.startsWith('assets/') || relative === 'favicon.svg') {
        const asset = files.get(relative);
        if (!asset) send(res, 404, 'text/plain; charset=utf-8', 'No such console asset (a newer version may have replaced it: reload the page).\n', 'no-store', head);
        else send(res, 200, asset.type, asset.body, 'public, max-age=31536000, immutable', head);
        return;
      }
      // Every other path is a page of the app: the router in the browser picks it from the URL.
      send(res, 200, 'text/html; charset=utf-8', indexBody, 'no-store', head);
    },
  };
}
