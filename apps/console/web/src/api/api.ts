import createClient, { type Middleware } from 'openapi-fetch';
import { apiBasePath } from '../config';
import { ApiError, apiErrorFrom, currentCsrfToken, notifySessionExpired } from './client';
import type { components, paths as AccessKeysPaths } from './generated/access-keys-and-audit';
import type { components as RegistryComponents, paths as RegistryPaths } from './generated/connector-registry';
import type { components as RuntimeComponents, paths as RuntimePaths } from './generated/mcp-runtime';
import type { components as GatewayComponents, paths as GatewayPaths } from './generated/model-gateway';
import type { components as UnifiedComponents, paths as UnifiedPaths } from './generated/unified-data';

/** Every public API of the installation, as the edge router serves them under one origin (paths do not overlap). */
type paths = AccessKeysPaths & RegistryPaths & RuntimePaths & GatewayPaths & UnifiedPaths;

/**
 * The console's typed API client: paths, parameters and bodies come from the services' OpenAPI
 * documents (generated/, checked by the build), the session cookie rides along (HttpOnly), every write
 * carries the anti-forgery token, and a 401 goes to the one place that sends the member to sign-in.
 */
const sessionMiddleware: Middleware = {
  onRequest({ request }) {
    const token = currentCsrfToken();
    if (request.method !== 'GET' && token) request.headers.set('x-csrf-token', token);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401) notifySessionExpired();
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: new URL(apiBasePath, window.location.origin).href.replace(/\/$/, ''), credentials: 'same-origin' });
api.use(sessionMiddleware);

/** The answer's data, or an ApiError with the server's message (a network failure becomes one too). */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch {
    throw new ApiError(0, 'network_error', 'Patchbay could not be reached. Check your connection and try again.');
  }
  if (!result.response.ok) throw apiErrorFrom(result.response.status, result.error);
  return result.data as T;
}

export type Schemas = components['schemas'];
export type RegistrySchemas = RegistryComponents['schemas'];
export type RuntimeSchemas = RuntimeComponents['schemas'];
export type GatewaySchemas = GatewayComponents['schemas'];
export type UnifiedSchemas = UnifiedComponents['schemas'];
export type Member = Schemas['MemberRecord'];
export type Role = Schemas['RoleRecord'];
export type AccessKey = Schemas['AccessKeyRecord'];
export type ManagementKey = Schemas['ManagementKeyRecord'];
export type Organization = Schemas['OrganizationRecord'];
export type AuditEvent = Schemas['AuditEventRecord'];
export type PermissionEntry = Schemas['PermissionEntry'];
