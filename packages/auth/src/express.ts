import { AuthenticationError } from '@patchbay/errors';
import type { Request, RequestHandler } from 'express';
import { parseBearer } from './bearer';
import type { KeyPrincipal, Scope } from './principal';
import { requireScope } from './scope';
import { assertCsrfToken, assertSameOrigin, isStateChanging, requirePermission, sessionKeyPrincipal, sessionTokenOf, type SessionVerifier } from './session';
import type { KeyVerifier } from './verifier';

/** Where services put their verifier so the tsoa hook and middleware find it: `app.locals.keyVerifier`. */
export const VERIFIER_LOCAL = 'keyVerifier';
/** Where services put their console session verifier: `app.locals.sessionVerifier`. */
export const SESSION_VERIFIER_LOCAL = 'sessionVerifier';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      principal?: KeyPrincipal;
    }
  }
}

function verifierOf(req: Request): KeyVerifier {
  const verifier = req.app.locals[VERIFIER_LOCAL] as KeyVerifier | undefined;
  if (!verifier) throw new Error('app.locals.keyVerifier is not set; call app.locals.keyVerifier = new KeyVerifier(...) at boot');
  return verifier;
}

function sessionVerifierOf(req: Request): SessionVerifier {
  const verifier = req.app.locals[SESSION_VERIFIER_LOCAL] as SessionVerifier | undefined;
  if (!verifier) throw new Error('app.locals.sessionVerifier is not set; call app.locals.sessionVerifier = new SessionVerifier(...) at boot');
  return verifier;
}

/**
 * A member's console session: the cookie verified, a state-changing request checked against forgery
 * (Origin and X-CSRF-Token), and the permission the route names held. The principal acts as a key of the
 * session's organization and environment.
 */
export async function authenticateSessionRequest(req: Request, permissions: readonly string[]): Promise<KeyPrincipal> {
  const token = sessionTokenOf(req);
  if (!token) throw new AuthenticationError('Authentication credentials were not provided: send "Authorization: Bearer <key>", or sign in to the console (POST /api/v1/session).');
  const verifier = sessionVerifierOf(req);
  const session = await verifier.verify(token);
  if (isStateChanging(req)) {
    assertSameOrigin(req, verifier.publicBaseUrl);
    assertCsrfToken(req, token);
  }
  for (const permission of permissions) requirePermission(session, permission);
  const principal = sessionKeyPrincipal(session);
  req.principal = principal;
  return principal;
}

function hasBearer(req: Request): boolean {
  return req.headers.authorization !== undefined;
}

/**
 * Express middleware: verifies the bearer key and checks the scope, or, when the route names the
 * permission that guards it and the request carries no key, a member's session holding that permission.
 * Sets `req.principal` either way. A request with both a key and a session cookie is the key's.
 */
export function authenticate(scope?: Scope, options: { permission?: string } = {}): RequestHandler {
  return (req, _res, next) => {
    let work: Promise<KeyPrincipal>;
    if (!hasBearer(req) && sessionTokenOf(req) !== undefined) {
      if (options.permission === undefined) {
        next(new AuthenticationError('This endpoint takes an API key ("Authorization: Bearer <key>"); console sessions cannot call it.'));
        return;
      }
      work = authenticateSessionRequest(req, [options.permission]);
    } else {
      let key: string;
      try {
        key = parseBearer(req.headers.authorization);
      } catch (err) {
        next(err);
        return;
      }
      work = verifierOf(req)
        .verify(key)
        .then((principal) => {
          if (scope) requireScope(principal, scope);
          req.principal = principal;
          return principal;
        });
    }
    work.then(() => next()).catch(next);
  };
}

/**
 * tsoa's `expressAuthentication` hook. Controllers declare the permission a member's session needs and
 * the scope a key needs: `@Security('session', ['view_tool_packs']) @Security('access_key', ['management:all'])`.
 * tsoa tries both and answers with the failure that came last, so the scheme that does not apply fails
 * at once and the credential the caller sent (a bearer key when Authorization is there, else the session
 * cookie) decides the answer. The returned principal becomes `request.user`, mirrored to `request.principal`.
 */
export async function expressAuthentication(request: Request, securityName: string, scopes?: string[]): Promise<KeyPrincipal> {
  if (securityName === 'session') {
    if (hasBearer(request)) throw new AuthenticationError('This request carries an API key; the key decides.');
    return authenticateSessionRequest(request, scopes ?? []);
  }
  if (securityName !== 'access_key') throw new Error(`Unknown security scheme ${securityName}`);
  if (!hasBearer(request) && sessionTokenOf(request) !== undefined && request.app.locals[SESSION_VERIFIER_LOCAL]) {
    throw new AuthenticationError('This request carries a console session; the session decides.');
  }
  const principal = await verifierOf(request).verify(parseBearer(request.headers.authorization));
  for (const scope of scopes ?? []) requireScope(principal, scope as Scope);
  request.principal = principal;
  return principal;
}

/** The verified principal of a request that passed authentication. */
export function principalOf(req: Request): KeyPrincipal {
  if (!req.principal) throw new Error('principalOf called on a route without authentication');
  return req.principal;
}
