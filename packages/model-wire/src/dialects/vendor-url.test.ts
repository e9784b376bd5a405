import { vendorUrl } from './vendor-url';

describe('vendorUrl', () => {
  it('joins the base without its trailing slashes and the path', () => {
    expect(vendorUrl('https://api.example.com/v1//', '/chat/completions').href).toBe('https://api.example.com/v1/chat/completions');
    expect(vendorUrl('http://127.0.0.1:8080', '/v1/messages').href).toBe('http://127.0.0.1:8080/v1/messages');
  });

  it('parses each base and path once', () => {
    const first = vendorUrl('https://one.example.com/v1', '/responses');
    expect(vendorUrl('https://one.example.com/v1', '/responses')).toBe(first);
    expect(vendorUrl('https://two.example.com/v1', '/responses')).not.toBe(first);
    expect(vendorUrl('https://one.example.com/v1', '/embeddings')).not.toBe(first);
  });

  it('refuses a base that is not a URL, as before', () => {
    expect(() => vendorUrl('not a url', '/chat/completions')).toThrow();
  });
});
