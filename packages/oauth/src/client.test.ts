import { TokenExchangeError, authorizeUrl, refreshAccessToken } from './client';
import { pkceChallenge } from './pkce';

const config = { authorize_url: 'https://provider.example/oauth/authorize?prompt=x', token_url: 'https://provider.example/oauth/token' };

function stubFetch(status: number, body: unknown): { fetch: typeof fetch; sent: Array<{ url: string; init: RequestInit }> } {
  const sent: Array<{ url: string; init: RequestInit }> = [];
  const impl = (async (url: string, init: RequestInit) => {
    sent.push({ url, init });
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  }) as unknown as typeof fetch;
  return { fetch: impl, sent };
}

describe('oauth client', () => {
  it('computes the S256 challenge of RFC 7636 appendix B', () => {
    expect(pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('puts the PKCE challenge and state on the authorize URL, keeping the provider parameters', () => {
    const url = new URL(authorizeUrl(config, { clientId: 'c1', redirectUri: 'https://app/cb', scopes: ['a', 'b'], state: 's1', codeChallenge: 'ch' }));
    expect(Object.fromEntries(url.searchParams)).toEqual({
      prompt: 'x', response_type: 'code', client_id: 'c1', redirect_uri: 'https://app/cb', scope: 'a b', state: 's1', code_challenge: 'ch', code_challenge_method: 'S256',
    });
  });

  it('refreshes with the refresh_token grant and the client secret in the body when asked', async () => {
    const stub = stubFetch(200, { access_token: 'at2', refresh_token: 'rt2', expires_in: 1800 });
    const tokens = await refreshAccessToken(stub.fetch, { ...config, token_auth_method: 'client_secret_post' }, { clientId: 'c1', clientSecret: 's3', refreshToken: 'rt1' });
    expect(tokens).toEqual({ access_token: 'at2', refresh_token: 'rt2', expires_in: 1800 });
    expect(Object.fromEntries(new URLSearchParams(String(stub.sent[0]!.init.body)))).toEqual({ grant_type: 'refresh_token', refresh_token: 'rt1', client_id: 'c1', client_secret: 's3' });
  });

  it('reports invalid_grant as refused and a 503 as unavailable', async () => {
    const dead = refreshAccessToken(stubFetch(400, { error: 'invalid_grant', reason: 'Invalid Token!' }).fetch, config, { clientId: 'c', clientSecret: 's', refreshToken: 'r' });
    await expect(dead).rejects.toMatchObject({ kind: 'refused', providerError: 'invalid_grant' });
    const down = refreshAccessToken(stubFetch(503, { message: 'down' }).fetch, config, { clientId: 'c', clientSecret: 's', refreshToken: 'r' });
    await expect(down).rejects.toBeInstanceOf(TokenExchangeError);
    await expect(down).rejects.toMatchObject({ kind: 'unavailable' });
  });
});
