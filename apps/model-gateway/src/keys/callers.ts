import { hashAccessKey, MANAGEMENT_KEY_PREFIX } from '@patchbay/auth';
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../http/errors';
import type { GatewayCaches, GatewayKeyPrincipal, OrganizationGatewayData } from './principals';

/**
 * Who calls a model endpoint: a gateway key and its organization's data, both from the in-process
 * caches. Shared by every surface, the request pipeline and the management routes that accept gateway
 * keys, so it sits with the keys at the bottom of the app.
 */
export interface Caller {
  key: GatewayKeyPrincipal;
  org: OrganizationGatewayData;
}

/** The key from `Authorization: Bearer` or Anthropic's `x-api-key`. */
export function rawKeyOf(req: IncomingMessage): string | null {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) return auth.slice(7).trim() || null;
  const apiKey = req.headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey !== '' ? apiKey : null;
}

/** Verifies a gateway key from the in-process cache (no database query in steady state). */
export async function authenticateModelCaller(req: IncomingMessage, caches: GatewayCaches): Promise<Caller> {
  const raw = rawKeyOf(req);
  if (!raw) throw new GatewayError(401, 'authentication_error', 'No API key: send "Authorization: Bearer <API_KEY>" (or x-api-key on the Anthropic surface).', 'missing_api_key');
  if (raw.startsWith(MANAGEMENT_KEY_PREFIX)) {
    throw new GatewayError(401, 'authentication_error', 'Management keys (mgmt_) cannot call model endpoints; use a gateway API key made with POST /v1/keys.', 'management_key_not_allowed');
  }
  return callerOfKeyHash(hashAccessKey(raw), caches);
}

/**
 * The caller of a gateway key by its hash, with the same checks as a request bearing the key: what a
 * batch line runs as (the key that created the batch, checked again when the line runs).
 */
export async function callerOfKeyHash(hash: string, caches: GatewayCaches): Promise<Caller> {
  const key = await caches.keys.lookup(hash);
  if (!key) throw new GatewayError(401, 'invalid_api_key', 'The API key is invalid, deleted or expired.', 'invalid_api_key');
  if (key.disabled) throw new GatewayError(401, 'authentication_error', 'The API key is disabled; re-enable it with PATCH /v1/keys/{hash} {"disabled": false}.', 'api_key_disabled');
  const org = await caches.organizations.lookup(key.organizationId);
  if (!org) throw new GatewayError(401, 'invalid_api_key', 'The API key belongs to no organization.', 'invalid_api_key');
  if (key.customerId && org.customers.get(key.customerId)?.active === false) {
    throw new GatewayError(403, 'permission_error', 'The customer of this key is inactive.', 'customer_inactive');
  }
  return { key, org };
}

/** Whether a model id matches an allowlist or blocklist entry (a trailing `*` is a prefix). */
export function modelMatches(patterns: readonly string[], modelId: string): boolean {
  for (const pattern of patterns) {
    if (pattern.endsWith('*') ? modelId.startsWith(pattern.slice(0, -1)) : pattern === modelId) return true;
  }
  return false;
}

