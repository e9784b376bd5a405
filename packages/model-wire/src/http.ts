import { Agent, type Dispatcher } from 'undici';
import { outboundFailure, type ResponseHeaders } from '@patchbay/outbound';
import type { VendorHttp } from './types';

class Headers implements ResponseHeaders {
  constructor(private readonly raw: Record<string, string | string[] | undefined>) {}

  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
}

/**
 * The HTTP client for the operator's own vendor base URLs (PATCHBAY_VENDOR_<X>_BASE_URL: trusted,
 * possibly local): undici's request on a keep-alive pool, no destination checks. A base URL an
 * organization supplies (BYOK) must go through @patchbay/outbound's createGuardedRequest instead,
 * which has the same shape. Keep one per process.
 */
export function createVendorHttp(options: { connections?: number; keepAliveTimeoutMs?: number } = {}): VendorHttp & { close(): Promise<void> } {
  const agent = new Agent({ connections: options.connections ?? 256, keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000, pipelining: 1 });
  const request = async function vendorHttp(url: URL, request: Parameters<VendorHttp>[1]) {
    let answer: Dispatcher.ResponseData;
    try {
      answer = await agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: request.signal,
        headersTimeout: request.timeoutMs,
        bodyTimeout: request.timeoutMs,
      });
    } catch (err) {
      throw outboundFailure(err, request.signal);
    }
    return { status: answer.statusCode, headers: new Headers(answer.headers), body: answer.body };
  };
  return Object.assign(request as VendorHttp, { close: () => agent.close() });
}
