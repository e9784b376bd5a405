import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import path from 'node:path';

/**
 * GET /docs: Swagger UI over the merged /openapi.json. Its files come from the swagger-ui-dist package
 * and are served by the edge itself under /docs/assets/, since installations may have no internet access.
 */

export const DOCS_ASSETS_PREFIX = '/docs/assets/';

// The page sets a Content-Security-Policy that allows no inline script, so the start-up code is a file too.
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Patchbay API</title>
  <link rel="stylesheet" href="${DOCS_ASSETS_PREFIX}swagger-ui.css">
  <link rel="icon" type="image/png" sizes="32x32" href="${DOCS_ASSETS_PREFIX}favicon-32x32.png">
  <link rel="icon" type="image/png" sizes="16x16" href="${DOCS_ASSETS_PREFIX}favicon-16x16.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${DOCS_ASSETS_PREFIX}swagger-ui-bundle.js"></script>
  <script src="${DOCS_ASSETS_PREFIX}docs-init.js"></script>
</body>
</html>
`;

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets style attributes from script.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Only these files are served: a fixed list, so no request path ever reaches the file system. */
const PACKAGE_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

interface Asset {
  body: Buffer;
  contentType: string;
}

export class DocsSite {
  private readonly assets = new Map<string, Promise<Asset>>();
  private readonly directory: string;

  constructor() {
    this.directory = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  }

  sendPage(res: ServerResponse): void {
    send(res, 200, { body: Buffer.from(PAGE), contentType: 'text/html; charset=utf-8' }, { 'content-security-policy': CONTENT_SECURITY_POLICY, 'cache-control': 'no-cache' });
  }

  /** Sends the asset, or returns false when there is no asset of that name. */
  async sendAsset(res: ServerResponse, name: string): Promise<boolean> {
    const asset = this.load(name);
    if (!asset) return false;
    send(res, 200, await asset, { 'cache-control': 'public, max-age=3600' });
    return true;
  }

  private load(name: string): Promise<Asset> | undefined {
    const cached = this.assets.get(name);
    if (cached) return cached;
    let loading: Promise<Asset>;
    if (name === 'docs-init.js') {
      loading = Promise.resolve({ body: Buffer.from(INIT_SCRIPT), contentType: 'text/javascript; charset=utf-8' });
    } else {
      const contentType = Object.hasOwn(PACKAGE_ASSETS, name) ? PACKAGE_ASSETS[name] : undefined;
      if (contentType === undefined) return undefined;
      loading = readFile(path.join(this.directory, name)).then((body) => ({ body, contentType }));
      // A failed read is retried by the next request rather than remembered.
      loading.catch(() => this.assets.delete(name));
    }
    this.assets.set(name, loading);
    return loading;
  }
}

function send(res: ServerResponse, status: number, asset: Asset, headers: Record<string, string>): void {
  res.writeHead(status, { ...headers, 'content-type': asset.contentType, 'content-length': asset.body.length, 'x-content-type-options': 'nosniff' });
  res.end(asset.body);
}
