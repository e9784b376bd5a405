/** One dispatched Server-Sent Event. */
export interface SseEvent {
  /** The `event:` field, `message` when the event had none. */
  type: string;
  /** The `data:` lines joined with `\n`; empty for a priming event (`id:` and an empty `data:`). */
  data: string;
  /** The stream's last event id after this event (the `id:` field of this or an earlier event). */
  lastEventId: string;
}

/**
 * An incremental parser of a `text/event-stream` body, as the HTML standard's "event stream
 * interpretation" reads one: lines end in CRLF, LF or CR (also when a CRLF straddles two chunks);
 * a leading BOM is dropped; `:` lines are comments; a field without a colon has an empty value; one
 * space after the colon is removed; `id` sets the last event id (unless it holds NUL) even on an event
 * without data; `retry` takes digits only; unknown fields are ignored; a blank line dispatches the
 * event unless no `data:` line came (an `id:`/`retry:`-only event). A priming event, `id:` plus an empty
 * `data:`, is dispatched with empty data, as the standard says; it carries no message. An unfinished
 * event at the end of the stream is dropped.
 *
 * Text goes in already decoded (the caller's StringDecoder keeps multi-byte characters whole).
 */
export class SseParser {
  private buffer = '';
  private first = true;
  /** The previous chunk ended in CR: an LF at the start of the next chunk belongs to it. */
  private afterCr = false;
  private data: string[] | null = null;
  private type = '';
  private lastEventId = '';
  /** The reconnection time the server asked for with `retry:`, in ms, or null if it never did. */
  retryMs: number | null = null;

  /** The last event id seen so far (for `Last-Event-ID` when resuming). */
  get eventId(): string {
    return this.lastEventId;
  }

  push(text: string): SseEvent[] {
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.afterCr && text.startsWith('\n')) text = text.slice(1);
    this.afterCr = false;
    this.buffer += text;
    const events: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < this.buffer.length; i += 1) {
      const c = this.buffer.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const line = this.buffer.slice(start, i);
      if (c === 13) {
        if (i + 1 < this.buffer.length) {
          if (this.buffer.charCodeAt(i + 1) === 10) i += 1;
        } else {
          this.afterCr = true;
        }
      }
      start = i + 1;
      const event = this.line(line);
      if (event) events.push(event);
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  private line(line: string): SseEvent | null {
    if (line === '') return this.dispatch();
    if (line.charCodeAt(0) === 58 /* : */) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    switch (field) {
      case 'data':
        (this.data ??= []).push(value);
        break;
      case 'event':
        this.type = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break;
    }
    return null;
  }

  private dispatch(): SseEvent | null {
    const data = this.data;
    const type = this.type || 'message';
    this.data = null;
    this.type = '';
    if (data === null) return null;
    return { type, data: data.join('\n'), lastEventId: this.lastEventId };
  }
}
