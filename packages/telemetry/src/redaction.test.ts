import { REDACTED, redactQuery, redisStatement } from './redaction';

describe('redactQuery', () => {
  test('replaces link tokens, OAuth codes and keys in a query string', () => {
    const redacted = redactQuery('?token=lt_secret&page=2&code=oauth-code');
    expect(redacted).not.toContain('lt_secret');
    expect(redacted).not.toContain('oauth-code');
    expect(new URLSearchParams(redacted).get('token')).toBe(REDACTED);
    expect(new URLSearchParams(redacted).get('page')).toBe('2');
  });

  test('leaves query strings without sensitive parameters as they are', () => {
    expect(redactQuery('?page=2&page_size=50')).toBe('?page=2&page_size=50');
    expect(redactQuery('')).toBe('');
  });
});

describe('redisStatement', () => {
  test('records the command and its key, never the value', () => {
    expect(redisStatement('set', ['cache:key:abc', '{"credential":"secret"}', 'EX', 60])).toBe('set cache:key:abc [3 other arguments]');
    expect(redisStatement('get', ['cache:key:abc'])).toBe('get cache:key:abc');
    expect(redisStatement('ping', [])).toBe('ping');
  });

  test('records only the command for scripts and authentication', () => {
    expect(redisStatement('evalsha', ['abc123', 2, 'bull:q:wait', 'bull:q:id', '{"payload":"secret"}'])).toBe('evalsha [5 arguments]');
    expect(redisStatement('AUTH', ['default', 'hunter2'])).toBe('AUTH [2 arguments]');
  });
});
