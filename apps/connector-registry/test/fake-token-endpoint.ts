import { randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One refresh request as the provider saw it. */
export interface RefreshRequestSeen {
  clientAuth: 'basic' | 'post' | 'none';
  clientId: string | undefined;
  params: Record<string, string>;
  status: number;
}

export interface FakeTokenEndpoint {
  tokenUrl: string;
  requests: RefreshRequestSeen[];
  /** Makes this refresh token valid; `issued` tells what the endpoint answers for it. */
  grant(refreshToken: string): void;
  /** The refresh token is revoked: the next use answers 400 invalid_grant (RFC 6749 5.2). */
  revoke(refreshToken: string): void;
  /** `ok` issues tokens; `unavailable` answers 503 like a provider outage. */
  mode: 'ok' | 'unavailable';
  /** Whether a refresh also rotates the refresh token (many providers do; some return none). */
  rotateRefreshToken: boolean;
  expiresIn: number;
  /** Holds every answer until `release()`: lets a test keep a refresh in flight while others arrive. */
  hold(): void;
  release(): void;
  /** Access tokens issued, in order. */
  issued: string[];
  close(): Promise<void>;
}

/**
 * The refresh-token grant of an OAuth 2.0 token endpoint (RFC 6749 section 6): client authentication
 * by HTTP Basic or in the body, `invalid_client` (401) for a wrong client, `invalid_grant` (400) for an
 * unknown or revoked refresh token, JSON answers.
 */
export async function startFakeTokenEndpoint(clients: Record<string, string>): Promise<FakeTokenEndpoint> {
  const valid = new Set<string>();
  const requests: RefreshRequestSeen[] = [];
  const issued: string[] = [];
  let gate: Promise<void> | null = null;
  let open: (() => void) | null = null;

  const json = (res: ServerResponse, seen: RefreshRequestSeen, status: number, body: unknown) => {
    seen.status = status;
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };

  const endpoint: FakeTokenEndpoint = {
    tokenUrl: '',
    requests,
    grant: (t) => void valid.add(t),
    revoke: (t) => void valid.delete(t),
    mode: 'ok',
    rotateRefreshToken: true,
    expiresIn: 3600,
    hold() {
      gate = new Promise<void>((resolve) => (open = resolve));
    },
    release() {
      open?.();
      gate = null;
      open = null;
    },
    issued,
    close: () =>
      new Promise<void>((resolve) => {
        endpoint.release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      let raw = '';
      for await (const chunk of req) raw += String(chunk);
      const params = Object.fromEntries(new URLSearchParams(raw));
      const seen: RefreshRequestSeen = { clientAuth: 'none', clientId: params.client_id, params, status: 0 };
      requests.push(seen);
      if (gate) await gate;
      if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== '/token') return json(res, seen, 404, { error: 'not_found' });
      if (endpoint.mode === 'unavailable') return json(res, seen, 503, { error: 'temporarily_unavailable' });
      let secret: string | undefined;
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
      if (basic?.[1]) {
        const [id, pass] = Buffer.from(basic[1], 'base64').toString().split(':');
        seen.clientAuth = 'basic';
        seen.clientId = decodeURIComponent((id ?? '').replace(/\+/g, ' '));
        secret = decodeURIComponent((pass ?? '').replace(/\+/g, ' '));
      } else if (params.client_secret !== undefined) {
        seen.clientAuth = 'post';
        secret = params.client_secret;
      }
      if (!seen.clientId || clients[seen.clientId] !== secret) return json(res, seen, 401, { error: 'invalid_client', error_description: 'Client authentication failed' });
      if (params.grant_type !== 'refresh_token') return json(res, seen, 400, { error: 'unsupported_grant_type' });
      const refreshToken = params.refresh_token ?? '';
      if (!valid.has(refreshToken)) return json(res, seen, 400, { error: 'invalid_grant', error_description: 'The refresh token is invalid or was revoked' });
      const accessToken = `at_${randomBytes(8).toString('hex')}`;
      issued.push(accessToken);
      const body: Record<string, unknown> = { access_token: accessToken, token_type: 'bearer', expires_in: endpoint.expiresIn };
      if (endpoint.rotateRefreshToken) {
        const next = `rt_${randomBytes(8).toString('hex')}`;
        valid.delete(refreshToken);
        valid.add(next);
        body.refresh_token = next;
      }
      return json(res, seen, 200, body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint.tokenUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  return endpoint;
}
