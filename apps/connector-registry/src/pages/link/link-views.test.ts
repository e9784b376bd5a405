import { escapeHtml, renderConnectPage, renderMessagePage } from './link-views';

const hostile = '<script>alert("x")</script>&\'';

describe('magic-link views', () => {
  it('escapes every value placed in the page', () => {
    expect(escapeHtml(hostile)).toBe('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;');
    const html = renderConnectPage({
      connector: { name: hostile, slug: 's', description: hostile, logoUrl: 'https://logo.example/x.svg' },
      pagePath: '/link/"><x',
      userName: hostile,
      form: { fields: [{ name: 'token"', label: hostile, type: 'string', required: true, description: hostile, placeholder: hostile }] },
      values: { 'token"': hostile },
      problem: hostile,
    });
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('"><x');
    expect(html).toContain('&lt;script&gt;');
  });

  it('never writes a secret back into a re-rendered form', () => {
    const html = renderConnectPage({
      connector: { name: 'X', slug: 'x', description: '', logoUrl: '' },
      pagePath: '/link/t',
      userName: 'u',
      form: { fields: [{ name: 'api_key', label: 'API key', type: 'secret', required: true }] },
      values: { api_key: 'sk-very-secret' },
    });
    expect(html).not.toContain('sk-very-secret');
  });

  it('loads no external asset: a remote logo becomes an inline monogram, a data: logo is shown', () => {
    const remote = renderConnectPage({ connector: { name: 'GitHub', slug: 'github', description: '', logoUrl: 'https://github.githubassets.com/favicons/favicon.svg' }, pagePath: '/link/t', userName: 'u' });
    expect(remote).not.toContain('githubassets');
    expect(remote).toContain('>G</div>');
    const inline = renderMessagePage({ title: 't', message: 'm', kind: 'ok', connector: { name: 'X', slug: 'x', description: '', logoUrl: 'data:image/svg+xml;base64,PHN2Zy8+' } });
    expect(inline).toContain('<img class="logo" src="data:image/svg+xml;base64,PHN2Zy8+"');
  });
});
