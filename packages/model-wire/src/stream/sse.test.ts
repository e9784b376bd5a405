import { SseParser } from './sse';

describe('SseParser', () => {
  test('frames split anywhere, CRLF line ends, comments and multi-line data', () => {
    const parser = new SseParser();
    const out: Array<{ event: string | null; data: string }> = [];
    const text = ': keep-alive\r\nevent: message_start\r\ndata: {"a":1}\r\n\r\ndata: line one\ndata: line two\n\nid: 7\ndata: [DONE]\n\n';
    for (let i = 0; i < text.length; i += 3) parser.push(text.slice(i, i + 3), out);
    expect(out).toEqual([
      { event: 'message_start', data: '{"a":1}' },
      { event: null, data: 'line one\nline two' },
      { event: null, data: '[DONE]' },
    ]);
    expect(parser.pending).toBe(false);
  });

  test('an event cut before its blank line is never returned', () => {
    const parser = new SseParser();
    const out: Array<{ event: string | null; data: string }> = [];
    parser.push('data: {"whole":true}\n\ndata: {"half":', out);
    expect(out).toEqual([{ event: null, data: '{"whole":true}' }]);
    expect(parser.pending).toBe(true);
  });
});
