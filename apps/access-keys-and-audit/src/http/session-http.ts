import { SESSION_COOKIE } from '@patchbay/auth';
import type { Request, Response } from 'express';
import type { ClientContext } from '../domain/members/sessions';

// The cookie, the anti-forgery token and the Origin check are shared with every service that takes sessions.
export { CSRF_HEADER, SESSION_COOKIE, assertCsrfToken, assertSameOrigin, csrfTokenFor, isStateChanging, sessionTokenOf } from '@patchbay/auth';

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

export function setSessionCookie(req: Request, res: Response, token: string, maxAgeSeconds: number, publicBaseUrl: string | undefined): void {
  res.cookie(SESSION_COOKIE, token, { httpOnly: true, secure: cameOverHttps(req, publicBaseUrl), sameSite: 'lax', path: '/', maxAge: maxAgeSeconds * 1000 });
}

export function clearSessionCookie(req: Request, res: Response, publicBaseUrl: string | undefined): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, secure: cameOverHttps(req, publicBaseUrl), sameSite: 'lax', path: '/' });
}

/** A sign-in waiting for its second factor: HttpOnly, sent only to the session routes, five minutes. */
export const PENDING_SIGN_IN_COOKIE = 'patchbay_pending_sign_in';
const PENDING_SIGN_IN_PATH = '/api/v1/session';
/** Binds a started single sign-on to the browser that started it (its `state`), sent only to the SSO routes. */
export const SSO_STATE_COOKIE = 'patchbay_sso_state';
const SSO_STATE_PATH = '/api/v1/sso';

export function cookieOf(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}

export function setPendingSignInCookie(req: Request, res: Response, token: string, maxAgeSeconds: number, publicBaseUrl: string | undefined): void {
  res.cookie(PENDING_SIGN_IN_COOKIE, token, { httpOnly: true, secure: cameOverHttps(req, publicBaseUrl), sameSite: 'lax', path: PENDING_SIGN_IN_PATH, maxAge: maxAgeSeconds * 1000 });
}

export function clearPendingSignInCookie(req: Request, res: Response, publicBaseUrl: string | undefined): void {
  res.clearCookie(PENDING_SIGN_IN_COOKIE, { httpOnly: true, secure: cameOverHttps(req, publicBaseUrl), sameSite: 'lax', path: PENDING_SIGN_IN_PATH });
}

export function setSsoStateCookie(req: Request, res: Response, state: string, maxAgeSeconds: number, publicBaseUrl: string | undefined): void {
  // Lax: the identity provider's redirect back is a top-level GET navigation, which carries Lax cookies.
  res.cookie(SSO_STATE_COOKIE, state, { httpOnly: true, secure: cameOverHttps(req, publicBaseUrl), sameSite: 'lax', path: SSO_STATE_PATH, maxAge: maxAgeSeconds * 1000 });
}

export function clearSsoStateCookie(req: Request, res: Response, publicBaseUrl: string | undefined): void {
  res.clearCookie(SSO_STATE_COOKIE, { httpOnly: true, secure: cameOverHttps(req, publicBaseUrl), sameSite: 'lax', path: SSO_STATE_PATH });
}
