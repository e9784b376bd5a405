export { createPkcePair, pkceChallenge, randomOAuthState } from './pkce';
export { TokenExchangeError, authenticateClient, authorizeUrl, exchangeAuthorizationCode, refreshAccessToken } from './client';
export type { OAuthProviderConfig, OAuthTokens } from './client';
