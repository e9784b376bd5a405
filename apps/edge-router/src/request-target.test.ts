import { parseRequestTarget } from './request-target';

describe('parseRequestTarget', () => {
  it('splits path and query, keeping the query exactly as sent', () => {
    expect(parseRequestTarget('/api/v1/audit-log/?page=2&x=%2F')).toEqual({ valid: true, path: '/api/v1/audit-log/', segments: ['api', 'v1', 'audit-log', ''], search: '?page=2&x=%2F' });
  });

  it('decodes escapes of unreserved characters and upper-cases the others in the forwarded path', () => {
    const target = parseRequestTarget('/api/v1/connectors/git%68ub%3a%c3%a9');
    expect(target).toMatchObject({ valid: true, path: '/api/v1/connectors/github%3A%C3%A9', segments: ['api', 'v1', 'connectors', 'github:é'] });
  });

  it('leaves an already canonical path untouched', () => {
    const target = parseRequestTarget("/link/abc-_.~!$&'()*+,;=:@");
    expect(target).toMatchObject({ valid: true, path: "/link/abc-_.~!$&'()*+,;=:@" });
  });

  it.each([
    ['an encoded slash', '/api%2Fv1'],
    ['an encoded backslash', '/api/%5c'],
    ['a raw backslash', '/api\\v1'],
    ['a dot segment', '/api/./v1'],
    ['a double-dot segment', '/api/../v1'],
    ['an encoded dot segment', '/api/%2e%2E/v1'],
    ['an empty segment', '/api//v1'],
    ['a leading double slash', '//internal'],
    ['double encoding', '/api/%252F'],
    ['a malformed escape', '/api/%4'],
    ['a non-hex escape', '/api/%zz'],
    ['invalid UTF-8', '/api/%ff'],
    ['an encoded control character', '/api/%0a'],
    ['a raw non-ASCII character', '/api/\u00e9'],
    ['a fragment', '/api/v1#x'],
    ['an absolute-form target', 'http://evil.example/api/v1'],
    ['an asterisk-form target', '*'],
  ])('refuses %s', (_what, url) => {
    expect(parseRequestTarget(url)).toEqual({ valid: false, rawPath: url.split('?')[0] });
  });

  it('reads an encoded slash inside a model id as part of it, only as the last segment of /v1/models', () => {
    expect(parseRequestTarget('/v1/models/openai%2fgpt-4o')).toEqual({ valid: true, path: '/v1/models/openai%2Fgpt-4o', segments: ['v1', 'models', 'openai/gpt-4o'], search: '' });
    expect(parseRequestTarget('/v1/openai/models/openai%2Fgpt-4o')).toMatchObject({ valid: true, segments: ['v1', 'openai', 'models', 'openai/gpt-4o'] });
  });

  it.each([
    ['elsewhere', '/v1/keys/openai%2Fgpt-4o'],
    ['not last', '/v1/models/openai%2Fgpt-4o/x'],
    ['leading', '/v1/models/%2Finternal'],
    ['doubled', '/v1/models/a%2F%2Fb'],
    ['with a dot segment', '/v1/models/..%2Finternal'],
  ])('still refuses an encoded slash %s', (_what, url) => {
    expect(parseRequestTarget(url)).toEqual({ valid: false, rawPath: url });
  });

  it('accepts a single trailing slash', () => {
    expect(parseRequestTarget('/')).toMatchObject({ valid: true, path: '/', segments: [''] });
    expect(parseRequestTarget('/v1/')).toMatchObject({ valid: true, segments: ['v1', ''] });
  });
});
