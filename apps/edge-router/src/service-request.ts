import http from 'node:http';
import type { Upstream } from './proxy';

export interface ServiceAnswer {
  status: number;
  body: Buffer;
}

/**
 * A small GET the edge makes on its own behalf (health, OpenAPI), bounded in time and size,
 * through the same connection pool as proxied traffic.
 */
export function getFromService(upstream: Upstream, path: string, options: { timeoutMs: number; maxBytes: number; requestId: string }): Promise<ServiceAnswer> {
  return new Promise<ServiceAnswer>((resolve, reject) => {
    const req = http.request({
      host: upstream.hostname,
      port: upstream.port,
      method: 'GET',
      path: upstream.basePath + path,
      headers: { accept: 'application/json', 'x-request-id': options.requestId },
      agent: upstream.agent,
    });
    const timer = setTimeout(() => req.destroy(new Error(`${upstream.name} did not answer ${path} within ${options.timeoutMs} ms`)), options.timeoutMs);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) {
          req.destroy(new Error(`${upstream.name} answered ${path} with more than ${options.maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) });
      });
      res.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end();
  });
}
