// tsoa's generated routes import `expressAuthentication` from this module: `access_key` (bearer keys,
// @patchbay/auth) and `session` (a member signed in to the console, this service's sessions).
import { expressAuthentication as keyAuthentication, type KeyPrincipal } from '@patchbay/auth';
import { AuthenticationError, PermissionDeniedError } from '@patchbay/errors';
import { permissionDefinition } from '@patchbay/permissions';
import type { Request } from 'express';
import type { SessionPrincipal } from './domain/members/session-principal';
import { assertCsrfToken, assertSameOrigin, isStateChanging, sessionTokenOf } from './http/session-http';
import { servicesOf } from './services';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      sessionPrincipal?: SessionPrincipal;
      sessionToken?: string;
    }
  }
}

/** Verifies a session cookie, refuses forged state-changing requests, and checks each permission named. */
export async function authenticateSession(request: Request, permissions: readonly string[]): Promise<SessionPrincipal> {
  const token = sessionTokenOf(request);
  if (!token) throw new AuthenticationError('Sign in first: this needs a console session (POST /api/v1/session).');
  const services = servicesOf(request);
  const principal = await services.sessions.authenticate(token);
  if (isStateChanging(request)) {
    assertSameOrigin(request, services.publicBaseUrl);
    assertCsrfToken(request, token);
  }
  for (const permission of permissions) {
    if (!principal.permissions.includes(permission)) {
      const name = permissionDefinition(permission)?.displayName;
      throw new PermissionDeniedError(`This needs the permission ${permission}${name ? ` (${name})` : ''}, which your roles do not grant. Ask an admin of the organization.`);
    }
  }
  request.sessionPrincipal = principal;
  request.sessionToken = token;
  return principal;
}

export async function expressAuthentication(request: Request, securityName: string, scopes?: string[]): Promise<KeyPrincipal | SessionPrincipal> {
  if (securityName === 'session') return authenticateSession(request, scopes ?? []);
  return keyAuthentication(request, securityName, scopes);
}

/** The verified session of a request that passed `@Security('session')`. */
export function sessionOf(request: Request): SessionPrincipal {
  if (!request.sessionPrincipal) throw new Error('sessionOf called on a route without session authentication');
  return request.sessionPrincipal;
}
