import { createHash, timingSafeEqual } from 'node:crypto';
import { PermissionDeniedError } from '@patchbay/errors';
import { publicRequestUrl } from '@patchbay/pagination';
import type { Request, Response } from 'express';
import type { ClientContext } from '../domain/members/sessions';

/** The console session's cookie: HttpOnly, SameSite=Lax, Path=/, Secure over https. */
export const SESSION_COOKIE = 'patchbay_session';
export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isStateChanging(req: Request): boolean {
  return !SAFE_METHODS.has(req.method);
}

/** The session token from the Cookie header, if any. */
export function sessionTokenOf(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}

/**
 * The anti-forgery token of a session: derived from the session's secret token, so it needs no storage,
 * changes with every sign-in, and cannot be computed without the HttpOnly cookie's value.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHash('sha256').update(`patchbay-csrf:${sessionToken}`).digest('base64url');
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  const first = raw?.split(',')[0]?.trim();
  return first ? first : undefined;
}

/** Whether the client reached Patchbay over https: the edge's X-Forwarded-Proto, or the configured public URL. */
export function cameOverHttps(req: Request, publicBaseUrl: string | undefined): boolean {
  const proto = firstHeader(req.headers['x-forwarded-proto']);
  if (proto) return proto.toLowerCase() === 'https';
  return publicBaseUrl?.startsWith('https:') ?? false;
}

/**
 * The client's address: the last X-Forwarded-For entry, which the edge router appends from the socket
 * it accepted (it drops what clients claim unless a trusted load balancer sits in front), else the socket.
 */
export function clientOf(req: Request): ClientContext {
  const forwarded = req.headers['x-forwarded-for'];
  const list = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  let address = list[list.length - 1] ?? req.socket.remoteAddress ?? 'unknown';
  if (address.startsWith('::ffff:') && address.includes('.')) address = address.slice(7);
  const userAgent = req.headers['user-agent'];
  return { address: address.slice(0, 64), userAgent: typeof userAgent === 'string' ? userAgent : null };
}

/**
 * Cross-site request forgery, first line: a state-changing browser request must come from Patchbay's own
 * origin. Browsers send Origin on every cross-site POST/PATCH/DELETE; a same-origin fetch that omits it
 * still says Sec-Fetch-Site: same-origin.
 */
export function assertSameOrigin(req: Request, publicBaseUrl: string | undefined): void {
  const expected = publicRequestUrl(req, publicBaseUrl).origin;
  const origin = firstHeader(req.headers.origin);
  if (origin !== undefined) {
    if (origin !== expected) {
      throw new PermissionDeniedError(`Cross-site request refused: the Origin ${origin.slice(0, 100)} is not Patchbay's own (${expected}). Use the console at ${expected}/console/.`);
    }
    return;
  }
  if (firstHeader(req.headers['sec-fetch-site']) === 'same-origin') return;
  throw new PermissionDeniedError(`Cross-site request refused: a state-changing request made with a session must carry the Origin header of ${expected} (browsers send it; other clients set it).`);
}

/** Second line: the anti-forgery token GET /api/v1/session returned, in X-CSRF-Token. */
export function assertCsrfToken(req: Request, sessionToken: string): void {
  const given = firstHeader(req.headers[CSRF_HEADER]);
  const expected = csrfTokenFor(sessionToken);
  const ok = given !== undefined && given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
  if (!ok) {
    throw new PermissionDeniedError(
      given === undefined
        ? 'Missing anti-forgery token: send the csrf_token from GET /api/v1/session in the X-CSRF-Token header.'
        : 'Wrong anti-forgery token: send the csrf_token from GET /api/v1/session (it changes at every sign-in) in the X-CSRF-Token header.',
    );
  }
}

export function setSessionCookie(req: Request, res: Response, token: string, maxAgeSeconds: number, publicBaseUrl: string | undefined): void {
  res.cookie(SESSION_COOKIE, token, { httpOnly: true, secure: cameOverHttps(req, publicBaseUrl), sameSite: 'lax', path: '/', maxAge: maxAgeSeconds * 1000 });
}

export function clearSessionCookie(req: Request, res: Response, publicBaseUrl: string | undefined): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, secure: cameOverHttps(req, publicBaseUrl), sameSite: 'lax', path: '/' });
}
