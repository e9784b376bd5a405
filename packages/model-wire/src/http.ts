import { Agent } from 'undici';
import { sendThrough } from '@patchbay/outbound';
import type { VendorHttp } from './types';

/**
 * The HTTP client for the operator's own vendor base URLs (PATCHBAY_VENDOR_<X>_BASE_URL: trusted,
 * possibly local): undici's request on a keep-alive pool, no destination checks. A base URL an
 * organization supplies (BYOK) must go through @patchbay/outbound's createGuardedRequest instead,
 * which has the same shape. Keep one per process.
 */
export function createVendorHttp(options: { connections?: number; keepAliveTimeoutMs?: number } = {}): VendorHttp & { close(): Promise<void> } {
  const agent = new Agent({ connections: options.connections ?? 256, keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000, pipelining: 1 });
  const request: VendorHttp = (url, init) => sendThrough(agent, url, init);
  return Object.assign(request, { close: () => agent.close() });
}
