import { createHash } from 'node:crypto';
import type { FakeReply, FakeRequest, FakeRoutes } from './fake-server';
import type { FakeClock } from './platform-clock';
import { makeToken } from './platform-tokens';

/**
 * The authorization server side of a platform fake: the OAuth 2.0 authorization-code grant with PKCE
 * (RFC 6749 4.1, RFC 7636) and the refresh grant, as HubSpot, Zoom and Eventbrite run it for their
 * public apps. Browser-less on purpose: the authorize endpoint approves at once, as the user the test
 * chose (`signInAs`, default the platform's first account), and redirects back with `code` and
 * `state`, so a test follows one 302 where a person would click "Allow".
 */

/** The OAuth app registered with the fake (what the operator puts in PATCHBAY_MKTG_<P>_CLIENT_ID/SECRET). */
export interface FakeOAuthApp {
  clientId: string;
  clientSecret: string;
}

/** Why a token request fails, for the platform's own error body. */
export type OAuthFailure =
  | 'invalid_client'
  | 'bad_code'
  | 'bad_redirect_uri'
  | 'pkce_failed'
  | 'bad_refresh_token'
  | 'unsupported_grant_type'
  | 'invalid_request';

export interface PlatformOAuthSpec<A> {
  clock: FakeClock;
  /** Path of the authorize page (`/oauth/authorize`) and of the token endpoint on the fake's host. */
  authorizePath: string;
  /** null: the platform routes its token endpoint itself and calls `handleToken` for these grants (Zoom, whose endpoint also serves Server-to-Server). */
  tokenPath: string | null;
  /** Where the platform takes the client credentials: HTTP Basic (Zoom) or the form body (HubSpot, Eventbrite). */
  clientAuth: 'basic' | 'post';
  /** Lifetime of an access token; null: it does not expire (Eventbrite). */
  accessTokenTtlSeconds: number | null;
  /** Refresh tokens: none (Eventbrite), reused for the app's life (HubSpot), or replaced on every use (Zoom). */
  refresh: 'none' | 'reuse' | 'rotate';
  /** Scope string the token response names. */
  scope: string;
  /** Registers an access token with the platform's API (valid until `expiresAt`, epoch ms on the fake clock, or for ever). */
  issueAccessToken(account: A, expiresAt: number | null): string;
  /** The account that signs in when the test chose none. */
  defaultAccount(): A;
  /** The platform's body for a failed token request. */
  tokenError(failure: OAuthFailure, description: string): FakeReply;
  /** Extra members of a successful token response (Zoom's `api_url`). */
  tokenExtras?: Record<string, unknown>;
  app?: FakeOAuthApp;
}

export interface FakeOAuthControl<A> {
  app: FakeOAuthApp;
  /** Who approves at the next authorize requests (until changed). */
  signInAs(account: A): void;
  /** The next authorize request is refused by the user: redirect with `error=access_denied`. */
  denyNext(): void;
  /** Every refresh token issued so far stops working (the user uninstalled the app): invalid_grant. */
  revokeRefreshTokens(): void;
  /** Every access token issued by the code or refresh grants so far, newest last. */
  issuedAccessTokens(): string[];
  /** Answers a token request (authorization_code or refresh_token grant). */
  handleToken(req: FakeRequest): FakeReply;
}

const CODE_TTL_MS = 10 * 60_000;

interface CodeGrant<A> {
  account: A;
  clientId: string;
  redirectUri: string;
  challenge: string | null;
  method: string | null;
  expiresAt: number;
}

interface RefreshGrant<A> {
  account: A;
  clientId: string;
}

/** Adds the authorize and token routes to `routes` (public routes: the platform's API authentication does not apply). */
export function addOAuthRoutes<A>(routes: FakeRoutes, spec: PlatformOAuthSpec<A>): FakeOAuthControl<A> {
  const app: FakeOAuthApp = spec.app ?? { clientId: makeToken('fake-client-', 8), clientSecret: makeToken('fake-secret-', 16) };
  const codes = new Map<string, CodeGrant<A>>();
  const refreshTokens = new Map<string, RefreshGrant<A>>();
  const issued: string[] = [];
  let signedIn: A | null = null;
  let deny = false;

  const redirect = (target: string, params: Record<string, string | undefined>): FakeReply => {
    const url = new URL(target);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    return { status: 302, headers: { location: url.toString() }, body: '' };
  };

  routes.route('GET', spec.authorizePath, (req) => {
    const q = req.query;
    const clientId = q.get('client_id');
    const redirectUri = q.get('redirect_uri');
    // Before the client and its redirect URI are known good, nothing may be sent back to it (RFC 6749 4.1.2.1): a page of its own.
    if (clientId !== app.clientId) return { status: 400, body: 'The client_id is invalid or the app is not installed.' };
    if (!redirectUri || !/^https?:\/\//.test(redirectUri)) return { status: 400, body: 'The redirect_uri is missing or is not an absolute http(s) URL.' };
    const state = q.get('state') ?? undefined;
    if (q.get('response_type') !== 'code') return redirect(redirectUri, { error: 'unsupported_response_type', state });
    const challenge = q.get('code_challenge');
    const method = q.get('code_challenge_method') ?? (challenge ? 'plain' : null);
    if (method !== null && method !== 'S256' && method !== 'plain') return redirect(redirectUri, { error: 'invalid_request', error_description: 'code_challenge_method must be S256 or plain', state });
    if (deny) {
      deny = false;
      return redirect(redirectUri, { error: 'access_denied', error_description: 'The user denied the request.', state });
    }
    const code = makeToken('code-', 16);
    codes.set(code, { account: signedIn ?? spec.defaultAccount(), clientId, redirectUri, challenge, method, expiresAt: spec.clock.now() + CODE_TTL_MS });
    return redirect(redirectUri, { code, state });
  });

  const handleToken = (req: FakeRequest): FakeReply => {
    const form = formOf(req);
    const client = clientOf(req, form, spec.clientAuth);
    if (!client || client.id !== app.clientId || client.secret !== app.clientSecret) return spec.tokenError('invalid_client', 'The client credentials are missing or invalid.');
    const grant = form.grant_type ?? req.query.get('grant_type') ?? undefined;
    if (grant === 'authorization_code') {
      const code = form.code ?? '';
      const found = codes.get(code);
      // A code works once (RFC 6749 4.1.2): the first exchange consumes it.
      codes.delete(code);
      if (!found || found.clientId !== client.id || found.expiresAt <= spec.clock.now()) return spec.tokenError('bad_code', 'The authorization code is missing, unknown, expired or already used.');
      if (form.redirect_uri !== found.redirectUri) return spec.tokenError('bad_redirect_uri', 'The redirect_uri does not match the one of the authorize request.');
      if (found.challenge !== null) {
        const verifier = form.code_verifier;
        const computed = verifier === undefined ? null : found.method === 'S256' ? createHash('sha256').update(verifier, 'ascii').digest('base64url') : verifier;
        if (computed !== found.challenge) return spec.tokenError('pkce_failed', verifier === undefined ? 'code_verifier is required: the authorize request had a code_challenge.' : 'The code_verifier does not match the code_challenge.');
      }
      return tokensFor(found.account, client.id, null);
    }
    if (grant === 'refresh_token') {
      if (spec.refresh === 'none') return spec.tokenError('unsupported_grant_type', 'This platform issues no refresh tokens.');
      const token = form.refresh_token ?? '';
      const found = refreshTokens.get(token);
      if (!found || found.clientId !== client.id) return spec.tokenError('bad_refresh_token', 'The refresh token is missing, unknown or revoked.');
      return tokensFor(found.account, client.id, token);
    }
    return spec.tokenError('unsupported_grant_type', `grant_type ${grant ?? '(none)'} is not supported.`);
  };
  if (spec.tokenPath !== null) routes.route('POST', spec.tokenPath, handleToken);

  const tokensFor = (account: A, clientId: string, usedRefresh: string | null): FakeReply => {
    const ttl = spec.accessTokenTtlSeconds;
    const accessToken = spec.issueAccessToken(account, ttl === null ? null : spec.clock.now() + ttl * 1000);
    issued.push(accessToken);
    const body: Record<string, unknown> = { access_token: accessToken, token_type: 'bearer' };
    if (spec.refresh !== 'none') {
      let refreshToken = usedRefresh;
      if (refreshToken === null || spec.refresh === 'rotate') {
        if (refreshToken !== null) refreshTokens.delete(refreshToken);
        refreshToken = makeToken('rt-', 20);
        refreshTokens.set(refreshToken, { account, clientId });
      }
      body.refresh_token = refreshToken;
    }
    if (ttl !== null) body.expires_in = ttl;
    body.scope = spec.scope;
    return { body: { ...body, ...spec.tokenExtras } };
  };

  return {
    app,
    signInAs: (account) => {
      signedIn = account;
    },
    denyNext: () => {
      deny = true;
    },
    revokeRefreshTokens: () => refreshTokens.clear(),
    issuedAccessTokens: () => [...issued],
    handleToken,
  };
}

function formOf(req: FakeRequest): Record<string, string | undefined> {
  const json = req.json;
  if (typeof json !== 'object' || json === null) return {};
  return Object.fromEntries(Object.entries(json as Record<string, unknown>).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
}

function clientOf(req: FakeRequest, form: Record<string, string | undefined>, how: 'basic' | 'post'): { id: string; secret: string } | null {
  if (how === 'basic') {
    const basic = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    if (!basic) return null;
    const text = Buffer.from(basic, 'base64').toString('utf8');
    const colon = text.indexOf(':');
    if (colon < 0) return null;
    const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: dec(text.slice(0, colon)), secret: dec(text.slice(colon + 1)) };
  }
  return form.client_id !== undefined && form.client_secret !== undefined ? { id: form.client_id, secret: form.client_secret } : null;
}
