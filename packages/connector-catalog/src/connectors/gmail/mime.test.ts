import { ToolError } from '../../core/tool-error';
import { buildMessage, encodeHeaderValue, htmlToText, readBody } from './mime';

const b64url = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

describe('RFC 2822 messages for Gmail', () => {
  it('leaves ASCII headers alone and encodes others as RFC 2047 words under 76 characters', () => {
    expect(encodeHeaderValue('Weekly report')).toBe('Weekly report');
    const encoded = encodeHeaderValue('Réunion de l’équipe produit à Montréal — ordre du jour détaillé ☕');
    const words = encoded.split('\r\n ');
    expect(words.length).toBeGreaterThan(1);
    for (const w of words) {
      expect(w).toMatch(/^=\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=$/);
      expect(w.length).toBeLessThanOrEqual(75);
    }
    const decoded = words.map((w) => Buffer.from(w.slice(10, -2), 'base64').toString('utf8')).join('');
    expect(decoded).toBe('Réunion de l’équipe produit à Montréal — ordre du jour détaillé ☕');
  });

  it('builds headers with CRLF and a base64 body in lines of at most 76 characters', () => {
    const text = buildMessage({ to: ['a@example.com', 'B <b@example.com>'], subject: 'Hi', body: 'x'.repeat(200), inReplyTo: '<m1@example.com>' });
    const [head, body] = text.split('\r\n\r\n');
    expect(head!.split('\r\n')).toEqual([
      'To: a@example.com, B <b@example.com>',
      'Subject: Hi',
      'In-Reply-To: <m1@example.com>',
      'References: <m1@example.com>',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset="UTF-8"',
      'Content-Transfer-Encoding: base64',
    ]);
    for (const line of body!.trimEnd().split('\r\n')) expect(line.length).toBeLessThanOrEqual(76);
    expect(Buffer.from(body!.replace(/\s+/g, ''), 'base64').toString('utf8')).toBe('x'.repeat(200));
  });

  it('refuses a line break in a header value, which would inject headers', () => {
    expect(() => buildMessage({ to: ['a@example.com\r\nBcc: evil@example.com'], subject: 'Hi', body: '' })).toThrow(ToolError);
  });
});

describe('reading Gmail message bodies', () => {
  it('prefers text/plain parts, skips attachments, and falls back to text from HTML', () => {
    const plain = readBody({
      mimeType: 'multipart/mixed',
      parts: [
        { mimeType: 'multipart/alternative', parts: [{ mimeType: 'text/plain', body: { data: b64url('Hi\r\nthere') } }, { mimeType: 'text/html', body: { data: b64url('<p>Hi</p>') } }] },
        { mimeType: 'text/plain', filename: 'notes.txt', body: { size: 5, attachmentId: 'att1' } },
      ],
    });
    expect(plain).toEqual({ text: 'Hi\nthere', attachments: [{ filename: 'notes.txt', mime_type: 'text/plain', size: 5, attachment_id: 'att1' }] });
    expect(readBody({ mimeType: 'text/html', body: { data: b64url('<div>A&amp;B<br>C</div><style>p{}</style>') } }).text).toBe('A&B\nC');
  });

  it('converts HTML entities and blocks to text', () => {
    expect(htmlToText('<p>1 &lt; 2</p><p>&quot;ok&quot;&nbsp;!</p>')).toBe('1 < 2\n"ok" !');
  });
});
