import { rateLimitHeaders } from './headers';
import type { MeterDecision } from './meter';

function decision(overrides: Partial<MeterDecision> = {}): MeterDecision {
  return {
    allowed: true,
    reason: null,
    rateLimit: { limit: 30, remaining: 12, resetSeconds: 41, resetAt: 1_750_000_041, retryAfterSeconds: null },
    credits: { used: 7, allotment: 100, overage: 0, cycle: '2025-06' },
    epoch: '7a0c1b2e-0000-4000-8000-000000000000',
    ...overrides,
  };
}

describe('rateLimitHeaders', () => {
  it('sends the IETF draft RateLimit-* headers with Reset in seconds from now', () => {
    expect(rateLimitHeaders(decision())).toMatchObject({
      'RateLimit-Limit': '30',
      'RateLimit-Remaining': '12',
      'RateLimit-Reset': '41',
      'RateLimit-Policy': '30;w=60',
    });
  });

  it('sends the X-RateLimit-* equivalents with Reset as Unix time, as the model gateway does', () => {
    expect(rateLimitHeaders(decision())).toMatchObject({
      'X-RateLimit-Limit': '30',
      'X-RateLimit-Remaining': '12',
      'X-RateLimit-Reset': '1750000041',
    });
  });

  it('adds Retry-After only when the call was rate limited', () => {
    expect(rateLimitHeaders(decision())).not.toHaveProperty('Retry-After');
    const limited = decision({
      allowed: false,
      reason: 'rate_limited',
      rateLimit: { limit: 30, remaining: 0, resetSeconds: 60, resetAt: 1_750_000_060, retryAfterSeconds: 13 },
    });
    expect(rateLimitHeaders(limited)['Retry-After']).toBe('13');
    const overAllotment = decision({ allowed: false, reason: 'billing_limit_reached' });
    expect(rateLimitHeaders(overAllotment)).not.toHaveProperty('Retry-After');
  });
});
