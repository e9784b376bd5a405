import http from 'node:http';
import https from 'node:https';
import type { HttpClient, HttpResponseLike } from './types';

/**
 * The default HttpClient: node:http(s) over keep-alive agents. A sync makes thousands of small requests
 * to one host; the global fetch (undici, web streams) costs several times the CPU per request, which
 * showed as the largest share of the worker's profile (`pnpm bench unified --profile`).
 *
 * Behaves as the loop in http.ts expects of fetch: resolves once the status and headers are in, and
 * `text()` rejects when the connection is cut before the whole body arrived; `signal` aborts at any point.
 */
export function nodeHttpClient(options: { maxSockets?: number } = {}): HttpClient {
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 16 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 16 }),
  };
  return (url, init) =>
    new Promise<HttpResponseLike>((resolve, reject) => {
      const target = new URL(url);
      const secure = target.protocol === 'https:';
      if (!secure && target.protocol !== 'http:') return reject(new Error(`unsupported protocol ${target.protocol}`));
      const body = init.body === undefined ? undefined : Buffer.from(init.body);
      const req = (secure ? https : http).request(
        target,
        {
          method: init.method,
          headers: { ...init.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
          agent: agents[secure ? 'https:' : 'http:'],
          signal: init.signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          const text = new Promise<string>((done, fail) => {
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('error', fail);
            res.on('close', () => {
              if (res.complete) done(Buffer.concat(chunks).toString('utf8'));
              else fail(new Error('the connection closed before the whole answer arrived'));
            });
          });
          // Read as it arrives; a failure is reported by text(), as fetch does.
          text.catch(() => undefined);
          const headers = res.headers;
          resolve({
            status: res.statusCode ?? 0,
            headers: {
              get: (name: string) => {
                const value = headers[name.toLowerCase()];
                return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
              },
            },
            text: () => text,
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}
