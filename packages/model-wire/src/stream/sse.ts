/** One server-sent event: its `event:` name (null when absent) and its `data:` lines joined by "\n". */
export interface SseFrame {
  event: string | null;
  data: string;
}

/**
 * Incremental SSE parser (WHATWG server-sent events): feed it text as it arrives, take whole events.
 * Comments (`:` lines, keep-alives) and `id:`/`retry:` fields are skipped. An event still open when
 * the input ends is not returned: a cut stream never yields half a frame.
 */
export class SseParser {
  private buffer = '';
  private event: string | null = null;
  private data: string[] = [];

  push(text: string, out: SseFrame[]): void {
    this.buffer = this.buffer === '' ? text : this.buffer + text;
    let start = 0;
    const buffer = this.buffer;
    for (;;) {
      const nl = buffer.indexOf('\n', start);
      if (nl === -1) break;
      let end = nl;
      if (end > start && buffer.charCodeAt(end - 1) === 13) end--;
      this.line(buffer.slice(start, end), out);
      start = nl + 1;
    }
    // A lone "\r" line ending (old Mac style) is legal SSE but no vendor uses it: not handled.
    this.buffer = start === 0 ? buffer : buffer.slice(start);
  }

  private line(line: string, out: SseFrame[]): void {
    if (line === '') {
      if (this.data.length > 0 || this.event !== null) {
        out.push({ event: this.event, data: this.data.length === 1 ? this.data[0]! : this.data.join('\n') });
      }
      this.event = null;
      this.data = [];
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ':' comment
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
  }

  /** Whether an event has started but not ended (bytes after the last blank line). */
  get pending(): boolean {
    return this.buffer.trim() !== '' || this.data.length > 0 || this.event !== null;
  }
}

/** One SSE frame as text: `event:` line when named, then `data:`, then the blank line. */
export function sseFrame(data: string, event?: string): string {
  return event ? `event: ${event}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
}
