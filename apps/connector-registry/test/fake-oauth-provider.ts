import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the provider saw of one token request, for assertions. */
export interface TokenRequestSeen {
  accept: string | undefined;
  clientAuth: 'basic' | 'post' | 'none';
  params: Record<string, string>;
  status: number;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  used: boolean;
}

export interface FakeOAuthProvider {
  url: string;
  authorizeUrl: string;
  tokenUrl: string;
  /** Query of every /authorize request. */
  authorizeRequests: Array<Record<string, string>>;
  tokenRequests: TokenRequestSeen[];
  /** Tokens issued, by access token. */
  issued: Map<string, { refresh_token: string; scope: string }>;
  close(): Promise<void>;
}

/**
 * A local OAuth 2.0 authorization server (RFC 6749 authorization code + RFC 7636 PKCE S256), enough
 * for a browser to sign in: /authorize shows a consent page (Approve / Deny) and redirects back
 * with a code or `error=access_denied`; /token checks the client credentials (Basic or in the
 * body), the code, the redirect_uri and the verifier against the challenge, and answers JSON with
 * the RFC's error codes.
 */
export async function startFakeOAuthProvider(clients: Record<string, string>): Promise<FakeOAuthProvider> {
  const codes = new Map<string, IssuedCode>();
  const authorizeRequests: Array<Record<string, string>> = [];
  const tokenRequests: TokenRequestSeen[] = [];
  const issued = new Map<string, { refresh_token: string; scope: string }>();

  const html = (res: ServerResponse, status: number, body: string) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><body>${body}</body></html>`);
  };
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const redirectBack = (res: ServerResponse, redirectUri: string, params: Record<string, string>) => {
    const target = new URL(redirectUri);
    for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
    res.writeHead(302, { location: target.toString() });
    res.end();
  };

  function authorize(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const q = Object.fromEntries(url.searchParams);
    authorizeRequests.push(q);
    const redirectUri = q.redirect_uri;
    if (!q.client_id || !(q.client_id in clients) || !redirectUri) {
      // RFC 6749 4.1.2.1: never redirect to an unverified redirect URI.
      html(res, 400, '<h1>Unknown client or missing redirect_uri</h1>');
      return;
    }
    if (q.response_type !== 'code' || q.code_challenge_method !== 'S256' || !q.code_challenge) {
      redirectBack(res, redirectUri, { error: 'invalid_request', error_description: 'PKCE with S256 is required', state: q.state ?? '' });
      return;
    }
    const decision = url.searchParams.get('decision');
    if (decision === 'deny') {
      redirectBack(res, redirectUri, { error: 'access_denied', error_description: 'The user denied the request', state: q.state ?? '' });
      return;
    }
    if (decision === 'approve') {
      const code = randomBytes(16).toString('hex');
      codes.set(code, { clientId: q.client_id, redirectUri, codeChallenge: q.code_challenge, scope: q.scope ?? '', used: false });
      redirectBack(res, redirectUri, { code, state: q.state ?? '' });
      return;
    }
    const hidden = Object.entries(q)
      .map(([k, v]) => `<input type="hidden" name="${k}" value="${v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')}">`)
      .join('');
    html(
      res,
      200,
      `<h1>Authorize application</h1><p>Client ${q.client_id} asks for: ${q.scope ?? ''}</p>
       <form method="get" action="/authorize">${hidden}<button name="decision" value="approve" id="approve">Approve</button>
       <button name="decision" value="deny" id="deny">Deny</button></form>`,
    );
  }

  async function token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    const params = Object.fromEntries(new URLSearchParams(raw));
    const seen: TokenRequestSeen = { accept: req.headers.accept, clientAuth: 'none', params, status: 0 };
    tokenRequests.push(seen);
    const reply = (status: number, body: unknown) => {
      seen.status = status;
      json(res, status, body);
    };
    let clientId = params.client_id;
    let secret: string | undefined;
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    if (basic?.[1]) {
      const [id, pass] = Buffer.from(basic[1], 'base64').toString().split(':');
      clientId = decodeURIComponent(id ?? '');
      secret = decodeURIComponent(pass ?? '');
      seen.clientAuth = 'basic';
    } else if (params.client_secret !== undefined) {
      secret = params.client_secret;
      seen.clientAuth = 'post';
    }
    if (!clientId || !(clientId in clients) || clients[clientId] !== secret) {
      reply(401, { error: 'invalid_client', error_description: 'Client authentication failed' });
      return;
    }
    if (params.grant_type !== 'authorization_code') {
      reply(400, { error: 'unsupported_grant_type' });
      return;
    }
    const issuedCode = codes.get(params.code ?? '');
    if (!issuedCode || issuedCode.used || issuedCode.clientId !== clientId) {
      reply(400, { error: 'invalid_grant', error_description: 'The code is invalid or was already used' });
      return;
    }
    if (issuedCode.redirectUri !== params.redirect_uri) {
      reply(400, { error: 'invalid_grant', error_description: 'redirect_uri does not match' });
      return;
    }
    const challenge = createHash('sha256').update(params.code_verifier ?? '').digest('base64url');
    if (!params.code_verifier || challenge !== issuedCode.codeChallenge) {
      reply(400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
      return;
    }
    issuedCode.used = true;
    const accessToken = `at_${randomBytes(12).toString('hex')}`;
    const refreshToken = `rt_${randomBytes(12).toString('hex')}`;
    issued.set(accessToken, { refresh_token: refreshToken, scope: issuedCode.scope });
    reply(200, { access_token: accessToken, refresh_token: refreshToken, token_type: 'bearer', scope: issuedCode.scope, expires_in: 28800 });
  }

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/authorize') {
      authorize(req, res, url);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      token(req, res).catch(() => json(res, 500, { error: 'server_error' }));
      return;
    }
    json(res, 404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    authorizeUrl: `${base}/authorize`,
    tokenUrl: `${base}/token`,
    authorizeRequests,
    tokenRequests,
    issued,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
