import http from 'node:http';

/** What a client saw on the wire for one request: status, headers, body chunks as they arrived, how it ended. */
export interface WireObservation {
  status?: number;
  headers?: http.IncomingHttpHeaders;
  /** Body bytes, as text, in the chunks they arrived in. */
  chunks: string[];
  /** `end`: the response completed cleanly; `error`: the connection broke; `open`: still open when the client gave up. */
  ended: 'end' | 'error' | 'open';
  error?: string;
  body: string;
}

/**
 * Sends one request with node:http and records everything, without interpreting it like an SDK
 * would. A response that is still open after `waitMs` of silence is reported as `open` (a hang
 * or a stall) and the client closes it.
 */
export function wireCall(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown; silenceMs?: number }): Promise<WireObservation> {
  const silenceMs = init.silenceMs ?? 400;
  return new Promise((resolve) => {
    const obs: WireObservation = { chunks: [], ended: 'open', body: '' };
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (ended: WireObservation['ended'], error?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      obs.ended = ended;
      obs.error = error;
      obs.body = obs.chunks.join('');
      req.destroy();
      resolve(obs);
    };
    const quiet = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish('open'), silenceMs);
    };
    const body = init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    const req = http.request(url, { method: init.method ?? 'POST', headers: { 'content-type': 'application/json', ...init.headers }, agent: false }, (res) => {
      obs.status = res.statusCode;
      obs.headers = res.headers;
      quiet();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        obs.chunks.push(chunk);
        quiet();
      });
      res.on('end', () => finish('end'));
      res.on('error', (err) => finish('error', err.message));
      res.on('aborted', () => finish('error', 'aborted'));
      res.on('close', () => {
        if (!res.complete) finish('error', 'closed before the end');
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => finish('error', err.code ?? err.message));
    quiet();
    req.end(body);
  });
}

export interface SseEvent {
  event?: string;
  data: string;
}

/** Splits an SSE body into events (`\n\n` or `\r\n\r\n` separated; `event:` and `data:` lines). */
export function sseEvents(body: string): SseEvent[] {
  return body
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const e: SseEvent = { data: '' };
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith('event:')) e.event = line.slice(6).trim();
        else if (line.startsWith('data:')) e.data += line.slice(5).trim();
      }
      return e;
    });
}

export function parses(data: string): boolean {
  try {
    JSON.parse(data);
    return true;
  } catch {
    return false;
  }
}
