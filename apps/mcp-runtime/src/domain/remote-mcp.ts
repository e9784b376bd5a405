import { StringDecoder } from 'node:string_decoder';
import { BlockedDestinationError, discard, OutboundError, outboundFailure, readBody, type OutboundHttp, type OutboundResponse } from '@patchbay/outbound';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SseParser } from './sse';

/** Why a remote MCP server gave no result: a model-facing message comes with each. */
export type RemoteFailure = 'unreachable' | 'blocked_destination' | 'timeout' | 'cancelled' | 'failed';

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
  params?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

/** A JSON-RPC notification a server sent about the call it is working on. */
export interface RemoteNotification {
  method: string;
  params?: Record<string, unknown>;
}

/** A request a server sent while working on a call (sampling, elicitation, roots...). */
export interface RemoteRequest {
  method: string;
  params?: unknown;
}

/** What answers a RemoteRequest: its result, or a JSON-RPC error. */
export type RemoteReply = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/**
 * What the caller of one tools/call wants besides its result. Without any of these the call costs
 * nothing more than before: no progress token is sent, notifications are skipped, and requests
 * other than ping are refused.
 */
export interface RemoteCallHooks {
  /**
   * The agent's progress token. The remote gets a token of ours (unique among every call on the
   * shared session), and its progress notifications come back to `onNotification` with this one.
   */
  progressToken?: string | number;
  /** A notification about this call: `notifications/progress` (with the agent's token) and `notifications/message`. */
  onNotification?(notification: RemoteNotification): void;
  /** A request the server sent while working on this call (ping is answered without it). */
  onRequest?(request: RemoteRequest): Promise<RemoteReply>;
  /** Cancels the call: the server gets `notifications/cancelled` and the call ends as `cancelled`. */
  signal?: AbortSignal;
}

/**
 * The client capabilities Patchbay declares to a remote server at initialize: the agent's own
 * sampling and elicitation, so a server asks only what the agent can answer. Each distinct set has
 * a session of its own.
 */
export interface RemoteClientCapabilities {
  sampling?: Record<string, unknown>;
  elicitation?: Record<string, unknown>;
}

export interface RemoteMcpOptions {
  url: string;
  /** Sent as `Authorization: Bearer <secret>`; never appears in errors. */
  secret: string | null;
  http: OutboundHttp;
  timeoutMs: number;
  /** Largest answer read, in bytes (an SSE stream counts all its events). */
  maxResponseBytes: number;
  capabilities?: RemoteClientCapabilities;
  /** Waits `ms` (tests make it instant); default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
}

const CLIENT_INFO = { name: 'patchbay-mcp-runtime', version: '1.0.0' };

/** The wait before resuming a stream when the server gave no `retry:` (the SDK client's first delay). */
const DEFAULT_RETRY_MS = 1_000;
/** Resumptions of one call's stream without any new event before it gives up. */
const MAX_IDLE_RESUMPTIONS = 3;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** How reading one stream ended: the response, or the stream closed before it (maybe resumable). */
type StreamEnd = { answer: JsonRpcMessage } | { answer: null; lastEventId: string; retryMs: number | null; sawEvent: boolean };

/** What one call tracks while its answer streams in. */
interface CallState {
  id: number;
  session: Session;
  deadline: number;
  hooks: RemoteCallHooks | undefined;
  /** Our progress token on the remote, when the agent gave one. */
  remoteToken: string | undefined;
  /** Whether a timeout sends notifications/cancelled (never for initialize, which may not be cancelled). */
  cancellable: boolean;
}

/**
 * A client of one remote MCP server over the Streamable HTTP transport (protocol 2025-03-26 to
 * 2025-11-25), for the one thing the runtime asks of it: tools/call. It initializes once, keeps the
 * session id and negotiated protocol version the server gave, sends both on every request, and reads
 * the answer as JSON (a message or a batch) or as an SSE stream (see SseParser), stopping at the
 * response to its request. On the way it passes the call's progress and log notifications to the
 * caller, answers `ping`, hands other server requests to the caller (sampling, elicitation) or refuses
 * them, and resumes a stream the server closed before the response (`GET` with `Last-Event-ID` after
 * the `retry:` wait, as SEP-1699 polling asks). A server that forgets the session (404) gets a new
 * initialize and the call once more; so does a connection that broke before any answer. A call the
 * caller cancels, or one past its deadline, is cancelled on the server too (`notifications/cancelled`).
 *
 * It replaces the SDK's Client and StreamableHTTPClientTransport on this path: those build a web
 * Request, Response and stream pipeline and parse every message with zod per call, which was about
 * 430 µs of the runtime's CPU per forwarded call in `pnpm bench mcp --profile`.
 */
export class RemoteMcpClient {
  private session: Promise<Session> | null = null;
  private nextId = 1;
  private readonly url: URL;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: RemoteMcpOptions) {
    this.url = new URL(options.url);
    this.sleep = options.sleep ?? defaultSleep;
  }

  async callTool(name: string, args: Record<string, unknown>, hooks?: RemoteCallHooks): Promise<CallToolResult> {
    const deadline = Date.now() + this.options.timeoutMs;
    for (let attempt = 0; ; attempt += 1) {
      if (hooks?.signal?.aborted) throw new RemoteMcpError('cancelled', 'the call was cancelled');
      const session = await this.currentSession(deadline);
      try {
        const id = this.nextId++;
        const remoteToken = hooks?.progressToken !== undefined ? `patchbay-${id}` : undefined;
        const params = remoteToken ? { name, arguments: args, _meta: { progressToken: remoteToken } } : { name, arguments: args };
        const result = await this.request(session, id, 'tools/call', params, { id, session, deadline, hooks, remoteToken, cancellable: true });
        return asCallToolResult(result);
      } catch (err) {
        const gone = err instanceof SessionGone || (err instanceof OutboundError && err.kind === 'network' && !(err instanceof StreamBroke));
        if (gone) this.session = null;
        if (!(attempt === 0 && gone)) throw describe(err);
      }
    }
  }

  /** Ends the session, if the server keeps one (DELETE with its id, as the transport asks); never throws. */
  async close(): Promise<void> {
    const session = await this.session?.catch(() => null);
    this.session = null;
    if (!session?.id) return;
    const res = await this.options.http(this.url, { method: 'DELETE', headers: this.headers(session, 'application/json, text/event-stream'), timeoutMs: 1_000 }).catch(() => null);
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
    const id = this.nextId++;
    const params = { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: this.options.capabilities ?? {}, clientInfo: CLIENT_INFO };
    const result = (await this.request(opening, id, 'initialize', params, { id, session: opening, deadline, hooks: undefined, remoteToken: undefined, cancellable: false })) as { protocolVersion?: unknown };
    const version = typeof result?.protocolVersion === 'string' ? result.protocolVersion : '';
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(version)) throw new RemoteMcpError('failed', `it answered initialize with protocol version "${version.slice(0, 40)}", which Patchbay does not support`);
    const session: Session = { id: opening.id, protocolVersion: version };
    const note = await this.post(session, { jsonrpc: '2.0', method: 'notifications/initialized' }, deadline);
    discard(note);
    if (note.status === 404 && session.id) throw new SessionGone();
    if (note.status < 200 || note.status >= 300) throw new RemoteMcpError('failed', `it answered notifications/initialized with HTTP ${note.status}`);
    return session;
  }

  private headers(session: Session, accept: string): Record<string, string> {
    const headers: Record<string, string> = { accept, 'mcp-protocol-version': session.protocolVersion };
    if (this.options.secret) headers.authorization = `Bearer ${this.options.secret}`;
    if (session.id) headers['mcp-session-id'] = session.id;
    return headers;
  }

  private post(session: Session, message: object, deadline: number, signal?: AbortSignal): Promise<OutboundResponse> {
    const headers = this.headers(session, 'application/json, text/event-stream');
    headers['content-type'] = 'application/json';
    return this.options.http(this.url, { method: 'POST', headers, body: JSON.stringify(message), signal, timeoutMs: Math.max(1, deadline - Date.now()) });
  }

  /** Sends a message that needs no answer (a response, a cancellation); never throws, never waits. */
  private notify(session: Session, message: object, deadline: number): void {
    this.post(session, message, Math.max(deadline, Date.now() + 5_000)).then(discard, () => undefined);
  }

  /** One JSON-RPC request; the result, or a RemoteMcpError with the server's error. Learns the session id from initialize. */
  private async request(session: Session, id: number, method: string, params: object, call: CallState): Promise<unknown> {
    const signal = call.hooks?.signal;
    let res: OutboundResponse;
    try {
      res = await this.post(session, { jsonrpc: '2.0', id, method, params }, call.deadline, signal);
    } catch (err) {
      throw this.ended(call, err);
    }
    if (res.status === 404 && session.id) {
      discard(res);
      throw new SessionGone();
    }
    if (res.status < 200 || res.status >= 300) {
      const text = (await readBody(res, 2_048, 'truncate').catch(() => ({ bytes: Buffer.alloc(0) }))).bytes.toString('utf8');
      throw new RemoteMcpError('failed', `HTTP ${res.status}${serverSaid(text)}`);
    }
    if (method === 'initialize') session.id = res.headers.get('mcp-session-id') ?? undefined;
    const type = (res.headers.get('content-type') ?? '').toLowerCase();
    let answer: JsonRpcMessage | null;
    if (type.startsWith('text/event-stream')) {
      answer = await this.readUntilAnswer(res, call);
    } else if (type.startsWith('application/json') || type === '') {
      let bytes: Buffer;
      try {
        bytes = (await readBody(res, this.options.maxResponseBytes, 'error')).bytes;
      } catch (err) {
        throw this.ended(call, err, true);
      }
      answer = this.handleMessages(parseJson(bytes.toString('utf8'), 'its answer'), call);
    } else {
      discard(res);
      throw new RemoteMcpError('failed', `it answered with content type "${type.slice(0, 60)}" (expected application/json or text/event-stream)`);
    }
    if (!answer) throw new RemoteMcpError('failed', `its answer held no response to request ${id}`);
    if (answer.error !== undefined) {
      const code = typeof answer.error?.code === 'number' ? answer.error.code : 'unknown';
      const message = typeof answer.error?.message === 'string' ? answer.error.message.slice(0, 300) : 'no message';
      throw new RemoteMcpError('failed', `MCP error ${code}: ${message}`);
    }
    return answer.result;
  }

  /**
   * Reads the call's SSE stream until the response arrives. A stream the server closes before it,
   * after an event with an id, is resumed with GET and `Last-Event-ID` once the server's `retry:`
   * wait has passed (within the call's deadline), as often as the server keeps sending new events.
   */
  private async readUntilAnswer(first: OutboundResponse, call: CallState): Promise<JsonRpcMessage | null> {
    let res = first;
    let idle = 0;
    for (;;) {
      const end = await this.readStream(res, call);
      if (end.answer) return end.answer;
      if (!end.lastEventId) throw new RemoteMcpError('failed', 'its event stream ended before the response, without an event id to resume from');
      idle = end.sawEvent ? 0 : idle + 1;
      if (idle >= MAX_IDLE_RESUMPTIONS) throw new RemoteMcpError('failed', `its event stream ended before the response ${MAX_IDLE_RESUMPTIONS} times in a row without a new event`);
      const wait = end.retryMs ?? DEFAULT_RETRY_MS;
      if (Date.now() + wait >= call.deadline) throw this.ended(call, new OutboundError('timeout', 'no answer in time'));
      await this.sleep(wait);
      if (call.hooks?.signal?.aborted) throw this.ended(call, new OutboundError('aborted', 'the request was cancelled'));
      const headers = this.headers(call.session, 'text/event-stream');
      headers['last-event-id'] = end.lastEventId;
      try {
        res = await this.options.http(this.url, { method: 'GET', headers, signal: call.hooks?.signal, timeoutMs: Math.max(1, call.deadline - Date.now()) });
      } catch (err) {
        throw this.ended(call, err, true);
      }
      const type = (res.headers.get('content-type') ?? '').toLowerCase();
      if (res.status !== 200 || !type.startsWith('text/event-stream')) {
        discard(res);
        throw new RemoteMcpError('failed', `its event stream ended before the response and resuming it (GET with Last-Event-ID) was answered with HTTP ${res.status}`);
      }
    }
  }

  /** Reads one SSE stream until the response to the call arrives or the stream ends. */
  private async readStream(res: OutboundResponse, call: CallState): Promise<StreamEnd> {
    // A multi-byte character may straddle two chunks.
    const decoder = new StringDecoder('utf8');
    const parser = new SseParser();
    let total = 0;
    let sawEvent = false;
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        total += chunk.byteLength;
        if (total > this.options.maxResponseBytes) throw new OutboundError('too_large', `the answer is larger than ${this.options.maxResponseBytes} bytes`);
        if (Date.now() > call.deadline) throw new OutboundError('timeout', 'no answer in time');
        for (const event of parser.push(decoder.write(chunk))) {
          sawEvent = true;
          // Events of another type are not MCP messages; a priming event's empty data carries none.
          if (event.type !== 'message' || event.data.trim() === '') continue;
          const answer = this.handleMessages(parseJson(event.data, 'an event of its stream'), call);
          if (answer) return { answer };
        }
      }
    } catch (err) {
      throw err instanceof RemoteMcpError ? err : this.ended(call, err, true);
    } finally {
      res.body.destroy();
    }
    return { answer: null, lastEventId: parser.eventId, retryMs: parser.retryMs, sawEvent };
  }

  /**
   * Goes through one JSON-RPC message or batch from the server: returns the response to the call if
   * it is there, passes the call's notifications on and answers the server's requests.
   */
  private handleMessages(parsed: unknown, call: CallState): JsonRpcMessage | null {
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as JsonRpcMessage[];
    let answer: JsonRpcMessage | null = null;
    for (const m of messages) {
      if (typeof m !== 'object' || m === null) continue;
      if (m.method === undefined) {
        if (m.id === call.id && (m.result !== undefined || m.error !== undefined)) answer ??= m;
        continue;
      }
      if (typeof m.method !== 'string') continue;
      if (typeof m.id === 'string' || typeof m.id === 'number') this.answerServerRequest(m, call);
      else this.passNotification(m as { method: string; params?: unknown }, call);
    }
    return answer;
  }

  private passNotification(message: { method: string; params?: unknown }, call: CallState): void {
    const hooks = call.hooks;
    if (!hooks?.onNotification) return;
    const params = typeof message.params === 'object' && message.params !== null ? (message.params as Record<string, unknown>) : undefined;
    if (message.method === 'notifications/progress') {
      // Only this call's progress, under the agent's own token.
      if (call.remoteToken === undefined || params?.progressToken !== call.remoteToken) return;
      hooks.onNotification({ method: message.method, params: { ...params, progressToken: hooks.progressToken } });
    } else if (message.method === 'notifications/message') {
      hooks.onNotification({ method: message.method, params });
    }
  }

  /**
   * Answers a request the server sent on the stream of our call, by POST as the transport says:
   * `ping` with an empty result; others through the caller's `onRequest` (sampling, elicitation);
   * anything else with Method not found, so a server waiting on it goes on rather than holding the
   * call until its timeout. The call's stream keeps being read meanwhile.
   */
  private answerServerRequest(message: JsonRpcMessage, call: CallState): void {
    const method = String(message.method);
    const reply = (answer: RemoteReply) => this.notify(call.session, { jsonrpc: '2.0', id: message.id, ...answer }, call.deadline);
    if (method === 'ping') return reply({ result: {} });
    if (!call.hooks?.onRequest) return reply({ error: { code: -32601, message: cannotRelay(method) } });
    call.hooks.onRequest({ method, params: message.params }).then(reply, () => reply({ error: { code: -32603, message: `Internal error: Patchbay could not relay ${method.slice(0, 100)}` } }));
  }

  /**
   * The error for a call that ended without its answer. A call past its deadline or cancelled by
   * the caller is cancelled on the server too, as the cancellation utility asks of a client.
   * `answering`: the server had already started its answer, so the call is not sent again.
   */
  private ended(call: CallState, err: unknown, answering = false): Error {
    const failure = err instanceof RemoteMcpError || err instanceof SessionGone ? err : outboundFailure(err, call.hooks?.signal);
    const cancelled = call.hooks?.signal?.aborted === true;
    if (cancelled || (failure instanceof OutboundError && failure.kind === 'timeout')) {
      if (call.cancellable) {
        const reason = cancelled ? 'The agent cancelled the call.' : 'Patchbay stopped waiting: the call took longer than its timeout.';
        this.notify(call.session, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: call.id, reason } }, call.deadline);
      }
      if (cancelled) return new RemoteMcpError('cancelled', 'the call was cancelled');
    }
    if (answering && failure instanceof OutboundError && failure.kind === 'network') return new StreamBroke(failure.message, failure.code);
    return failure;
  }
}

/** A connection that broke while a request was already being answered. */
class StreamBroke extends OutboundError {
  constructor(message: string, code: string | undefined) {
    super('network', message, code);
  }
}

/** Why a server's request got Method not found, in words its tool can pass on to the model. */
export function cannotRelay(method: string): string {
  const capability = method === 'sampling/createMessage' ? 'sampling' : method === 'elicitation/create' ? 'elicitation' : null;
  return capability
    ? `Method not found: Patchbay cannot relay ${method} on this call; the agent must declare the ${capability} capability at initialize and accept text/event-stream answers.`
    : `Method not found: Patchbay relays only sampling/createMessage and elicitation/create to the agent, not ${method.slice(0, 100)}.`;
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new RemoteMcpError('failed', `${what} is not valid JSON (${JSON.stringify(text.slice(0, 60))})`);
  }
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
    return new RemoteMcpError('cancelled', 'the call was cancelled');
  }
  if (err instanceof SessionGone) return new RemoteMcpError('failed', 'it forgot the session twice in a row');
  return new RemoteMcpError('failed', 'the request failed unexpectedly');
}
