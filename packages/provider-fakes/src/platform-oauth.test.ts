import { createHash, randomBytes } from 'node:crypto';
import { startFakeEventbrite } from './eventbrite';
import { startFakeHubspot } from './hubspot';
import { startFakeZoom } from './zoom';

type Json = Record<string, unknown>;
const REDIRECT = 'https://app.example.com/oauth/callback';

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Follows the fake's authorize page as a browser would: the 302 back to the app, its query. */
async function authorize(url: string, params: Record<string, string>): Promise<URLSearchParams> {
  const res = await fetch(`${url}?${new URLSearchParams({ response_type: 'code', redirect_uri: REDIRECT, state: 'st-1', ...params })}`, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  return location.searchParams;
}

async function token(url: string, form: Record<string, string>, basic?: string): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic) headers.authorization = `Basic ${basic}`;
  const res = await fetch(url, { method: 'POST', headers, body: new URLSearchParams(form).toString() });
  return { status: res.status, body: (await res.json()) as Json };
}

describe('platform fakes: OAuth 2.0 authorization code with PKCE and refresh', () => {
  it('HubSpot: code for tokens only with the right verifier, once; 30-minute tokens that expire; the refresh token stays', async () => {
    const hubspot = await startFakeHubspot();
    try {
      const { clientId, clientSecret } = hubspot.oauth.app;
      const client = { client_id: clientId, client_secret: clientSecret };
      const { verifier, challenge } = pkce();
      const back = await authorize(hubspot.authorizeUrl, { client_id: clientId, code_challenge: challenge, code_challenge_method: 'S256' });
      expect(back.get('state')).toBe('st-1');
      const code = back.get('code')!;
      const wrong = await token(hubspot.oauthTokenUrl, { ...client, grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: pkce().verifier });
      expect(wrong).toMatchObject({ status: 400, body: { status: 'BAD_CODE_VERIFIER', error: 'invalid_grant' } });
      // The failed attempt consumed the code, as a real server does with a code it suspects.
      const again = await token(hubspot.oauthTokenUrl, { ...client, grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
      expect(again).toMatchObject({ status: 400, body: { status: 'BAD_AUTH_CODE', message: 'missing or unknown auth code', error: 'invalid_grant' } });

      const fresh = pkce();
      const code2 = (await authorize(hubspot.authorizeUrl, { client_id: clientId, code_challenge: fresh.challenge, code_challenge_method: 'S256' })).get('code')!;
      const granted = await token(hubspot.oauthTokenUrl, { ...client, grant_type: 'authorization_code', code: code2, redirect_uri: REDIRECT, code_verifier: fresh.verifier });
      expect(granted).toEqual({ status: 200, body: { access_token: expect.any(String), refresh_token: expect.any(String), token_type: 'bearer', expires_in: 1800, scope: expect.any(String) } });
      const call = () => fetch(`${hubspot.baseUrl}/marketing/v3/marketing-events?limit=1`, { headers: { authorization: `Bearer ${String(granted.body.access_token)}` } });
      expect((await call()).status).toBe(200);
      hubspot.clock.advance(1800 * 1000);
      expect(await (await call()).json()).toMatchObject({ category: 'EXPIRED_AUTHENTICATION' });

      const refreshed = await token(hubspot.oauthTokenUrl, { ...client, grant_type: 'refresh_token', refresh_token: String(granted.body.refresh_token) });
      expect(refreshed.body.refresh_token).toBe(granted.body.refresh_token);
      expect((await fetch(`${hubspot.baseUrl}/marketing/v3/marketing-events?limit=1`, { headers: { authorization: `Bearer ${String(refreshed.body.access_token)}` } })).status).toBe(200);
      hubspot.oauth.revokeRefreshTokens();
      expect(await token(hubspot.oauthTokenUrl, { ...client, grant_type: 'refresh_token', refresh_token: String(granted.body.refresh_token) })).toMatchObject({
        status: 400,
        body: { status: 'BAD_REFRESH_TOKEN', message: 'missing or unknown refresh token', error: 'invalid_grant' },
      });
      expect(await token(hubspot.oauthTokenUrl, { client_id: clientId, client_secret: 'nope', grant_type: 'refresh_token', refresh_token: 'x' })).toMatchObject({ status: 401, body: { status: 'BAD_CLIENT_ID' } });
    } finally {
      await hubspot.close();
    }
  });

  it('Zoom: Basic client credentials, rotating refresh tokens, {reason, error} errors; redirects a refusal back', async () => {
    const zoom = await startFakeZoom();
    try {
      const { clientId, clientSecret } = zoom.oauth.app;
      const basic = Buffer.from(`${clientId}:${clientSecret}`).toString('base64');
      const { verifier, challenge } = pkce();
      const code = (await authorize(zoom.authorizeUrl, { client_id: clientId, code_challenge: challenge, code_challenge_method: 'S256' })).get('code')!;
      expect(await token(zoom.tokenUrl, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier })).toEqual({ status: 401, body: { reason: 'Invalid client_id or client_secret', error: 'invalid_client' } });
      const code2 = (await authorize(zoom.authorizeUrl, { client_id: clientId, code_challenge: challenge, code_challenge_method: 'S256' })).get('code')!;
      expect(await token(zoom.tokenUrl, { grant_type: 'authorization_code', code: code2, redirect_uri: REDIRECT }, basic)).toEqual({ status: 400, body: { reason: 'Invalid code_verifier', error: 'invalid_grant' } });
      const code3 = (await authorize(zoom.authorizeUrl, { client_id: clientId, code_challenge: challenge, code_challenge_method: 'S256' })).get('code')!;
      const granted = await token(zoom.tokenUrl, { grant_type: 'authorization_code', code: code3, redirect_uri: REDIRECT, code_verifier: verifier }, basic);
      expect(granted).toMatchObject({ status: 200, body: { token_type: 'bearer', expires_in: 3600, api_url: 'https://api.zoom.us' } });
      const me = await fetch(`${zoom.baseUrl}/users/me`, { headers: { authorization: `Bearer ${String(granted.body.access_token)}` } });
      expect(me.status).toBe(200);

      const refreshed = await token(zoom.tokenUrl, { grant_type: 'refresh_token', refresh_token: String(granted.body.refresh_token) }, basic);
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.refresh_token).not.toBe(granted.body.refresh_token);
      // The replaced refresh token is dead.
      expect(await token(zoom.tokenUrl, { grant_type: 'refresh_token', refresh_token: String(granted.body.refresh_token) }, basic)).toEqual({ status: 400, body: { reason: 'Invalid Token!', error: 'invalid_grant' } });

      zoom.oauth.denyNext();
      const denied = await authorize(zoom.authorizeUrl, { client_id: clientId, code_challenge: challenge, code_challenge_method: 'S256' });
      expect([denied.get('error'), denied.get('state'), denied.get('code')]).toEqual(['access_denied', 'st-1', null]);
      const unknown = await fetch(`${zoom.authorizeUrl}?client_id=nope&redirect_uri=${encodeURIComponent(REDIRECT)}&response_type=code`, { redirect: 'manual' });
      expect(unknown.status).toBe(400);
    } finally {
      await zoom.close();
    }
  });

  it('Zoom: registrants are filtered by status, approved when none is given', async () => {
    const zoom = await startFakeZoom();
    try {
      const { firstWebinarId } = zoom.account.seed({ webinars: 1, registrantsPerWebinar: 2, pastShare: 0 });
      zoom.account.addRegistrant(firstWebinarId, { email: 'p@example.com', status: 'pending' });
      zoom.account.addRegistrant(firstWebinarId, { email: 'd@example.com', status: 'denied' });
      const s2s = await fetch(`${zoom.tokenUrl}?grant_type=account_credentials&account_id=${zoom.account.accountId}`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${zoom.account.clientId}:${zoom.account.clientSecret}`).toString('base64')}` },
      });
      const bearer = `Bearer ${String(((await s2s.json()) as Json).access_token)}`;
      const list = async (status?: string) => {
        const res = await fetch(`${zoom.baseUrl}/webinars/${firstWebinarId}/registrants${status ? `?status=${status}` : ''}`, { headers: { authorization: bearer } });
        return (await res.json()) as { total_records: number; registrants: Array<{ email: string; status: string }> };
      };
      expect((await list()).registrants.map((r) => r.status)).toEqual(['approved', 'approved']);
      expect((await list('pending')).registrants.map((r) => r.email)).toEqual(['p@example.com']);
      expect((await list('denied')).registrants.map((r) => r.email)).toEqual(['d@example.com']);
      expect(await list('bogus')).toMatchObject({ code: 300 });
    } finally {
      await zoom.close();
    }
  });

  it('Eventbrite: tokens that never expire and no refresh grant', async () => {
    const eventbrite = await startFakeEventbrite();
    try {
      const { clientId, clientSecret } = eventbrite.oauth.app;
      const client = { client_id: clientId, client_secret: clientSecret };
      const { verifier, challenge } = pkce();
      const code = (await authorize(eventbrite.authorizeUrl, { client_id: clientId, code_challenge: challenge, code_challenge_method: 'S256' })).get('code')!;
      const granted = await token(eventbrite.oauthTokenUrl, { ...client, grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
      expect(granted).toEqual({ status: 200, body: { access_token: expect.any(String), token_type: 'bearer', scope: '' } });
      eventbrite.clock.advance(365 * 86_400_000);
      const me = await fetch(`${eventbrite.baseUrl}/users/me/`, { headers: { authorization: `Bearer ${String(granted.body.access_token)}` } });
      expect(((await me.json()) as Json).id).toBe(eventbrite.account.userId);
      expect(await token(eventbrite.oauthTokenUrl, { ...client, grant_type: 'refresh_token', refresh_token: 'x' })).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
    } finally {
      await eventbrite.close();
    }
  });
});
