import { bearerToken, type FakeReply, type FakeRequest } from './fake-server';

/** Google's error body: `{"error": {"code", "message", "errors": [{"message", "domain", "reason"}], "status"}}`. */
export function googleError(code: number, status: string, message: string, reason: string, domain = 'global', extra: Record<string, string> = {}, headers: Record<string, string> = {}): FakeReply {
  return { status: code, headers, body: { error: { code, message, errors: [{ message, domain, reason, ...extra }], status } } };
}

export const googleNotFound = (message = 'Not Found'): FakeReply => googleError(404, 'NOT_FOUND', message, 'notFound');
export const googleBadRequest = (message: string, reason = 'badRequest'): FakeReply => googleError(400, 'INVALID_ARGUMENT', message, reason);

/** Tokens a fake Google API understands, one set per fake. */
export interface GoogleFakeTokens {
  valid: string;
  /** 403 with reason rateLimitExceeded (Google's usual per-user limit answer), no Retry-After. */
  rateLimited403: string;
  /** 429 Too Many Requests with Retry-After. */
  rateLimited429: string;
  /** 503 backendError on every call. */
  failing: string;
}

/** Authentication and the failure modes every Google API shares, as the `before` hook of a fake. */
export function googleBefore(tokens: GoogleFakeTokens): (req: FakeRequest) => FakeReply | undefined {
  return (req) => {
    const token = bearerToken(req);
    if (!token || !Object.values(tokens).includes(token)) {
      const reply = googleError(
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
        'authError',
        'global',
        { location: 'Authorization', locationType: 'header' },
        { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
      );
      (reply.body as { error: { errors: Array<{ message: string }> } }).error.errors[0]!.message = 'Invalid Credentials';
      return reply;
    }
    if (token === tokens.rateLimited403) return googleError(403, 'PERMISSION_DENIED', 'Rate Limit Exceeded', 'rateLimitExceeded', 'usageLimits');
    if (token === tokens.rateLimited429) return googleError(429, 'RESOURCE_EXHAUSTED', 'Too many concurrent requests for user.', 'rateLimitExceeded', 'usageLimits', {}, { 'retry-after': '42' });
    if (token === tokens.failing) return googleError(503, 'UNAVAILABLE', 'The service is currently unavailable.', 'backendError');
    return undefined;
  };
}

/** Opaque page tokens, as Google's are. */
export const pageToken = {
  encode: (offset: number) => Buffer.from(`o:${offset}`).toString('base64url'),
  decode: (token: string | null): number | undefined => {
    if (token === null) return 0;
    const m = /^o:(\d+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
    return m ? Number(m[1]) : undefined;
  },
};
