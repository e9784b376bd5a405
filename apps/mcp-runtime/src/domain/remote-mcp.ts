import { StringDecoder } from 'node:string_decoder';
import { BlockedDestinationError, discard, OutboundError, outboundFailure, readBody, type OutboundHttp, type OutboundResponse } from '@patchbay/outbound';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** Why a remote MCP server gave no result: a model-facing message comes with each. */
export type RemoteFailure = 'unreachable' | 'blocked_destination' | 'timeout' | 'failed';

export class RemoteMcpError extends Error {
  constructor(
    readonly kind: RemoteFailure,
    message: string,
  ) {
    super(message);
    this.name = 'RemoteMcpError';
  }
}

/** The server forgot our session (HTTP 404 to a request that carried one): start a new one. */
class SessionGone extends Error {}

interface Session {
  /** Mcp-Session-Id, when the server keeps sessions. */
  id: string | undefined;
  protocolVersion: string;
}

interface JsonRpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
}

export interface RemoteMcpOptions {
  url: string;
  /** Sent as `Authorization: Bearer <secret>`; never appears in errors. */
  secret: string | null;
  http: OutboundHttp;
  timeoutMs: number;
  /** Largest answer read, in bytes. */
  maxResponseBytes: number;
}

const CLIENT_INFO = { name: 'patchbay-mcp-runtime', version: '1.0.0' };

/**
 * A client of one remote MCP server over the Streamable HTTP transport (MCP 2025-03-26 and later),
 * for the one thing the runtime asks of it: tools/call. It initializes once, keeps the session id
 * and negotiated protocol version the server gave, sends both on every request, and reads the answer
 * as JSON or as an SSE stream, stopping at the response to its request. A server that forgets the
 * session (404) gets a new initialize and the call once more; so does a connection that broke before
 * any answer.
 *
 * It replaces the SDK's Client and StreamableHTTPClientTransport on this path: those build a web
 * Request, Response and stream pipeline and parse every message with zod per call, which was about
 * 430 µs of the runtime's CPU per forwarded call in `pnpm bench mcp --profile`.
 */
export class RemoteMcpClient {
  private session: Promise<Session> | null = null;
  private nextId = 1;
  private readonly url: URL;

  constructor(private readonly options: RemoteMcpOptions) {
    this.url = new URL(options.url);
  }

  async callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const deadline = Date.now() + this.options.timeoutMs;
    for (let attempt = 0; ; attempt += 1) {
      const session = await this.currentSession(deadline);
      try {
        const result = await this.request(session, 'tools/call', { name, arguments: args }, deadline);
        return asCallToolResult(result);
      } catch (err) {
        const retry = attempt === 0 && (err instanceof SessionGone || (err instanceof OutboundError && err.kind === 'network'));
        if (err instanceof SessionGone || (err instanceof OutboundError && err.kind === 'network')) this.session = null;
        if (!retry) throw describe(err);
      }
    }
  }

  /** Ends the session, if the server keeps one (DELETE with its id, as the transport asks); never throws. */
  async close(): Promise<void> {
    const session = await this.session?.catch(() => null);
    this.session = null;
    if (!session?.id) return;
    const headers: Record<string, string> = { 'mcp-session-id': session.id, 'mcp-protocol-version': session.protocolVersion };
    if (this.options.secret) headers.authorization = `Bearer ${this.options.secret}`;
    const res = await this.options.http(this.url, { method: 'DELETE', headers, timeoutMs: 1_000 }).catch(() => null);
    if (res) discard(res);
  }

  private currentSession(deadline: number): Promise<Session> {
    if (!this.session) {
      const opening = this.initialize(deadline);
      this.session = opening;
      // A failed initialize is not kept: the next call tries again.
      opening.catch(() => {
        if (this.session === opening) this.session = null;
      });
    }
    return this.session.catch((err: unknown) => {
      throw describe(err, true);
    });
  }

  private async initialize(deadline: number): Promise<Session> {
    const opening: Session = { id: undefined, protocolVersion: LATEST_PROTOCOL_VERSION };
    const result = (await this.request(opening, 'initialize', { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO }, deadline)) as { protocolVersion?: unknown };
    const version = typeof result?.protocolVersion === 'string' ? result.protocolVersion : '';
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(version)) throw new RemoteMcpError('failed', `it answered initialize with protocol version "${version.slice(0, 40)}", which Patchbay does not support`);
    const session: Session = { id: opening.id, protocolVersion: version };
    const note = await this.post(session, { jsonrpc: '2.0', method: 'notifications/initialized' }, deadline);
    discard(note);
    if (note.status === 404 && session.id) throw new SessionGone();
    if (note.status < 200 || note.status >= 300) throw new RemoteMcpError('failed', `it answered notifications/initialized with HTTP ${note.status}`);
    return session;
  }

  private post(session: Session, message: object, deadline: number): Promise<OutboundResponse> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': session.protocolVersion,
    };
    if (this.options.secret) headers.authorization = `Bearer ${this.options.secret}`;
    if (session.id) headers['mcp-session-id'] = session.id;
    return this.options.http(this.url, { method: 'POST', headers, body: JSON.stringify(message), timeoutMs: Math.max(1, deadline - Date.now()) });
  }

  /**
   * Answers a request the server sent on the stream of our call, by POST as the transport says:
   * `ping` with an empty result, anything else (sampling, elicitation, roots: capabilities this
   * client never declared) with Method not found, so a server waiting on it goes on rather than
   * holding the call until its timeout. Fire and forget: the call's answer does not wait on it.
   */
  private answerServerRequest(session: Session, message: JsonRpcMessage, deadline: number): void {
    const reply =
      message.method === 'ping'
        ? { jsonrpc: '2.0', id: message.id, result: {} }
        : { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `Method not found: Patchbay's MCP client does not support ${String(message.method).slice(0, 100)}` } };
    this.post(session, reply, deadline).then(discard, () => undefined);
  }

  /** One JSON-RPC request; the result, or a RemoteMcpError with the server's error. Learns the session id from initialize. */
  private async request(session: Session, method: string, params: object, deadline: number): Promise<unknown> {
    const id = this.nextId++;
    const res = await this.post(session, { jsonrpc: '2.0', id, method, params }, deadline);
    if (res.status === 404 && session.id) {
      discard(res);
      throw new SessionGone();
    }
    if (res.status < 200 || res.status >= 300) {
      const text = (await readBody(res, 2_048, 'truncate').catch(() => ({ bytes: Buffer.alloc(0) }))).bytes.toString('utf8');
      throw new RemoteMcpError('failed', `HTTP ${res.status}${serverSaid(text)}`);
    }
    if (method === 'initialize') session.id = res.headers.get('mcp-session-id') ?? undefined;
    const type = res.headers.get('content-type') ?? '';
    const answer = type.startsWith('text/event-stream') ? await this.readStream(session, res, id, deadline) : findResponse(parseJson((await readBody(res, this.options.maxResponseBytes, 'error')).bytes), id);
    if (!answer) throw new RemoteMcpError('failed', `its answer held no response to request ${id}`);
    if (answer.error !== undefined) {
      const code = typeof answer.error?.code === 'number' ? answer.error.code : 'unknown';
      const message = typeof answer.error?.message === 'string' ? answer.error.message.slice(0, 300) : 'no message';
      throw new RemoteMcpError('failed', `MCP error ${code}: ${message}`);
    }
    return answer.result;
  }

  /**
   * Reads an SSE stream until the response to `id` arrives, then stops (the server may keep the
   * stream open for more). Notifications on the way are skipped; requests the server sends while it
   * works on the call are answered (see answerServerRequest), since a server may wait for them.
   */
  private async readStream(session: Session, res: OutboundResponse, id: number, deadline: number): Promise<JsonRpcMessage | null> {
    // A multi-byte character may straddle two chunks.
    const decoder = new StringDecoder('utf8');
    let pending = '';
    let total = 0;
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        total += chunk.byteLength;
        if (total > this.options.maxResponseBytes) throw new OutboundError('too_large', `the answer is larger than ${this.options.maxResponseBytes} bytes`);
        if (Date.now() > deadline) throw new OutboundError('timeout', 'no answer in time');
        pending += decoder.write(chunk);
        let end: number;
        while ((end = eventEnd(pending)) >= 0) {
          const event = pending.slice(0, end);
          pending = pending.slice(end).replace(/^(\r?\n)+/, '');
          const data = eventData(event);
          if (data === null) continue;
          const parsed = parseJson(Buffer.from(data));
          const answer = findResponse(parsed, id);
          if (answer) return answer;
          for (const message of serverRequests(parsed)) this.answerServerRequest(session, message, deadline);
        }
      }
    } catch (err) {
      throw err instanceof RemoteMcpError ? err : outboundFailure(err);
    } finally {
      res.body.destroy();
    }
    return null;
  }
}

/** The requests (a method and an id) among the messages of an SSE event. */
function serverRequests(parsed: unknown): JsonRpcMessage[] {
  const messages = (Array.isArray(parsed) ? parsed : [parsed]) as JsonRpcMessage[];
  return messages.filter((m) => typeof m === 'object' && m !== null && typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number'));
}

/** Where the first complete SSE event of `text` ends (at its blank line), or -1. */
function eventEnd(text: string): number {
  const match = /\r?\n\r?\n/.exec(text);
  return match ? match.index : -1;
}

/** The data of one SSE event (its `data:` lines joined), or null for a comment or an event without data. */
function eventData(event: string): string | null {
  const lines: string[] = [];
  for (const line of event.split(/\r?\n/)) {
    if (line.startsWith('data:')) lines.push(line.slice(line[5] === ' ' ? 6 : 5));
  }
  return lines.length > 0 ? lines.join('\n') : null;
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new RemoteMcpError('failed', 'it answered with malformed JSON');
  }
}

/** The response to request `id` in a message or batch, if any. */
function findResponse(parsed: unknown, id: number): JsonRpcMessage | null {
  const messages = (Array.isArray(parsed) ? parsed : [parsed]) as JsonRpcMessage[];
  return messages.find((m) => typeof m === 'object' && m !== null && m.id === id && m.method === undefined) ?? null;
}

/** The remote's result as it gave it, with the one shape check a tool result needs: content is a list. */
function asCallToolResult(result: unknown): CallToolResult {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) throw new RemoteMcpError('failed', 'its tools/call result is not an object');
  const content = (result as { content?: unknown }).content;
  if (content === undefined) return { ...(result as object), content: [] } as CallToolResult;
  if (!Array.isArray(content) || content.some((c) => typeof c !== 'object' || c === null || typeof (c as { type?: unknown }).type !== 'string')) {
    throw new RemoteMcpError('failed', 'its tools/call result has a content that is not a list of typed items');
  }
  return result as CallToolResult;
}

function serverSaid(text: string): string {
  const trimmed = text.trim().replace(/\s+/g, ' ').slice(0, 200);
  return trimmed ? ` (${trimmed})` : '';
}

/** Every failure as a RemoteMcpError; `opening` for failures before a session existed. */
function describe(err: unknown, opening = false): RemoteMcpError {
  if (err instanceof RemoteMcpError) return err;
  if (err instanceof BlockedDestinationError) return new RemoteMcpError('blocked_destination', err.message);
  if (err instanceof OutboundError) {
    if (err.kind === 'timeout') return new RemoteMcpError('timeout', 'it did not answer in time');
    if (err.kind === 'too_large') return new RemoteMcpError('failed', err.message);
    if (err.kind === 'network') return new RemoteMcpError(opening ? 'unreachable' : 'failed', `the connection failed (${err.code ?? 'network error'})`);
    return new RemoteMcpError('failed', 'the request was cancelled');
  }
  if (err instanceof SessionGone) return new RemoteMcpError('failed', 'it forgot the session twice in a row');
  return new RemoteMcpError('failed', 'the request failed unexpectedly');
}
