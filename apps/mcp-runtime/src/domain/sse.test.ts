import { SseParser } from './sse';

/** Feeds the stream in the given pieces and returns every dispatched event. */
function parse(...chunks: string[]) {
  const parser = new SseParser();
  const events = chunks.flatMap((chunk) => parser.push(chunk));
  return { events, parser };
}

describe('SseParser (the HTML standard event stream interpretation)', () => {
  it('dispatches a priming event (an id and an empty data line) with empty data, then the message', () => {
    const { events, parser } = parse('id: prime-1\ndata: \n\nid: 2\ndata: {"a":1}\n\n');
    expect(events).toEqual([
      { type: 'message', data: '', lastEventId: 'prime-1' },
      { type: 'message', data: '{"a":1}', lastEventId: '2' },
    ]);
    expect(parser.eventId).toBe('2');
  });

  it('ignores comments and an event with no data line, keeping its id and retry', () => {
    const { events, parser } = parse(': keep-alive\n\nid: 7\nretry: 1500\n\n:another\ndata: x\n\n');
    expect(events).toEqual([{ type: 'message', data: 'x', lastEventId: '7' }]);
    expect(parser.retryMs).toBe(1500);
  });

  it('joins several data lines with a line feed and removes only one leading space', () => {
    const { events } = parse('data:{"a":\ndata:  1}\n\n');
    expect(events).toEqual([{ type: 'message', data: '{"a":\n 1}', lastEventId: '' }]);
  });

  it('accepts CRLF, CR and LF line endings, also a CRLF split across two chunks', () => {
    expect(parse('data: a\r\n\r\ndata: b\r\rdata: c\n\n').events.map((e) => e.data)).toEqual(['a', 'b', 'c']);
    expect(parse('data: a\r', '\n\r', '\ndata: b\n\n').events.map((e) => e.data)).toEqual(['a', 'b']);
  });

  it('reassembles an event split anywhere, even inside a field name', () => {
    const text = 'event: message\nid: 1\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
    for (let cut = 1; cut < text.length; cut += 1) {
      expect(parse(text.slice(0, cut), text.slice(cut)).events).toEqual([{ type: 'message', data: '{"jsonrpc":"2.0","id":1,"result":{}}', lastEventId: '1' }]);
    }
  });

  it('drops a leading byte order mark, reads a field without a colon as empty, and ignores unknown fields', () => {
    const { events } = parse('\uFEFFdata\nfoo: bar\n\nevent: ping\ndata: p\n\n');
    expect(events).toEqual([
      { type: 'message', data: '', lastEventId: '' },
      { type: 'ping', data: 'p', lastEventId: '' },
    ]);
  });

  it('ignores a non-numeric retry and an id holding NUL, and drops an unfinished last event', () => {
    const { events, parser } = parse('id: a\nretry: 10s\n\nid: b\0c\ndata: x\n\ndata: never ended');
    expect(events).toEqual([{ type: 'message', data: 'x', lastEventId: 'a' }]);
    expect(parser.retryMs).toBeNull();
  });
});
