import { createHash, randomBytes } from 'node:crypto';
import { startFakeHubspot, type FakeHubspot } from '@patchbay/provider-fakes';
import { PlatformError, runSync } from './index';
import { MemorySink } from './testing/memory-sink';
import type { PlatformConnection } from './types';

let hs: FakeHubspot;
beforeEach(async () => {
  hs = await startFakeHubspot();
});
afterEach(async () => {
  await hs.close();
});

const REDIRECT = 'https://app.example.com/cb';
const form = (body: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body).toString() });

/** The tokens a user gets by installing the fake's OAuth app. */
async function install(): Promise<{ access_token: string; refresh_token: string; expires_in: number }> {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({ client_id: hs.oauth.app.clientId, redirect_uri: REDIRECT, response_type: 'code', state: 's', code_challenge: challenge, code_challenge_method: 'S256' });
  const back = await fetch(`${hs.authorizeUrl}?${query}`, { redirect: 'manual' });
  const code = new URL(back.headers.get('location')!).searchParams.get('code')!;
  const res = await fetch(hs.oauthTokenUrl, form({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: hs.oauth.app.clientId, client_secret: hs.oauth.app.clientSecret }));
  return (await res.json()) as { access_token: string; refresh_token: string; expires_in: number };
}

function oauthConn(tokens: { access_token: string; refresh_token: string }, expiresAt: number, refreshes: string[]): PlatformConnection {
  return {
    platform: 'hubspot',
    baseUrl: hs.baseUrl,
    credentials: { access_token: tokens.access_token, refresh_token: tokens.refresh_token, expires_at: String(expiresAt) },
    refreshAccessToken: async () => {
      const res = await fetch(hs.oauthTokenUrl, form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: hs.oauth.app.clientId, client_secret: hs.oauth.app.clientSecret }));
      const body = (await res.json()) as { access_token?: string; expires_in?: number; message?: string };
      if (!body.access_token) throw new PlatformError('credentials_invalid', `HubSpot refused the refresh token (${body.message})`, res.status);
      refreshes.push(body.access_token);
      return { accessToken: body.access_token, expiresAt: hs.clock.now() + (body.expires_in ?? 0) * 1000 };
    },
  };
}

describe('OAuth access tokens', () => {
  it('refreshes an access token the platform says expired (401) once and goes on with the new one', async () => {
    hs.portal.seed({ events: 3, participantsPerEvent: 2 });
    const tokens = await install();
    const refreshes: string[] = [];
    // The stored expiry is still in the future by our clock, but the platform's has passed: the 401 refreshes.
    hs.clock.advance(tokens.expires_in * 1000);
    const outcome = await runSync({ conn: oauthConn(tokens, Date.now() + 3_600_000, refreshes), kind: 'full', modifiedSince: null, checkpoint: null, fieldMappings: [], sink: new MemorySink() });
    expect(outcome.kind).toBe('done');
    expect(refreshes).toHaveLength(1);
    const calls = hs.requests.filter((r) => r.path.startsWith('/marketing/'));
    expect(calls.filter((r) => r.status === 401)).toHaveLength(1);
    expect(calls.filter((r) => r.status === 200).every((r) => r.headers.authorization === `Bearer ${refreshes[0]}`)).toBe(true);
  });

  it('refreshes before the first call when the stored expiry has passed, and reports a dead refresh token as credentials_invalid', async () => {
    hs.portal.seed({ events: 1, participantsPerEvent: 1 });
    const tokens = await install();
    const refreshes: string[] = [];
    const ok = await runSync({ conn: oauthConn(tokens, Date.now() - 1, refreshes), kind: 'full', modifiedSince: null, checkpoint: null, fieldMappings: [], sink: new MemorySink(), tuning: { now: () => new Date() } });
    expect(ok.kind).toBe('done');
    expect(refreshes).toHaveLength(1);
    expect(hs.requests.filter((r) => r.status === 401)).toHaveLength(0);

    hs.oauth.revokeRefreshTokens();
    const dead = await runSync({ conn: oauthConn(tokens, Date.now() - 1, refreshes), kind: 'full', modifiedSince: null, checkpoint: null, fieldMappings: [], sink: new MemorySink() });
    expect(dead).toEqual({ kind: 'credentials_invalid', message: 'HubSpot refused the refresh token (missing or unknown refresh token)' });
  });
});
