import { PlatformError } from './errors';
import { PlatformHttp, jitteredBackoff, ownBackoff, parseRetryAfter, withOAuthRefresh, type PlatformProtocol } from './http';
import type { HttpClient, HttpResponseLike, RequestGate } from './types';
import { hubspotProtocol } from './hubspot';

const now = new Date('2026-11-24T10:00:00.000Z');

function answer(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponseLike {
  const h = new Headers(headers);
  return { status, headers: { get: (n) => h.get(n) }, text: async () => (typeof body === 'string' ? body : JSON.stringify(body)) };
}

/** An HTTP client that gives the answers in order and records what it was asked. */
function scripted(answers: HttpResponseLike[]): { http: HttpClient; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    http: async (url) => {
      asked.push(url);
      const next = answers.shift();
      if (!next) throw new Error('no more answers');
      return next;
    },
  };
}

const protocol: PlatformProtocol = hubspotProtocol({ access_token: 'pat-test' });

describe('the shared HTTP loop', () => {
  it('reads Retry-After as seconds or as a date', () => {
    expect(parseRetryAfter('30', now)).toEqual(new Date('2026-11-24T10:00:30.000Z'));
    expect(parseRetryAfter('1.5', now)).toEqual(new Date('2026-11-24T10:00:01.500Z'));
    expect(parseRetryAfter('2026-11-25T00:00:00Z', now)).toEqual(new Date('2026-11-25T00:00:00.000Z'));
    expect(parseRetryAfter('Wed, 25 Nov 2026 00:00:00 GMT', now)).toEqual(new Date('2026-11-25T00:00:00.000Z'));
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });

  it('returns rate_limited at the Retry-After a 429 gives, without waiting for it', async () => {
    const { http } = scripted([answer(429, { status: 'error', message: 'slow down' }, { 'retry-after': '30' })]);
    const waits: number[] = [];
    const client = new PlatformHttp({ platform: 'hubspot', credentials: {}, baseUrl: 'https://api.example', http }, protocol, { now: () => now, sleep: async (ms) => void waits.push(ms) });
    const err = await client.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlatformError);
    expect(err).toMatchObject({ kind: 'rate_limited', retryAt: new Date('2026-11-24T10:00:30.000Z') });
    expect(waits).toEqual([]);
  });

  it('waits a Retry-After of a second in-run and asks again', async () => {
    const { http, asked } = scripted([answer(429, {}, { 'retry-after': '1' }), answer(200, { ok: true })]);
    const waits: number[] = [];
    const client = new PlatformHttp({ platform: 'hubspot', credentials: {}, baseUrl: 'https://api.example/', http }, protocol, { now: () => now, sleep: async (ms) => void waits.push(ms) });
    expect((await client.request({ method: 'GET', path: '/x', query: { a: 1, b: undefined, c: null } })).body).toEqual({ ok: true });
    expect(waits).toEqual([1000]);
    expect(asked).toEqual(['https://api.example/x?a=1', 'https://api.example/x?a=1']);
  });

  it('paces requests through the gate: learns HubSpot\'s window from its headers, waits a short wait in-run, and pauses as rate_limited on a long one without sending', async () => {
    const learned: string[] = [];
    const waitsGiven = [0, 400, 0, 9_000];
    const gate: RequestGate = {
      take: async (bucket, windowMs) => {
        expect([bucket, windowMs]).toEqual(['ten-secondly', 10_000]);
        return waitsGiven.shift() ?? 0;
      },
      learn: async (bucket, limit, windowMs) => void learned.push(`${bucket} ${limit}/${windowMs}`),
    };
    const limits = { 'x-hubspot-ratelimit-max': '190', 'x-hubspot-ratelimit-interval-milliseconds': '10000', 'x-hubspot-ratelimit-remaining': '150' };
    const { http, asked } = scripted([answer(200, { a: 1 }, limits), answer(200, { a: 2 }, limits)]);
    const waits: number[] = [];
    const client = new PlatformHttp({ platform: 'hubspot', credentials: {}, baseUrl: 'https://api.example', http }, protocol, { now: () => now, sleep: async (ms) => void waits.push(ms) }, undefined, gate);
    await client.request({ method: 'GET', path: '/x' });
    await client.request({ method: 'GET', path: '/y' });
    expect(waits).toEqual([400]);
    // Told once, not on every answer.
    expect(learned).toEqual(['ten-secondly 190/10000']);
    const err = await client.request({ method: 'GET', path: '/z' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'rate_limited', retryAt: new Date(now.getTime() + 9_000) });
    expect(asked).toEqual(['https://api.example/x', 'https://api.example/y']);
  });

  it('an OAuth connection is paced in the same buckets as a token one', () => {
    const base = hubspotProtocol({ access_token: 'at', refresh_token: 'rt' });
    const oauth = withOAuthRefresh(base, { platform: 'hubspot', credentials: { access_token: 'at', refresh_token: 'rt' }, baseUrl: 'https://api.example', refreshAccessToken: async () => ({ accessToken: 'at2', expiresAt: null }) }, () => now);
    expect(oauth).not.toBe(base);
    expect(oauth.bucket?.({ method: 'GET', path: '/x' })).toEqual({ name: 'ten-secondly', windowMs: 10_000 });
    expect(oauth.limitsOf).toBe(base.limitsOf);
  });

  it('retries 5xx with growing jittered waits, then gives up as transient', async () => {
    const { http, asked } = scripted([answer(503, { message: 'down' }), answer(502, ''), answer(500, {}), answer(504, {}), answer(503, {})]);
    const waits: number[] = [];
    const client = new PlatformHttp({ platform: 'hubspot', credentials: {}, baseUrl: 'https://api.example', http }, protocol, { retries: 4, baseBackoffMs: 100, maxBackoffMs: 250, sleep: async (ms) => void waits.push(ms) });
    await expect(client.request({ method: 'GET', path: '/x' })).rejects.toMatchObject({ kind: 'transient', status: 503 });
    expect(asked).toHaveLength(5);
    expect(waits).toHaveLength(4);
    waits.forEach((w, i) => expect(w).toBeLessThanOrEqual(Math.min(250, 100 * 2 ** i)));
  });

  it('keeps backoffs within their bounds', () => {
    for (let i = 0; i < 200; i += 1) {
      const b = jitteredBackoff(3, 200, 5000);
      expect(b).toBeGreaterThanOrEqual(0);
      expect(b).toBeLessThanOrEqual(1600);
      const at = ownBackoff({ streak: 2, now }, 10_000, 300_000).getTime() - now.getTime();
      expect(at).toBeGreaterThanOrEqual(40_000);
      expect(at).toBeLessThanOrEqual(48_000);
    }
    expect(ownBackoff({ streak: 30, now }, 10_000, 300_000).getTime() - now.getTime()).toBeLessThanOrEqual(360_000);
  });
});
