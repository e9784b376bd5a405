// tsoa's generated routes import `expressAuthentication` from this module: `access_key` (bearer keys,
// @patchbay/auth) and `session` (a member signed in to the console, this service's sessions).
import { expressAuthentication as keyAuthentication, requirePermission, type KeyPrincipal } from '@patchbay/auth';
import { AuthenticationError } from '@patchbay/errors';
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
  for (const permission of permissions) requirePermission(principal, permission);
  request.sessionPrincipal = principal;
  request.sessionToken = token;
  return principal;
}

/**
 * A route may take a key or a session (two @Security decorators: tsoa tries both and answers with the
 * failure that came last). The scheme that does not apply fails at once, so the one the caller meant
 * (a bearer key when Authorization is sent, else the session cookie) decides the answer: its failure
 * always comes later. With neither, the scheme declared last (access_key) answers.
 */
export async function expressAuthentication(request: Request, securityName: string, scopes?: string[]): Promise<KeyPrincipal | SessionPrincipal> {
  const hasBearer = request.headers.authorization !== undefined;
  if (securityName === 'session') {
    if (hasBearer) throw new AuthenticationError('This request carries an API key; the key decides.');
    return authenticateSession(request, scopes ?? []);
  }
  if (!hasBearer && sessionTokenOf(request) !== undefined) throw new AuthenticationError('This request carries a session; the session decides.');
  return keyAuthentication(request, securityName, scopes);
}

/** Whose request it is, on a route that takes a key or a session: the organization and environment acted in. */
export function callerOf(request: Request): { organizationId: string; environment: KeyPrincipal['environment'] } {
  const caller = request.sessionPrincipal ?? request.principal;
  if (!caller) throw new Error('callerOf called on a route without authentication');
  return { organizationId: caller.organizationId, environment: caller.environment };
}

/** The verified session of a request that passed `@Security('session')`. */
export function sessionOf(request: Request): SessionPrincipal {
  if (!request.sessionPrincipal) throw new Error('sessionOf called on a route without session authentication');
  return request.sessionPrincipal;
}
