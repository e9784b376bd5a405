import type { Request, RequestHandler } from 'express';
import { parseBearer } from './bearer';
import type { KeyPrincipal, Scope } from './principal';
import { requireScope } from './scope';
import type { KeyVerifier } from './verifier';

/** Where services put their verifier so the tsoa hook and middleware find it: `app.locals.keyVerifier`. */
export const VERIFIER_LOCAL = 'keyVerifier';

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

/** Express middleware: verifies the bearer key, checks the scope, and sets `req.principal`. */
export function authenticate(scope?: Scope): RequestHandler {
  return (req, _res, next) => {
    let key: string;
    try {
      key = parseBearer(req.headers.authorization);
    } catch (err) {
      next(err);
      return;
    }
    verifierOf(req)
      .verify(key)
      .then((principal) => {
        if (scope) requireScope(principal, scope);
        req.principal = principal;
        next();
      })
      .catch(next);
  };
}

/**
 * tsoa's `expressAuthentication` hook. Controllers declare `@Security('access_key', ['management:all'])`;
 * the returned principal becomes `request.user`, and we mirror it to `request.principal`.
 */
export async function expressAuthentication(request: Request, securityName: string, scopes?: string[]): Promise<KeyPrincipal> {
  if (securityName !== 'access_key') throw new Error(`Unknown security scheme ${securityName}`);
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
